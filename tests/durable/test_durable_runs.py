"""Durable runs through the Python API: in the store from the first step, each step written as
it happens; a step of a writing tool cut off mid-call is in doubt, not run again on its own."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import durable_child
from test_durable_kill import start_child
from core import Plan, PlanStudioError, RetryableError, RetryPolicy, Step, ToolRegistry
from core.durable import IN_DOUBT, DurableRuns, StepsInDoubt
from core.storage import PlanStore


pytestmark = pytest.mark.usefixtures("stop_durable_runs")


@pytest.fixture
def store(store_location: str | Path):
    with PlanStore(store_location) as opened:
        yield opened


def test_every_step_is_in_the_store_as_it_happens(store: PlanStore) -> None:
    seen: list[tuple[str, str, object, list[str]]] = []
    tools = ToolRegistry()

    @tools.register
    def look(step: str, value: int) -> int:
        """Look at the store while running.

        Args:
            step: This step's id.
            value: A number.
        """
        run_id = store.records.recent(1)[0].id
        run = store.load_run(run_id)
        mine = run.steps[step]
        done = [s.step_id for s in run.steps.values() if s.status.value == "succeeded"]
        seen.append((step, mine.status.value, mine.arguments, done))
        return value + 1

    plan = Plan(goal="look", steps=[Step(id="a", tool="look", params={"step": "a", "value": 1}),
                                    Step(id="b", tool="look", params={"step": "b", "value": "${step[0]}"})])
    run = DurableRuns(store, tools).run(plan)
    assert seen == [("a", "running", {"step": "a", "value": 1}, []),
                    ("b", "running", {"step": "b", "value": 2}, ["a"])]
    stored = store.load_run(run.id)
    assert [(s.status.value, s.result) for s in stored.steps.values()] == [("succeeded", 2), ("succeeded", 3)]
    assert all(s.started_at is not None and s.duration_ms is not None for s in stored.steps.values())
    listing = store.records.recent()
    assert [(r.id, r.status, r.goal) for r in listing] == [(run.id, "succeeded", "look")]


def test_each_call_of_a_step_tried_again_is_in_the_store(store: PlanStore) -> None:
    tools = ToolRegistry()
    calls: list[int] = []

    @tools.register(retry=RetryPolicy(max_attempts=3, backoff_seconds=0.01))
    def flaky(label: str) -> str:
        """Fail the first two calls.

        Args:
            label: Returned.
        """
        calls.append(1)
        if len(calls) <= 2:
            raise RetryableError(f"busy ({len(calls)})")
        return label

    plan = Plan(goal="flaky", steps=[Step(id="a", tool="flaky", params={"label": "done"})])
    run = DurableRuns(store, tools).run(plan)
    for kept in (store.load_run(run.id), _saved_whole_and_read_back(store, run)):
        step = kept.steps["a"]
        assert (step.status.value, step.result) == ("succeeded", "done")
        assert [(a.number, a.error) for a in step.retried] == [(1, "flaky failed: busy (1)"), (2, "flaky failed: busy (2)")]
        assert all(a.started_at is not None and a.duration_ms is not None for a in step.retried)


def _saved_whole_and_read_back(store: PlanStore, run):
    """The run written at once, as the studio saves a run with its plan version."""
    copy = run.model_copy(update={"id": run.id + "-copy"}, deep=True)
    saved = store.save_plan(run.plan, message="copy")
    store.save_run(copy, plan_id=saved.plan_id, version=saved.version)
    return store.load_run(copy.id)


def _run_and_kill_after(line: str, location: str | Path, log: Path, out: Path, shape: str = "writes") -> str:
    """Run the ``shape`` chain in a process of its own and SIGKILL it once ``line`` is logged."""
    child = start_child(["run", str(location), shape, str(log)], out, env={durable_child.HOLD: line.removeprefix("start ")})
    deadline = time.monotonic() + 60
    while line not in (log.read_text().splitlines() if log.exists() else []):
        assert child.poll() is None, "the run ended before the kill"
        assert time.monotonic() < deadline
        time.sleep(0.0005)
    child.kill()
    child.wait()
    return out.read_text().split()[0]


@pytest.mark.parametrize("decision", ["again", "failed"])
def test_a_writing_step_cut_off_mid_call_waits_in_doubt_until_the_user_decides(
        store: PlanStore, store_location: str | Path, tmp_path: Path, decision: str) -> None:
    log = tmp_path / "calls.log"
    run_id = _run_and_kill_after("start c3", store_location, log, tmp_path / "out")
    runs = DurableRuns(store, durable_child.registry(log))
    with pytest.raises(StepsInDoubt, match="step 3 \\(send\\) may have had its effect") as caught:
        runs.resume(run_id)
    assert caught.value.steps == runs.in_doubt(run_id) == ["c3"]
    waiting = store.load_run(run_id)
    assert waiting.steps["c3"].status.value == "interrupted" and waiting.steps["c3"].error.startswith(IN_DOUBT)
    assert [waiting.steps[f"c{n}"].result for n in range(3)] == [1, 2, 3]
    assert log.read_text().splitlines().count("start c3") == 1  # not called again on its own
    assert [r.status for r in store.records.recent()] == [IN_DOUBT]
    runs.resume(run_id, decisions={"c3": decision})
    final = store.load_run(run_id)
    calls = log.read_text().splitlines()
    if decision == "again":
        assert final.status == "succeeded" and calls.count("start c3") == 2
        assert [final.steps[f"c{n}"].result for n in range(durable_child.CHAIN)] == list(range(1, durable_child.CHAIN + 1))
    else:
        assert final.status == "failed" and calls.count("start c3") == 1, ({k: (v.status.value, v.error) for k, v in final.steps.items()}, calls)
        assert final.steps["c3"].status.value == "failed" and "may have had its effect" in final.steps["c3"].error
        assert {final.steps[f"c{n}"].status.value for n in range(4, durable_child.CHAIN)} == {"skipped"}
    for n in range(3):  # finished before the kill: called once, ever
        assert calls.count(f"start c{n}") == 1


def test_a_read_only_step_cut_off_mid_call_runs_again_on_resume_without_asking(
        store: PlanStore, store_location: str | Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    run_id = _run_and_kill_after("start c3", store_location, log, tmp_path / "out", shape="reads")
    runs = DurableRuns(store, durable_child.registry(log))
    assert runs.in_doubt(run_id) == []
    final = runs.resume(run_id)
    calls = log.read_text().splitlines()
    assert final.status == "succeeded" and calls.count("start c3") == 2
    assert {k: s.result for k, s in store.load_run(run_id).steps.items()} == durable_child.expected("reads")
    for n in range(3):  # finished before the kill: called once, ever
        assert calls.count(f"start c{n}") == 1


def test_a_run_whose_tools_changed_since_is_not_resumed_and_says_what_changed(store: PlanStore, tmp_path: Path) -> None:
    run_id = DurableRuns(store, durable_child.registry(tmp_path / "log")).start(durable_child.plan("chain"))
    with pytest.raises(PlanStudioError, match=f"run '{run_id}' cannot go on: .*add"):
        DurableRuns(store, ToolRegistry()).resume(run_id)  # the tool the plan calls is gone
    assert store.load_run(run_id).status == "pending"  # nothing ran


def test_a_run_is_made_and_carried_on_from_code_where_an_event_loop_runs(store: PlanStore, tmp_path: Path) -> None:
    # DBOS's synchronous calls refuse a thread with a running event loop (an async caller, a
    # notebook, Playwright's sync API in the same test process): the run must not care.
    import asyncio
    import threading

    runs = DurableRuns(store, durable_child.registry(tmp_path / "log"))
    run_id = runs.start(durable_child.plan("chain"))

    async def from_async_code() -> str:
        return runs.resume(run_id).status

    # On a thread of its own: the test process's main thread may hold Playwright's loop already.
    statuses: list[str] = []
    caller = threading.Thread(target=lambda: statuses.append(asyncio.run(from_async_code())))
    caller.start()
    caller.join()
    assert statuses == ["succeeded"]


def test_steps_that_start_together_are_written_in_one_transaction(store: PlanStore,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    tools = ToolRegistry()
    seen: list[str] = []

    @tools.register
    def look(step: str) -> str:
        """Look at the store while running: which steps of the wave are not written started yet.

        Args:
            step: This step's id.
        """
        run = store.load_run(store.records.recent(1)[0].id)
        seen.append(",".join(s.step_id for s in run.steps.values() if s.status.value == "pending"))
        return step

    writes: list[str] = []
    write = store.database.driver_writes.write

    def counted(action: str, statement, rows):
        writes.append(action)
        return write(action, statement, rows)

    monkeypatch.setattr(store.database.driver_writes, "write", counted)
    plan = Plan(goal="wave", steps=[Step(id=f"s{n}", tool="look", params={"step": f"s{n}"}) for n in range(20)])
    run = DurableRuns(store, tools).run(plan)
    assert run.status == "succeeded"
    assert writes.count("record the step's start") == 1
    assert 1 <= writes.count("record the step's end") <= 20
    assert seen == [""] * 20  # each tool was called after the whole wave was written started
    stored = store.load_run(run.id)
    assert [(s.status.value, s.result) for s in stored.steps.values()] == [("succeeded", f"s{n}") for n in range(20)]



def test_the_run_returned_is_the_run_as_stored(store: PlanStore) -> None:
    """``run`` and ``execute`` give back the run as their workflow left it, without reading it
    back: every change of it was written as it happened, so it must equal the stored run, in a
    run with retries, a failure, a skipped step, an ``async def`` tool and a rerun's seeds."""
    tools = ToolRegistry()
    calls: list[str] = []

    @tools.register(effects="idempotent", retry=RetryPolicy(max_attempts=3, backoff_seconds=0.01))
    def shaky(value: int) -> dict:
        """Fail twice as retryable, then give a nested result.

        Args:
            value: A number.
        """
        calls.append("shaky")
        if calls.count("shaky") < 3:
            raise RetryableError("busy")
        return {"rows": [(value, "ünï"), None], "n": 1.5}

    @tools.register(effects="idempotent")
    def broken(value: int) -> int:
        """Fail.

        Args:
            value: A number.
        """
        raise ValueError(f"no {value}")

    @tools.register(effects="idempotent")
    async def later(value: int) -> list:
        """Await, then answer.

        Args:
            value: A number.
        """
        return [value, value]

    plan = Plan(goal="mixed", steps=[
        Step(id="a", tool="shaky", params={"value": 1}, note="<b>first</b>"),
        Step(id="b", tool="broken", params={"value": 2}),
        Step(id="c", tool="later", params={"value": "${steps.b}"}),
        Step(id="d", tool="later", params={"value": 4}),
    ])
    runs = DurableRuns(store, tools)
    returned = runs.run(plan)
    assert [returned.steps[s].status.value for s in "abcd"] == ["succeeded", "failed", "skipped", "succeeded"]
    assert len(returned.steps["a"].retried) == 2
    assert returned.model_dump() == store.load_run(returned.id).model_dump()

    from core.durable import rerun_choice

    choice = rerun_choice(returned, from_step="b", registry=tools)
    plan_id, version = store.records.where(returned.id)
    child = runs.execute(runs.start(returned.plan, plan_id=plan_id, version=version, parent_id=returned.id,
                                    rerun_from=choice.start, seeded=choice.reused))
    assert child.steps["a"].result == returned.steps["a"].result  # reused, not called
    assert child.model_dump() == store.load_run(child.id).model_dump()
