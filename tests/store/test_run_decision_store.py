"""A run held for a person keeps its waiting steps and their decisions through the store."""

from __future__ import annotations

from core import READ_ONLY, Actor, Executor, Role, arguments_hash, RunLimits, StepStatus, ToolRegistry, decide_step, waiting_steps
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

        ann = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)
        decision = decide_step(held, waiting, True, actor=ann, seen_hash=arguments_hash(held.steps[waiting].arguments),
                               channel="cli")
        store.records.step_finished(run.id, held.steps[waiting])  # as plan-studio run stores it
        assert store.load_run(run.id).steps[waiting].decision == decision
        assert store.load_run(run.id).steps[waiting].approvals == [decision]
        held.submitted_by = "agent:ci-bot"
        store.save_run(held, plan_id=version.plan_id, version=version.version)  # a whole save keeps it too
        reloaded = store.load_run(run.id)
    assert reloaded.steps[waiting].decision == decision and reloaded.submitted_by == "agent:ci-bot"
    assert reloaded.steps[waiting].approvals[0].actor_id == "user:ann"
    list(executor.run_all(reloaded))  # the reloaded decision lets the step run
    assert reloaded.steps[waiting].status == StepStatus.succeeded


def test_a_decision_stored_before_0008_reads_its_channel_from_by() -> None:
    from core import StepDecision
    old = StepDecision.model_validate({"approved": True, "arguments_hash": "a" * 64,
                                       "decided_at": "2026-11-01T10:00:00+00:00", "by": "page"})
    assert old.channel == "page" and old.by == "page" and old.actor_id == ""


def test_grants_are_kept_listed_found_and_revoked(tmp_path) -> None:
    import datetime as dt

    from core import Grant
    now = dt.datetime.now(dt.timezone.utc)
    with PlanStore(tmp_path / "g.sqlite3") as store:
        for_run = store.grants.add(Grant(tool="save_note", scope="run", run_id="r1", granted_by="user:ann",
                                         created_at=now - dt.timedelta(minutes=1)))
        always = store.grants.add(Grant(tool="save_note", scope="always", arguments_hash="h" * 64,
                                        arguments={"text": "x"}, granted_by="user:ann", created_at=now,
                                        expires_at=now + dt.timedelta(days=1)))
        store.grants.add(Grant(tool="save_note", scope="always", arguments_hash="e" * 64, granted_by="user:ann",
                               created_at=now - dt.timedelta(days=2), expires_at=now - dt.timedelta(days=1)))
        assert [g.id for g in store.grants.listed()] == [always.id, for_run.id]
        assert len(store.grants.listed(active_only=False)) == 3
        assert store.grants.letting_pass("r1", "save_note", "z" * 64).id == for_run.id
        assert store.grants.letting_pass("r2", "save_note", "h" * 64).id == always.id
        assert store.grants.letting_pass("r2", "save_note", "e" * 64) is None
        assert store.grants.letting_pass("r2", "other_tool", "h" * 64) is None
        revoked = store.grants.revoke(always.id, by="user:bob")
        assert revoked.revoked_by == "user:bob" and store.grants.letting_pass("r2", "save_note", "h" * 64) is None
        assert [g.id for g in store.grants.listed()] == [for_run.id]
