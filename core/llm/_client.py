"""``ModelClient``: chat and streaming calls to an OpenAI-compatible endpoint.

It wraps ``openai.OpenAI`` with the SDK's own configuration (``OPENAI_API_KEY``,
``OPENAI_BASE_URL``), so OpenAI, Azure-style proxies, Ollama, vLLM and LM Studio all work.
The SDK's own retries are off: the planner's repair loop is the only retry, so one planner
attempt is one request and tests can count them.

Every failure becomes ``PlannerUnavailable`` with a message a user can act on (the status
and the endpoint's own words, a timeout with its length, a refused connection with the
address, a body that is not JSON or not a chat completion, a stream that stops before the
model finished). ``settings.timeout`` is the limit for a whole request, not for each read,
from connecting to the last byte (``_deadline``), and an answer may not grow past
``MAX_ANSWER_BYTES`` once decompressed (``_body_limit``). The key is never kept by this
class, never shown by ``repr`` and scrubbed from every message and from everything the
model writes (``_redact``), in case an endpoint or the model echoes it back.

``openai`` is imported on first use: importing ``core`` must stay fast for the offline path.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence
from urllib.parse import urlsplit, urlunsplit

from .._errors import PlannerUnavailable, ReplyCut
from .._settings import Settings, api_key
from ._redact import StreamRedactor, redact
from ._server_errors import context_too_small, refuses_response_format

if TYPE_CHECKING:  # pragma: no cover
    import openai

__all__ = ["ModelClient", "Message", "NOT_CONFIGURED", "DEFAULT_BASE_URL", "PLACEHOLDER_KEY"]

# One chat message: {"role": "system" | "user" | "assistant", "content": text}.
Message = Mapping[str, str]

NOT_CONFIGURED = ("No model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a local or "
                  "compatible server), or use the embedded planner.")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Local servers (Ollama, vLLM, LM Studio) ignore the key, but the SDK will not start without one.
PLACEHOLDER_KEY = "not-needed"

# How structured output is asked for, in the order tried: OpenAI's, llama.cpp's, none.
_DIALECTS: tuple[str | None, ...] = ("json_schema", "json_object", None)
# Documented registry (tests/unit/test_registries.py): (endpoint, model) pairs that answered: model loaded.
_WARM: set[tuple[str, str]] = set()
_DETAIL_LIMIT = 400
_QUOTE_LIMIT = 80  # characters of a body that is not what was expected, quoted in the message


class ModelClient:
    """Calls the configured chat model; see the module docstring for the guarantees."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.model = settings.model
        self._sdk: "openai.OpenAI | None" = None
        self._dialect = 0  # index in _DIALECTS: how the endpoint takes structured output
        self._prompt_chars = 0
        self._timeout_used = settings.timeout
        self.last_usage: dict[str, int] | None = None
        self.last_seconds = 0.0

    # -- what the client points at ----------------------------------------------------------
    @property
    def configured(self) -> bool:
        return self.settings.model_configured

    @property
    def endpoint(self) -> str:
        """The base URL as messages show it: without user info, query or fragment."""
        parts = urlsplit(self.settings.base_url or DEFAULT_BASE_URL)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", ""))

    @property
    def structured_output(self) -> bool:
        """False once the endpoint has refused ``response_format``; later calls leave it out."""
        return _DIALECTS[self._dialect] is not None

    @property
    def response_format(self) -> str | None:
        """The structured-output dialect the endpoint takes: "json_schema", "json_object", None."""
        return _DIALECTS[self._dialect]

    @property
    def _warm_key(self) -> tuple[str, str]:
        return (self.endpoint, self.model)

    def loading_notice(self) -> str | None:
        """What to tell the user while the first request to this model is under way: a local
        server may load the model (or read the long prompt for the first time) then. None once
        the model has answered in this process, and for a client with no model configured."""
        if self._warm_key in _WARM or not self.configured:
            return None
        return (f"Waiting for the model {self.model} at {self.endpoint}: its first answer can take a minute or "
                f"more while a local server loads the model (up to {self._first_timeout():g} s).")

    def _first_timeout(self) -> float:
        return max(self.settings.timeout, self.settings.first_timeout)

    def __repr__(self) -> str:
        return (f"ModelClient(model={self.model!r}, endpoint={self.endpoint!r}, "
                f"configured={self.configured})")

    # -- calls ------------------------------------------------------------------------------
    def chat(self, messages: Sequence[Message], *, json_schema: dict[str, Any] | None = None,
             temperature: float | None = None) -> str:
        """The model's reply to ``messages``; asks for JSON matching ``json_schema`` if given.

        Structured output is asked for in OpenAI's dialect (``json_schema``), then, if the
        endpoint refuses that, in llama.cpp's (``json_object`` with a ``schema``, which its
        servers turn into a grammar), then not at all; the client remembers what the endpoint
        took. ``last_usage`` and ``last_seconds`` tell what the call cost.
        """
        sdk = self._client()
        request = self._request(messages, temperature)
        import openai

        began = time.monotonic()
        self.last_usage = None
        try:
            with self._translated_errors("answered with a body that is not valid JSON"):
                if json_schema is None:
                    completion = sdk.chat.completions.create(**request)
                else:
                    completion = self._create_structured(sdk, request, json_schema, began, openai)
        finally:
            self.last_seconds = time.monotonic() - began
        content = self._content(completion)
        _WARM.add(self._warm_key)
        return content

    def _create_structured(self, sdk: "openai.OpenAI", request: dict[str, Any], json_schema: dict[str, Any],
                           began: float, openai: Any) -> Any:
        """One answer, asking for ``json_schema`` in the first dialect the endpoint takes."""
        first_refusal: int | None = None
        while True:
            dialect = _DIALECTS[self._dialect]
            extra = {} if dialect is None else {"response_format": _response_format(dialect, json_schema)}
            if first_refusal is not None:
                # One limit for the whole call: a second request gets what is left.
                left = request["timeout"] - (time.monotonic() - began)
                if left <= 0:
                    raise openai.APITimeoutError(request=None)
                extra["timeout"] = left
            try:
                return sdk.chat.completions.create(**{**request, **extra})
            except openai.APIStatusError as exc:
                if dialect is None or not refuses_response_format(
                        exc.status_code, getattr(exc, "param", None), f"{exc.message} {_error_detail(exc.body)}"):
                    if dialect is None and exc.status_code == first_refusal:
                        # The same refusal without response_format: it was not the cause.
                        self._dialect = 0
                    raise
                first_refusal = exc.status_code if first_refusal is None else first_refusal
                self._dialect += 1

    def stream(self, messages: Sequence[Message], *, temperature: float | None = None) -> Iterator[str]:
        """The reply to ``messages`` as text pieces, yielded as they arrive.

        Raises ``PlannerUnavailable`` when the stream breaks, holds something that is not a
        chat completion chunk, or ends before the model said it had finished.
        """
        sdk = self._client()
        request = self._request(messages, temperature)
        redactor = StreamRedactor()
        self.last_usage = None
        finished = False
        with self._translated_errors("sent a stream event that is not valid JSON"):
            chunks = sdk.chat.completions.create(**request, stream=True)
            with chunks:
                for chunk in chunks:
                    for choice in self._stream_choices(chunk):
                        finished = finished or bool(getattr(choice, "finish_reason", None))
                        text = getattr(getattr(choice, "delta", None), "content", None)
                        if text and isinstance(text, str):
                            safe = redactor.feed(text)
                            if safe:
                                yield safe
        rest = redactor.flush()
        if rest:
            yield rest
        if not finished:
            raise PlannerUnavailable(f"The model at {self.endpoint} stopped streaming before it finished "
                                     "the answer (the stream ended without a finish_reason)")
        _WARM.add(self._warm_key)

    def close(self) -> None:
        if self._sdk is not None:
            self._sdk.close()
            self._sdk = None

    # -- internals --------------------------------------------------------------------------
    def _client(self) -> "openai.OpenAI":
        if not self.configured:
            raise PlannerUnavailable(NOT_CONFIGURED)
        if self._sdk is None:
            import openai

            from ._body_limit import ACCEPTED_ENCODINGS
            from ._deadline import deadline_transport

            base_url = self.settings.base_url or DEFAULT_BASE_URL
            self._sdk = openai.OpenAI(
                api_key=api_key() or PLACEHOLDER_KEY,
                base_url=base_url,
                timeout=self.settings.timeout,
                max_retries=0,
                # The SDK's own defaults, plus one limit on the whole request (not only on
                # each read) and a bound on the answer's size once decompressed. The
                # transport applies the environment's proxy itself (trust_env=False here).
                http_client=openai.DefaultHttpxClient(
                    transport=deadline_transport(base_url, openai.DEFAULT_CONNECTION_LIMITS), trust_env=False,
                    headers={"Accept-Encoding": ACCEPTED_ENCODINGS}),
            )
        return self._sdk

    def _request(self, messages: Sequence[Message], temperature: float | None) -> dict[str, Any]:
        self._prompt_chars = sum(len(m.get("content") or "") for m in messages)
        # The first request to a model may find it loading: it gets the longer limit.
        self._timeout_used = self.settings.timeout if self._warm_key in _WARM else self._first_timeout()
        return {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.settings.temperature if temperature is None else temperature,
            # Without it a small model looping in JSON writes until the context is full.
            "max_tokens": self.settings.max_tokens,
            "timeout": self._timeout_used,
        }

    def _content(self, completion: Any) -> str:
        """The text of the first choice, scrubbed; ``PlannerUnavailable`` naming what is missing
        when the answer is not a chat completion (the SDK does not check its shape)."""
        if isinstance(completion, str):  # what the SDK gives back for a body that is not JSON
            raise PlannerUnavailable(redact(
                f"The model endpoint at {self.endpoint} did not answer with JSON but with "
                f"{_quote(completion)}; is OPENAI_BASE_URL an OpenAI-compatible API?"))
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list):
            raise PlannerUnavailable(f"The model endpoint at {self.endpoint} did not answer with a "
                                     "chat completion (it has no \"choices\" list); is OPENAI_BASE_URL an "
                                     "OpenAI-compatible API?")
        if not choices:
            raise PlannerUnavailable(f"The model endpoint at {self.endpoint} answered without any reply "
                                     "(\"choices\" is empty)")
        message = getattr(choices[0], "message", None)
        if not hasattr(message, "content"):
            raise PlannerUnavailable(f"The model endpoint at {self.endpoint} answered without a message "
                                     "(choices[0] has no \"message\" object)")
        content = getattr(message, "content", None)
        if content is None:
            refusal = getattr(message, "refusal", None)
            if isinstance(refusal, str) and refusal.strip():
                raise PlannerUnavailable(redact(f"The model at {self.endpoint} refused: {_shorten(refusal)}"))
            raise PlannerUnavailable(f"The model endpoint at {self.endpoint} answered with an empty "
                                     "message (its content is null)")
        if not isinstance(content, str):
            raise PlannerUnavailable(f"The model endpoint at {self.endpoint} answered with message content "
                                     f"that is not text but {_json_kind(content)}")
        self.last_usage = _usage(getattr(completion, "usage", None))
        if getattr(choices[0], "finish_reason", None) == "length":
            # The JSON may still parse (a lenient reader finds a complete prefix), but the
            # steps after the cut would be missing without anyone being told.
            raise ReplyCut(self.endpoint, redact(content))
        return redact(content)

    def _stream_choices(self, chunk: Any) -> list[Any]:
        choices = getattr(chunk, "choices", None)
        if not isinstance(choices, list):
            raise PlannerUnavailable(f"The model endpoint at {self.endpoint} sent a stream event that is "
                                     "not a chat completion chunk (it has no \"choices\" list)")
        return choices

    @contextlib.contextmanager
    def _translated_errors(self, not_json: str) -> Iterator[None]:
        """Turn the SDK's exceptions into ``PlannerUnavailable`` with a plain message;
        ``not_json`` says what was wrong when the SDK could not decode what it received.

        The SDK exception is not chained (``from None``): it holds the request, headers
        included, and must not travel into logs or tracebacks.
        """
        import httpx2
        import openai

        try:
            yield
        except openai.APITimeoutError:
            if self._warm_key not in _WARM:
                raise PlannerUnavailable(
                    f"The model at {self.endpoint} timed out after {self._timeout_used:g} s before it finished "
                    "answering its first request; a local server may still be loading the model or reading the manual for the first time. "
                    "Try again in a minute, or allow more time with PLAN_STUDIO_FIRST_TIMEOUT.") from None
            raise PlannerUnavailable(
                f"The model at {self.endpoint} timed out after {self._timeout_used:g} s before it "
                "finished answering; try again, or allow more time with PLAN_STUDIO_TIMEOUT.") from None
        except openai.APIConnectionError as exc:
            if isinstance(exc.__cause__, httpx2.DecodingError):  # too large, or not decodable
                raise PlannerUnavailable(redact(
                    f"The model endpoint at {self.endpoint} sent an answer Plan Studio stopped reading: "
                    f"{_shorten(str(exc.__cause__))}. Is OPENAI_BASE_URL an OpenAI-compatible API?")) from None
            reason = _connection_reason(exc)
            if isinstance(exc.__cause__, httpx2.ConnectError) or reason == "connection refused":
                raise PlannerUnavailable(redact(
                    f"Cannot connect to the model at {self.endpoint}: {reason}. Is the server running, "
                    "and is OPENAI_BASE_URL right?")) from None
            raise PlannerUnavailable(redact(
                f"The connection to the model at {self.endpoint} broke off: {reason}. Try again.")) from None
        except (ValueError, RecursionError) as exc:  # the SDK's json.loads on a broken body or event
            detail = "nested too deeply" if isinstance(exc, RecursionError) else _shorten(str(exc))
            raise PlannerUnavailable(redact(
                f"The model endpoint at {self.endpoint} {not_json} ({detail}); is OPENAI_BASE_URL an "
                "OpenAI-compatible API?")) from None
        except openai.APIStatusError as exc:
            raise PlannerUnavailable(redact(self._status_message(exc))) from None
        except openai.APIError as exc:  # e.g. an error event in the middle of a stream
            raise PlannerUnavailable(redact(
                f"The model at {self.endpoint} reported an error: {exc.message}")) from None
        except openai.OpenAIError as exc:
            raise PlannerUnavailable(redact(f"The model client failed: {exc}")) from None

    def _status_message(self, exc: "openai.APIStatusError") -> str:
        status = exc.status_code
        detail = _error_detail(exc.body) or exc.response.reason_phrase or "no details given"
        too_small = context_too_small(f"{exc.message} {detail}", exc.body, prompt_chars=self._prompt_chars,
                                      max_tokens=self.settings.max_tokens, endpoint=self.endpoint)
        if too_small is not None:
            return too_small
        hint = {
            401: " Check OPENAI_API_KEY.",
            403: " The key is not allowed to use this model.",
            404: f" Check the model name ({self.model}) and OPENAI_BASE_URL.",
            429: " The endpoint is rate limiting or out of quota; wait and try again.",
        }.get(status, " The endpoint failed; try again later." if status >= 500 else "")
        return f"The model endpoint at {self.endpoint} answered HTTP {status}: {detail}.{hint}"


def _response_format(dialect: str, json_schema: dict[str, Any]) -> dict[str, Any]:
    if dialect == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "plan", "schema": json_schema, "strict": False}}
    return {"type": "json_object", "schema": json_schema}  # llama.cpp's servers: a grammar from the schema


def _usage(usage: Any) -> dict[str, int] | None:
    """Token counts of a completion, if the endpoint gave them as numbers."""
    counts = {name: getattr(usage, name, None) for name in ("prompt_tokens", "completion_tokens")}
    if all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()):
        return counts  # type: ignore[return-value]
    return None


def _error_detail(body: object) -> str:
    """The endpoint's own words about an error, from whatever shape of body it sent."""
    if isinstance(body, Mapping):
        for key in ("message", "detail", "error", "msg"):
            value = body.get(key)
            if isinstance(value, str) and value.strip():
                return _shorten(value)
            if isinstance(value, Mapping):
                return _error_detail(value)
        return _shorten(json.dumps(body, default=str)) if body else ""
    if isinstance(body, str):
        return _shorten(body)
    return ""


def _connection_reason(exc: "openai.APIConnectionError") -> str:
    cause = exc.__cause__ or exc.__context__
    text = str(cause) if cause is not None else ""
    if "refused" in text.lower():
        return "connection refused"
    return _shorten(text) if text else "the connection failed"


def _json_kind(value: object) -> str:
    kinds = {bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "an object"}
    return kinds.get(type(value), f"a {type(value).__name__}")


def _quote(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return "an empty body"
    return repr(text if len(text) <= _QUOTE_LIMIT else text[:_QUOTE_LIMIT - 1] + "…")


def _shorten(text: str) -> str:
    text = " ".join(text.split()).rstrip(".")
    return text if len(text) <= _DETAIL_LIMIT else text[:_DETAIL_LIMIT - 1] + "…"
