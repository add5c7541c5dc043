"""The studio with its review API: the app (``app.py``) and ``/api/...`` on one port.

``plan-studio`` runs this file with ``streamlit run``, which finds the ``st.App`` below and
serves it with uvicorn; ``streamlit run studio/app.py`` still serves the app alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

# Run as a script, this file's folder is on sys.path, not the project folder holding the packages.
_PROJECT = str(Path(__file__).resolve().parent.parent)
# ... and studio/ itself off it: its rooms (studio/mcp, studio/api, ...) would hide the libraries
# of those names (`import mcp` would find studio/mcp, not the MCP SDK).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [_PROJECT] + [p for p in sys.path if p != _PROJECT and Path(p or ".").resolve() != _HERE]

import secrets  # noqa: E402

from core import Settings, take_start_secret  # noqa: E402
from studio.api._audit_api import audit_routes  # noqa: E402
from studio.api._fallback import api_fallback  # noqa: E402
from studio.api._origin_guard import exposure_warning, origin_guard  # noqa: E402
from studio.api._review_api import api_routes, make_token  # noqa: E402
from studio.api._rerun_api import rerun_routes  # noqa: E402
from studio.api._run_control_api import run_control_routes  # noqa: E402
from studio.api._run_decisions_api import run_routes  # noqa: E402
from studio.api._grants_api import grant_routes  # noqa: E402
from studio.api._health_api import health_routes  # noqa: E402
from studio.api._sign_in_guard import sign_in_guard  # noqa: E402
from studio.ui._session import get_services, oidc_configured  # noqa: E402
from studio.ui._warm_up import warm_up  # noqa: E402


def _start_secret() -> str | None:
    """The per-start secret of the page's URL (``_sign_in_guard``): the one ``plan-studio`` handed
    over, or one made here for a studio started with ``streamlit run studio/asgi.py``; the
    address to open is printed here, where it is known which. None when people sign in with OIDC
    instead: then the address has no token (one would not be asked for)."""
    handed = take_start_secret()
    port = st.config.get_option("server.port")
    host = st.config.get_option("server.address") or "127.0.0.1"
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host  # listening everywhere: here too
    if oidc_configured():
        print(f"Plan Studio: open http://{shown}:{port}/ and sign in (OIDC: [auth] in .streamlit/secrets.toml)",
              file=sys.stderr, flush=True)
        return None
    secret = handed or secrets.token_urlsafe(32)
    warning = exposure_warning(host, signs_in=bool(_SETTINGS.user_header))
    if warning is not None:
        print(f"Plan Studio: warning: {warning}", file=sys.stderr, flush=True)
    print(f"Plan Studio: open http://{shown}:{port}/?token={secret}", file=sys.stderr, flush=True)
    return secret


_SETTINGS = Settings.from_env()
warm_up()  # before the address is printed: the first page finds the studio ready
# The API answers with the pages' own cached services: one store and one set of tools.
_API = [*api_routes(get_services), *run_routes(get_services), *run_control_routes(get_services),
        *rerun_routes(get_services), *grant_routes(get_services), *audit_routes(get_services)]
app = st.App(Path(__file__).resolve().parent / "app.py",
             routes=[*health_routes(get_services), *_API, api_fallback(_API, get_services)],  # the rest of /api/: JSON 404/405
             lifespan=make_token,
             middleware=[origin_guard(_SETTINGS.allowed_origins),
                         sign_in_guard(secret=_start_secret(), user_header=_SETTINGS.user_header,
                                       trusted_proxies=_SETTINGS.trusted_proxies)])
