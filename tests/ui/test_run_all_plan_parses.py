"""How many times one "Run all" click on the Plan page builds a plan from JSON or a dict.

The plan is a value (``docs/decisions/0003-the-plan-is-a-value.md``): once the page holds it,
nothing needs to read it again from text to run it. What is counted as a parse: every new
``Plan`` object validated from data, seen where the plan model's checks run (``check_plan``,
which each ``Plan`` runs as it is validated): ``Plan.model_validate``, ``Plan.model_validate_json``,
``load_plan``, a ``Plan`` inside a stored run, version, review or draft read back, ``Plan(**data)``
with steps as dicts; not ``Plan(...)`` made from step objects, nor ``model_copy``. Counted apart
(``rechecks``): a plan already made, checked again because pydantic runs a model's "after"
validators on an instance given as a field of another model (``Run(plan=plan)``). Counted from
the click until the page has collected the finished run (the worker's steps and the page's
reruns after it). On main before the plan became a value: 11 parses (the save reading back
what it wrote, then ten loads of the stored plan and run, each parsing the same text again) and
1 re-check; after: 1 parse (the stored text, read once and then shared) and 1 re-check.
"""

from __future__ import annotations

import sys

import pytest
from streamlit.testing.v1 import AppTest

import core.plan._model as plan_model
from core import Plan, Run
from studio import Keys

from apptest_helpers import edit_json, make_plan, no_failures, plan_text, run_plan

MAX_PARSES_PER_RUN_ALL = 4


class ParseCounter:
    """Counts plans validated from data, by wrapping the plan model's own check (see above)."""

    def __init__(self) -> None:
        self._real = plan_model.check_plan
        self._made: list[object] = []  # every plan seen, held so that no id is used again
        self.reset()

    def reset(self) -> None:
        self.count, self.rechecks = 0, 0
        self.where: list[str] = []

    def __call__(self, plan: object) -> None:
        made_by = sys._getframe(2)  # _within_limits' caller: Plan.__init__ or a validate entry
        if any(plan is made for made in self._made):
            self.rechecks += 1
        else:
            self._made.append(plan)
            own_init = made_by.f_code.co_name == "__init__" and isinstance(made_by.f_locals.get("self"), Plan)
            given = made_by.f_locals.get("data", {}) if own_init else {}
            if not own_init or any(isinstance(s, dict) for s in given.get("steps", ())):
                self.count += 1
                self.where.append(_caller(made_by))
        self._real(plan)


def _caller(frame) -> str:
    """The first frame outside pydantic: where the parse was asked for."""
    while frame is not None and "pydantic" in frame.f_code.co_filename:
        frame = frame.f_back
    return f"{frame.f_code.co_filename.rsplit('/', 2)[-1]}:{frame.f_lineno}" if frame else "?"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> ParseCounter:
    counter = ParseCounter()
    monkeypatch.setattr(plan_model, "check_plan", counter)
    return counter


def test_the_counter_counts_parses_and_not_plans_made_from_steps(parses: ParseCounter) -> None:
    plan = Plan(goal="g", steps=[{"id": "a", "tool": "say"}])
    assert parses.count == 1
    Plan(goal="g", steps=list(plan.steps))
    plan.model_copy(update={"goal": "h"})
    assert parses.count == 1
    Plan.model_validate(plan.model_dump())
    Plan.model_validate_json(plan.model_dump_json())
    assert parses.count == 3
    Run(plan=plan, steps={})
    assert (parses.count, parses.rechecks) == (3, 1)


def test_run_all_on_a_two_step_plan_parses_it_at_most_four_times(app: AppTest, parses: ParseCounter) -> None:
    make_plan(app)
    edit_json(app, plan_text([
        {"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"}},
        {"id": "b", "tool": "say", "params": {"message": "found ${steps.a.count}"}},
    ]))
    app.button(key="plan.approve").click().run()
    no_failures(app)
    parses.reset()
    run_plan(app, "all")
    assert app.session_state[Keys.BENCH].run.status == "succeeded"
    print(f"plan parses per Run all: {parses.count} {parses.where}, re-checks: {parses.rechecks}")
    assert parses.count <= MAX_PARSES_PER_RUN_ALL, parses.where
