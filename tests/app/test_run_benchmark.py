"""The run benchmark is one script printing runs in memory and durable runs (issue 17, item 8);
its figures are its own business (they go in docs/performance.md), here only that it runs and says them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "runs.py"


def test_one_script_prints_runs_in_memory_and_durable() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--no-langgraph", "--repeat", "1",
                           "--section", "memory", "--section", "durable", "--durable-sizes", "100",
                           "--only", "fan-out 100"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    memory = lines.index("In memory (LangGraph without a checkpointer):")
    durable = next(n for n, line in enumerate(lines) if line.startswith("Durable, SQLite WAL"))
    assert memory < durable
    for start in (memory, durable):
        row = next(line for line in lines[start:] if line.startswith("fan-out 100 "))
        ours_cpu = float(row.split()[2])
        assert ours_cpu > 0
