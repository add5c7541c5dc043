"""Issue 29, item 3 (workbench, no Streamlit): runs safe from every tab and link. A run going
on is watched, not run again, from a second tab; a new run beside a live run of the same
version is asked about, never started silently; waiting runs are listed; a decision made
elsewhere moves the run's cheap stamp and the page reads it again; a pending edit neither blocks
an approval nor takes a waiting run off the page; Run all on a finished run asks. A real store."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import Actor, Role, Settings, StepStatus, dump_plan
from durable_page_helpers import PLAN, WAIT, Gate, tools_for
from studio import workbench as wb
from studio.workbench._services import Services, build_services
from workbench_helpers import TODAY, run_until_a_marked_step_waits, texts

ANN = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)


def _finish(bench: wb.Workbench, services: Services) -> None:
    assert bench.worker is not None and bench.worker.join(timeout=WAIT)
    wb.collect_finished_run(bench, lambda: services.store)


def _same_version(services: Services, saved: wb.SavedRef) -> wb.Workbench:
    """Another tab holding the same stored version, approved, showing no run."""
    other = wb.Workbench()
    wb.show_plan(other, services.store.load_plan(saved.plan_id, saved.version), saved=saved)
    assert wb.approve(other, services.validator).ok
    return other


def test_a_run_going_on_is_watched_from_a_second_tab_and_a_new_run_beside_it_is_asked_first(tmp_path: Path) -> None:
    gate = Gate()
    services = build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=False),
                              registry=tools_for(gate))
    try:
        first = wb.Workbench()
        wb.show_plan(first, PLAN, saved=None)
        assert wb.approve(first, services.validator).ok and wb.request_run(first, services, "all").ok
        assert gate.entered.wait(WAIT)
        run_id, saved = first.run_saved, first.saved
        stamp = wb.run_stamp(services, run_id)

        # A second tab opening the plan (Library, or its URL) watches the very run going on.
        watcher = wb.Workbench()
        assert wb.open_saved_plan(watcher, services, saved.plan_id, saved.version).ok
        assert watcher.worker is first.worker and watcher.run is None and watcher.run_saved == run_id
        assert not wb.request_run(watcher, services, "all").ok  # a run is in progress there too

        # A tab holding that version without the run: Run all asks, starts nothing.
        other = _same_version(services, saved)
        asked = wb.request_run(other, services, "all")
        assert not asked.ok and other.worker is None and other.confirm_new_run == "all"
        assert other.live_run is not None and other.live_run.id == run_id
        assert other.live_run.state == "running in this studio now"
        assert f"run {run_id}" in texts(asked)[0]
        assert [r.id for r in services.store.list_runs(saved.plan_id)] == [run_id]
        assert wb.cancel_new_run(other).ok and other.live_run is None and other.confirm_new_run is None

        gate.release.set()
        _finish(first, services)
        _finish(watcher, services)  # the watching tab collects the run too
        assert watcher.run.id == run_id and watcher.run.finished
        assert wb.run_stamp(services, run_id) != stamp
        # Nothing is live any more: the other tab's Run all starts its run.
        assert wb.live_runs(services, saved.plan_id, saved.version) == []
        assert wb.request_run(other, services, "all").ok
        _finish(other, services)
        assert other.run.id != run_id and gate.calls.count("hold 1") == 2
    finally:
        gate.release.set()


@pytest.fixture
def services(tmp_path: Path) -> Services:
    return build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=True))


def test_a_waiting_run_is_listed_asked_about_and_read_again_once_decided_elsewhere(services: Services) -> None:
    bench, marked = run_until_a_marked_step_waits(services)
    run_id, saved = bench.run.id, bench.saved
    assert [r.id for r in wb.waiting_runs(services)] == [run_id] and wb.waiting_count(services) == 1
    [live] = wb.live_runs(services, saved.plan_id, saved.version)
    assert live.id == run_id and live.state.startswith("waiting")

    other = _same_version(services, saved)
    assert not wb.request_run(other, services, "next").ok and other.live_run.id == run_id
    stamp = wb.run_stamp(services, run_id)
    assert wb.run_stamp(services, run_id) == stamp, "a stamp moves only when the run does"

    # Decided over the API: the stamp moves, and the page reads the run again.
    [waiting] = wb.waiting_view(bench.run, services.registry)
    assert wb.decide_step(services, run_id, marked, True, actor=ANN, channel="api", seen_hash=waiting.shown_hash).ok
    assert wb.join_stored_run(services, run_id, timeout=WAIT)
    assert wb.run_stamp(services, run_id) != stamp
    assert wb.refresh_run(bench, services) and bench.run.finished
    assert bench.run.steps[marked].status == StepStatus.succeeded
    assert wb.waiting_runs(services) == [] and wb.waiting_count(services) == 0

    # Asked about a run that is not live any more, confirming starts a second run.
    assert wb.confirm_new_run(other, services).ok
    _finish(other, services)
    assert other.run.id != run_id and len(services.store.list_runs(saved.plan_id)) == 2

    # Run all on a finished run asks, as Run next step does.
    assert not wb.request_run(bench, services, "all").ok and bench.confirm_new_run == "all"
    assert bench.live_run is None and bench.worker is None


def test_an_edit_while_a_run_waits_keeps_the_run_and_never_blocks_the_approval(services: Services) -> None:
    bench, marked = run_until_a_marked_step_waits(services)
    run = bench.run
    bench.panel_text = dump_plan(bench.plan, "native").replace(bench.plan.goal, bench.plan.goal + " (typo fixed)")
    edited = wb.edit_json(bench)
    assert bench.json_pending and bench.run is run, "the waiting run stays on the page"
    assert "waits for a decision" in texts(edited)[0]
    undone = wb.undo(bench)
    assert not undone.ok and bench.run is run
    [waiting] = wb.waiting_view(run, services.registry)
    out = wb.decide_step(services, run.id, marked, True, actor=ANN, channel="page", seen_hash=waiting.shown_hash,
                         bench=bench)
    said = " ".join(texts(out))
    assert out.ok and "Could not" not in said and "Your edit stays in the Plan JSON" in said, said
    _finish(bench, services)
    assert bench.run.id == run.id and bench.run.finished and bench.json_pending
    applied = wb.apply_pending_edit(bench)
    assert applied.ok and bench.plan.goal.endswith("(typo fixed)") and not bench.json_pending
