"""Issue 17, item 3 (application): retry the failed steps and rerun from a chosen step, from the
workbench that the Plan page and the review API share. A preview first (what runs again, what
keeps its recorded result, writing tools marked); confirmed, a new run linked to its parent,
carried out by the workbench's run-all. A real store, no Streamlit."""

from __future__ import annotations

from pathlib import Path

import pytest
from rerun_helpers import PLAN, Tools, finish, ran_with_b_failing, rerun_services
from workbench_helpers import texts

from core import StepStatus
from studio import workbench as wb


@pytest.fixture
def tools() -> Tools:
    return Tools()


@pytest.fixture
def services(tmp_path: Path, tools: Tools):
    return rerun_services(tmp_path, tools)


def test_retry_shows_what_runs_again_first_then_runs_only_that_in_a_linked_run(services, tools) -> None:
    bench = ran_with_b_failing(services, tools)
    parent = bench.run
    asked = wb.ask_rerun(bench, services, retry=True)
    assert asked.ok and bench.worker is None and tools.calls == []  # nothing runs before the confirm
    preview = bench.rerun
    assert [s.step_id for s in preview.steps if s.again] == ["b", "d"]
    assert [s.step_id for s in preview.steps if not s.again] == ["a", "c", "e"]
    assert {s.step_id for s in preview.steps if s.writes} == {"d", "e"}  # send writes, fetch reads
    assert [s.label for s in preview.steps][:2] == ["fetch · a", "fetch “Add one to a”"]  # core.step_label
    assert wb.confirm_rerun(bench, services).ok
    finish(bench, services)
    child = bench.run
    assert sorted(tools.calls) == ["b", "d"] and child.id != parent.id and child.status == "succeeded"
    assert {s: child.steps[s].result for s in "abcde"} == {"a": 1, "b": 2, "c": 2, "d": 3, "e": 11}
    assert services.store.records.lineage(child.id) == (parent.id, "b")
    assert services.store.load_run(child.id).steps["d"].status == StepStatus.succeeded  # stored when it ended
    assert services.store.load_run(parent.id).steps["b"].status == StepStatus.failed  # the parent stays as it was
    assert wb.rerun_lineage(services.store, child.id, child.plan) == f"rerun of run {parent.id} from fetch “Add one to a”"


def test_rerun_from_a_step_reuses_every_step_that_does_not_depend_on_it(services, tools) -> None:
    bench = ran_with_b_failing(services, tools)
    assert wb.ask_rerun(bench, services, retry=True).ok and wb.confirm_rerun(bench, services).ok
    finish(bench, services)
    first = bench.run
    tools.calls.clear()
    assert wb.ask_rerun(bench, services, from_step="c").ok
    assert [s.step_id for s in bench.rerun.steps if s.again] == ["c"]  # d and e come after c but do not need it
    assert wb.confirm_rerun(bench, services).ok
    finish(bench, services)
    assert tools.calls == ["c"] and services.store.records.lineage(bench.run.id) == (first.id, "c")


def test_a_rerun_asked_by_run_id_runs_in_the_background_and_is_stored(services, tools) -> None:
    parent = ran_with_b_failing(services, tools).run  # durable: stored from its first step
    out, dry = wb.preview_rerun(services, parent.id, from_step="b")
    assert out.ok and dry is not None and dry.run_id is None and len(services.store.records.recent()) == 1
    out, started = wb.start_rerun(services, parent.id, from_step="b")
    assert out.ok and started.run_id is not None, texts(out)
    assert services.store.records.lineage(started.run_id) == (parent.id, "b")  # linked before it runs
    assert wb.join_rerun(services, started.run_id, timeout=60)
    child = services.store.load_run(started.run_id)
    assert child.finished and sorted(tools.calls) == ["b", "d"] and child.steps["d"].result == 3


def test_an_unknown_step_is_refused_by_name_and_nothing_is_lost(services, tools) -> None:
    bench = ran_with_b_failing(services, tools)
    parent, panel = bench.run, bench.panel_text
    out = wb.ask_rerun(bench, services, from_step="zz")
    assert not out.ok and bench.rerun is None and "no step 'zz'" in " ".join(texts(out))
    assert bench.run is parent and bench.panel_text == panel and tools.calls == []


def test_a_run_with_nothing_failed_has_nothing_to_retry(services, tools) -> None:
    bench = wb.Workbench()
    wb.show_plan(bench, PLAN, saved=None)
    assert wb.approve(bench, services.validator).ok and wb.request_run(bench, services, "all").ok
    finish(bench, services)
    out = wb.ask_rerun(bench, services, retry=True)
    assert not out.ok and "no failed step to retry" in " ".join(texts(out))


def test_a_rerun_while_the_run_still_goes_is_refused(services, tools) -> None:
    bench = ran_with_b_failing(services, tools)
    parent = bench.run
    running = parent.model_copy(update={"finished_at": None, "steps": {
        **parent.steps, "d": parent.steps["d"].model_copy(update={"status": StepStatus.running})}})
    bench.run = running
    out = wb.ask_rerun(bench, services, retry=True)
    assert not out.ok and "still going" in " ".join(texts(out)) and "send · d" in " ".join(texts(out))
    assert bench.run is running and tools.calls == []


def test_a_rerun_of_a_plan_that_no_longer_fits_the_tools_is_refused_saying_what(tmp_path: Path, services,
                                                                                 tools) -> None:
    bench = ran_with_b_failing(services, tools)
    assert wb.ask_rerun(bench, services, retry=True).ok
    fewer = rerun_services(tmp_path, tools, with_send=False)  # the same store; the tool `send` is gone
    out = wb.confirm_rerun(bench, fewer)
    said = " ".join(texts(out))
    assert not out.ok and "send" in said and "tools loaded now" in said, said
    assert tools.calls == [] and all(r.parent_id is None for r in services.store.records.recent())  # no rerun stored
    assert bench.rerun is not None and bench.run.steps["b"].status == StepStatus.failed


def test_a_preview_goes_stale_when_the_plan_changes(services, tools) -> None:
    bench = ran_with_b_failing(services, tools)
    assert wb.ask_rerun(bench, services, retry=True).ok
    changed = PLAN.model_copy(update={"steps": PLAN.steps[:3]})
    wb.apply_edit(bench, "drop steps", lambda _plan: changed)
    out = wb.confirm_rerun(bench, services)
    assert not out.ok and "changed" in " ".join(texts(out)) and tools.calls == []
