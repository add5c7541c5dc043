"""Issue 26, item 1 (the run has one home), counted on the Plan page through AppTest: what "Run
all" on a 2-step plan costs before its first step, and what each poll of the live view costs.

Counted with counters patched around the functions themselves, so a new way of doing the same
work is counted too:

- store loads: every ``Runs.load`` (``PlanStore.load_run`` and anything else that reads a run
  back from the store), from the click until the first step's tool is called (a tool of the
  test's that notes the count when it is first called). Issue 26 found 5; at most 1.
- status conversions: every ``StepStatus`` made from a string (``StepStatus("running")``) and
  every ``.value`` read of one (a status turned into its string) while the live view is drawn
  once more with the run in progress. Issue 26 found 3 per step; 0: the live view is kept with
  ``StepStatus`` values, as the store's recorder is told them.
"""

from __future__ import annotations

import enum
import threading
from typing import Any, Iterator

import pytest
from streamlit.testing.v1 import AppTest

from core import StepStatus
from core.storage._runs import Runs
from studio import Keys, get_services

from apptest_helpers import edit_json, make_plan, no_failures, plan_text

WAIT = 60.0


class Counter:
    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self.count += 1


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> Counter:
    counter = Counter()
    real = Runs.load

    def counting(self: Runs, run_id: str) -> Any:
        counter.add()
        return real(self, run_id)

    monkeypatch.setattr(Runs, "load", counting)
    return counter


@pytest.fixture
def conversions(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter]:
    """Counts ``StepStatus(text)`` and ``status.value``; only while ``counting`` is set."""
    counter = Counter()
    counting = threading.Event()
    meta = type(StepStatus)
    real_call = meta.__call__

    def call(cls: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
        if cls is StepStatus and counting.is_set() and not isinstance(value, StepStatus):
            counter.add()
        return real_call(cls, value, *args, **kwargs)

    real_value = enum.Enum.__dict__["value"]

    def value(self: enum.Enum) -> Any:
        if counting.is_set():
            counter.add()
        return real_value.__get__(self, type(self))

    monkeypatch.setattr(meta, "__call__", call)
    monkeypatch.setattr(StepStatus, "value", property(value), raising=False)
    counter.counting = counting  # type: ignore[attr-defined]
    yield counter


class Gate:
    """The plan's first step: notes the store loads made before it, then waits to be let go."""

    def __init__(self, loads: Counter | None = None) -> None:
        self.loads = loads
        self.before_first: int | None = None
        self.entered = threading.Event()
        self.release = threading.Event()

    def tool(self) -> Any:
        gate = self

        def first_step(value: int) -> int:
            """Count one up, once let go.

            Args:
                value: The number.
            """
            if gate.before_first is None and gate.loads is not None:
                gate.before_first = gate.loads.count
            gate.entered.set()
            gate.release.wait(WAIT)
            return value + 1

        return first_step


def _two_step_plan(app: AppTest, gate: Gate) -> None:
    get_services().registry.register(gate.tool())
    make_plan(app)
    edit_json(app, plan_text([{"id": "a", "tool": "first_step", "params": {"value": 1}},
                              {"id": "b", "tool": "first_step", "params": {"value": "${steps.a}"},
                               "depends_on": ["a"]}]))
    app.button(key="plan.approve").click().run()
    no_failures(app)


def _finish(app: AppTest, gate: Gate) -> None:
    gate.release.set()
    worker = app.session_state[Keys.BENCH].worker
    assert worker is not None and worker.join(WAIT)
    app.run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].run.status == "succeeded"


def test_run_all_loads_the_run_from_the_store_at_most_once_before_its_first_step(app: AppTest, loads: Counter) -> None:
    gate = Gate(loads)
    _two_step_plan(app, gate)
    loads.count = 0
    app.button(key="plan.run_all").click().run()
    no_failures(app)
    assert gate.entered.wait(WAIT), "the first step never started"
    assert gate.before_first is not None and gate.before_first <= 1, gate.before_first
    _finish(app, gate)


def test_a_poll_of_the_live_view_converts_no_status(app: AppTest, conversions: Counter) -> None:
    gate = Gate()
    _two_step_plan(app, gate)
    app.button(key="plan.run_all").click().run()
    no_failures(app)
    assert gate.entered.wait(WAIT), "the first step never started"
    app.run()  # a poll: the page (its live view) drawn again while step a runs
    no_failures(app)
    assert app.session_state[Keys.BENCH].worker.alive
    conversions.counting.set()  # type: ignore[attr-defined]
    app.run()
    conversions.counting.clear()  # type: ignore[attr-defined]
    no_failures(app)
    assert conversions.count == 0
    _finish(app, gate)
