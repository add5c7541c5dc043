"""Issue 17, items 2 and 4 (Plan page, AppTest): Cancel ends the run now, its running step
marked cancelled and what finished kept; the page then offers Resume, listing the steps that
run again (a writing step cut off mid-call asks: run again or mark failed), and Resume finishes
the run without running a finished step again."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from apptest_helpers import no_failures, texts
from core import StepStatus
from studio import Keys, get_services
from test_studio_runs import Gate, gate, start_gated_run  # noqa: F401  (gate: the fixture)


def _collect(app: AppTest) -> None:
    """Wait for the run's worker, and let the page collect the run, as its progress view would."""
    worker = app.session_state[Keys.BENCH].worker
    if worker is not None:
        assert worker.join(60)
        app.run()
        no_failures(app)


def test_cancel_then_resume_from_the_page(app: AppTest, gate: Gate) -> None:  # noqa: F811
    start_gated_run(app, gate)
    assert not app.button(key="plan.cancel").disabled
    app.button(key="plan.cancel").click().run()
    no_failures(app)
    _collect(app)
    run = app.session_state[Keys.BENCH].run
    assert [s.status for s in run.steps.values()] == [StepStatus.succeeded, StepStatus.cancelled,
                                                      StepStatus.pending, StepStatus.pending]
    stored = get_services().store.load_run(run.id)
    assert stored.steps["a"].status == StepStatus.succeeded and stored.steps["b"].status == StepStatus.cancelled
    page = texts(app)
    assert "This run was cancelled." in page and "Steps that run again" in page
    assert "step 1 (wait_for_gate)" in page and "step 0 (facilities_list)" not in page.split("Steps that run again")[1]
    # A tool that does not say it is read-only may have had its effect: the user chooses first.
    assert app.button(key="plan.resume.go").disabled
    app.radio(key="plan.resume.b.choice").set_value("Run it again").run()
    assert not app.button(key="plan.resume.go").disabled
    gate.entered.clear()
    gate.opened.set()
    app.button(key="plan.resume.go").click().run()
    no_failures(app)
    _collect(app)
    run = app.session_state[Keys.BENCH].run
    assert run.status == "succeeded" and "after the gate: n=4" in texts(app)
    assert "This run was" not in texts(app)
    assert get_services().store.load_run(run.id).status == "succeeded"
