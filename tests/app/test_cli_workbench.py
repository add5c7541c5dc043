"""Issue 26, item 1: the command line's ``run``, ``resume`` and ``rerun`` go through the workbench
(``studio.workbench._carrying``): each run is registered with the runs live in the process while
the CLI carries it out, and a rerun is made by the function the page's and the review API's
reruns are made by."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from core import Settings
from core.storage import PlanStore
from studio import workbench as wb
from studio.workbench._services import build_services
from studio.cli._main import main
from studio.workbench import _carrying
from studio.workbench._runs_here import RunsHere

pytestmark = pytest.mark.usefixtures("stop_durable_runs")

TODAY = "2025-10-12"
PLAN = {"steps": [{"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
                  {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}",
                                                        "has_contaminants": True},
                   "depends_on": [0], "parallel": False}]}


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The run ids registered with the runs live here, and those of the reruns made."""
    seen: dict[str, list[str]] = {"carried": [], "reruns": []}
    carry, new_rerun = RunsHere.carry, _carrying.new_rerun

    def carrying(self: RunsHere, run_id: str, handle) -> bool:  # noqa: ANN001
        seen["carried"].append(run_id)
        return carry(self, run_id, handle)

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003
        run = new_rerun(*args, **kwargs)
        seen["reruns"].append(run.id)
        return run

    monkeypatch.setattr(RunsHere, "carry", carrying)
    monkeypatch.setattr(_carrying, "new_rerun", counting)
    return seen


def test_the_clis_runs_are_registered_and_its_rerun_is_made_as_the_pages(
        tmp_path: Path, seen: dict[str, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN), encoding="utf-8")
    options = ["--data-dir", str(tmp_path / "data"), "--today", TODAY]
    assert main(["run", str(plan), *options]) == 0
    with PlanStore(tmp_path / "data" / "studio.sqlite3") as store:
        [first] = store.records.recent()
    assert seen["carried"] == [first.id]
    assert main(["rerun", first.id, "--from", "1", *options]) == 0
    assert len(seen["reruns"]) == 1 and seen["carried"] == [first.id, seen["reruns"][0]]
    assert f"run {seen['reruns'][0]} (from {first.id})" in capsys.readouterr().out
    assert main(["resume", first.id, *options]) == 0  # finished: nothing runs, still through the registry
    assert seen["carried"][-1] == first.id

    services = build_services(Settings(data_dir=tmp_path / "data", today=dt.date.fromisoformat(TODAY)))
    out, started = wb.start_rerun(services, first.id, from_step=first_plan_step(tmp_path, 1))  # the review API's
    assert out.ok and started is not None and wb.join_rerun(services, started.run_id, timeout=60)
    assert seen["reruns"][-1] == started.run_id and seen["carried"][-1] == started.run_id


def first_plan_step(tmp_path: Path, index: int) -> str:
    with PlanStore(tmp_path / "data" / "studio.sqlite3") as store:
        return store.load_run(store.records.recent()[-1].id).plan.steps[index].id
