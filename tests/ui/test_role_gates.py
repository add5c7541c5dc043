"""Issue 27 (Plan and Reviews pages, AppTest): what the signed-in person's role does not allow is
drawn disabled, with a help text naming the role it needs, instead of a refusal after the click.

The person is the studio's local user, whose role an admin changed in the store (as Settings
does): the entry script signs them in on every run, so the role is the store's, not the test's.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from apptest_helpers import APP, GOAL, edit_json, no_failures, run_plan, texts
from core import LOCAL_USER_ID, Role, StepStatus
from studio import Keys, get_services
from studio.workbench import submit_review

REVIEWS = "../pages/reviews.py"
PLAN_PAGE = "../pages/plan.py"
SENT = {"goal": "Find contaminated shipments", "steps": [
    {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}}]}
PLAN_CONTROLS = ["plan.make", "plan.approve", "plan.run_next", "plan.run_all", "plan.save", "editor.add", "editor.undo"]


def _as(at: AppTest, role: Role) -> AppTest:
    """The local user now holds ``role`` (an admin's change, kept in the store)."""
    get_services().store.people.set_role(LOCAL_USER_ID, role)
    at.run()
    no_failures(at)
    assert at.session_state[Keys.ACTOR].role == role
    return at


def _open_review(at: AppTest) -> str:
    review_id = submit_review(get_services(), {"plan": SENT, "agent": "shipping-bot"}).id
    at.switch_page(REVIEWS).run()
    at.button(key=f"reviews.open.{review_id}").click().run()
    at.switch_page(PLAN_PAGE).run()  # AppTest does not follow st.switch_page on its own
    no_failures(at)
    return review_id


def _gated(at: AppTest, key: str, role: str) -> bool:
    button = at.button(key=key)
    return button.disabled and f"Needs the {role} role" in (button.help or "")


def test_a_viewer_sees_what_they_may_not_do_disabled_and_why(app: AppTest) -> None:
    _as(app, Role.viewer)
    review_id = _open_review(app)  # a viewer may open a review and look
    assert app.session_state[Keys.BENCH].plan.goal == SENT["goal"]
    for key in PLAN_CONTROLS:
        assert _gated(app, key, "reviewer"), key
    assert app.text_area(key=Keys.JSON).disabled
    for key in ("review.approve", "review.reject"):
        assert _gated(app, key, "approver"), key
    assert not app.button(key="review.close").disabled  # leaving it is for anyone
    shown = texts(app)
    assert "Needs the reviewer role" in shown and "you, the local user" in shown and "are a viewer" in shown
    assert get_services().store.get_review(review_id).status == "pending"


def test_a_reviewer_edits_and_runs_but_may_not_decide_a_review(app: AppTest) -> None:
    _as(app, Role.reviewer)
    _open_review(app)
    for key in ("plan.make", "plan.approve", "plan.save", "editor.add"):
        button = app.button(key=key)
        assert not button.disabled and "Needs the" not in (button.help or ""), key
    for key in ("review.approve", "review.reject"):
        assert _gated(app, key, "approver"), key


def test_an_approver_decides_a_review(app: AppTest) -> None:
    _as(app, Role.approver)
    review_id = _open_review(app)
    for key in (*PLAN_CONTROLS, "review.approve", "review.reject"):
        assert "Needs the" not in (app.button(key=key).help or ""), key
    assert not app.button(key="review.approve").disabled
    app.button(key="review.approve").click().run()
    no_failures(app)
    assert get_services().store.get_review(review_id).status == "approved"


PAUSED = {"goal": GOAL, "steps": [
    {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}},
    {"id": "ship", "tool": "shipments_list", "ask_first": True,
     "params": {"has_contaminants": True, "facility_id": "${step[0].data.*.id}"}, "depends_on": ["fac"]},
]}


@pytest.fixture
def held(tmp_path, monkeypatch) -> AppTest:
    """A run whose step ``ship`` waits for a person (the local user ran it as an admin)."""
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    monkeypatch.delenv("PLAN_STUDIO_APPROVE_WRITES", raising=False)
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    at.button(key="editor.empty").click().run()
    edit_json(at, json.dumps(PAUSED))
    at.button(key="plan.approve").click().run()
    run_plan(at, "all")
    assert at.session_state[Keys.BENCH].run.steps["ship"].status == StepStatus.waiting
    return at


def test_the_pause_panel_is_for_approvers(held: AppTest) -> None:
    _as(held, Role.reviewer)
    for key in ("plan.pause.ship.approve", "plan.pause.ship.reject"):
        assert _gated(held, key, "approver"), key
    assert held.text_area(key="plan.pause.ship.edit").disabled
    assert "Needs the approver role (to approve or reject a waiting step)" in texts(held)

    _as(held, Role.approver)
    assert not held.button(key="plan.pause.ship.approve").disabled
    held.button(key="plan.pause.ship.approve").click().run()
    no_failures(held)
    worker = held.session_state[Keys.BENCH].worker
    if worker is not None:
        assert worker.join(60)
        held.run()
    run = held.session_state[Keys.BENCH].run
    assert run.steps["ship"].status == StepStatus.succeeded and run.steps["ship"].decision.actor_id == LOCAL_USER_ID
