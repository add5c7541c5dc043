"""A deadline for checking untrusted input, shared by everything a check calls.

Schemas from agents and MCP servers can make a check slow on purpose (a backtracking pattern,
``anyOf`` that doubles per level). The check that takes them in opens a budget; the slow parts
(``core.schema._bounded_regex``, ``core.schema._untrusted``) read what is left and give up, with a
problem saying so, when it is spent. Budgets nest: an inner one never outlasts the outer.

A budget is counted in the checking thread's CPU time: a check is cut short for what it costs,
never because the machine was busy with other work meanwhile (counted on the wall clock, a
loaded machine made an ordinary plan's arguments "not checked", and its Approve unavailable).

    with time_budget(5.0):
        ...  # seconds_left() falls towards 0; budget_spent() is then True
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

__all__ = ["time_budget", "seconds_left", "budget_spent"]

_DEADLINE: ContextVar[float | None] = ContextVar("plan_studio_check_deadline", default=None)
_clock = time.thread_time  # a check runs on one thread, start to end


@contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Within the block, checks may take ``seconds`` in all (less if an outer budget ends first)."""
    outer = _DEADLINE.get()
    deadline = _clock() + seconds
    token = _DEADLINE.set(deadline if outer is None else min(outer, deadline))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def seconds_left() -> float | None:
    """Seconds left in the current budget (never below 0); ``None`` outside any budget."""
    deadline = _DEADLINE.get()
    return None if deadline is None else max(deadline - _clock(), 0.0)


def budget_spent() -> bool:
    deadline = _DEADLINE.get()
    return deadline is not None and _clock() >= deadline
