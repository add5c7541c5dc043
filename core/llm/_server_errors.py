"""Reading what a model server's error means, whichever server wrote it.

OpenAI, llama.cpp (its C++ ``llama-server`` and llama-cpp-python's ``llama_cpp.server``),
vLLM and Ollama word the same two troubles differently:

- a ``response_format`` the server does not take: OpenAI-style servers answer 400, 422 or
  501, llama-cpp-python answers 500 ("Input should be 'text' or 'json_object'"). Any status
  counts when the message names the response format; a vaguer "not supported" only with the
  statuses that mean the request was refused.
- a prompt (with the answer's ``max_tokens``) larger than the server's context: llama.cpp and
  vLLM give their context and the tokens asked for, Ollama only says the input is too long.
  The user gets one plain sentence: the context is too small for the functions manual, and
  how many tokens it must hold (the server's count if it gave one, else an estimate).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["refuses_response_format", "context_too_small"]

# Words that name the response format itself: a refusal whatever the status.
_FORMAT_WORDS = ("response_format", "response format", "json_schema", "json schema", "json_object",
                 "structured output", "'text' or 'json_object'", "guided_json", "grammar")
# Vaguer words: a refusal of the format only when the status says the request was refused.
_REFUSAL_WORDS = ("not supported", "unsupported", "not implemented")
_REFUSAL_STATUSES = (400, 422, 501)

_CONTEXT_WORDS = ("context length", "context size", "context window", "context_length_exceeded",
                  "exceed_context_size_error", "maximum context", "input length exceeds")
# A token is about 3 to 4 characters of English and JSON; 3 errs on the side of a larger context.
_CHARS_PER_TOKEN = 3


def refuses_response_format(status: int, param: object, text: str) -> bool:
    """Whether an error (its status, ``param`` and words) refuses ``response_format``."""
    if param == "response_format":
        return True
    text = text.lower()
    if any(word in text for word in _FORMAT_WORDS):
        return not _about_context(text)
    return status in _REFUSAL_STATUSES and any(word in text for word in _REFUSAL_WORDS)


def context_too_small(text: str, body: object, *, prompt_chars: int, max_tokens: int,
                      endpoint: str) -> str | None:
    """The message for a context error, or None when ``text`` (the server's words) is about
    something else. ``body`` is the error body, for servers that give numbers as fields."""
    if not _about_context(text.lower()):
        return None
    fields = _fields(body)
    n_ctx = _number(fields.get("n_ctx")) or _first(text, [
        r"maximum context length is (\d+)", r"available context size \((\d+)", r"context window of (\d+)"])
    prompt = _number(fields.get("n_prompt_tokens")) or _first(text, [
        r"\((\d+) in the messages", r"request has (\d+) input tokens", r"request \((\d+) tokens\)"])
    if prompt is None:
        prompt = -(-prompt_chars // _CHARS_PER_TOKEN)
    needed = prompt + max_tokens
    has = f" holds {n_ctx:,} tokens, which is" if n_ctx else "'s context is"
    return (f"The model server at {endpoint}{has} too small for the functions manual and the plan: "
            f"a request needs at least {needed:,} tokens ({prompt:,} for the goal and the manual, "
            f"{max_tokens:,} for the answer). Start the server with a context of at least {needed:,} tokens "
            f"(e.g. {_round_up(needed):,}: llama.cpp --n_ctx / -c, Ollama num_ctx or OLLAMA_CONTEXT_LENGTH, "
            "vLLM --max-model-len), or lower PLAN_STUDIO_MAX_TOKENS. "
            f"The server said: {_short(text)}")


def _about_context(text: str) -> bool:
    return any(word in text for word in _CONTEXT_WORDS)


def _fields(body: object) -> Mapping[str, Any]:
    if isinstance(body, Mapping):
        inner = body.get("error")
        return inner if isinstance(inner, Mapping) else body
    return {}


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _first(text: str, patterns: list[str]) -> int | None:
    for pattern in patterns:
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return int(found[1])
    return None


def _round_up(tokens: int) -> int:
    size = 1024
    while size < tokens:
        size *= 2
    return size


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
