"""Issue 17, item 3 (store): the Library's histories carry each run's lineage, the run it came
from and the step it started again from, by label; on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from rerun_helpers import PLAN

from core import Run, StepStatus
from core.storage import PlanStore


def test_histories_list_each_rerun_with_its_parent_and_the_labelled_step(store_location: str | Path) -> None:
    with PlanStore(store_location) as store:
        version = store.save_plan(PLAN)
        parent, child, odd = Run.for_plan(PLAN), Run.for_plan(PLAN), Run.for_plan(PLAN)
        parent.steps["b"].status = StepStatus.failed
        for run in (parent, child, odd):
            store.save_run(run, plan_id=version.plan_id, version=version.version)
        store.records.link(child.id, parent_id=parent.id, rerun_from="b")
        store.records.link(odd.id, parent_id=child.id, rerun_from="gone")  # a step its plan lacks: named by id
        runs = {r.id: r for r in store.histories([version.plan_id])[version.plan_id].runs}
    assert (runs[parent.id].parent_id, runs[parent.id].rerun_from_label) == (None, None)
    assert (runs[child.id].parent_id, runs[child.id].rerun_from, runs[child.id].rerun_from_label) == \
        (parent.id, "b", "fetch “Add one to a”")
    assert (runs[odd.id].parent_id, runs[odd.id].rerun_from_label) == (child.id, "gone")
