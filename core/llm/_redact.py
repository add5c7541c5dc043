"""Scrubbing API keys out of text: endpoint errors and everything the model writes.

An endpoint may echo the key in an error, and a model may repeat it in a reply (a prompt
injection in tool output can ask it to). Whatever comes back from the model passes through
here before the rest of Plan Studio sees it, so the key is never printed, saved or sent on.
The configured ``OPENAI_API_KEY`` is replaced wherever it appears, and so is anything shaped
like an OpenAI key (``sk-...``).

A streamed answer arrives in pieces, and a key can be split across two of them.
``StreamRedactor`` holds back the end of the text for as long as a key could still be
forming there, and lets the rest through at once.
"""

from __future__ import annotations

import os
import re

__all__ = ["REDACTED", "redact", "StreamRedactor"]

REDACTED = "[redacted]"
# Anything shaped like an OpenAI key, not only the configured one.
_KEY_SHAPE = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
# The end of a text where a key-shaped word may be starting: "s", "sk", "sk-..."
_SHAPE_STARTING = re.compile(r"\b(?:s|sk|sk-[A-Za-z0-9_\-]*)\Z")
# Keys are far shorter; a word this long is let through (redacted as a whole so far), so that
# the held text, and the time each piece takes, stay bounded.
_HOLD_LIMIT = 1_000


def _configured_key() -> str:
    return os.environ.get("OPENAI_API_KEY") or ""


def redact(text: str) -> str:
    """``text`` with the configured key and anything key-shaped replaced by ``[redacted]``."""
    key = _configured_key()
    if key:
        text = text.replace(key, REDACTED)
    return _KEY_SHAPE.sub(REDACTED, text)


class StreamRedactor:
    """Redacts a text that arrives in pieces: ``feed`` each piece and pass on what it returns,
    then pass on ``flush()`` at the end. The pieces passed on join to ``redact(whole text)``."""

    def __init__(self) -> None:
        self._key = _configured_key()
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        if self._key:
            text = text.replace(self._key, REDACTED)
        cut = self._safe_end(text)
        if len(text) - cut > _HOLD_LIMIT:
            cut = len(text)
        self._held = text[cut:]
        return _KEY_SHAPE.sub(REDACTED, text[:cut])

    def flush(self) -> str:
        rest, self._held = self._held, ""
        return redact(rest)

    def _safe_end(self, text: str) -> int:
        """How much of ``text`` can go out now: everything before a possible key start at the
        end, moved back to the start of the word it falls in, so that no key-shaped match is
        cut in two (a key is one run of letters, digits, ``_`` and ``-``)."""
        cut = len(text)
        shaped = _SHAPE_STARTING.search(text)
        if shaped is not None:
            cut = shaped.start()
        if self._key:
            for length in range(min(len(self._key) - 1, len(text)), 0, -1):
                if self._key.startswith(text[-length:]):
                    cut = min(cut, len(text) - length)
                    break
        if cut < len(text):
            while cut > 0 and text[cut - 1] in _KEY_CHARS:
                cut -= 1
        return cut
