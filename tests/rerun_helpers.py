"""What the rerun tests share: two tools that count their calls (one reads, one writes), a
plan whose graph is not its list order, and services over a real store in a folder."""

from __future__ import annotations

from pathlib import Path

from workbench_helpers import TODAY

from core import ADDITIVE, READ_ONLY, Plan, Settings, Step, ToolRegistry
from studio import workbench as wb
from studio.workbench._services import Services, build_services


class Tools:
    """``fetch`` only reads, ``send`` writes; both note their calls, and a step named in
    ``failing`` raises."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.failing: set[str] = set()

    def registry(self, *, with_send: bool = True) -> ToolRegistry:
        tools = ToolRegistry()

        def fetch(name: str, value: int) -> int:
            """Fetch a number.

            Args:
                name: The step's name.
                value: A number.
            """
            return self._call(name, value)

        def send(name: str, value: int) -> int:
            """Send a number somewhere.

            Args:
                name: The step's name.
                value: A number.
            """
            return self._call(name, value)

        tools.register(fetch, effects=READ_ONLY)
        if with_send:
            tools.register(send, effects=ADDITIVE)
        return tools

    def _call(self, name: str, value: int) -> int:
        self.calls.append(name)
        if name in self.failing:
            raise RuntimeError(f"{name} broke")
        return value + 1


# a -> b -> d,  a -> c (independent of b),  e (alone); in list order: a b c d e
PLAN = Plan(goal="numbers", steps=[
    Step(id="a", tool="fetch", params={"name": "a", "value": 0}),
    Step(id="b", tool="fetch", params={"name": "b", "value": "${steps.a}"}, note="Add one to a"),
    Step(id="c", tool="fetch", params={"name": "c", "value": "${steps.a}"}),
    Step(id="d", tool="send", params={"name": "d", "value": "${steps.b}"}),
    Step(id="e", tool="send", params={"name": "e", "value": 10}),
])


def rerun_services(folder: Path, tools: Tools, *, with_send: bool = True) -> Services:
    settings = Settings(data_dir=folder / "data", today=TODAY, approve_writes=False)
    return build_services(settings, registry=tools.registry(with_send=with_send))


def finish(bench: wb.Workbench, services: Services) -> None:
    """Wait for the bench's run to end and collect it, as the page's progress view does."""
    assert bench.worker is not None and bench.worker.join(timeout=60)
    wb.collect_finished_run(bench, lambda: services.store)


def ran_with_b_failing(services: Services, tools: Tools) -> wb.Workbench:
    """The plan, approved and run with step b failing (so d is skipped); the run in the bench."""
    bench = wb.Workbench()
    wb.show_plan(bench, PLAN, saved=None)
    assert wb.approve(bench, services.validator).ok
    tools.failing = {"b"}
    assert wb.request_run(bench, services, "all").ok
    finish(bench, services)
    assert [bench.run.steps[s].status.value for s in "abcde"] == \
        ["succeeded", "failed", "succeeded", "skipped", "succeeded"]
    tools.failing = set()
    tools.calls.clear()
    return bench


def shopping_plan(note: str) -> dict:
    """The demo's list tools: createList -> addItem -> removeItem (fails: no eggs on the list
    yet) -> showList (then skipped); the removeItem step noted ``note`` (untrusted text)."""
    return {"goal": "Shopping", "steps": [
        {"id": "mk", "tool": "createList", "params": {"list": "shop"}},
        {"id": "add", "tool": "addItem", "params": {"list": "shop", "item": "milk"}, "depends_on": ["mk"]},
        {"id": "rm", "tool": "removeItem", "params": {"list": "shop", "item": "eggs"}, "depends_on": ["add"],
         "note": note},
        {"id": "show", "tool": "showList", "params": {"list": "shop"}, "depends_on": ["rm"]},
    ]}
