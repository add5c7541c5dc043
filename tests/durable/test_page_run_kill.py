"""Issue 17, item 2 (the Plan page's runs): kill -9 the process running a plan the way the page
does, mid-run, at random points; in a new process on the same data folder, opening the run
shows it interrupted with Resume, which says what runs again and finishes it: no step that had
finished runs again, the results are right. A writing step cut off mid-call is asked about.

The processes are started afresh and killed with SIGKILL, as ``test_durable_kill`` does (and says why not forked).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import durable_child
import page_run_child
from test_durable_kill import Pace, _lines, _wait_for, start_child
from core import Settings
from core.storage import PlanStore
from studio import workbench as wb
from workbench_helpers import texts

_WAIT_SECONDS = 60


def _resume_in_a_new_studio(tmp_path: Path, log: Path, run_id: str, decisions: dict[str, str]) -> wb.Workbench:
    services = page_run_child.services_for(tmp_path / "data", log)
    plan_id, version = services.store.records.where(run_id)
    bench = wb.Workbench()
    opened = wb.open_saved_run(bench, services, plan_id, version, run_id)
    assert opened.ok and "interrupted" in texts(opened)[0], texts(opened)
    view = wb.resume_view(bench, services)
    assert view is not None and view.status == "interrupted"
    finished = {s.step_id for s in bench.run.steps.values() if s.status.value == "succeeded"}
    assert set(view.kept) == finished and not {line.step_id for line in view.again} & finished
    assert wb.resume_run(bench, services, decisions).ok
    assert bench.worker.join(_WAIT_SECONDS)
    wb.collect_finished_run(bench, lambda: services.store)
    return bench


@pytest.mark.parametrize("seed", range(4))
def test_kill_9_of_the_page_run_path_then_resume_from_the_page_reruns_no_finished_step(
        seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    shape = ("chain", "fanout")[seed % 2]
    log, out = tmp_path / "calls.log", tmp_path / "child.out"
    pace = Pace()
    child = start_child([str(tmp_path / "data"), shape, str(log)], out, pace=pace, main=page_run_child.main)
    assert _wait_for(lambda: out.exists() and out.read_text().strip() != "", child)
    run_id = out.read_text().split()[0]
    target = rng.randint(2, 2 * len(durable_child.expected(shape)) - 4)
    assert _wait_for(lambda: pace.lines(log) >= target, child), "the run ended before the kill"
    for _ in range(rng.randint(0, 3000)):  # land anywhere: in the tool, in a write, between steps
        pass
    child.kill()
    child.wait()
    logged = len(_lines(log))
    with PlanStore(Settings(data_dir=tmp_path / "data").store_path) as store:  # recorded finished at the kill
        recorded = {s.step_id: s.result for s in store.load_run(run_id).steps.values() if s.status.value == "succeeded"}

    bench = _resume_in_a_new_studio(tmp_path, log, run_id, {})
    run = bench.run
    assert run.finished and run.status == "succeeded"
    assert {s.step_id: s.result for s in run.steps.values()} == durable_child.expected(shape)
    assert recorded.items() <= {s.step_id: s.result for s in run.steps.values()}.items()  # nothing recorded lost
    again = [step for kind, step in (line.split() for line in _lines(log)[logged:]) if kind == "start"]
    assert not set(again) & set(recorded), "a step recorded finished at the kill ran again"
    assert len(again) == len(set(again)), "a step ran twice after the resume"
    assert set(again) | set(recorded) == set(durable_child.expected(shape))


def test_a_writing_step_killed_mid_call_is_asked_about_and_marked_failed_is_not_called_again(
        tmp_path: Path) -> None:
    log, out = tmp_path / "calls.log", tmp_path / "child.out"
    child = start_child([str(tmp_path / "data"), "writes", str(log)], out, env={durable_child.HOLD: "c3"},
                     main=page_run_child.main)
    assert _wait_for(lambda: "start c3" in _lines(log), child)
    child.kill()
    child.wait()
    run_id = out.read_text().split()[0]
    services = page_run_child.services_for(tmp_path / "data", log)
    plan_id, version = services.store.records.where(run_id)
    bench = wb.Workbench()
    assert wb.open_saved_run(bench, services, plan_id, version, run_id).ok
    view = wb.resume_view(bench, services)
    assert view.in_doubt == ["c3"] and all(line.writes for line in view.again)
    refused = wb.resume_run(bench, services, {})
    assert not refused.ok and "step 3 (send)" in texts(refused)[0]
    before = len(_lines(log))
    assert wb.resume_run(bench, services, {"c3": "failed"}).ok
    assert bench.worker.join(_WAIT_SECONDS)
    wb.collect_finished_run(bench, lambda: services.store)
    assert _lines(log)[before:] == [], "c3 marked failed is not called; the steps after it are skipped"
    statuses = {s.step_id: s.status.value for s in bench.run.steps.values()}
    assert [statuses[f"c{n}"] for n in range(4)] == ["succeeded"] * 3 + ["failed"]
    assert set(statuses[f"c{n}"] for n in range(4, durable_child.CHAIN)) == {"skipped"}
