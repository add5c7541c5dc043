"""One table says what each step status means; nothing else spells a set of statuses."""

import ast
from pathlib import Path

from core import (BLOCKING, CUT_OFF, EXPLAINED, FINISHED, RAN, REPORT_ORDER, RUNNABLE, STATUS_TABLE, Executor, Plan,
                  Step, StepStatus, ToolRegistry)
from core.storage._records import RunSummary

ROOT = Path(__file__).resolve().parents[2]
NAMES = {s.value for s in StepStatus}


def test_the_table_has_one_row_per_status():
    assert set(STATUS_TABLE) == set(StepStatus) and len(REPORT_ORDER) == len(StepStatus)


def test_what_the_statuses_mean():
    assert FINISHED == {StepStatus.succeeded, StepStatus.failed, StepStatus.skipped, StepStatus.rejected}
    # A waiting step is looked at again by each pass: it runs once approved for its arguments.
    assert RUNNABLE == {StepStatus.pending, StepStatus.interrupted, StepStatus.cancelled, StepStatus.waiting}
    assert BLOCKING == {StepStatus.failed, StepStatus.skipped, StepStatus.rejected}
    assert RAN == {StepStatus.succeeded, StepStatus.failed}
    assert EXPLAINED == {StepStatus.failed, StepStatus.skipped, StepStatus.interrupted, StepStatus.cancelled,
                         StepStatus.waiting, StepStatus.rejected}
    assert CUT_OFF == {StepStatus.running, StepStatus.interrupted, StepStatus.cancelled}
    assert not FINISHED & RUNNABLE, "a finished step never runs again in its run"
    assert BLOCKING <= FINISHED and RAN <= FINISHED


def test_counts_kept_by_status_name_read_the_same_sets():
    # The store and a run count steps by status name: the sets must answer for names too.
    assert "succeeded" in FINISHED and "running" not in FINISHED
    summary = RunSummary(id="r", plan_id="p", version=1, started_at=None, finished_at=None, status="paused",
                         counts={"succeeded": 2, "skipped": 1, "running": 1, "pending": 3})
    assert summary.steps_done == 3


def test_a_run_ends_when_every_step_is_finished():
    registry = ToolRegistry()

    @registry.register
    def fails() -> str:
        """Always fails."""
        raise RuntimeError("no")

    @registry.register
    def echo(text: str) -> str:
        """Says it back."""
        return text

    plan = Plan(steps=[Step(id="a", tool="fails"), Step(id="b", tool="echo", params={"text": "x"}, depends_on=["a"]),
                       Step(id="c", tool="echo", params={"text": "y"})])
    executor = Executor(registry)
    run = executor.start(plan)
    list(executor.run_all(run))
    assert run.finished and {s.status for s in run.steps.values()} <= FINISHED
    assert run.steps["b"].status == StepStatus.skipped  # its dependency blocks it


def _spelled_status_sets(path: Path) -> list[int]:
    """Lines where a tuple, list or set literal names two or more step statuses."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, (ast.Tuple, ast.List, ast.Set)) or len(node.elts) < 2:
            continue
        named = [e for e in node.elts
                 if (isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "StepStatus")
                 or (isinstance(e, ast.Constant) and e.value in NAMES)]
        attributes = [e for e in named if isinstance(e, ast.Attribute)]
        strings = {e.value for e in named if isinstance(e, ast.Constant)}
        # Two statuses, or three status names (a review's statuses share "pending" alone with steps').
        if len(attributes) >= 2 or len(strings - {"pending"}) >= 2:
            lines.append(node.lineno)
    return lines


def test_no_module_spells_a_set_of_step_statuses_of_its_own():
    table = ROOT / "core" / "run" / "_status.py"
    found = {str(path.relative_to(ROOT)): lines
             for package in ("core", "tools", "studio", "pages")
             for path in sorted((ROOT / package).rglob("*.py")) if path != table
             for lines in [_spelled_status_sets(path)] if lines}
    assert found == {}
