"""Scrubbing API keys out of text: endpoint errors and everything the model writes.

An endpoint may echo the key in an error, and a model may repeat it in a reply (a prompt
injection in tool output can ask it to). Whatever comes back from the model passes through
here before the rest of Plan Studio sees it, so the key is never printed, saved or sent on.
The configured ``OPENAI_API_KEY`` is replaced wherever it appears, and so is anything shaped
like an OpenAI key (``sk-...``). A key that is no secret is left alone: one shorter than 8
characters, or a placeholder local servers are given (``x``, ``EMPTY``, ``ollama``,
``sk-no-key-required``...): replacing every "x" would corrupt the plan before it is read.

A streamed answer arrives in pieces, and a key can be split across two of them.
``StreamRedactor`` holds back the end of the text for as long as a key could still be
forming there, and lets the rest through at once.
"""

from __future__ import annotations

import re

from .._settings import api_key

__all__ = ["REDACTED", "redact", "StreamRedactor", "secret_key"]

REDACTED = "[redacted]"
# Anything shaped like an OpenAI key, not only the configured one.
# A key starts where a word of letters, digits and "_" does not go on (so "task-..." is no key).
_KEY_SHAPE = re.compile(r"(?<![A-Za-z0-9_])sk-[A-Za-z0-9_\-]{6,}")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
# The end of a text where a key-shaped word may be starting: "s", "sk", "sk-..."
_SHAPE_STARTING = re.compile(r"(?<![A-Za-z0-9_])(?:s|sk|sk-[A-Za-z0-9_\-]*)\Z")
# Keys are far shorter; a word this long is let through (redacted as a whole so far), so that
# the held text, and the time each piece takes, stay bounded.
_HOLD_LIMIT = 1_000
# Shorter keys are placeholders (a real key is far longer); redacting them would eat words.
_SECRET_MIN = 8
# Keys local servers are usually given, which the servers' own docs print: no secrets.
PLACEHOLDER_KEYS = frozenset({
    "x", "empty", "none", "null", "ollama", "sk-no-key-required", "no-key", "nokey", "not-needed",
    "lm-studio", "dummy", "fake", "test", "placeholder", "local", "llama", "vllm", "token-abc123",
    "sk-xxx", "sk-placeholder", "sk-local", "sk-dummy", "sk-fake", "sk-1234", "abc123",
})


def secret_key() -> str:
    """The configured key if it is worth hiding; "" for none, a short one or a placeholder."""
    key = api_key()
    if len(key) < _SECRET_MIN or key.lower() in PLACEHOLDER_KEYS:
        return ""
    return key


def _unless_placeholder(match: re.Match[str]) -> str:
    return match.group() if match.group().lower() in PLACEHOLDER_KEYS else REDACTED


def redact(text: str) -> str:
    """``text`` with the configured key and anything key-shaped replaced by ``[redacted]``."""
    key = secret_key()
    if key:
        text = text.replace(key, REDACTED)
    return _KEY_SHAPE.sub(_unless_placeholder, text)


class StreamRedactor:
    """Redacts a text that arrives in pieces: ``feed`` each piece and pass on what it returns,
    then pass on ``flush()`` at the end. The pieces passed on join to ``redact(whole text)``."""

    def __init__(self) -> None:
        self._key = secret_key()
        self._held = ""
        self._last = ""  # the last character passed on: whether a key may start depends on it

    def feed(self, piece: str) -> str:
        text = self._held + piece
        if self._key:
            text = text.replace(self._key, REDACTED)
        cut = self._safe_end(text)
        if len(text) - cut > _HOLD_LIMIT:
            cut = len(text)
        self._held = text[cut:]
        return self._pass_on(text[:cut])

    def flush(self) -> str:
        rest, self._held = self._held, ""
        if self._key:
            rest = rest.replace(self._key, REDACTED)
        return self._pass_on(rest)

    def _pass_on(self, text: str) -> str:
        """``text`` with key-shaped words replaced, read after the text already passed on."""
        if not text:
            return ""
        context = self._last + text
        out: list[str] = []
        pos = len(self._last)
        for match in _KEY_SHAPE.finditer(context, pos):  # the look-behind sees the context
            out += [context[pos:match.start()], _unless_placeholder(match)]
            pos = match.end()
        out.append(context[pos:])
        self._last = text[-1]
        return "".join(out)

    def _safe_end(self, text: str) -> int:
        """How much of ``text`` can go out now: everything before a possible key start at the
        end, moved back to the start of the word it falls in, so that no key-shaped match is
        cut in two (a key is one run of letters, digits, ``_`` and ``-``)."""
        cut = len(text)
        context = self._last + text
        shaped = _SHAPE_STARTING.search(context, len(self._last))
        if shaped is not None:
            cut = shaped.start() - len(self._last)
        if self._key:
            for length in range(min(len(self._key) - 1, len(text)), 0, -1):
                if self._key.startswith(text[-length:]):
                    cut = min(cut, len(text) - length)
                    break
        if cut < len(text):
            while cut > 0 and text[cut - 1] in _KEY_CHARS:
                cut -= 1
        return cut
