"""What the tests of the page's durable runs share: tools whose step ``b`` holds until let
through (a write), a three-step plan over them, and a store left as a kill -9 in step b leaves it."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

from core import Plan, Step, StepStatus, ToolRegistry

WAIT = 60


class Gate:
    """What the tool ``hold`` waits on, and says when it is inside its call."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.calls: list[str] = []


def tools_for(gate: Gate) -> ToolRegistry:
    tools = ToolRegistry()

    @tools.register(effects="read-only")
    def count(value: int) -> int:
        """Add one to a number.

        Args:
            value: The number.
        """
        gate.calls.append(f"count {value}")
        return value + 1

    @tools.register(effects="additive")
    def hold(value: int) -> int:
        """Send a number on, once let through (a write).

        Args:
            value: The number.
        """
        gate.calls.append(f"hold {value}")
        gate.entered.set()
        gate.release.wait(WAIT)
        return value + 1

    return tools


PLAN = Plan(goal="count, hold, count", steps=[
    Step(id="a", tool="count", params={"value": 0}),
    Step(id="b", tool="hold", params={"value": "${step[0]}"}),
    Step(id="c", tool="count", params={"value": "${step[1]}"}),
])


def cut_off_at_b(services: Any) -> tuple[str, str]:
    """What a kill -9 in the middle of step b leaves in the store: a finished, b started."""
    from studio.workbench._durable_handle import durable_runs  # the studio's own, bound once

    run_id = durable_runs(services).start(PLAN)
    run = services.store.load_run(run_id)
    done = run.steps["a"].model_copy(update={"status": StepStatus.succeeded, "result": 1, "arguments": {"value": 0}})
    services.store.records.step_started(run_id, "a", {"value": 0}, now())
    services.store.records.step_finished(run_id, done)
    services.store.records.step_started(run_id, "b", {"value": 1}, now())
    services.store.records.run_state(run_id, status="running", started_at=now())
    return run_id, services.store.records.where(run_id)[0]


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)
