"""The Lab's background run (``studio.workbench._lab_run.LabRun``): results kept as they come, Stop ends it
before the next goal and keeps what was done, a planner that fails part-way keeps the rest."""

from __future__ import annotations

import datetime as dt
import threading

from core import Plan, PlannerError, Step, ToolOverride, ToolRegistry
from core.lab import Experiment, LabGoal
from studio.workbench._lab_run import LabRun

TODAY = dt.date(2025, 10, 12)


def registry() -> ToolRegistry:
    tools = ToolRegistry()

    def notes_list(topic: str | None = None) -> list[str]:
        """List notes.

        Args:
            topic: What the notes are about.
        """
        return []

    tools.register(notes_list, group="notes")
    return tools


class GatedPlanner:
    """Plans one step per goal; from goal ``gate_at`` on, waits until the test opens the gate."""

    name = "gated"

    def __init__(self, gate: threading.Event, reached: threading.Event, gate_at: int, fail_at: int | None) -> None:
        self.gate, self.reached, self.gate_at, self.fail_at, self.count = gate, reached, gate_at, fail_at, 0

    def plan(self, goal: str, *, today: dt.date, context=None) -> Plan:  # noqa: ANN001
        self.count += 1
        if self.count == self.fail_at:
            raise PlannerError("the model server went away")
        if self.count >= self.gate_at:
            self.reached.set()
            self.gate.wait(30)
        return Plan(goal=goal, steps=[Step(tool="notes_list", params={"topic": goal})])

    def replan(self, plan: Plan, feedback: str, *, today: dt.date) -> Plan:
        return plan


def experiment(n: int) -> Experiment:
    return Experiment(overrides={"notes_list": ToolOverride(description="Notes, newest first.")},
                      goals=[LabGoal(f"goal {i}") for i in range(n)])


def test_stop_ends_the_run_before_the_next_goal_and_keeps_what_was_done() -> None:
    gate, reached = threading.Event(), threading.Event()
    planners: list[GatedPlanner] = []

    def factory(tools: ToolRegistry) -> GatedPlanner:
        planners.append(GatedPlanner(gate, reached, gate_at=7 if not planners else 10**9, fail_at=None))
        return planners[-1]

    run = LabRun(experiment(500), registry(), factory, today=TODAY).start()
    assert reached.wait(30)  # the original words' planner is at its 7th goal
    assert run.running
    run.stop()
    gate.set()
    assert run.join(30)
    assert len(run.results) == 6 and run.stopped_early and run.error is None
    assert [r.goal for r in run.results] == [f"goal {i}" for i in range(6)]


def test_a_planner_failing_part_way_keeps_the_goals_done() -> None:
    gate = threading.Event()
    gate.set()

    def factory(tools: ToolRegistry) -> GatedPlanner:
        return GatedPlanner(gate, threading.Event(), gate_at=10**9, fail_at=4)

    run = LabRun(experiment(10), registry(), factory, today=TODAY).start()
    assert run.join(30)
    # A PlannerError is one goal's answer ("no plan"), not the end of the run.
    assert len(run.results) == 10 and run.results[3].original.error == "the model server went away"


def test_a_run_that_breaks_keeps_the_goals_done_and_says_why_in_one_line() -> None:
    class Broken(GatedPlanner):
        def plan(self, goal: str, *, today: dt.date, context=None) -> Plan:  # noqa: ANN001
            if goal == "goal 3":
                raise RuntimeError("a bug")
            return super().plan(goal, today=today)

    gate = threading.Event()
    gate.set()
    run = LabRun(experiment(10), registry(), lambda tools: Broken(gate, threading.Event(), 10**9, None),
                 today=TODAY).start()
    assert run.join(30)
    assert [r.goal for r in run.results] == ["goal 0", "goal 1", "goal 2"]
    assert run.error == "unexpected RuntimeError; the details are in the studio's log" and run.stopped_early


def test_a_planner_with_no_model_stops_the_run_with_its_reason_instead_of_failing_every_goal() -> None:
    from core import PlannerUnavailable

    class NoModel(GatedPlanner):
        def plan(self, goal: str, *, today: dt.date, context=None) -> Plan:  # noqa: ANN001
            if goal == "goal 2":
                raise PlannerUnavailable("No model configured: set OPENAI_API_KEY")
            return super().plan(goal, today=today)

    gate = threading.Event()
    gate.set()
    run = LabRun(experiment(500), registry(), lambda tools: NoModel(gate, threading.Event(), 10**9, None),
                 today=TODAY).start()
    assert run.join(30)
    assert len(run.results) == 2 and run.error == "No model configured: set OPENAI_API_KEY"


def test_the_lab_starts_an_experiment_through_the_workbench_and_says_why_it_cannot(tmp_path) -> None:
    """``start_experiment`` is the use case the Lab page calls: the same refusals the page shows
    under its button, then the run with the services' tools and the planner the experiment names."""
    from core import Settings
    from studio.workbench._lab_run import start_experiment
    from studio.workbench._services import build_services

    services = build_services(Settings(data_dir=tmp_path / "data", today=TODAY), registry=registry())
    out, run = start_experiment(services, Experiment(goals=[LabGoal("goal 0")]))
    assert run is None and not out.ok
    assert out.notices[-1].text == "Could not run the experiment: Edit a description first: there is nothing to compare."
    out, run = start_experiment(services, experiment(0))
    assert run is None and "Add goals first." in out.notices[-1].text
    out, run = start_experiment(services, experiment(3))
    assert out.ok and run is not None and run.join(30)
    assert [r.goal for r in run.results] == ["goal 0", "goal 1", "goal 2"] and run.error is None
