"""A scripted OpenAI-compatible chat server for tests: a real socket on 127.0.0.1.

A test queues what the "model" answers, in order, then points the real ``openai`` client
at ``server.base_url``. Every request body (and its Authorization header) is recorded, so
tests can count calls and read the messages the planner sent.

    server.reply('{"steps": [...]}')          # a normal answer (streamed if asked to stream)
    server.fail(500, "model overloaded")      # an HTTP error with an OpenAI-style body
    server.reply("...", delay=5)              # answer late, to cause a client timeout
    server.reply("partial text", stream_error_after=2, error="backend died")
    server.reject_response_format()           # from now on, 400 for any response_format
    server.raw(b'{"choices": [')              # a 200 whose body is exactly these bytes
    server.raw(b'{"id": 1}', declared_length=500)   # ...and claims more than it sends, then hangs up
    server.reply("partial", stream_end_after=1)     # streamed: one chunk, then the body ends
    server.raw_stream(['{"choices": [', ...])       # streamed: these ``data:`` payloads as they are
    server.trickle()                          # 200, then one byte every 0.2 s until the client leaves
    server.slow_headers(every=0.3)            # the status line, then one header line every 0.3 s
    server.raw(gzip_bomb(1 << 30), content_encoding="gzip")   # ~1 MB that inflates to 1 GiB

``LLMServer(dialect=..., n_ctx=...)`` answers as a real local server does before any scripted
reply is used: its status codes and error bodies for a ``response_format`` it does not take
and for a request larger than its context (``n_ctx`` tokens, a token counted as 4 characters
of the messages), as the servers' own code words them:

- ``llama_cpp``: llama-cpp-python's ``llama_cpp.server``: HTTP 500 "Input should be 'text' or
  'json_object'" to ``json_schema``; takes ``{"type": "json_object", "schema": S}``; HTTP 400
  "This model's maximum context length is N tokens. However, you requested ..."; one request
  at a time.
- ``llama_server``: llama.cpp's own C++ ``llama-server``: HTTP 400 ``exceed_context_size_error``
  with ``n_prompt_tokens`` and ``n_ctx``.
- ``vllm``: vLLM: a top-level ``{"object": "error", "message": ...}`` body, HTTP 400, worded
  "... your request has P input tokens ..." (with ``max_tokens`` too large, or the prompt alone).
- ``ollama``: Ollama: HTTP 500 "the input length exceeds the context length", no numbers.

An empty queue answers 500 "no scripted reply left", so an unexpected extra call fails
the test loudly instead of hanging.
"""

from __future__ import annotations

import json
import queue
import threading
import struct
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["LLMServer", "ScriptedReply", "gzip_bomb"]


@dataclass
class ScriptedReply:
    content: str = ""
    status: int = 200
    error: str | None = None
    delay: float = 0.0
    chunks: list[str] | None = None          # how a streamed reply is split; default: by words
    stream_error_after: int | None = None    # streamed: send this many chunks, then an error event
    stream_end_after: int | None = None      # streamed: send this many chunks, then end the body
    body: bytes | None = None                # sent as it is instead of a completion
    content_type: str = "application/json"   # of ``body``
    declared_length: int | None = None       # a Content-Length larger than ``body``, then hang up
    events: list[str] | None = None          # streamed: raw ``data:`` payloads, then [DONE]
    trickle: bool = False                    # one byte every 0.2 s, forever
    header_every: float | None = None        # seconds between header lines that never end
    content_encoding: str | None = None      # of ``body``, which is sent already encoded
    finish_reason: str = "stop"              # "length": the model hit its token limit
    error_body: dict[str, Any] | None = None  # an error answered with exactly this body


@dataclass
class LLMServer:
    replies: deque[ScriptedReply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth_headers: list[str | None] = field(default_factory=list)
    accept_encodings: list[str | None] = field(default_factory=list)
    # Seconds from the first header line to the client hanging up, per slow-headers reply the
    # client gave up on (a client that waited out the whole trickle puts nothing): ``hung_up()``.
    _hang_ups: queue.Queue[float] = field(default_factory=queue.Queue)
    refuses_response_format: bool = False
    dialect: str = "openai"                  # how a local server answers: see the module docstring
    n_ctx: int | None = None                 # its context, in tokens; None: unbounded
    _one_at_a_time: threading.Lock = field(default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)

    # -- scripting --------------------------------------------------------------------------
    def reply(self, content: str, *, delay: float = 0.0, chunks: list[str] | None = None,
              stream_error_after: int | None = None, error: str | None = None,
              stream_end_after: int | None = None, finish_reason: str = "stop") -> None:
        self.replies.append(ScriptedReply(content=content, delay=delay, chunks=chunks,
                                          stream_error_after=stream_error_after, error=error,
                                          stream_end_after=stream_end_after, finish_reason=finish_reason))

    def raw(self, body: bytes, *, declared_length: int | None = None,
            content_type: str = "application/json", content_encoding: str | None = None) -> None:
        """A 200 answer whose body is ``body``, whatever it holds (sent as it is, even when
        ``content_encoding`` says it is compressed)."""
        self.replies.append(ScriptedReply(body=body, declared_length=declared_length,
                                          content_type=content_type, content_encoding=content_encoding))

    def slow_headers(self, every: float) -> None:
        """"HTTP/1.1 200 OK", then one header line every ``every`` seconds; the headers never
        end (for at most ``_SLOW_HEADERS_FOR`` seconds, so a client that never gives up fails
        its test instead of hanging it)."""
        self.replies.append(ScriptedReply(header_every=every))

    def raw_stream(self, events: list[str]) -> None:
        """A streamed answer made of these ``data:`` payloads as they are, then ``[DONE]``."""
        self.replies.append(ScriptedReply(events=events))

    def trickle(self) -> None:
        """A 200 that never ends: one byte every 0.2 s until the client hangs up."""
        self.replies.append(ScriptedReply(trickle=True))

    def fail(self, status: int, message: str, *, delay: float = 0.0) -> None:
        self.replies.append(ScriptedReply(status=status, error=message, delay=delay))

    def reject_response_format(self) -> None:
        self.refuses_response_format = True

    def hung_up(self) -> float:
        """Seconds the client listened to slow headers before it hung up, on this server's clock;
        waits for the server to see it (it does at its next header line). Fails if the client
        stayed on until the headers stopped (``_SLOW_HEADERS_FOR``)."""
        try:
            return self._hang_ups.get(timeout=_SLOW_HEADERS_FOR + 5)
        except queue.Empty:
            raise AssertionError(f"the client never hung up on headers trickling for {_SLOW_HEADERS_FOR} s") from None

    # -- reading what was asked -------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def messages(self, n: int) -> list[dict[str, Any]]:
        return self.requests[n]["messages"]

    def text_of(self, n: int) -> str:
        """All message contents of request ``n``, joined, for "it mentioned X" assertions."""
        return "\n".join(str(m.get("content", "")) for m in self.messages(n))

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> "LLMServer":
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="llm-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _next(self, body: dict[str, Any]) -> ScriptedReply:
        if self.refuses_response_format and "response_format" in body:
            return ScriptedReply(status=400, error="response_format json_schema is not supported by this server")
        refused = _dialect_refusal(self.dialect, self.n_ctx, body)
        if refused is not None:
            return refused
        if not self.replies:
            return ScriptedReply(status=500, error="llm_server: no scripted reply left")
        return self.replies.popleft()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):  # clients hanging up are normal here
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    owner: LLMServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        body = json.loads(raw or b"{}")
        self.owner.requests.append(body)
        self.owner.auth_headers.append(self.headers.get("Authorization"))
        self.owner.accept_encodings.append(self.headers.get("Accept-Encoding"))
        if self.owner.dialect == "llama_cpp":  # llama-cpp-python serves one request at a time
            with self.owner._one_at_a_time:
                self._answer(body)
        else:
            self._answer(body)

    def _answer(self, body: dict[str, Any]) -> None:
        scripted = self.owner._next(body)
        if scripted.delay and self.owner._stopping.wait(scripted.delay):
            self.close_connection = True
            return
        try:
            if scripted.status != 200 and scripted.error_body is not None:
                self._json(scripted.status, scripted.error_body)
            elif scripted.status != 200:
                param = "response_format" if "response_format" in (scripted.error or "") else None
                self._json(scripted.status, {"error": {"message": scripted.error, "type": "invalid_request_error"
                                                       if scripted.status < 500 else "server_error",
                                                       "param": param, "code": None}})
            elif scripted.header_every is not None:
                self._slow_headers(scripted.header_every)
            elif scripted.trickle:
                self._trickle("text/event-stream" if body.get("stream") else "application/json")
            elif scripted.body is not None:
                self._raw(scripted.body, scripted.declared_length, scripted.content_type,
                          scripted.content_encoding)
            elif body.get("stream"):
                self._stream(body, scripted)
            else:
                self._json(200, _completion(body, scripted.content, scripted.finish_reason))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to answer
        if self.owner._stopping.is_set():
            self.close_connection = True

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _raw(self, data: bytes, declared_length: int | None, content_type: str,
             content_encoding: str | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        if content_encoding:
            self.send_header("Content-Encoding", content_encoding)
        self.send_header("Content-Length", str(declared_length if declared_length is not None else len(data)))
        self.end_headers()
        self.wfile.write(data)
        if declared_length is not None:
            self.wfile.flush()
            self.close_connection = True  # hang up with the body unfinished

    def _slow_headers(self, every: float) -> None:
        self.wfile.write(b"HTTP/1.1 200 OK\r\n")
        self.wfile.flush()
        began, line = time.monotonic(), 0
        try:
            while not self.owner._stopping.wait(every) and time.monotonic() - began < _SLOW_HEADERS_FOR:
                line += 1
                self.wfile.write(f"X-Still-Thinking-{line}: yes\r\n".encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.owner._hang_ups.put(time.monotonic() - began)
            raise
        self.close_connection = True

    def _trickle(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while not self.owner._stopping.wait(0.2):
            self._send_chunk(b" ")  # whitespace: valid JSON and SSE so far, never finished
        self.close_connection = True

    def _stream(self, body: dict[str, Any], scripted: ScriptedReply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if scripted.events is not None:
            for data in scripted.events:
                self._send_chunk(f"data: {data}\n\n".encode())
            self._send_chunk(b"data: [DONE]\n\n")
            self._send_chunk(b"")
            return
        pieces = scripted.chunks if scripted.chunks is not None else _split_words(scripted.content)
        for n, piece in enumerate(pieces):
            if scripted.stream_error_after is not None and n >= scripted.stream_error_after:
                break
            if scripted.stream_end_after is not None and n >= scripted.stream_end_after:
                break
            self._event(_chunk(body, {"role": "assistant", "content": piece} if n == 0 else {"content": piece}))
        if scripted.stream_end_after is not None:
            pass  # the body just ends: no finish_reason, no [DONE]
        elif scripted.stream_error_after is not None:
            self._event({"error": {"message": scripted.error or "stream failed", "type": "server_error"}})
        else:
            self._event(_chunk(body, {}, finish="stop"))
            self._send_chunk(b"data: [DONE]\n\n")
        self._send_chunk(b"")

    def _event(self, payload: dict[str, Any]) -> None:
        self._send_chunk(f"data: {json.dumps(payload)}\n\n".encode())

    def _send_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


_SLOW_HEADERS_FOR = 60.0


def gzip_bomb(size: int) -> bytes:
    """A gzip body of a few hundred bytes per MiB that inflates to ``size`` zero bytes.

    Built from one compressed MiB repeated: after a full flush the compressor starts afresh,
    so every MiB of zeros compresses to the same bytes (compressing a GiB would take seconds).
    """
    mib = bytes(1 << 20)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = deflate.compress(mib) + deflate.flush(zlib.Z_FULL_FLUSH)
    count, crc = size >> 20, 0
    for _ in range(count):
        crc = zlib.crc32(mib, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return (header + block * count + deflate.flush()
            + struct.pack("<II", crc, (count << 20) & 0xFFFFFFFF))


def _split_words(text: str) -> list[str]:
    """Split keeping every character, so the pieces join back to ``text`` exactly."""
    pieces, current = [], ""
    for ch in text:
        current += ch
        if ch == " ":
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces


def _completion(body: dict[str, Any], content: str, finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model", "test-model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": finish_reason}],
        # A token counted as 4 characters, as the dialects' context checks count them.
        "usage": {"prompt_tokens": _prompt_tokens(body), "completion_tokens": len(content) // 4,
                  "total_tokens": _prompt_tokens(body) + len(content) // 4},
    }


def _chunk(body: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion.chunk", "created": int(time.time()),
        "model": body.get("model", "test-model"),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _dialect_refusal(dialect: str, n_ctx: int | None, body: dict[str, Any]) -> ScriptedReply | None:
    """What a local server of ``dialect`` answers before the model sees ``body``, if it refuses it."""
    response_format = body.get("response_format") or {}
    if dialect == "llama_cpp" and response_format.get("type") not in (None, "text", "json_object"):
        # The request model's literal check, surfacing as a server error (verified-setup.md).
        message = ("[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "
                   "\"Input should be 'text' or 'json_object'\", 'input': '"
                   f"{response_format.get('type')}', 'ctx': {{'expected': \"'text' or 'json_object'\"}}}}]")
        return ScriptedReply(status=500, error_body={"error": {"message": message, "type": "internal_server_error",
                                                               "param": None, "code": None}})
    if n_ctx is None:
        return None
    prompt = _prompt_tokens(body)
    completion = body.get("max_tokens")
    if dialect == "llama_cpp":
        # llama-cpp-python without max_tokens generates until the context is full.
        wanted = prompt + (completion or 0)
        if wanted <= n_ctx and prompt < n_ctx:
            return None
        message = (f"This model's maximum context length is {n_ctx} tokens. However, you requested {wanted} "
                   f"tokens ({prompt} in the messages, {completion or 0} in the completion). Please reduce the "
                   "length of the messages or completion.")
        return ScriptedReply(status=400, error_body={"error": {
            "message": message, "type": "invalid_request_error", "param": "messages",
            "code": "context_length_exceeded"}})
    if dialect == "llama_server":
        if prompt < n_ctx:
            return None
        return ScriptedReply(status=400, error_body={"error": {
            "code": 400, "message": f"request ({prompt} tokens) exceeds the available context size ({n_ctx} tokens), "
            "try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": prompt, "n_ctx": n_ctx}})
    if dialect == "vllm":
        if prompt >= n_ctx:
            message = (f"This model's maximum context length is {n_ctx} tokens. However, your request has "
                       f"{prompt} input tokens. Please reduce the length of the input messages.")
        elif completion is not None and prompt + completion > n_ctx:
            message = (f"'max_tokens' or 'max_completion_tokens' is too large: {completion}. This model's maximum "
                       f"context length is {n_ctx} tokens and your request has {prompt} input tokens "
                       f"({completion} > {n_ctx} - {prompt}).")
        else:
            return None
        return ScriptedReply(status=400, error_body={"object": "error", "message": message,
                                                     "type": "BadRequestError", "param": None, "code": 400})
    if dialect == "ollama":
        if prompt < n_ctx:
            return None
        return ScriptedReply(status=500, error_body={"error": {
            "message": "the input length exceeds the context length", "type": "api_error", "param": None,
            "code": None}})
    return None


def _prompt_tokens(body: dict[str, Any]) -> int:
    return sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4
