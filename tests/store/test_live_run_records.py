"""The store's view of runs not over (issue 29, item 3), on SQLite and PostgreSQL: a cheap stamp
that moves when a step is decided (its status unchanged), the runs of a version not over, and
the runs waiting for a person with their count."""

from __future__ import annotations

from core import READ_ONLY, Actor, Executor, Role, RunLimits, ToolRegistry, arguments_hash, decide_step, waiting_steps
from core.formats import plan_from_seed
from core.storage import PlanStore


def _registry() -> ToolRegistry:
    def read_name(key: str) -> str:
        """Read a name.

        Args:
            key: Which name.
        """
        return key.upper()

    def save_note(text: str) -> str:
        """Save a note.

        Args:
            text: The note.
        """
        return "saved"

    registry = ToolRegistry()
    registry.register(read_name, effects=READ_ONLY)
    registry.register(save_note, effects="additive")
    return registry


def test_a_waiting_run_is_listed_counted_and_its_stamp_moves_with_a_decision(store_location) -> None:
    plan = plan_from_seed({"steps": [{"tool": "read_name", "params": {"key": "ann"}},
                                     {"tool": "save_note", "params": {"text": "hi ${step[0]}"}}]})
    executor = Executor(_registry(), limits=RunLimits(approve_writes=True))
    run = executor.start(plan)
    list(executor.run_all(run))
    [waiting] = waiting_steps(run)
    with PlanStore(store_location) as store:
        version = store.save_plan(plan)
        assert store.records.stamp(run.id) is None and store.records.waiting_count() == 0
        store.save_run(run, plan_id=version.plan_id, version=version.version)
        records = store.records
        assert [r.id for r in records.waiting()] == [run.id] and records.waiting_count() == 1
        assert [r.id for r in records.unfinished(version.plan_id, version.version, ("running", "waiting"))] == [run.id]
        assert records.unfinished(version.plan_id, version.version, ("running",)) == []
        before = records.stamp(run.id)
        assert records.stamp(run.id) == before

        ann = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)
        decide_step(run, waiting, True, actor=ann, seen_hash=arguments_hash(run.steps[waiting].arguments), channel="api")
        records.step_finished(run.id, run.steps[waiting])  # decided, still "waiting" until it runs
        decided = records.stamp(run.id)
        assert decided != before

        list(executor.run_all(run))
        store.save_run(run, plan_id=version.plan_id, version=version.version)
        assert records.stamp(run.id) not in (before, decided)
        assert records.waiting() == [] and records.waiting_count() == 0
        assert records.unfinished(version.plan_id, version.version, ("running", "waiting")) == []
