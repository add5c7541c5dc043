"""The one matcher for patterns from untrusted schemas (agents' tools, MCP servers' tools).

Python's ``re`` backtracks and holds the GIL while it does: ``^(a+)+$`` against 40 characters
takes hours and freezes every thread of the studio, its health check and pages included. So:

- RE2 (``google-re2``) runs every pattern it can in time linear in the text, with no
  backtracking at all. It is most patterns.
- RE2 refuses lookaround and backreferences (and repetition counts over 1000). Those run on
  the ``regex`` module, which releases the GIL while matching (``concurrent=True``) and stops
  after ``MATCH_SECONDS`` or what is left of the current ``time_budget``, whichever is less.
  A match cut off raises ``PatternNotChecked``: the caller reports the value as not checked.

    pattern_search("^[a-z]+$", "abc")            # True, like re.search(...) is not None
    pattern_search("^(?=(a|aa)+$)", "a" * 40)    # PatternNotChecked after at most 0.1 s
"""

from __future__ import annotations

import functools
from typing import Any

import re2
import regex

from .._errors import PatternNotChecked
from ._time_budget import seconds_left

__all__ = ["MATCH_SECONDS", "pattern_search"]

MATCH_SECONDS = 0.1
_CACHED_PATTERN_CHARS = 4096  # longer patterns are compiled per use, not kept

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 otherwise prints every pattern it refuses to stderr


def _compile(pattern: str) -> tuple[str, Any]:
    try:
        return "re2", re2.compile(pattern, _RE2_OPTIONS)
    except re2.error:
        pass
    try:
        return "backtracking", regex.compile(pattern)
    except (regex.error, ValueError, OverflowError) as exc:
        return "unreadable", str(exc)


_compile_cached = functools.lru_cache(maxsize=512)(_compile)


def pattern_search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (JSON Schema's ``pattern``)."""
    kind, compiled = (_compile_cached if len(pattern) <= _CACHED_PATTERN_CHARS else _compile)(pattern)
    if kind == "re2":
        try:
            return compiled.search(text) is not None
        except UnicodeEncodeError:  # a lone surrogate: RE2 takes UTF-8 only
            kind, compiled = "backtracking", regex.compile(pattern)
    if kind == "unreadable":
        raise PatternNotChecked(pattern, f"the pattern cannot be read ({compiled})")
    left = seconds_left()
    timeout = MATCH_SECONDS if left is None else min(MATCH_SECONDS, left)
    if timeout <= 0:
        raise PatternNotChecked(pattern, "the time for checking this plan's patterns ran out")
    try:
        return compiled.search(text, timeout=timeout, concurrent=True) is not None
    except TimeoutError:
        raise PatternNotChecked(pattern, f"matching took over {timeout:.2g} s (the pattern backtracks; "
                                         "RE2 cannot run it, as it uses lookaround or backreferences)") from None
