"""A run held for a person keeps its waiting steps and their decisions through the store."""

from __future__ import annotations

from core import READ_ONLY, Executor, RunLimits, StepStatus, ToolRegistry, decide_step, waiting_steps
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


def test_a_waiting_runs_decision_survives_reloading_the_run_from_the_store(tmp_path):
    registry = _registry()
    plan = plan_from_seed({"steps": [{"tool": "read_name", "params": {"key": "ann"}},
                                     {"tool": "save_note", "params": {"text": "hi ${step[0]}"}}]})
    executor = Executor(registry, limits=RunLimits(approve_writes=True))
    run = executor.start(plan)
    list(executor.run_all(run))
    [waiting] = waiting_steps(run)
    with PlanStore(tmp_path / "s.sqlite3") as store:
        version = store.save_plan(plan)
        store.save_run(run, plan_id=version.plan_id, version=version.version)
        held = store.load_run(run.id)
        assert held.status == "waiting"
        assert held.steps[waiting].status == StepStatus.waiting
        assert held.steps[waiting].arguments == {"text": "hi ANN"}

        decision = decide_step(held, waiting, True, by="cli")
        store.records.step_finished(run.id, held.steps[waiting])  # as plan-studio run stores it
        assert store.load_run(run.id).steps[waiting].decision == decision
        store.save_run(held, plan_id=version.plan_id, version=version.version)  # a whole save keeps it too
        reloaded = store.load_run(run.id)
    assert reloaded.steps[waiting].decision == decision
    list(executor.run_all(reloaded))  # the reloaded decision lets the step run
    assert reloaded.steps[waiting].status == StepStatus.succeeded
