"""Prints what running a plan costs in memory, beside LangGraph doing the same (issue 17, items 1 and 8).

    .venv/bin/python benchmarks/runs.py [--repeat N] [--big-repeat N] [--only NAME] [--no-langgraph]
                                        [--langgraph-python PATH]

Workloads: chains (each step reads the one before) and fan-outs (no step needs another) of 100,
1,000 and 10,000 no-op steps; 50 independent steps of 100 ms (sync ``time.sleep`` tools, and
``async def`` tools awaiting ``asyncio.sleep``); 10 waves of 5 steps of 100 ms (each wave needs
every step of the one before). 10,000 steps are past a plan's bound (``core._limits.MAX_STEPS``):
the bound is raised here, for the benchmark only.

What is timed: Plan Studio's ``Executor.start(plan)`` (validation) and ``run_all`` to the end, in
memory (no recorder, no store); LangGraph's ``graph.invoke`` of a compiled ``StateGraph`` with one
node per step, no checkpointer (building either is not timed). Figures are medians over
``--repeat`` tries (``--big-repeat`` for 10,000 steps) of CPU time (``time.process_time``: every
thread of the process) and wall time.

LangGraph is not a dependency of the project: it runs in a child process with a Python that has
it, ``--langgraph-python PATH``, or by default ``uv run --no-project --with langgraph python``
(a throwaway environment uv caches). The same file drives both; the child imports only langgraph.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import operator
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

SIZES = (100, 1_000, 10_000)
SLEEP = 0.1


def workloads() -> list[tuple[str, str, int]]:
    """(name, shape, size) in the order printed."""
    out = [(f"{shape} {size:,}", shape, size) for shape in ("chain", "fan-out") for size in SIZES]
    out += [("50 x 100 ms, sync", "sleep-sync", 50), ("50 x 100 ms, async", "sleep-async", 50),
            ("10 waves of 5 x 100 ms", "waves", 50)]
    return out


def _median_of(repeat: int, once: Callable[[], None]) -> tuple[float, float]:
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        once()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


# -- Plan Studio ---------------------------------------------------------------------------------------

def plan_studio(shape: str, size: int, repeat: int) -> tuple[float, float]:
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from core import Executor, Plan, Step, ToolRegistry, _limits

    _limits.MAX_STEPS = max(_limits.MAX_STEPS, size)
    registry = ToolRegistry()

    @registry.register
    def noop(n: int = 0) -> int:
        """Do nothing.

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

    if shape == "chain":
        steps = [Step(id=f"s{n}", tool="noop", params={"n": 0} if n == 0 else {"n": f"${{steps.s{n - 1}}}"})
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
    plan = Plan(steps=steps)
    executor = Executor(registry)

    def once() -> None:
        run = executor.start(plan)
        for _ in executor.run_all(run):
            pass
        assert run.status == "succeeded", run.counts()

    return _median_of(repeat, once)


# -- LangGraph -----------------------------------------------------------------------------------------

def langgraph(shape: str, size: int, repeat: int) -> tuple[float, float]:
    from typing import Annotated, TypedDict

    from langgraph.graph import END, START, StateGraph

    # The functional form: this module's annotations are strings, which LangGraph would evaluate
    # where Annotated is not defined.
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
        if shape == "fan-out":
            def step(state: State) -> dict[str, Any]:
                return {"count": 1}
        elif shape == "sleep-async":
            async def step(state: State) -> dict[str, Any]:  # type: ignore[misc]
                await asyncio.sleep(SLEEP)
                return {"count": 1}
        else:
            def step(state: State) -> dict[str, Any]:
                time.sleep(SLEEP)
                return {"count": 1}
        for n in range(size):
            graph.add_node(f"s{n}", step)
        if shape == "waves":
            for n in range(size):
                wave = n // 5
                before = [f"s{m}" for m in range((wave - 1) * 5, wave * 5)] if wave else []
                graph.add_edge(before if before else START, f"s{n}")
                if wave == size // 5 - 1:
                    graph.add_edge(f"s{n}", END)
        else:
            for n in range(size):
                graph.add_edge(START, f"s{n}")
                graph.add_edge(f"s{n}", END)
    app = graph.compile()
    config = {"recursion_limit": size + 10}

    def once() -> None:
        if shape == "sleep-async":
            out = asyncio.run(app.ainvoke({"n": 0, "count": 0}, config))
        else:
            out = app.invoke({"n": 0, "count": 0}, config)
        assert shape == "chain" or out["count"] == size, out

    return _median_of(repeat, once)


def _langgraph_child(args: argparse.Namespace, chosen: list[tuple[str, str, int]]) -> dict[str, Any]:
    command = ([args.langgraph_python] if args.langgraph_python
               else ["uv", "run", "-q", "--no-project", "--with", "langgraph", "python"])
    command += [__file__, "--as-langgraph-child", "--repeat", str(args.repeat), "--big-repeat",
                str(args.big_repeat)] + (["--only", args.only] if args.only else [])
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"LangGraph could not run ({' '.join(command[:6])} ...):\n{done.stderr[-2000:]}", file=sys.stderr)
        return {}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="tries per workload (median)")
    parser.add_argument("--big-repeat", type=int, default=3, help="tries of the 10,000-step workloads")
    parser.add_argument("--only", help="workloads whose name holds this text")
    parser.add_argument("--no-langgraph", action="store_true")
    parser.add_argument("--langgraph-python", help="a Python with langgraph installed")
    parser.add_argument("--as-langgraph-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    chosen = [w for w in workloads() if not args.only or args.only in w[0]]

    def repeats(size: int) -> int:
        return args.big_repeat if size >= 10_000 else args.repeat

    if args.as_langgraph_child:
        import importlib.metadata

        figures = {name: langgraph(shape, size, repeats(size)) for name, shape, size in chosen}
        print(json.dumps({"version": importlib.metadata.version("langgraph"), "figures": figures}))
        return
    ours = {}
    for name, shape, size in chosen:
        ours[name] = plan_studio(shape, size, repeats(size))
        print(f"  {name}: {ours[name][0]:.3f} s CPU, {ours[name][1]:.3f} s wall", file=sys.stderr, flush=True)
    theirs = {} if args.no_langgraph else _langgraph_child(args, chosen)
    figures = theirs.get("figures", {})
    print(f"Runs in memory: CPU and wall seconds, medians (repeat {args.repeat}, 10,000 steps: {args.big_repeat}); "
          f"LangGraph {theirs.get('version', '(not run)')}")
    print(f"{'workload':<24} {'ours CPU':>9} {'ours wall':>9} {'µs/step':>8}  {'LG CPU':>8} {'LG wall':>8}  {'CPU ratio':>9}")
    for name, _shape, size in chosen:
        cpu, wall = ours[name]
        line = f"{name:<24} {cpu:>9.3f} {wall:>9.3f} {cpu / size * 1e6:>8.0f}"
        if name in figures:
            lg_cpu, lg_wall = figures[name]
            line += f"  {lg_cpu:>8.3f} {lg_wall:>8.3f}  {cpu / lg_cpu:>8.2f}x"
        print(line)


if __name__ == "__main__":
    main()
