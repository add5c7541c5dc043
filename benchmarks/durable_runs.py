"""Prints what a durable run costs, beside LangGraph with its SQLite checkpointer (issue 17, item 8).

    .venv/bin/python benchmarks/durable_runs.py [--repeat N] [--sizes 100,1000] [--postgres URL]
                                                [--no-langgraph] [--no-resume]

Workloads: chains (each step reads the one before) and fan-outs (no step needs another) of
no-op steps. Plan Studio: ``DurableRuns.run(plan)`` on a new SQLite store file (WAL), the run
saved with its plan, each step written "started" and "ended" as it happens, the run a DBOS
workflow; with ``--postgres URL`` also on that PostgreSQL (the server's own CPU is not counted).
LangGraph: ``graph.invoke`` of a compiled ``StateGraph``, one node per step, with
``SqliteSaver`` on a new file (a checkpoint per super-step), in a child process with
``uv run --no-project --with langgraph --with langgraph-checkpoint-sqlite`` (not a project
dependency). Figures are medians over ``--repeat`` tries of CPU time (``time.process_time``,
every thread of the process) and wall time.

Resume: a process running a durable 200-step chain is killed with SIGKILL after 50 steps; a new
process resumes it. Printed: from the new process's start to its first new step (Python and
the imports included), and from ``resume()`` being called to that step.
"""

from __future__ import annotations

import argparse
import json
import operator
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]


def _median_of(repeat: int, once: Callable[[], None]) -> tuple[float, float]:
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        once()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


# -- Plan Studio ---------------------------------------------------------------------------------------

def _project() -> None:
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(ROOT))


def _registry(log: Path | None = None) -> Any:
    from core import ToolRegistry

    registry = ToolRegistry()

    @registry.register
    def noop(n: int = 0) -> int:
        """Do nothing.

        Args:
            n: Returned.
        """
        if log is not None:
            with open(log, "a") as out:
                out.write(f"{time.time()} {n}\n")
        return n

    registry.get("noop").effect = "idempotent"
    return registry


def _plan(shape: str, size: int) -> Any:
    from core import Plan, Step, _limits

    _limits.MAX_STEPS = max(_limits.MAX_STEPS, size)
    if shape == "chain":
        steps = [Step(id=f"s{n}", tool="noop", params={"n": 0} if n == 0 else {"n": f"${{step[{n - 1}]}}"})
                 for n in range(size)]
    else:
        steps = [Step(id=f"s{n}", tool="noop", params={"n": n}) for n in range(size)]
    return Plan(goal=f"{shape} {size}", steps=steps)


def plan_studio(shape: str, size: int, repeat: int, location: Callable[[], str]) -> tuple[float, float]:
    _project()
    from core.durable import DurableRuns
    from core.durable._runtime import shutdown
    from core.storage import PlanStore

    plan = _plan(shape, size)
    registry = _registry()
    times = []
    for _ in range(repeat):  # a new store each try, opened (and DBOS launched) before the clock starts
        store = PlanStore(location())
        runs = DurableRuns(store, registry)
        times.append(_median_of(1, lambda: _check(runs.run(plan))))
        shutdown()
        store.close()
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def _check(run: Any) -> None:
    assert run.status == "succeeded", run.counts()


# -- resume after kill -9 ------------------------------------------------------------------------------

def resume_child(location: str, log: Path, run_id: str | None) -> None:
    """Run (no ``run_id``) or resume a 200-step chain; with ``run_id``, print how long resume()
    took to its first new step."""
    began = time.time()
    _project()
    from core.durable import DurableRuns
    from core.storage import PlanStore

    runs = DurableRuns(PlanStore(location), _registry(log))
    if run_id is None:
        run_id = runs.start(_plan("chain", 200))
        print(run_id, flush=True)
        runs.execute(run_id)
        return
    called = time.time()
    runs.resume(run_id)
    print(json.dumps({"began": began, "called": called}), flush=True)


def resume_figures(location: Callable[[], str]) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "log"
        where = location()
        child = subprocess.Popen([sys.executable, __file__, "--resume-child", where, str(log)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        run_id = child.stdout.readline().strip()
        while not log.exists() or len(log.read_text().splitlines()) < 50:
            time.sleep(0.005)
        child.send_signal(signal.SIGKILL)
        child.wait()
        before = len(log.read_text().splitlines())
        started = time.time()
        done = subprocess.run([sys.executable, __file__, "--resume-child", where, str(log), run_id],
                              capture_output=True, text=True, check=True)
        marks = json.loads(done.stdout.strip().splitlines()[-1])
        first_new = float(log.read_text().splitlines()[before].split()[0])
        return first_new - started, first_new - marks["called"]


# -- LangGraph with its SQLite checkpointer --------------------------------------------------------------

def langgraph(shape: str, size: int, repeat: int) -> tuple[float, float]:
    import sqlite3
    from typing import Annotated, TypedDict

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    State = TypedDict("State", {"n": int, "count": Annotated[int, operator.add]})
    graph = StateGraph(State)
    if shape == "chain":
        def step(state: State) -> dict[str, Any]:
            return {"n": state["n"]}

        for n in range(size):
            graph.add_node(f"s{n}", step)
            graph.add_edge(START if n == 0 else f"s{n - 1}", f"s{n}")
        graph.add_edge(f"s{size - 1}", END)
    else:
        def step(state: State) -> dict[str, Any]:
            return {"count": 1}

        for n in range(size):
            graph.add_node(f"s{n}", step)
            graph.add_edge(START, f"s{n}")
            graph.add_edge(f"s{n}", END)
    times = []
    for _ in range(repeat):
        folder = tempfile.mkdtemp()
        saver = SqliteSaver(sqlite3.connect(str(Path(folder) / "lg.sqlite3"), check_same_thread=False))
        app = graph.compile(checkpointer=saver)
        config = {"recursion_limit": size + 10, "configurable": {"thread_id": uuid.uuid4().hex}}
        times.append(_median_of(1, lambda: app.invoke({"n": 0, "count": 0}, config)))
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def _langgraph_child(repeat: int, sizes: list[int]) -> dict[str, Any]:
    command = ["uv", "run", "-q", "--no-project", "--with", "langgraph", "--with", "langgraph-checkpoint-sqlite",
               "python", __file__, "--as-langgraph-child", "--repeat", str(repeat), "--sizes",
               ",".join(map(str, sizes))]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"LangGraph could not run:\n{done.stderr[-2000:]}", file=sys.stderr)
        return {}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--postgres", help="also on this PostgreSQL (postgresql+psycopg://...); a new schema-less "
                                           "database is not made: the URL's database is used and left filled")
    parser.add_argument("--no-langgraph", action="store_true")
    parser.add_argument("--no-resume", action="store_true")
    parser.add_argument("--as-langgraph-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--resume-child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.resume_child:
        location, log, *run_id = args.resume_child
        resume_child(location, Path(log), run_id[0] if run_id else None)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    workloads = [(f"{shape} {size:,}", shape, size) for shape in ("chain", "fan-out") for size in sizes]
    if args.as_langgraph_child:
        print(json.dumps({name: langgraph(shape, size, args.repeat) for name, shape, size in workloads}))
        return
    folder = Path(tempfile.mkdtemp(prefix="durable-bench-"))

    def sqlite_file() -> str:
        return str(folder / f"{uuid.uuid4().hex}.sqlite3")

    theirs = {} if args.no_langgraph else _langgraph_child(args.repeat, sizes)
    print(f"CPU-time medians of {args.repeat} tries (wall in brackets), durable runs:")
    print(f"{'workload':<14} {'Plan Studio, SQLite':>22} {'LangGraph + SqliteSaver':>25} {'ratio':>7}"
          + (f" {'Plan Studio, PostgreSQL':>25}" if args.postgres else ""))
    for name, shape, size in workloads:
        cpu, wall = plan_studio(shape, size, args.repeat, sqlite_file)
        line = f"{name:<14} {cpu:>10.3f} s ({wall:>6.3f} s)"
        if name in theirs:
            lg_cpu, lg_wall = theirs[name]
            line += f" {lg_cpu:>12.3f} s ({lg_wall:>6.3f} s) {cpu / lg_cpu:>6.2f}x"
        else:
            line += f" {'-':>25} {'':>7}"
        if args.postgres:
            pg_cpu, pg_wall = plan_studio(shape, size, args.repeat, lambda: args.postgres)
            line += f" {pg_cpu:>12.3f} s ({pg_wall:>6.3f} s)"
        print(line, flush=True)
    if not args.no_resume:
        from_start, from_call = resume_figures(sqlite_file)
        print(f"resume after kill -9 (SQLite, 200-step chain killed after 50): first new step "
              f"{from_start:.3f} s after the new process started, {from_call:.3f} s after resume() was called")


if __name__ == "__main__":
    main()
