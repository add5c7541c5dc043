"""The LangGraph graphs the run benchmarks measure against: the same shapes as ours (a chain, a
fan-out, waves, sleeping steps). Imported by the benchmark child processes, which have
LangGraph and nothing of Plan Studio, so this module imports only the standard library."""

from __future__ import annotations

import asyncio
import operator
import time
from typing import Any

SLEEP = 0.1  # seconds a sleeping step takes


def graph_for(shape: str, size: int) -> Any:
    """An uncompiled ``StateGraph`` of ``size`` steps in ``shape``: "chain", "fan-out", "waves"
    (of five), "sleep" or "sleep-async" (independent steps that sleep)."""
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
        return graph
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
    return graph
