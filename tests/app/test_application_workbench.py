"""The workbench's use cases on their own: a real store in tmp_path, the demo tools, no Streamlit.

Each test drives ``studio.workbench`` as a front end would (the CLI, a test, the pages through
``studio.ui._actions``) and checks what happened and what the user is told.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core import FORMATS, Plan, Step, dump_plan, load_plan
from studio.workbench._services import Services
from studio import workbench as wb
from studio.workbench import Workbench
from workbench_helpers import GOAL, TODAY, demo_services, texts

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def services(tmp_path: Path) -> Services:
    return demo_services(tmp_path)


def _planned(services: Services) -> Workbench:
    bench = Workbench()
    out = wb.plan_goal(bench, services, GOAL)
    assert out.ok, texts(out)
    return bench


def test_the_workbench_and_its_front_ends_but_the_pages_import_no_streamlit() -> None:
    code = ("import sys, studio.workbench, studio.cli._main, studio.api._review_api, studio.mcp._mcp_server; "
            "print('streamlit' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_goal_becomes_a_plan_in_the_editor_not_approved_not_saved(services: Services) -> None:
    bench = _planned(services)
    assert bench.plan is not None and bench.plan.steps
    assert bench.goal == GOAL
    assert load_plan(bench.panel_text, "native") == bench.plan  # the Plan JSON shows the plan
    assert not wb.is_approved(bench)
    assert bench.saved is None and wb.not_saved(bench) is None  # nothing edited yet


def test_an_empty_goal_is_refused_saying_what_to_type(services: Services) -> None:
    out = wb.plan_goal(Workbench(), services, "  ")
    assert not out.ok and texts(out) == [wb.GOAL_FIRST]


def test_from_goal_to_stored_run(services: Services) -> None:
    bench = _planned(services)
    refused = wb.request_run(bench, services, "all")
    assert texts(refused) == [wb.NOT_APPROVED] and bench.worker is None
    assert wb.approve(bench, services.validator).ok
    saved = wb.save(bench, services.store, "first")
    assert saved.ok and texts(saved) == ["Saved as version 1."]
    assert wb.request_run(bench, services, "all").ok
    assert bench.worker is not None and bench.worker.join(timeout=60)
    collected = wb.collect_finished_run(bench, lambda: services.store)
    assert collected.ok and bench.worker is None and bench.run is not None and bench.run.finished
    assert bench.run_saved == bench.run.id
    assert services.store.latest_run_id(bench.saved.plan_id, 1) == bench.run.id


def test_plan_json_that_does_not_parse_blocks_approval_and_keeps_the_text(services: Services) -> None:
    bench = _planned(services)
    plan = bench.plan
    bench.panel_text = '{"goal": "x", "steps": ['
    out = wb.approve(bench, services.validator)
    assert not out.ok and bench.approved is None
    assert bench.json_error is not None and bench.plan == plan  # the last valid plan is kept
    assert any(t.startswith("Could not approve the plan. Fix the Plan JSON first (") for t in texts(out))
    assert wb.not_saved(bench) == "the Plan JSON holds text that does not parse yet"
    bench.panel_text = dump_plan(plan, "native")
    assert wb.approve(bench, services.validator).ok


def test_an_edit_to_what_runs_withdraws_approval_a_lock_keeps_it(services: Services) -> None:
    bench = _planned(services)
    assert wb.approve(bench, services.validator).ok
    first = bench.plan.steps[0].id
    assert wb.set_locks(bench, [first]).ok
    assert wb.is_approved(bench) and bench.plan.steps[0].locked
    out, edited = wb.apply_edit(bench, "drop the last step",
                                lambda p: p.model_copy(update={"steps": p.steps[:1]}))
    assert out.ok and edited is not None and not wb.is_approved(bench)
    assert wb.not_saved(bench) == "the plan was edited and is not saved"
    assert wb.undo(bench).ok and bench.plan.steps == wb.edit_history(bench).current.steps


def test_one_approval_rule_for_approve_and_for_a_review(services: Services) -> None:
    bad = Plan(goal="g", steps=[Step(id="s1", tool="no_such_tool", params={})])
    bench = Workbench()
    wb.show_plan(bench, bad, saved=None)
    problem = "The plan has 1 problem to fix first (listed below the graph)"
    assert wb.approval_problem(bench, services.validator) == problem
    out = wb.approve(bench, services.validator)
    assert texts(out) == ["Could not approve the plan: the plan has 1 problem to fix first (listed below the graph)."]
    review = wb.submit_review(services, {"plan": dump_plan(bad, "native"), "format": "native", "agent": "bot"})
    assert wb.open_review(bench, services.store, review.id).ok and bench.review_id == review.id
    decided = wb.decide_review(bench, services.store, review.id, approve=True, validator=lambda: services.validator)
    assert texts(decided) == [f"Not approved. {problem}. The agent is still waiting for your decision."]
    assert services.store.review_status(review.id) == "pending"


def test_a_review_approved_with_edits_goes_back_saved_as_a_version(services: Services) -> None:
    sent = _planned(services).plan
    review = wb.submit_review(services, {"plan": dump_plan(sent, "native"), "format": "native", "agent": "bot"})
    bench = Workbench()
    opened = wb.open_review(bench, services.store, review.id)
    assert opened.ok and texts(opened)[0].startswith("Reviewing the plan bot sent")
    out, _ = wb.apply_edit(bench, "keep one step", lambda p: p.model_copy(update={"steps": p.steps[:1]}))
    assert out.ok
    bench.comment = "one step is enough"
    decided = wb.decide_review(bench, services.store, review.id, approve=True, validator=lambda: services.validator)
    assert decided.ok, texts(decided)
    stored = services.store.get_review(review.id)
    assert stored.status == "approved" and stored.comment == "one step is enough"
    assert stored.approved_plan is not None and len(stored.approved_plan.steps) == 1
    assert bench.saved is not None and bench.saved.version == stored.version


def test_a_save_after_another_tab_saved_is_held_then_saved_on_top(services: Services) -> None:
    bench = _planned(services)
    assert wb.save(bench, services.store).ok
    other = Workbench()
    assert wb.open_saved_plan(other, services, bench.saved.plan_id).ok
    for tab, note in ((other, "theirs"), (bench, "mine")):
        out, _ = wb.apply_edit(tab, f"note {note}", lambda p, n=note: p.model_copy(update={"goal": n}))
        assert out.ok
    assert wb.save(other, services.store).ok and other.saved.version == 2
    refused = wb.save(bench, services.store, "my note")
    assert not refused.ok and bench.conflict is not None and bench.conflict.latest == 2
    on_top = wb.save_on_top(bench, services.store)
    assert on_top.ok and bench.saved.version == 3 and bench.conflict is None
    assert texts(on_top)[0].startswith("Saved as version 3, after version 2")


def test_an_import_puts_the_plan_in_the_editor_and_bad_text_says_why(services: Services) -> None:
    plan = _planned(services).plan
    bench = Workbench()
    out = wb.import_plan(bench, services, dump_plan(plan, "native"), "native")
    assert out.ok and bench.plan == plan
    assert texts(out) == [f"Imported {len(plan.steps)} steps from the {FORMATS['native'].label}. "
                           "Review it, then approve it."]
    bad = wb.import_plan(bench, services, "not a plan", "native")
    assert not bad.ok and texts(bad)[0].startswith("Could not import the") and bench.plan == plan


def test_every_studio_package_ships_in_the_wheel() -> None:
    import tomllib

    from fnmatch import fnmatch

    # setuptools' find: a folder with __init__.py ships when its dotted name matches a pattern
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    folders = {".".join(p.parent.relative_to(ROOT).parts) for top in ("core", "tools", "studio", "pages")
               for p in (ROOT / top).rglob("__init__.py")}
    assert {"studio.workbench", "studio.ui.plan", "core.run", "core.storage.migrations.versions"} <= folders
    assert {f for f in folders if not any(fnmatch(f, pattern) for pattern in include)} == set()
    assert not any(fnmatch(name, pattern) for name in ("tests", "benchmarks", "docs") for pattern in include)


def test_the_cli_plans_a_goal_as_the_plan_page_does(services: Services, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from studio.cli._main import main

    assert main(["plan", GOAL, "--format", "native", "--data-dir", str(tmp_path / "data"),
                 "--today", TODAY.isoformat()]) == 0
    printed = load_plan(capsys.readouterr().out, "native")
    assert printed.model_dump(exclude={"id"}) == _planned(services).plan.model_dump(exclude={"id"})


def test_a_front_end_may_read_other_formats_in_the_plan_json(services: Services) -> None:
    bench = _planned(services)
    seed = dump_plan(bench.plan, "seed", services.registry)
    native_only = wb.edit_json(Workbench(panel_text=seed))
    assert not native_only.ok  # Plan Studio's JSON only, unless the front end says how to read

    def read(text: str) -> tuple[Plan, str | None]:
        return load_plan(text, "seed", services.registry), "Read as seed JSON."

    other = Workbench(panel_text=seed, read_panel=read)
    out = wb.edit_json(other)
    assert out.ok and texts(out) == ["Read as seed JSON."] and other.plan is not None
    assert load_plan(other.panel_text, "native") == other.plan  # the panel shows it as native JSON
