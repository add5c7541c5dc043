"""The built-in plugin that traces: it observes plans, reviews, runs and steps through the same
hooks (``core.hooks``) any plugin does, and makes their spans when tracing is on (``_setup``).

Off (no ``OTEL_EXPORTER_OTLP_ENDPOINT``), each hook returns at its first line and nothing of
OpenTelemetry is imported. On, the spans are made by ``_run_spans`` and ``_plan_spans``; a
failure in them is the hooks' to log (once), never the run's.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..hooks import hookimpl
from . import _setup

__all__ = ["plan_created", "plan_failed", "step_done", "run_done", "step_decided", "review_decided"]


@hookimpl
def plan_created(plan: Any, goal: str, planner: str, started_at: dt.datetime | None) -> None:
    tracer = _setup.tracer()
    if tracer is None:
        return
    from ._plan_spans import planning_span
    planning_span(tracer, planner=planner, goal=goal, started_at=started_at, plan=plan)


@hookimpl
def plan_failed(goal: str, planner: str, error: BaseException, started_at: dt.datetime | None) -> None:
    tracer = _setup.tracer()
    if tracer is None:
        return
    from ._plan_spans import planning_span
    planning_span(tracer, planner=planner, goal=goal, started_at=started_at, error=error)


@hookimpl
def step_done(run: Any, step_id: str) -> None:
    tracer = _setup.tracer()
    if tracer is None:
        return
    from ._run_spans import step_span
    step_span(tracer, run, step_id)


@hookimpl
def run_done(run: Any, reason: str) -> None:
    tracer = _setup.tracer()
    if tracer is None or reason != "finished":
        return
    from ._run_spans import run_span
    run_span(tracer, run)


@hookimpl
def step_decided(run: Any, step_id: str, decision: Any) -> None:
    tracer = _setup.tracer()
    if tracer is None or run.steps[step_id].decision is not decision:
        return  # an approval that does not yet settle the step: the wait goes on
    from ._run_spans import wait_span
    wait_span(tracer, run, step_id)


@hookimpl
def review_decided(review: Any, actor: Any) -> None:
    tracer = _setup.tracer()
    if tracer is None:
        return
    from ._plan_spans import review_span
    review_span(tracer, review, actor)
