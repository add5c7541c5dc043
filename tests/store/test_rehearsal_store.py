"""A rehearsal is stored as one (migration 0013): the run loads back marked, with each step's
source, and the Library's lists and the command line's ``runs`` say "rehearsal"; on SQLite and
PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from core import READ_ONLY, Executor, Plan, ToolRegistry, rehearse
from core.storage import PlanStore


def _registry() -> ToolRegistry:
    tools = ToolRegistry()

    def city_size(city: str) -> dict:
        """How big a city is."""
        return {"city": city, "size": len(city)}

    tools.register(city_size, effects=READ_ONLY)
    return tools


def test_a_rehearsal_is_stored_marked_and_a_real_run_is_not(store_location: str | Path) -> None:
    registry = _registry()
    plan = Plan.model_validate({"goal": "sizes", "steps": [{"id": "a", "tool": "city_size", "params": {"city": "Rome"}}]})
    real = Executor(registry, approve_writes=False).execute(plan)
    rehearsal = rehearse(plan, registry, recording=real)
    with PlanStore(store_location) as store:
        saved = store.save_plan(plan)
        for run in (real, rehearsal):
            store.save_run(run, plan_id=saved.plan_id, version=saved.version)
        loaded = store.load_run(rehearsal.id)
        assert loaded.rehearsal == rehearsal.rehearsal and loaded.rehearsal.sources == {"a": "recording"}
        assert loaded.steps["a"].result == {"city": "Rome", "size": 4}
        assert store.load_run(real.id).rehearsal is None
        assert {s.id: s.rehearsal for s in store.list_runs(saved.plan_id)} == {real.id: False, rehearsal.id: True}
        history = store.histories([saved.plan_id])[saved.plan_id]
        assert {r.id: r.rehearsal for r in history.runs} == {real.id: False, rehearsal.id: True}
        assert {r.id: r.rehearsal for r in store.records.recent()} == {real.id: False, rehearsal.id: True}
