"""Phrases as regular expressions: whole phrases only, longest first, any run of spaces
where a phrase has one."""

from __future__ import annotations

import functools
import re
from typing import Iterable

__all__ = ["phrase_pattern", "alternation"]


def phrase_pattern(items: Iterable[str]) -> str:
    """A regex alternation of ``items`` as whole phrases, longest first."""
    return r"(?<![\w-])" + alternation(items) + r"(?![\w-])"


def alternation(items: Iterable[str]) -> str:
    """``items`` as one regex group, longest first so "limit to" wins over "limit"."""
    return _cached_alternation(frozenset(items))


@functools.lru_cache(maxsize=256)
def _cached_alternation(items: frozenset[str]) -> str:
    # Every goal and feedback is read with the same few hundred phrases: escape them once.
    ordered = sorted(items, key=lambda p: (-len(p), p))
    return "(?:" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in ordered) + ")"

