# Plan Studio: the studio and `plan-studio worker` from one image (compose.yaml runs both).
# Everything is installed at build time (`uv sync --frozen`, from uv.lock): nothing is fetched at
# run time. The app runs as a user of its own, not root; its data goes in /data.
FROM python:3.11-slim

COPY --from=ghcr.io/astral-sh/uv:0.9 /uv /usr/local/bin/uv
ENV UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT=/opt/plan-studio

WORKDIR /app
# The libraries first (a layer that changes only with uv.lock), then the app with its static assets.
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-install-project
COPY core core
COPY tools tools
COPY studio studio
COPY pages pages
COPY .streamlit .streamlit
RUN uv sync --frozen && rm /usr/local/bin/uv

RUN useradd --create-home --uid 10001 plan && mkdir /data && chown plan /data && chmod 700 /data
USER plan
ENV PATH=/opt/plan-studio/bin:$PATH PLAN_STUDIO_DATA_DIR=/data PYTHONUNBUFFERED=1
EXPOSE 8501
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/readyz', timeout=5)"]
CMD ["plan-studio", "--host", "0.0.0.0", "--port", "8501"]
