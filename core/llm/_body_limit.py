"""A bound on how much a model endpoint's answer may hold, counted after decompression.

httpx inflates a ``Content-Encoding: gzip`` body in full before anyone can count it, so a
few kilobytes that inflate to gigabytes (a "gzip bomb") would fill the memory before any
size check. ``bounded_body`` takes the decoding over: it inflates the body itself, a piece
of at most ``_PIECE`` bytes at a time, and stops with an ``httpx2.DecodingError`` as soon as the
answer (or any layer of it) grows past ``MAX_ANSWER_BYTES``. The ``Content-Encoding``
header is removed from the response so httpx does not decode it a second time.

The limit is far above any plan (``MAX_PLAN_TEXT`` is ten million characters; streamed, each
piece of text comes wrapped in a JSON event of a few hundred bytes) and far below what
hurts a machine.
"""

from __future__ import annotations

import zlib
from typing import Iterable, Iterator

import httpx2

__all__ = ["MAX_ANSWER_BYTES", "ACCEPTED_ENCODINGS", "bounded_body"]

MAX_ANSWER_BYTES = 128 * 1024 * 1024
_PIECE = 256 * 1024  # bytes inflated per step: memory stays small whatever the ratio
# What the client accepts (httpx's default without brotli or zstandard installed).
ACCEPTED_ENCODINGS = "gzip, deflate"


def bounded_body(response: httpx2.Response, stream: Iterable[bytes]) -> httpx2.SyncByteStream:
    """``stream`` (the body as sent) as the decoded answer, bounded; see the module docstring."""
    values = response.headers.get_list("content-encoding", split_commas=True)
    encodings = [value.strip().lower() for value in values if value.strip().lower() not in ("", "identity")]
    if "content-encoding" in response.headers:
        del response.headers["content-encoding"]
    return _BoundedStream(stream, encodings)


class _BoundedStream(httpx2.SyncByteStream):
    def __init__(self, raw: Iterable[bytes], encodings: list[str]) -> None:
        self._raw = raw
        self._encodings = encodings

    def __iter__(self) -> Iterator[bytes]:
        pieces: Iterator[bytes] = iter(self._raw)
        # Content-Encoding lists the encodings in the order they were applied: undo the last first.
        for encoding in reversed(self._encodings):
            pieces = _inflated(_counted(pieces), encoding)
        yield from _counted(pieces)

    def close(self) -> None:
        close = getattr(self._raw, "close", None)
        if close is not None:
            close()


def _counted(pieces: Iterator[bytes]) -> Iterator[bytes]:
    total = 0
    for piece in pieces:
        total += len(piece)
        if total > MAX_ANSWER_BYTES:
            # httpx2's own error: the SDK reports it as a connection error
            raise httpx2.DecodingError(f"the answer is larger than {MAX_ANSWER_BYTES // (1024 * 1024)} MiB "
                                          "(counted decompressed)")
        yield piece


def _inflated(pieces: Iterator[bytes], encoding: str) -> Iterator[bytes]:
    if encoding in ("gzip", "x-gzip"):
        wbits = zlib.MAX_WBITS | 16
    elif encoding == "deflate":
        wbits = zlib.MAX_WBITS  # zlib-wrapped, as the standard says; raw deflate tried below
    else:
        raise httpx2.DecodingError(f"the answer is encoded as {encoding!r}, which was not asked for "
                                      f"(the request accepts {ACCEPTED_ENCODINGS})")
    inflater = zlib.decompressobj(wbits)
    started = False
    try:
        for piece in pieces:
            data = piece
            while data:
                if not started and encoding == "deflate":
                    try:
                        out = inflater.decompress(data, _PIECE)
                    except zlib.error:  # some servers send raw deflate without the zlib header
                        inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                        out = inflater.decompress(data, _PIECE)
                else:
                    out = inflater.decompress(data, _PIECE)
                started = True
                data = inflater.unconsumed_tail
                if out:
                    yield out
        while not inflater.eof:  # what the inflater still holds once the input has ended
            out = inflater.decompress(b"", _PIECE)
            if not out:
                break
            yield out
    except zlib.error as exc:
        raise httpx2.DecodingError(f"the {encoding} answer could not be decompressed ({exc})") from None
