"""Issue 17, item 5 (Plan page, AppTest): a step the reviewer marked waits; the page lists it
with its resolved arguments and Approve / Reject, and a click decides it and goes on."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from apptest_helpers import APP, GOAL, edit_json, no_failures, run_plan, texts
from core import StepStatus
from studio import Keys

# The demo plan, its second step marked "ask first"; step 1 takes step 0's ids by reference.
PLAN = {"goal": GOAL, "steps": [
    {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}},
    {"id": "ship", "tool": "shipments_list", "ask_first": True,
     "params": {"has_contaminants": True, "facility_id": "${step[0].data.*.id}"}, "depends_on": ["fac"]},
]}


@pytest.fixture
def held(tmp_path, monkeypatch) -> AppTest:
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    monkeypatch.delenv("PLAN_STUDIO_APPROVE_WRITES")
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    at.button(key="editor.empty").click().run()
    edit_json(at, json.dumps(PLAN))
    at.button(key="plan.approve").click().run()
    no_failures(at)
    run_plan(at, "all")
    return at


def test_the_page_lists_a_waiting_step_with_its_resolved_arguments(held: AppTest) -> None:
    run = held.session_state[Keys.BENCH].run
    assert run.steps["ship"].status == StepStatus.waiting and run.steps["fac"].status == StepStatus.succeeded
    shown = texts(held)
    assert "The run waits for you" in shown and "step 1 (shipments_list)" in shown
    [table] = [d for d in held.dataframe if list(d.value.columns) == ["argument", "value"]]
    values = dict(zip(table.value["argument"], table.value["value"]))
    assert values["facility_id"] == json.dumps(run.steps["ship"].arguments["facility_id"], ensure_ascii=False)
    assert "${" not in values["facility_id"]


def test_approve_runs_the_step_and_the_run_finishes(held: AppTest) -> None:
    held.button(key="plan.pause.ship.approve").click().run()
    no_failures(held)
    worker = held.session_state[Keys.BENCH].worker  # None when the page collected it already
    if worker is not None:
        assert worker.join(60)
        held.run()
    run = held.session_state[Keys.BENCH].run
    assert run.finished and run.steps["ship"].status == StepStatus.succeeded
    assert run.steps["ship"].decision.approved and "The run waits for you" not in texts(held)


def test_reject_marks_it_rejected(held: AppTest) -> None:
    held.button(key="plan.pause.ship.reject").click().run()
    no_failures(held)
    worker = held.session_state[Keys.BENCH].worker
    if worker is not None:
        assert worker.join(60)
        held.run()
    run = held.session_state[Keys.BENCH].run
    assert run.steps["ship"].status == StepStatus.rejected and run.finished
    assert "rejected: a person said no before it ran" in texts(held)


def test_the_inspector_marks_a_step_to_ask_before_it_without_withdrawing_approval(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    at.button(key="editor.empty").click().run()
    plain = {**PLAN, "steps": [{k: v for k, v in s.items() if k != "ask_first"} for s in PLAN["steps"]]}
    edit_json(at, json.dumps(plain))
    at.button(key="plan.approve").click().run()
    at.session_state[Keys.EDITOR_SELECTED] = "ship"  # as a click on the step in the graph does
    at.run()
    [toggle] = [t for t in at.toggle if t.label == "Ask before this step"]
    toggle.set_value(True).run()
    no_failures(at)
    bench = at.session_state[Keys.BENCH]
    assert bench.plan.step("ship").ask_first and '"ask_first": true' in bench.panel_text
    assert not at.button(key="plan.run_all").disabled, "a mark is review metadata: the plan stays approved"
    run_plan(at, "all")
    assert at.session_state[Keys.BENCH].run.steps["ship"].status == StepStatus.waiting


# Issue 27, items 3 and 4 (Plan page): who has approved so far; the arguments edited on approval.

def _finish(at: AppTest) -> None:
    worker = at.session_state[Keys.BENCH].worker
    if worker is not None:
        assert worker.join(60)
        at.run()


def test_the_page_runs_exactly_the_arguments_edited_when_approving(held: AppTest) -> None:
    from core import LOCAL_ACTOR
    run = held.session_state[Keys.BENCH].run
    original = dict(run.steps["ship"].arguments)
    held.text_area(key="plan.pause.ship.edit").set_value("{not json").run()
    held.button(key="plan.pause.ship.approve").click().run()
    assert "The edited arguments are not JSON" in texts(held)
    assert held.session_state[Keys.BENCH].run.steps["ship"].status == StepStatus.waiting
    edited = {**original, "facility_id": ["F002"], "limit": 5}
    held.text_area(key="plan.pause.ship.edit").set_value(json.dumps(edited)).run()
    held.button(key="plan.pause.ship.approve").click().run()
    no_failures(held)
    _finish(held)
    run = held.session_state[Keys.BENCH].run
    assert run.finished and run.steps["ship"].status == StepStatus.succeeded
    assert run.steps["ship"].arguments == edited
    decision = run.steps["ship"].decision
    assert decision.arguments == edited and decision.original_arguments == original
    assert decision.actor_id == LOCAL_ACTOR.id and decision.channel == "page"


def test_the_page_shows_who_approved_so_far_and_waits_for_the_count(held: AppTest) -> None:
    from core import Actor, Ask, Role, arguments_hash, decide_step
    run = held.session_state[Keys.BENCH].run
    run.steps["ship"].ask = Ask(approvers=2, rule="two-for-shipments")  # stand-in for the policy
    bob = Actor(id="user:bob", name="Bob", kind="person", role=Role.approver)
    decide_step(run, "ship", True, actor=bob, seen_hash=arguments_hash(run.steps["ship"].arguments), channel="api")
    held.run()
    shown = texts(held)
    assert "Approvals: 1 of 2 · approved by Bob (api) · rule two-for-shipments" in shown
    held.button(key="plan.pause.ship.approve").click().run()
    no_failures(held)
    _finish(held)
    run = held.session_state[Keys.BENCH].run
    assert run.finished and run.steps["ship"].status == StepStatus.succeeded
    assert [a.actor_id for a in run.steps["ship"].approvals][0] == "user:bob" and len(run.steps["ship"].approvals) == 2
