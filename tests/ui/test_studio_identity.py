"""Approval and "saved?" are decided by the plans' content identities (core.plan._identity), worked
out once per plan: a JSON-panel edit no longer dumps the same plan to a string again and again
to compare it. Behaviour (locks and notes keep the approval) is in test_plan_gate.py."""

from __future__ import annotations

from collections import Counter

import pytest
from streamlit.testing.v1 import AppTest

from core import Plan
from studio import Keys

from apptest_helpers import edit_json, make_plan, no_failures


@pytest.fixture
def dumps(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """How many times each plan object was dumped whole to a JSON string."""
    counted: Counter = Counter()
    real = Plan.model_dump_json

    def counting(self, *args, **kwargs):
        counted[id(self)] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Plan, "model_dump_json", counting)
    return counted


def test_a_json_panel_edit_dumps_each_plan_at_most_once(app: AppTest, dumps: Counter) -> None:
    make_plan(app)
    app.button(key="plan.approve").click().run()
    no_failures(app)
    dumps.clear()
    edited = app.session_state[Keys.JSON].replace('"Berlin"', '"Hamburg"')
    edit_json(app, edited)
    assert app.session_state[Keys.BENCH].plan.steps[0].params["location"] == "Hamburg"
    assert app.session_state[Keys.BENCH].approved is None, "what runs changed: approval withdrawn"
    assert dumps and max(dumps.values()) == 1, f"a plan dumped {max(dumps.values())} times"


def test_a_lock_keeps_the_approval_and_is_an_unsaved_change(app: AppTest) -> None:
    plan = make_plan(app)
    app.button(key="plan.save").click().run()
    app.button(key="plan.approve").click().run()
    no_failures(app)
    app.multiselect(key=Keys.LOCKS).select(plan.steps[0].id).run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan.steps[0].locked
    assert app.session_state[Keys.BENCH].approved is not None, "a lock is review metadata: still approved"
    [caption] = [c.value for c in app.caption if "Saved as version" in c.value]
    assert "edited since" in caption, "the lock is not in the saved version"
