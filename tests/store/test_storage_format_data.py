"""A store written by the release before formats kept their own data still reads: the plans,
runs and reviews in it carry Semantic Kernel's variable name on the step itself."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core import Plan, Run
from core.storage import PlanStore
from unit.test_formats import MAIN_PLAN_JSON


def test_plans_runs_and_reviews_saved_with_sk_fields_on_the_step_still_load(tmp_path: Path) -> None:
    path = tmp_path / "studio.sqlite3"
    plan = Plan.model_validate_json(MAIN_PLAN_JSON)
    with PlanStore(path) as store:
        plan_id = store.save_plan(plan).plan_id
        run = Run.for_plan(plan)
        store.save_run(run, plan_id=plan_id, version=1)
        review = store.submit_review(plan, agent="agent", fmt="native", original_text=MAIN_PLAN_JSON)
    with sqlite3.connect(path) as db:  # what the last release wrote into each record
        for table in ("plan_version", "run", "review"):
            db.execute(f"UPDATE {table} SET plan_json = ?", (MAIN_PLAN_JSON,))
        assert '"output_var":"POEM"' in db.execute("SELECT plan_json FROM plan_version").fetchone()[0]
    with PlanStore(path) as store:
        for loaded in (store.load_plan(plan_id), store.load_run(run.id).plan, store.get_review(review.id).plan):
            assert loaded.steps[0].format_data == {"sk": {"output_var": "POEM"}}
            assert loaded.steps[1].result_key == "RESULT__FR"
            assert loaded == plan
