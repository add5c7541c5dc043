"""The one registry of the runs live in this process (``studio.workbench._runs_here``), owned by
the services: a run is carried out by one handle at a time, a run left waiting for a person is
held for a decision, a tab's run is there for the tab reloaded, and every copy of the services
shares it."""

from __future__ import annotations

import threading

from core import Plan, Run, Settings, Step, StepRun, StepStatus, ToolRegistry
from studio.workbench._runs_here import RunsHere
from studio.workbench._services import build_services


class Handle:
    def __init__(self) -> None:
        self.done = threading.Event()

    def join(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)


def _run(status: StepStatus = StepStatus.pending, run_id: str = "r1") -> Run:
    plan = Plan(goal="g", steps=[Step(id="a", tool="t")])
    return Run(id=run_id, plan=plan, steps={"a": StepRun(step_id="a", status=status)})


def test_one_handle_carries_a_run_and_a_join_waits_for_it() -> None:
    here, first, second = RunsHere(), Handle(), Handle()
    assert here.carry("r1", first) and here.going("r1") and here.handle("r1") is first
    assert not here.carry("r1", second), "a second handle of a run going on is refused"
    assert not here.join("r1", timeout=0.01)
    first.done.set()
    here.ended(_run(StepStatus.succeeded), first)
    assert not here.going("r1") and here.join("r1", timeout=0)


def test_a_run_that_ends_waiting_for_a_person_is_held_until_it_is_driven_again() -> None:
    here, handle = RunsHere(), Handle()
    waiting = _run(StepStatus.waiting)
    here.carry("r1", handle)
    here.ended(waiting, handle)
    assert here.held("r1") is waiting
    assert here.carry("r1", Handle()) and here.held("r1") is None, "driven again: no decision from elsewhere"


def test_the_oldest_held_runs_leave_first() -> None:
    here = RunsHere(max_held=2)
    for n in range(3):
        here.hold_if_waiting(_run(StepStatus.waiting, f"r{n}"))
    assert [here.held(f"r{n}") is not None for n in range(3)] == [False, True, True]


def test_a_tabs_run_is_taken_once_by_the_tab_reloaded() -> None:
    here, handle = RunsHere(), Handle()
    here.tab_left("draft1", handle)
    assert here.take_tab_run("draft1") is handle and here.take_tab_run("draft1") is None


def test_every_copy_of_the_services_shares_one_registry(tmp_path) -> None:
    services = build_services(Settings(data_dir=tmp_path / "data"), registry=ToolRegistry())
    assert services.with_tool_overrides({}).runs is services.runs
    shared = RunsHere()
    assert build_services(Settings(data_dir=tmp_path / "data"), registry=ToolRegistry(), runs=shared).runs is shared
