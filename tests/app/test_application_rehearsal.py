"""Rehearsals through the workbench (what the page and the CLI call): pins edited per step, a real
run chosen as the recording, refused while a write has no result, stored marked, exported marked,
and never a real tool called: the tools here count their calls, and a rehearsal adds none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from core import ADDITIVE, READ_ONLY, Plan, RehearsalRefused, Settings, ToolRegistry
from studio import workbench as wb
from studio.workbench._durable_handle import durable_runs
from studio.workbench._services import Services, build_services

from workbench_helpers import TODAY, texts

WAIT = 60


class Count(BaseModel):
    city: str
    n: int


PLAN = Plan.model_validate({"goal": "tell the team", "steps": [
    {"id": "count", "tool": "count_shipments", "params": {"city": "Berlin"}},
    {"id": "tell", "tool": "notify", "params": {"message": "counted", "times": "${steps.count.n}"},
     "depends_on": ["count"]}]})


def _tools(calls: list[str]) -> ToolRegistry:
    tools = ToolRegistry()

    def count_shipments(city: str) -> Count:
        """Count the shipments leaving a city."""
        calls.append("count_shipments")
        return Count(city=city, n=3)

    def notify(message: str, times: int) -> dict:
        """Send a message to the team."""
        calls.append("notify")
        return {"sent": message, "times": times}

    tools.register(count_shipments, effects=READ_ONLY)
    tools.register(notify, effects=ADDITIVE)
    return tools


@pytest.fixture
def calls() -> list[str]:
    return []


@pytest.fixture
def services(tmp_path: Path, calls: list[str]) -> Services:
    return build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=False),
                          registry=_tools(calls))


def _bench() -> wb.Workbench:
    bench = wb.Workbench()
    wb.show_plan(bench, PLAN, saved=None)
    return bench


def _finish(bench: wb.Workbench, services: Services) -> wb.Outcome:
    assert bench.worker is not None and bench.worker.join(timeout=WAIT)
    return wb.collect_finished_run(bench, lambda: services.store)


def test_a_rehearsal_is_refused_naming_the_write_without_a_result(services: Services, calls: list[str]) -> None:
    bench = _bench()
    out = wb.request_rehearsal(bench, services)
    assert not out.ok and bench.worker is None
    assert texts(out) == ["Not rehearsed: 1 step of tools that may write has no recorded or pinned result: "
                          "step 1 (notify). Pin a result for it, or pick a real run that recorded it."]
    assert services.store.list_plans() == [] and calls == []  # refused before anything was stored


def test_a_pinned_rehearsal_runs_no_tool_and_is_stored_and_exported_marked(services: Services,
                                                                           calls: list[str]) -> None:
    bench = _bench()
    bad = wb.pin_result(bench, services, "tell", '{"sent": true,\n "times": }')
    assert not bad.ok and "line 2, column 11" in texts(bad)[0] and bench.pins == {}
    misfit = wb.pin_result(bench, services, "count", '{"city": "Berlin", "n": "seven"}')
    assert misfit.ok and any("does not fit the output schema of count_shipments: at n:" in t for t in texts(misfit))
    assert wb.pin_result(bench, services, "count", '{"city": "Berlin", "n": 7}').ok
    assert wb.pin_result(bench, services, "tell", '{"sent": "pinned"}').ok
    started = wb.request_rehearsal(bench, services)
    assert started.ok, texts(started)
    assert wb.is_rehearsing(bench)
    assert any("Saved as version 1 to rehearse it" in t for t in texts(started))
    _finish(bench, services)
    run = bench.run
    assert run is not None and run.status == "succeeded" and calls == []
    assert run.rehearsal is not None and run.rehearsal.sources == {"count": "pin", "tell": "pin"}
    assert run.steps["tell"].arguments == {"message": "counted", "times": 7}
    assert bench.run_saved == run.id and services.store.load_run(run.id).rehearsal == run.rehearsal
    [summary] = services.store.list_runs(bench.saved.plan_id)
    assert summary.rehearsal
    exported = json.loads(wb.run_export(run))
    assert exported["rehearsal"]["note"].startswith("a rehearsal")
    assert [s["rehearsal"] for s in exported["steps"]] == ["pin", "pin"]
    assert wb.unpin_result(bench, "tell").ok and "tell" not in bench.pins


def test_a_real_run_recorded_stands_in_and_run_all_after_a_rehearsal_is_a_real_run(
        services: Services, calls: list[str], stop_durable_runs: None) -> None:
    bench = _bench()
    assert wb.approve(bench, services.validator).ok
    assert wb.request_run(bench, services, "all").ok
    _finish(bench, services)
    real = bench.run
    assert real.status == "succeeded" and real.rehearsal is None and calls == ["count_shipments", "notify"]
    assert [r.id for r in wb.recordings(bench, services)] == [real.id]
    assert wb.choose_recording(bench, real.id).ok
    assert wb.request_rehearsal(bench, services).ok
    _finish(bench, services)
    rehearsal = bench.run
    assert rehearsal.rehearsal.recording == real.id
    assert rehearsal.rehearsal.sources == {"count": "recording", "tell": "recording"}
    assert rehearsal.steps["tell"].result == {"sent": "counted", "times": 3}
    assert calls == ["count_shipments", "notify"], "the rehearsal called a real tool"
    assert [r.id for r in wb.recordings(bench, services)] == [real.id]  # a rehearsal is no recording
    with pytest.raises(RehearsalRefused, match="never carried on with real tools"):
        durable_runs(services).go_on(rehearsal.id)  # what Resume does: refused before any step
    assert wb.request_run(bench, services, "all").ok  # a new real run, not the rehearsal gone on with
    _finish(bench, services)
    assert bench.run.id not in (real.id, rehearsal.id) and bench.run.rehearsal is None
    assert calls == ["count_shipments", "notify"] * 2
