"""Prints what running a plan costs, in memory and durable, beside LangGraph doing the same
(issue 17, items 1 and 8).

    .venv/bin/python benchmarks/runs.py [--quick] [--section memory|durable|resume] [--repeat N]
        [--big-repeat N] [--only TEXT] [--durable-sizes 100,1000,10000] [--postgres URL]
        [--no-langgraph] [--langgraph-durable-chain-max N] [--langgraph-python PATH]

In memory: chains (each step reads the one before) and fan-outs (no step needs another) of 100,
1,000 and 10,000 no-op steps; the chains again with a tool that has no time limit
(``timeout=math.inf``), and streamed (``run_all``, below); 50 independent steps of 100 ms (sync
``time.sleep`` tools, and ``async def`` tools awaiting ``asyncio.sleep``); 10 waves of 5 steps of
100 ms (each wave needs every step of the one before). Timed: ``Executor.execute(plan)``
(validation, then the run driven to its end on a thread of its own, which calls a lone step's
sync tool itself and has it given up when it overruns its limit), no recorder, no store;
LangGraph's ``graph.invoke`` of a compiled ``StateGraph`` with one node per step, no checkpointer
(building either is not timed). "streamed": ``Executor.start(plan)`` and ``run_all`` to the end,
its events yielded to the caller's thread, which therefore cannot call a tool held to a time
limit itself (one left in an overrunning call would be lost to its caller): each call of the
default chain goes to a pool thread and back.

Durable: the same chains and fan-outs, ``DurableRuns.run(plan)`` on a SQLite store file (WAL)
made for the workload: the plan saved as a version, the run put in the store before its first
step, each step written "started" before its tool is called and "ended" after (steps starting or
ending together share a transaction), the run a DBOS workflow; with ``--postgres URL`` also on
that PostgreSQL (its server's CPU is not counted). Beside LangGraph with ``SqliteSaver`` on a
file made for the workload (a checkpoint per super-step), each try a new thread in it. The
store (and DBOS) is opened before the clock starts.

Each workload, on both sides, first runs once untimed (caches filled and threads started, as in
a studio that has run plans before), then ``--repeat`` timed tries.

Resume: a process running a durable 200-step chain is SIGKILLed after 50 steps; a new process
resumes it. Printed: from the new process's start to its first new step (Python and the imports
included), and from ``resume()`` being called to that step.

Figures are medians of CPU time (``time.process_time`` of the process doing the work: every
thread of it) over ``--repeat`` tries (three times as many at 100 steps, ``--big-repeat`` at
10,000), wall time beside; ratios are ours / LangGraph's from the same invocation. 10,000 steps
are past a plan's bound (``core._limits.MAX_STEPS``): the bound is raised here, for the benchmark
only.

LangGraph is not a dependency of the project: it runs in a child process with a Python that has
it, ``--langgraph-python PATH`` (with ``langgraph`` and ``langgraph-checkpoint-sqlite``), or by
default ``uv run --no-project --with langgraph --with langgraph-checkpoint-sqlite python`` (a
throwaway environment uv caches). This file drives both: its top level imports only the
standard library, so the child runs it too (``langgraph_shapes``, beside it, builds the graphs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
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
SIZES = (100, 1_000, 10_000)
QUICK_SIZES = (100, 1_000)
SLEEP = 0.1
RESUME_CHAIN, RESUME_KILL_AFTER = 200, 50

Workload = tuple[str, str, int]  # (name, shape, size)
UNBOUNDED_CHAIN = "chain-no-limit"  # a chain of a tool with no time limit
STREAMED_CHAIN = "chain-streamed"  # the default chain, its events yielded to the caller (run_all)
Figures = tuple[float, float]  # (CPU seconds, wall seconds)


def memory_workloads(sizes: tuple[int, ...]) -> list[Workload]:
    """(name, shape, size) of the in-memory section, in the order printed."""
    out = [(_named(shape, size), shape, size) for shape in ("chain", UNBOUNDED_CHAIN, STREAMED_CHAIN, "fan-out")
           for size in sizes]
    out += [("50 x 100 ms, sync", "sleep-sync", 50), ("50 x 100 ms, async", "sleep-async", 50),
            ("10 waves of 5 x 100 ms", "waves", 50)]
    return out


def durable_workloads(sizes: tuple[int, ...]) -> list[Workload]:
    return [(_named(shape, size), shape, size) for shape in ("chain", UNBOUNDED_CHAIN, "fan-out") for size in sizes]


def _named(shape: str, size: int) -> str:
    extra = {UNBOUNDED_CHAIN: ", no limit", STREAMED_CHAIN: ", streamed"}.get(shape)
    return f"chain {size:,}{extra}" if extra else f"{shape} {size:,}"


def their_shape(shape: str) -> str:
    """The graph LangGraph runs for ``shape``: a chain is a chain, whatever our tool's limit."""
    return "chain" if shape in (UNBOUNDED_CHAIN, STREAMED_CHAIN) else shape


def _median_of(repeat: int, once: Callable[..., Any], before: Callable[[], Any] | None = None, *,
               warm: bool = False) -> Figures:
    """Medians of CPU and wall time of ``once()``; ``before()`` runs untimed before each try
    and gives ``once`` its argument when it returns something; ``warm``: one untimed try first
    (caches filled, threads started, as in a process that has run plans before)."""
    cpu, wall = [], []
    if warm:
        given = before() if before is not None else None
        once() if given is None else once(given)
    for _ in range(repeat):
        given = before() if before is not None else None
        c, w = time.process_time(), time.perf_counter()
        once() if given is None else once(given)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


# -- Plan Studio -----------------------------------------------------------------------------------------

def _project() -> None:
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    sys.path.insert(0, str(ROOT))


def _registry(log: Path | None = None) -> Any:
    """``noop`` (idempotent; writes a line to ``log`` when given), ``nap``, ``nap_async``."""
    _project()
    from core import ToolRegistry

    registry = ToolRegistry()

    @registry.register(effects="idempotent")
    def noop(n: int = 0) -> int:
        """Do nothing.

        Args:
            n: Returned.
        """
        if log is not None:
            with open(log, "a") as out:
                out.write(f"{time.time()} {time.process_time()} {n}\n")
        return n

    @registry.register(effects="idempotent", timeout=math.inf)
    def noop_no_limit(n: int = 0) -> int:
        """Do nothing, with no time limit.

        Args:
            n: Returned.
        """
        return n

    @registry.register
    def nap(n: int = 0) -> int:
        """Sleep 100 ms.

        Args:
            n: Returned.
        """
        time.sleep(SLEEP)
        return n

    @registry.register
    async def nap_async(n: int = 0) -> int:
        """Sleep 100 ms on the event loop.

        Args:
            n: Returned.
        """
        await asyncio.sleep(SLEEP)
        return n

    return registry


def _plan(shape: str, size: int) -> Any:
    _project()
    from core import Plan, Step, _limits

    _limits.MAX_STEPS = max(_limits.MAX_STEPS, size)
    if shape in ("chain", UNBOUNDED_CHAIN, STREAMED_CHAIN):
        tool = "noop_no_limit" if shape == UNBOUNDED_CHAIN else "noop"
        steps = [Step(id=f"s{n}", tool=tool, params={"n": 0} if n == 0 else {"n": f"${{steps.s{n - 1}}}"})
                 for n in range(size)]
    elif shape == "fan-out":
        steps = [Step(id=f"s{n}", tool="noop", params={"n": n}) for n in range(size)]
    elif shape in ("sleep-sync", "sleep-async"):
        tool = "nap" if shape == "sleep-sync" else "nap_async"
        steps = [Step(id=f"s{n}", tool=tool, params={"n": n}) for n in range(size)]
    else:  # waves of 5
        steps = [Step(id=f"s{n}", tool="nap", params={"n": n},
                      depends_on=[f"s{m}" for m in range(n // 5 * 5 - 5, n // 5 * 5) if m >= 0])
                 for n in range(size)]
    return Plan(goal=f"{shape} {size}", steps=steps)


def _succeeded(run: Any) -> None:
    assert run.status == "succeeded", run.counts()


def in_memory(shape: str, size: int, repeat: int) -> Figures:
    from core import Executor

    plan, executor = _plan(shape, size), Executor(_registry())

    def once() -> None:
        if shape == STREAMED_CHAIN:
            run = executor.start(plan)
            for _ in executor.run_all(run):
                pass
        else:
            run = executor.execute(plan)
        _succeeded(run)

    return _median_of(repeat, once, warm=True)


def durable(shape: str, size: int, repeat: int, location: Callable[[], str]) -> Figures:
    from core.durable import DurableRuns
    from core.durable._runtime import shutdown
    from core.storage import PlanStore

    plan = _plan(shape, size)
    store = PlanStore(location())  # a new store per workload, DBOS launched on it before the clock starts
    try:
        runs = DurableRuns(store, _registry())
        return _median_of(repeat, lambda: _succeeded(runs.run(plan)), warm=True)
    finally:
        shutdown()
        store.close()


# -- resume after kill -9 --------------------------------------------------------------------------------

def resume_child(location: str, log: Path, run_id: str | None) -> None:
    """Run (no ``run_id``) or resume the chain; with ``run_id``, print when resume() was called."""
    began = time.time()
    _project()
    from core.durable import DurableRuns
    from core.storage import PlanStore

    runs = DurableRuns(PlanStore(location), _registry(log))
    if run_id is None:
        run_id = runs.start(_plan("chain", RESUME_CHAIN))
        print(run_id, flush=True)
        runs.execute(run_id)
        return
    called = time.time()
    runs.resume(run_id)
    print(json.dumps({"began": began, "called": called}), flush=True)


def resume_figures(location: str) -> tuple[float, float, float]:
    """Seconds from the new process's start to its first new step, the CPU time it spent until
    then, and seconds from resume() being called to that step."""
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "log"
        # Python's compiled bytecode kept, as an installed program has it (a machine that sets
        # PYTHONDONTWRITEBYTECODE would compile every module at each start): in a folder of
        # its own, filled by the first process.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "bytecode")
        child = subprocess.Popen([sys.executable, __file__, "--resume-child", location, str(log)],
                                 stdout=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        run_id = child.stdout.readline().strip()
        while not log.exists() or len(log.read_text().splitlines()) < RESUME_KILL_AFTER:
            time.sleep(0.005)
        child.send_signal(signal.SIGKILL)
        child.wait()
        before = len(log.read_text().splitlines())
        started = time.time()
        done = subprocess.run([sys.executable, __file__, "--resume-child", location, str(log), run_id],
                              capture_output=True, text=True, check=True, env=env)
        marks = json.loads(done.stdout.strip().splitlines()[-1])
        first_new, cpu = (float(v) for v in log.read_text().splitlines()[before].split()[:2])
        return first_new - started, cpu, first_new - marks["called"]


# -- LangGraph (in the child process) ----------------------------------------------------------------------

def langgraph(shape: str, size: int, repeat: int, checkpointer: bool) -> Figures:
    from langgraph_shapes import graph_for  # beside this script; the child has only LangGraph

    graph = graph_for(shape, size)
    if checkpointer:  # a new SQLite file per workload, as ours; each try a new thread in it
        import sqlite3

        from langgraph.checkpoint.sqlite import SqliteSaver

        path = Path(tempfile.mkdtemp(prefix="lg-bench-")) / "lg.sqlite3"
        app = graph.compile(checkpointer=SqliteSaver(sqlite3.connect(str(path), check_same_thread=False)))
    else:
        app = graph.compile()

    def config() -> dict[str, Any]:  # untimed
        return {"recursion_limit": size + 10, "configurable": {"thread_id": uuid.uuid4().hex}}

    def once(config: dict[str, Any]) -> None:
        if shape == "sleep-async":
            out = asyncio.run(app.ainvoke({"n": 0, "count": 0}, config))
        else:
            out = app.invoke({"n": 0, "count": 0}, config)
        assert shape == "chain" or out["count"] == size, out

    return _median_of(repeat, once, before=config, warm=True)


class LangGraphChild:
    """LangGraph in a child process running this script, asked for one workload at a time, so
    its figures and ours are taken close together (the machine's load drifts)."""

    def __init__(self, args: argparse.Namespace) -> None:
        command = ([args.langgraph_python] if args.langgraph_python
                   else ["uv", "run", "-q", "--no-project", "--with", "langgraph", "--with",
                         "langgraph-checkpoint-sqlite", "python"])
        self._errors = tempfile.TemporaryFile("w+")
        self._child: subprocess.Popen[str] | None = subprocess.Popen(
            [*command, __file__, "--as-langgraph-child"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._errors, text=True)
        self._measured: dict[tuple[str, int, int, bool], Any] = {}
        self.version = str(self._answer() or "(not run)")

    def _answer(self) -> Any:
        assert self._child is not None and self._child.stdout is not None
        line = self._child.stdout.readline()
        if not line:
            self._errors.seek(0)
            print(f"LangGraph could not run:\n{self._errors.read()[-2000:]}", file=sys.stderr)
            self._child = None
            return None
        return json.loads(line)

    def figures(self, shape: str, size: int, repeat: int, checkpointer: bool) -> list[float] | None:
        """LangGraph's figures for the graph of ``shape``; a graph already measured in this
        invocation is not measured again (both our chains are beside the same figures)."""
        asked = (their_shape(shape), size, repeat, checkpointer)
        if asked in self._measured:
            return self._measured[asked]
        if self._child is None:
            return None
        assert self._child.stdin is not None
        self._child.stdin.write(json.dumps(list(asked)) + "\n")
        self._child.stdin.flush()
        self._measured[asked] = self._answer()
        return self._measured[asked]

    def close(self) -> None:
        if self._child is not None:
            assert self._child.stdin is not None
            self._child.stdin.close()
            self._child.wait()


def serve_langgraph() -> None:
    """The child: LangGraph's version, then the figures of each workload asked on stdin."""
    import importlib.metadata

    print(json.dumps(importlib.metadata.version("langgraph")), flush=True)
    for line in sys.stdin:
        shape, size, repeat, checkpointer = json.loads(line)
        print(json.dumps(langgraph(shape, size, repeat, checkpointer)), flush=True)


# -- the report --------------------------------------------------------------------------------------------

def _ratio(ours: Figures, theirs: list[float] | None) -> str:
    return f"{ours[0] / theirs[0]:>8.2f}x" if theirs else f"{'-':>9}"


def _theirs(figures: list[float] | None) -> str:
    return f"{figures[0]:>8.3f} {figures[1]:>8.3f}" if figures else f"{'-':>8} {'-':>8}"


def report_memory(chosen: list[Workload], ours: dict[str, Figures], theirs: dict[str, Any]) -> None:
    print(f"{'workload':<24} {'ours CPU':>9} {'ours wall':>9} {'µs/step':>8}  {'LG CPU':>8} {'LG wall':>8}  "
          f"{'CPU ratio':>9}")
    for name, _shape, size in chosen:
        cpu, wall = ours[name]
        print(f"{name:<24} {cpu:>9.3f} {wall:>9.3f} {cpu / size * 1e6:>8.0f}  {_theirs(theirs.get(name))}  "
              f"{_ratio(ours[name], theirs.get(name))}")


def report_durable(chosen: list[Workload], ours: dict[str, Figures], theirs: dict[str, Any],
                   postgres: dict[str, Figures]) -> None:
    print(f"{'workload':<24} {'ours CPU':>9} {'ours wall':>9} {'µs/step':>8}  {'LG+SQL CPU':>8} {'wall':>8}  "
          f"{'CPU ratio':>9}" + (f"  {'ours PG CPU':>11} {'wall':>8}" if postgres else ""))
    for name, _shape, size in chosen:
        cpu, wall = ours[name]
        line = (f"{name:<24} {cpu:>9.3f} {wall:>9.3f} {cpu / size * 1e6:>8.0f}  {_theirs(theirs.get(name))}    "
                f"{_ratio(ours[name], theirs.get(name))}")
        if name in postgres:
            line += f"  {postgres[name][0]:>11.3f} {postgres[name][1]:>8.3f}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="100 and 1,000 steps only, 3 tries each (a check, not the figures)")
    parser.add_argument("--section", choices=("memory", "durable", "resume"), action="append",
                        help="only these sections (repeatable; default: all three)")
    parser.add_argument("--repeat", type=int, help="tries per workload (median); default 7, --quick 3")
    parser.add_argument("--big-repeat", type=int, default=3, help="tries of the 10,000-step workloads")
    parser.add_argument("--only", help="workloads whose name holds this text")
    parser.add_argument("--durable-sizes", help="sizes of the durable section (default: as in memory)")
    parser.add_argument("--postgres", help="durable runs also on this PostgreSQL (postgresql+psycopg://...); "
                                           "the URL's database is used and left filled")
    parser.add_argument("--no-langgraph", action="store_true")
    parser.add_argument("--langgraph-durable-chain-max", type=int, default=1_000,
                        help="longest durable chain LangGraph runs (its SqliteSaver's cost grows with the "
                             "square of a chain's length: 10,000 steps took over 3 CPU minutes a try)")
    parser.add_argument("--langgraph-python", help="a Python with langgraph and langgraph-checkpoint-sqlite")
    parser.add_argument("--as-langgraph-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--resume-child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.resume_child:
        location, log, *run_id = args.resume_child
        resume_child(location, Path(log), run_id[0] if run_id else None)
        return
    if args.as_langgraph_child:
        serve_langgraph()
        return
    sections = args.section or ["memory", "durable", "resume"]
    repeat = args.repeat or (3 if args.quick else 7)
    sizes = QUICK_SIZES if args.quick else SIZES
    durable_sizes = tuple(int(s) for s in args.durable_sizes.split(",")) if args.durable_sizes else sizes
    memory = [w for w in memory_workloads(sizes) if not args.only or args.only in w[0]] \
        if "memory" in sections else []
    durable_chosen = [w for w in durable_workloads(durable_sizes) if not args.only or args.only in w[0]] \
        if "durable" in sections else []

    def repeats(size: int) -> int:
        # A try of 100 no-op steps takes a few ms, as long as a neighbour's burst on a shared
        # machine: three times the tries there.
        return min(args.big_repeat, repeat) if size >= 10_000 else 3 * repeat if size == 100 else repeat

    folder = Path(tempfile.mkdtemp(prefix="runs-bench-"))

    def sqlite_file() -> str:
        return str(folder / f"{uuid.uuid4().hex}.sqlite3")

    child = None if args.no_langgraph or not (memory or durable_chosen) else LangGraphChild(args)
    ours_memory: dict[str, Figures] = {}
    theirs_memory: dict[str, Any] = {}
    for name, shape, size in memory:
        ours_memory[name] = in_memory(shape, size, repeats(size))
        theirs_memory[name] = child.figures(shape, size, repeats(size), False) if child else None
        print(f"  in memory, {name}: {ours_memory[name][0]:.3f} s CPU, LangGraph {theirs_memory[name]}",
              file=sys.stderr, flush=True)
    ours_durable: dict[str, Figures] = {}
    theirs_durable: dict[str, Any] = {}
    ours_postgres: dict[str, Figures] = {}
    for name, shape, size in durable_chosen:
        ours_durable[name] = durable(shape, size, repeats(size), sqlite_file)
        skipped = their_shape(shape) == "chain" and size > args.langgraph_durable_chain_max
        theirs_durable[name] = child.figures(shape, size, repeats(size), True) if child and not skipped else None
        print(f"  durable, {name}: {ours_durable[name][0]:.3f} s CPU, LangGraph {theirs_durable[name]}",
              file=sys.stderr, flush=True)
        if args.postgres:
            ours_postgres[name] = durable(shape, size, repeats(size), lambda: args.postgres)
    version = child.version if child else "(not run)"
    if child:
        child.close()
    print(f"Plan Studio beside LangGraph {version}: CPU and wall seconds, medians of "
          f"{repeat} tries ({3 * repeat} at 100 steps, {min(args.big_repeat, repeat)} at 10,000); "
          "ratio = our CPU / LangGraph's")
    if memory:
        print("\nIn memory (LangGraph without a checkpointer):")
        report_memory(memory, ours_memory, theirs_memory)
    if durable_chosen:
        capped = "" if max(durable_sizes) >= max(sizes) else \
            f"; capped at {max(durable_sizes):,} steps (--durable-sizes)"
        print(f"\nDurable, SQLite WAL (LangGraph with SqliteSaver){capped}"
              + (", and on PostgreSQL (its server's CPU not counted)" if args.postgres else "") + ":")
        report_durable(durable_chosen, ours_durable, theirs_durable, ours_postgres)
        if any(their_shape(shape) == "chain" and size > args.langgraph_durable_chain_max
               for _name, shape, size in durable_chosen):
            print(f"  LangGraph with SqliteSaver not run on chains over {args.langgraph_durable_chain_max:,} steps: "
                  "its checkpoints cost the square of a chain's length (--langgraph-durable-chain-max N runs it)")
    if "resume" in sections:
        tries = [resume_figures(sqlite_file()) for _ in range(1 if args.quick else 3)]
        from_start, cpu, from_call = (statistics.median(t[n] for t in tries) for n in range(3))
        print(f"\nResume after kill -9 (SQLite, a {RESUME_CHAIN}-step chain killed after {RESUME_KILL_AFTER} steps; "
              f"median of {len(tries)}): first new step {from_start:.3f} s after the new process started "
              f"({cpu:.3f} s of its CPU, imports included), {from_call:.3f} s after resume() was called")


if __name__ == "__main__":
    main()
