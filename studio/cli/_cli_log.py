"""What ``plan-studio plan -v`` adds on stderr: the planner log of each plan (or of a
failed attempt to plan), and a word while a model's first answer may be slow."""

from __future__ import annotations

import sys
from typing import Any, Callable, TextIO

from core import Plan, PlanStudioError
from core.planners import log_lines, planner_log

__all__ = ["print_planner_log", "note_loading", "plan_logged"]


def plan_logged(make_plan: Callable[[], Plan], *, verbose: bool) -> Plan:
    """``make_plan()``, its planner log on stderr when ``verbose``, even when it fails."""
    try:
        plan = make_plan()
    except PlanStudioError as exc:
        if verbose:
            print_planner_log(exc)
        raise
    if verbose:
        print_planner_log(plan)
    return plan


def print_planner_log(source: Plan | BaseException, out: TextIO | None = None) -> None:
    """The planner log kept with a plan, or carried by the error that ended planning."""
    log: Any = planner_log(source) if isinstance(source, Plan) else getattr(source, "planner_log", None)
    if not log:
        return
    out = out or sys.stderr
    for line in log_lines(log):
        print(f"planner: {line}", file=out)
    out.flush()


def note_loading(planner: object, *, verbose: bool, out: TextIO | None = None) -> None:
    """Tell the user the model may be loading, before its first request goes out: with ``-v``,
    or when a person watches stderr (a script reading it gets one line per error, as before)."""
    out = out or sys.stderr
    if not (verbose or out.isatty()):
        return
    client = getattr(planner, "client", None)
    notice = client.loading_notice() if client is not None and hasattr(client, "loading_notice") else None
    if notice:
        print(f"plan-studio: {notice}", file=out, flush=True)
