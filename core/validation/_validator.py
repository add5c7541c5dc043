"""Checks a plan before anything runs; every problem names the step and the field.

What is checked: unknown tools (with a "did you mean"), params against the tool's schema,
strictly (missing required, unknown, wrong JSON type: ``"10"`` is not an integer and
``"yes"`` not a boolean, value not in the enum, out of the schema's bounds), references
(malformed, to a missing step, to this or a later step, to a path the referenced tool's
output cannot have, in a param the tool does not have, or yielding a value that cannot fit
the param: the rule is in ``core.validation._schema_fit``), dependencies on steps that do not exist,
and dependency cycles (one problem per group of steps that depend on each other, with one
example cycle).

The validator knows no plan format. What a format needs checked (Semantic Kernel's variables
that no earlier step sets) it brings in its ``PlanFormat.checks``, and any plugin may add
whole-plan checks through the ``plan_checks`` hook (``core.hooks``): the validator runs them
all, and lists their problems with the step they name.

A plan with no errors runs with exactly the values the reviewer saw: the tools validate
their arguments as strictly as the validator does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Literal

from .. import hooks
from .._errors import PlanInvalid, ReferenceSyntaxError
from .._limits import shown
from ..plan._positions import as_written, dangling_position
from ..plan._model import Plan, Step
from ..tooling._registry import Tool, ToolRegistry, describe_schema
from ..plan._order import has_cycle
from ._schema_fit import describe_value, may_fit, value_schema
from ..plan._path_schemas import check_path, schema_at_path
from ..plan._references import Reference, find_references
from ..schema._time_budget import time_budget
from ..schema._untrusted import PLAN_CHECK_SECONDS, STEP_CHECK_SECONDS

__all__ = ["Problem", "Validator", "PlanCheck", "first_few"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a plan, located by step and field."""

    message: str
    field: str = ""
    step_id: str | None = None
    step_index: int | None = None
    tool: str | None = None
    severity: Literal["error", "warning"] = "error"

    @property
    def where(self) -> str:
        step = f"step {self.step_index} ({self.tool})" if self.step_index is not None else "plan"
        return f"{step} · {self.field}" if self.field else step

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


PlanCheck = Callable[[Plan], Iterable[Problem]]


class Validator:
    """Finds the problems in a plan against a tool registry."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    def validate(self, plan: Plan) -> list[Problem]:
        # Agents' and MCP servers' schemas share one budget per plan, so a slow schema on
        # every step cannot multiply its cost by the number of steps; the 1 ms a step on top
        # is ten times what an honest step's check costs.
        with time_budget(PLAN_CHECK_SECONDS + STEP_CHECK_SECONDS * len(plan.steps)):
            return self._validate(plan)

    def _validate(self, plan: Plan) -> list[Problem]:
        problems: list[Problem] = []
        if not plan.steps:
            problems.append(Problem("the plan has no steps", "steps"))
        registered: dict[int | None, list[Problem]] = {}  # by step, listed after its own
        for check in hooks.plan_checks():
            for found in check(plan):
                registered.setdefault(found.step_index, []).append(found)
        # Positions by id once, not looked up per reference: a long plan paid its square.
        ids = {s.id: n for n, s in enumerate(plan.steps)}
        fits: dict[tuple, bool] = {}  # see _check_fit
        for index, step in enumerate(plan.steps):
            problems.extend(self._check_step(plan, index, step, ids, fits))
            problems.extend(registered.pop(index, []))
        problems.extend(p for found in registered.values() for p in found)
        problems.extend(self._check_cycles(plan))
        return problems

    def step_problems(self, plan: Plan, step_id: str) -> list[Problem]:
        """The problems of one step (tool, params, references, dependencies) without the
        checks that need the whole plan (cycles, those formats register): what a form
        checks as one field changes."""
        index = plan.index_of(step_id)
        return self._check_step(plan, index, plan.steps[index], {s.id: n for n, s in enumerate(plan.steps)})

    def errors(self, plan: Plan) -> list[Problem]:
        return [p for p in self.validate(plan) if p.severity == "error"]

    def misfit(self, plan: Plan) -> str | None:
        """Why ``plan`` does not fit the tools loaded now, naming its first few errors; None
        when it fits (what a resume or rerun of a stored run is refused with)."""
        errors = [str(p) for p in self.errors(plan)]
        return f"its plan no longer fits the tools loaded now: {first_few(errors)}" if errors else None

    def ensure_valid(self, plan: Plan) -> None:
        """Raise ``PlanInvalid`` listing the errors, if there are any."""
        errors = self.errors(plan)
        if errors:
            raise PlanInvalid(errors)

    def _check_step(self, plan: Plan, index: int, step: Step, ids: dict[str, int],
                    fits: dict[tuple, bool] | None = None) -> list[Problem]:
        out: list[Problem] = []

        def problem(field: str, message: str, severity: Literal["error", "warning"] = "error") -> None:
            out.append(Problem(message, field, step.id, index, step.tool, severity))

        tool = self.registry.get(step.tool) if step.tool in self.registry else None
        if tool is None:
            hint = self.registry.suggest(step.tool)
            problem("tool", f"unknown tool {step.tool!r}" + (f"; did you mean {hint!r}?" if hint else
                    f"; known tools: {', '.join(self.registry.names())}"))

        with_refs: set[str] = set()
        for name, value in step.params.items():
            try:
                refs = find_references(value)
            except ReferenceSyntaxError as exc:
                problem(f"params.{name}", str(exc))
                with_refs.add(name)
                continue
            if not refs:
                continue
            with_refs.add(name)
            sound = [self._check_reference(plan, index, ids, ref, lambda m: problem(f"params.{name}", m))
                     for ref in refs]
            if all(sound) and tool is not None:
                self._check_fit(plan, ids, tool, name, value, lambda m: problem(f"params.{name}", m),
                                {} if fits is None else fits)

        if tool is not None:
            for field, message in tool.check_arguments(step.params, skip=with_refs):
                problem(f"params.{field}", message)

        for dep in step.depends_on:
            if dep == step.id:
                problem("depends_on", "a step cannot depend on itself")
            elif dep not in ids:
                problem("depends_on", f"depends on {dep!r}, which is not a step of this plan")
        return out

    def _check_reference(self, plan: Plan, index: int, ids: dict[str, int], ref: Reference,
                         problem: Callable[[str], None]) -> bool:
        """Report what is wrong with ``ref`` in step ``index`` (``ids``: positions by id);
        ``True`` when nothing is."""
        at = ids.get(ref.step)
        if at is None:
            past = dangling_position(ref.step)
            problem(f"{as_written(ref)} refers to step {past}, but the plan has only {len(plan.steps)} steps "
                    f"(0 to {len(plan.steps) - 1})" if past is not None else
                    f"{ref} refers to step {shown(ref.step)!r}, which is not a step of this plan")
            return False
        if at >= index:
            which = "itself" if at == index else f"{plan.label(ref.step)}, which comes later"
            problem(f"{ref} refers to {which}; a step can only use the results of earlier steps")
            return False
        source = plan.steps[at]
        if source.tool in self.registry:
            why = check_path(self.registry.get(source.tool).returns, ref.path)
            if why:
                problem(f"{ref}: {source.tool} output cannot have this path: {why}")
                return False
        return True

    def _check_fit(self, plan: Plan, ids: dict[str, int], tool: Tool, name: str, value: Any,
                   problem: Callable[[str], None], fits: dict[tuple, bool]) -> None:
        """Report a param whose references yield a value that cannot fit its schema.

        ``fits`` keeps, for one check of a plan, whether a text param of a tool fits when its
        references come from given tools and paths: a chain's steps each ask the same question
        of the same schemas (a tenth of what starting a run of short steps cost)."""
        schema = tool.parameters.get("properties", {}).get(name)
        if schema is None:
            return  # not a parameter: check_arguments says so

        def schema_of(ref: Reference) -> dict:
            source = plan.steps[ids[ref.step]].tool
            return schema_at_path(self.registry.get(source).returns, ref.path) if source in self.registry else {}

        key = None
        if isinstance(value, str):
            refs = find_references(value)
            whole = len(refs) == 1 and value.strip() == refs[0].text  # else filled in as text
            key = (tool.name, name, whole, tuple((plan.steps[ids[r.step]].tool, r.path) for r in refs))
            if fits.get(key):
                return
        got = value_schema(value, schema_of)
        defs = tool.parameters.get("$defs", {})
        fit = may_fit(got, schema, param_defs=defs)
        if key is not None:
            fits[key] = fit
        if fit:
            return
        wanted = describe_schema(schema, defs)
        if isinstance(value, str) and got.get("x-interpolated"):
            problem(f"a reference inside longer text is filled in as text, but {name} takes {wanted}")
        elif isinstance(value, str):
            source = plan.steps[ids[find_references(value)[0].step]].tool
            problem(f"{value.strip()} gives {describe_value(got)} ({source} output), but {name} takes {wanted}")
        else:
            problem(f"this value, with its references filled in, cannot be {wanted}, which {name} takes")

    def _check_cycles(self, plan: Plan) -> list[Problem]:
        if not has_cycle(plan):
            return []
        import networkx as nx  # here, not at the top: it costs the command line ~0.5 s to import

        graph = nx.DiGraph()
        graph.add_nodes_from(s.id for s in plan.steps)
        graph.add_edges_from(plan.edges())
        # One problem per strongly connected component: listing every simple cycle grows
        # exponentially (ten steps that all depend on each other have over a million).
        # Self-loops never reach the graph (dependencies_of drops them): reported per step.
        position = {s.id: n for n, s in enumerate(plan.steps)}
        components = sorted((sorted(c, key=position.__getitem__)
                             for c in nx.strongly_connected_components(graph) if len(c) >= 2),
                            key=lambda c: position[c[0]])
        out = []
        for component in components:
            cycle = _shortest_cycle(graph, component, position)
            names = " → ".join(plan.label(i) for i in [*cycle, cycle[0]])
            if len(cycle) == len(component):
                message = f"dependency cycle: {names}"
            else:
                steps = ", ".join(str(position[i]) for i in component)
                message = (f"dependency cycle among {len(component)} steps ({steps}), which all "
                           f"depend on each other; for example {names}")
            first = position[component[0]]
            out.append(Problem(message, "depends_on", component[0], first, plan.steps[first].tool))
        return out


def first_few(texts: list[str], shown: int = 3) -> str:
    """The first ``shown`` of ``texts`` joined, and how many more there are."""
    more = f"; and {len(texts) - shown} more" if len(texts) > shown else ""
    return "; ".join(texts[:shown]) + more


def _shortest_cycle(graph: Any, component: list[str], position: dict[str, int]) -> list[str]:
    """A shortest cycle through the component's earliest step, by breadth-first search in
    plan order, so the same plan always gives the same example."""
    start, members = component[0], set(component)
    parent: dict[str, str] = {start: start}
    queue = [start]
    for node in queue:
        for nxt in sorted(graph.successors(node), key=position.__getitem__):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return path[::-1]
            if nxt in members and nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return component  # unreachable: every member of a component lies on a cycle through start
