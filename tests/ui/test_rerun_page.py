"""Issue 17, item 3 (Plan page and Library, AppTest): "Retry failed step(s)" and "Rerun from
step" on a run that is over show first which steps run again and which keep their results,
writing tools marked; Confirm starts the new run, shown linked to its parent; the Library
shows the lineage, each run openable."""

from __future__ import annotations

import json

from apptest_helpers import LIBRARY, edit_json, no_failures, texts
from apptest_helpers import PLAN as PLAN_PAGE
from rerun_helpers import shopping_plan
from streamlit.testing.v1 import AppTest

from core import StepStatus
from studio import Keys
from studio.ui._session import get_services

PLAN = shopping_plan("Take the **eggs** off")


def _wait(at: AppTest) -> None:
    worker = at.session_state[Keys.BENCH].worker
    if worker is not None:
        assert worker.join(60), "the run did not finish"
        at.run()
    no_failures(at)


def _failed_run(app: AppTest) -> AppTest:
    app.button(key="editor.empty").click().run()
    edit_json(app, json.dumps(PLAN))
    app.button(key="plan.approve").click().run()
    app.button(key="plan.run_all").click().run()
    _wait(app)
    run = app.session_state[Keys.BENCH].run
    assert run.steps["rm"].status == StepStatus.failed and run.steps["show"].status == StepStatus.skipped
    return app


def test_retry_previews_then_runs_the_failed_step_linked_to_its_parent(app: AppTest) -> None:
    at = _failed_run(app)
    parent = at.session_state[Keys.BENCH].run
    at.button(key="plan.rerun.retry").click().run()
    no_failures(at)
    preview = next(d for d in at.dataframe if "what happens" in d.value.columns)
    shown = {row["step"]: (row["what happens"], row["effects"]) for _, row in preview.value.iterrows()}
    assert shown["removeItem “Take the **eggs** off”"][0] == "runs again"  # the note as text, not markdown
    assert shown["addItem · add"][0] == "keeps its result" and shown["showList · show"][0] == "runs again"
    assert "writes" in shown["removeItem “Take the **eggs** off”"][1]
    assert "may write" in texts(at) and at.session_state[Keys.BENCH].worker is None  # nothing ran yet

    registry = get_services().registry  # the world changed: the eggs are on the list now
    registry.get("addItem").runner("addItem", {"list": "shop", "item": "eggs"})
    at.button(key="plan.rerun.confirm").click().run()
    _wait(at)
    child = at.session_state[Keys.BENCH].run
    assert child.id != parent.id and child.status == "succeeded"
    assert child.steps["show"].result["items"] == ["milk"]  # addItem kept its result: no second milk
    assert f"rerun of run {parent.id} from removeItem “Take the **eggs** off”" in texts(at)

    at.switch_page(LIBRARY).run()
    no_failures(at)
    said = texts(at)
    assert f"rerun of run {parent.id} from removeItem" in said and f"reruns: {child.id}" in said
    at.button(key=f"library.open_run.{parent.id}").click().run()
    no_failures(at)
    assert at.session_state[Keys.BENCH].run.id == parent.id


def test_rerun_from_a_chosen_step_previews_it_and_cancel_keeps_the_run(app: AppTest) -> None:
    at = _failed_run(app)
    parent = at.session_state[Keys.BENCH].run
    at.selectbox(key=f"plan.rerun.step.{parent.id}").set_value("add")
    at.button(key="plan.rerun.from").click().run()
    no_failures(at)
    preview = next(d for d in at.dataframe if "what happens" in d.value.columns)
    assert list(preview.value["what happens"]) == ["keeps its result", "runs again", "runs again", "runs again"]
    at.button(key="plan.rerun.cancel").click().run()
    assert at.session_state[Keys.BENCH].rerun is None and not [d for d in at.dataframe
                                                               if "what happens" in d.value.columns]
    assert at.session_state[Keys.BENCH].run.id == parent.id and at.session_state[Keys.BENCH].worker is None


def test_a_failed_run_opened_from_the_library_can_be_retried(app: AppTest) -> None:
    at = _failed_run(app)
    at.button(key="plan.save").click().run()
    parent = at.session_state[Keys.BENCH].run
    at.switch_page(LIBRARY).run()
    at.button(key=f"library.open_run.{parent.id}").click().run()
    at.switch_page(PLAN_PAGE).run()
    no_failures(at)
    bench = at.session_state[Keys.BENCH]
    assert bench.run.id == parent.id and bench.approved is None  # opened, not approved
    at.button(key="plan.rerun.retry").click().run()
    at.button(key="plan.rerun.confirm").click().run()  # confirming what runs again approves it
    _wait(at)
    child = at.session_state[Keys.BENCH].run
    assert child.id != parent.id and get_services().store.records.lineage(child.id) == (parent.id, "rm")
    assert "Saved the plan as version" not in texts(at)  # it was stored already: no new version
