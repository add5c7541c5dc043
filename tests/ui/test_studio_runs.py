"""The Plan page while a run is in progress: the run is carried out in the background, so
clicks do not cut it off; clicks that would change the plan or start another run are refused
with a notice, Save stores the plan and the run once it ends, and Stop stops after a step."""

from __future__ import annotations

import threading

import pytest
from streamlit.testing.v1 import AppTest

from core import Plan, StepStatus, dump_plan
from studio import Keys, get_services
from studio.ui._actions import PENDING_EDIT, RUN_IN_PROGRESS

from apptest_helpers import LIBRARY, PLAN, edit_json, make_plan, no_failures, plan_text, run_plan, texts


class Gate:
    """A tool the test holds shut, so the run is still in progress while the test clicks."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()

    def tool(self):
        gate = self

        def wait_for_gate(label: str = "") -> dict:
            """Wait until the test lets the step finish.

            Args:
                label: Carried into the result.
            """
            gate.entered.set()
            assert gate.opened.wait(60), "the test never opened the gate"
            return {"label": label}

        return wait_for_gate


@pytest.fixture
def gate(app: AppTest):
    gate = Gate()
    get_services().registry.register(gate.tool())  # the same services the app uses
    yield gate
    gate.opened.set()  # never leave a worker waiting
    worker = app.session_state[Keys.BENCH].worker
    if worker is not None:
        worker.join(60)


def start_gated_run(app: AppTest, gate: Gate) -> Plan:
    """An approved plan of four steps whose second waits at the gate; Run all pressed. A chain,
    so what has run when the gate is reached is certain (a parallel run starts independent steps)."""
    make_plan(app)
    edit_json(app, plan_text([
        {"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"}},
        {"id": "b", "tool": "wait_for_gate", "params": {"label": "n=${step[0].count}"}},
        {"id": "c", "tool": "say", "params": {"message": "after the gate: ${step[1].label}"}},
        {"id": "d", "tool": "facilities_list", "params": {"location": "Munich"}, "depends_on": ["c"]},
    ]))
    app.button(key="plan.approve").click().run()
    no_failures(app)
    app.button(key="plan.run_all").click().run()
    no_failures(app)
    assert gate.entered.wait(60)
    return app.session_state[Keys.BENCH].plan


def finish(app: AppTest, gate: Gate):
    gate.opened.set()
    assert app.session_state[Keys.BENCH].worker.join(60)
    app.run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].worker is None
    return app.session_state[Keys.BENCH].run


def warnings(app: AppTest) -> list[str]:
    return [w.value.replace("\\", "") for w in app.warning]


def test_the_page_shows_a_run_in_progress_with_stop(app: AppTest, gate: Gate) -> None:
    start_gated_run(app, gate)
    app.run()  # any rerun while the worker runs, as a click elsewhere makes
    no_failures(app)
    assert app.session_state[Keys.BENCH].run is None  # the worker owns the run until it ends
    page = texts(app)
    assert [s.label for s in app.status] == ["Running the plan: 1 of 4 steps done"]
    assert "Step 1 · wait_for_gate: running" in page
    assert not app.button(key="plan.stop").disabled

    run = finish(app, gate)
    assert run.status == "succeeded"
    assert [s.status for s in run.steps.values()] == [StepStatus.succeeded] * 4
    assert "after the gate: n=4" in texts(app)


@pytest.mark.parametrize("click, action", [
    ("plan.run_all", ""),  # drawn disabled while a run goes on (the workbench refuses it too)
    ("plan.run_next", ""),
    ("plan.make", "make a new plan"),
    ("plan.replan", "re-plan"),
    ("plan.import", "import a plan"),
])
def test_clicks_that_would_change_the_run_are_refused_with_a_notice(
        app: AppTest, gate: Gate, click: str, action: str) -> None:
    plan = start_gated_run(app, gate)
    worker = app.session_state[Keys.BENCH].worker
    if action:
        app.button(key=click).click().run()
        no_failures(app)
        assert f"{RUN_IN_PROGRESS} before you {action}." in warnings(app)
    else:  # a browser user cannot click it
        assert app.button(key=click).disabled
    assert app.session_state[Keys.BENCH].worker is worker and worker.alive
    assert app.session_state[Keys.BENCH].plan == plan

    run = finish(app, gate)
    assert run.status == "succeeded" and run.counts() == {"succeeded": 4}


def test_an_edit_during_a_run_waits_in_the_json_and_the_run_goes_on_with_its_plan(
        app: AppTest, gate: Gate) -> None:
    plan = start_gated_run(app, gate)
    shown = app.text_area(key=Keys.JSON).value
    edited = shown.replace('"Munich"', '"Leipzig"')
    edit_json(app, edited)
    assert PENDING_EDIT in [i.value.replace("\\", "") for i in app.info]
    assert app.session_state[Keys.BENCH].plan == plan
    assert app.text_area(key=Keys.JSON).value == edited  # kept, not thrown away (test_studio_unsaved.py)

    assert finish(app, gate).status == "succeeded"


def test_a_run_saves_its_plan_first_and_is_stored_as_it_goes(app: AppTest, gate: Gate) -> None:
    start_gated_run(app, gate)
    assert "Saved as version 1 to run it: a run is stored with the version it ran." in texts(app)
    saved = app.session_state[Keys.BENCH].saved
    store = get_services().store
    [going] = store.list_runs(saved.plan_id)  # in the store from its first step, mid-run
    assert going.status == "running" and going.counts == {"succeeded": 1, "running": 1, "pending": 2}
    app.button(key="plan.save").click().run()
    no_failures(app)
    page = texts(app)
    assert "No changes since version 1." in page
    assert "The run in progress is stored as it goes, with the version it runs." in page

    run = finish(app, gate)
    assert app.session_state[Keys.BENCH].run_saved == run.id == going.id
    [summary] = store.list_runs(saved.plan_id)
    assert summary.id == run.id and summary.status == "succeeded" and summary.counts == {"succeeded": 4}
    assert store.load_run(run.id) == run
    assert "saved with the plan" in texts(app)


def test_stop_ends_the_run_after_the_current_step_and_run_all_carries_on(app: AppTest, gate: Gate) -> None:
    start_gated_run(app, gate)
    app.button(key="plan.stop").click().run()
    no_failures(app)
    assert app.button(key="plan.stop").disabled
    assert "Stopping after the current step…" in texts(app)

    run = finish(app, gate)
    assert [s.status.value for s in run.steps.values()] == ["succeeded", "succeeded", "pending", "pending"]
    assert f"Run {run.id} · paused · 2 succeeded, 2 pending" in texts(app)

    run_plan(app, "all")
    again = app.session_state[Keys.BENCH].run
    assert again.id == run.id and again.status == "succeeded"


def test_an_interrupted_step_shows_as_interrupted_and_runs_again(app: AppTest) -> None:
    """A run cut off mid-step (as an older studio or a crash left it) shows the step as
    interrupted, on the page, in the graph and in the Library, and Run all re-runs it."""
    services = get_services()
    plan = make_plan(app)
    app.button(key="plan.approve").click().run()
    run = services.executor.start(plan)
    events = services.executor.run_all(run)
    for event in events:
        if event.type == "tool_call" and event.step_id == plan.steps[1].id:
            break
    events.close()
    assert run.status == "interrupted"
    app.session_state[Keys.BENCH].run = run
    app.button(key="plan.save").click().run()  # stores the plan and the interrupted run
    no_failures(app)
    page = texts(app)
    assert f"Run {run.id} · interrupted · 1 succeeded, 1 interrupted" in page
    assert ":violet-badge[interrupted]" in page
    assert "it runs again on the next run" in page

    app.switch_page(LIBRARY).run()
    no_failures(app)
    app_text = texts(app)
    # Stored cut off, and nothing runs it now: listed as interrupted (open it to resume).
    assert f"Run {run.id}" in app_text and "**interrupted (1 of 2 steps done)** · 1 succeeded, 1 interrupted" in app_text
    assert "running" not in app_text

    app.switch_page(PLAN).run()
    run_plan(app, "all")
    again = app.session_state[Keys.BENCH].run
    assert again.id == run.id and again.status == "succeeded"
    [summary] = services.store.list_runs(app.session_state[Keys.BENCH].saved.plan_id)
    assert summary.status == "succeeded"
