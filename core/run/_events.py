"""The events a run yields as it happens, so a UI can show them live.

    turn_start → plan_created → (plan_step_start → tool_call → tool_result → plan_step_end)*
    → text_delta* (only with a synthesizer) → turn_end

Per step the four come in that order; the steps of a parallel run interleave. A step skipped
or found cut off yields only its ``plan_step_end``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable, Iterable, Literal

from pydantic import BaseModel, Field

from ._model import Run

__all__ = ["Event", "EventType", "Synthesizer", "now", "step_end", "step_result"]

EventType = Literal["turn_start", "plan_created", "plan_step_start", "tool_call", "tool_result",
                    "plan_step_end", "text_delta", "turn_end"]

# Turns a finished run into a final answer, yielded in pieces as they arrive.
Synthesizer = Callable[[Run], Iterable[str]]


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class Event(BaseModel):
    type: EventType
    run_id: str
    step_id: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)
    at: dt.datetime = Field(default_factory=now)


def step_result(run: Run, step_id: str, tool: str) -> Event:
    state = run.steps[step_id]
    return Event(type="tool_result", run_id=run.id, step_id=step_id,
                 data={"tool": tool, "ok": state.status == "succeeded", "result": state.result,
                       "error": state.error})


def step_end(run: Run, step_id: str) -> Event:
    state = run.steps[step_id]
    data: dict[str, Any] = {"status": state.status.value, "duration_ms": state.duration_ms, "error": state.error}
    if state.retried:  # only for a step tried again: every other step's event is as it always was
        data["retried"] = [attempt.model_dump(mode="json") for attempt in state.retried]
    return Event(type="plan_step_end", run_id=run.id, step_id=step_id, data=data)
