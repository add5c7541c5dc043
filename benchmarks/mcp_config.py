"""What MCP servers cost the CLI and the Tools page (issue 28: "a Tools page with 100 tools draws
in <= 1 s, a CLI command with one MCP server starts in <= 1.5 s").

    .venv/bin/python benchmarks/mcp_config.py [--repeat 5] [--tools 100]

1. The CLI: ``plan-studio validate PLAN`` (a plan with one ``echo`` step) with and without
   ``--mcp "node server-everything stdio"``, ``--repeat`` times each, wall time of the whole
   process (interpreter start, imports, the check): the server listed afresh
   (``--refresh-tools``: started, the SDK imported, its tools listed), and its tools from the
   data folder's cache of that listing (neither started nor imported).
2. The Tools page with one MCP server of ``--tools`` tools (``_many_tools_server.py``, the SDK's
   own server): drawn through Streamlit's AppTest, first the draw that starts the server, then
   ``--repeat`` redraws (the server's tools cached, as in the studio).

Prints medians. Figures, not assertions: compare them across commits on the same machine, and
quote the load average printed with them (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(_ROOT))

EVERYTHING = _ROOT / "tests" / "mcp" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
MANY = Path(__file__).resolve().parent / "_many_tools_server.py"
TOOLS = "../pages/tools.py"


def _cli(folder: Path, repeat: int) -> None:
    plan = folder / "plan.json"
    plan.write_text(json.dumps({"goal": "echo", "steps": [{"id": "e", "tool": "echo", "params": {"message": "hi"}}]}))
    script = Path(sys.executable).with_name("plan-studio")
    env = {**os.environ, "PLAN_STUDIO_DATA_DIR": str(folder / "cli")}
    server = ["--mcp", f"node {EVERYTHING} stdio"]
    for label, extra in (("CLI validate, no MCP server", []),
                         ("CLI validate, MCP listed afresh", [*server, "--refresh-tools"]),
                         ("CLI validate, MCP tools cached", server)):
        times = []
        for _ in range(repeat):
            began = time.perf_counter()
            done = subprocess.run([str(script), *extra, "validate", str(plan)], env=env, capture_output=True, text=True)
            times.append(time.perf_counter() - began)
        said = (done.stdout + done.stderr).strip().splitlines()
        print(f"{label:<34} median {statistics.median(times):6.2f} s  min {min(times):6.2f} s  n={repeat}  "
              f"(exit {done.returncode}: {said[-1][:60] if said else ''})")


def _tools_page(folder: Path, repeat: int, count: int) -> None:
    from streamlit.testing.v1 import AppTest

    os.environ.update({"PLAN_STUDIO_DATA_DIR": str(folder / "page"), "PLAN_STUDIO_TODAY": "2025-10-12",
                       "PLAN_STUDIO_MCP": f"{sys.executable} {MANY} {count}", "PLAN_STUDIO_MCP_TIMEOUT": "120"})
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLAN_STUDIO_PLANNER", "PLAN_STUDIO_DB"):
        os.environ.pop(name, None)
    at = AppTest.from_file(str(_ROOT / "studio" / "app.py"), default_timeout=180).run()
    began = time.perf_counter()
    at.switch_page(TOOLS).run()
    first = time.perf_counter() - began
    if at.exception:
        raise SystemExit(f"the page failed: {[e.value for e in at.exception]}")
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - began)
    elements = sum(1 for _ in at.main)  # the page's top-level blocks
    widgets = len(at.text_input) + len(at.text_area) + len(at.button) + len(at.expander)
    from studio import get_services

    shown = len([t for t in get_services().registry if t.kind == "mcp"])
    print(f"Tools page, {shown} MCP tools: first draw (server started) {first:6.2f} s; "
          f"redraw median {statistics.median(times):6.2f} s, min {min(times):6.2f} s, n={repeat}; "
          f"{widgets} widgets, {elements} top-level blocks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--only", choices=["cli", "page"], default=None)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        if args.only in (None, "cli"):
            _cli(Path(folder), args.repeat)
        if args.only in (None, "page"):
            _tools_page(Path(folder), args.repeat, args.tools)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
