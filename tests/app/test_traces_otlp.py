"""Traces leave a real process by OTLP: ``plan-studio run`` (a durable run on DBOS) with
``OTEL_EXPORTER_OTLP_ENDPOINT`` set sends its run's spans to a local receiver that decodes the
protobuf, with service.name "plan-studio", the run's root and its steps under it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from core.traces._ids import run_root_span_id, run_trace_id
from otlp_receiver import trace_receiver

CONSOLE_SCRIPT = Path(sys.executable).with_name("plan-studio")
SEED_BERLIN = {"steps": [
    {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": []},
    {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}", "has_contaminants": True},
     "depends_on": [0]},
]}


def test_a_cli_run_exports_its_trace_to_the_otlp_endpoint(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(SEED_BERLIN), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "OPENAI_", "PLAN_STUDIO_"))}
    env["XDG_DATA_HOME"] = str(tmp_path / "user-data")
    with trace_receiver() as receiver:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.endpoint
        done = subprocess.run([str(CONSOLE_SCRIPT), "run", str(plan), "--data-dir", str(tmp_path / "data"),
                               "--today", "2025-10-12"], capture_output=True, text=True, timeout=120, env=env,
                              cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        spans = receiver.wait_for("invoke_agent plan-studio")
    assert set(receiver.paths) == {"/v1/traces"}
    root = next(s for s in spans if s.name == "invoke_agent plan-studio")
    run_id = root.attributes["plan_studio.run.id"]
    assert "run succeeded: 2 succeeded" in done.stdout
    assert root.trace_id == f"{run_trace_id(run_id):032x}" and root.span_id == f"{run_root_span_id(run_id):016x}"
    assert root.resource["service.name"] == "plan-studio"
    assert root.attributes["plan_studio.run.status"] == "succeeded" and root.attributes["gen_ai.operation.name"] == "invoke_agent"
    steps = sorted((s for s in spans if s.name.startswith("execute_tool ")), key=lambda s: s.start_ns)
    assert [s.attributes["gen_ai.tool.name"] for s in steps] == ["facilities_list", "shipments_list"]
    assert all(s.parent_span_id == root.span_id and s.trace_id == root.trace_id for s in steps)
    assert [s.attributes["plan_studio.step.status"] for s in steps] == ["succeeded", "succeeded"]
    assert steps[0].end_ns <= steps[1].start_ns and root.start_ns <= steps[0].start_ns
