"""Checks a plan before anything runs; every problem names the step and the field.

What is checked: unknown tools (with a "did you mean"), params against the tool's schema
(missing required, unknown, wrong type, value not in the enum), references (malformed, to a
missing step, to this or a later step, or to a path the referenced tool's output cannot
have), dependencies on steps that do not exist, and dependency cycles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


from ._errors import PlanInvalid, ReferenceSyntaxError
from ._plan import Plan, Step
from ._registry import ToolRegistry
from ._templates import check_path, find_references

__all__ = ["Problem", "Validator"]


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


class Validator:
    """Finds the problems in a plan against a tool registry."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    def validate(self, plan: Plan) -> list[Problem]:
        problems: list[Problem] = []
        if not plan.steps:
            problems.append(Problem("the plan has no steps", "steps"))
        for index, step in enumerate(plan.steps):
            problems.extend(self._check_step(plan, index, step))
        problems.extend(self._check_cycles(plan))
        return problems

    def errors(self, plan: Plan) -> list[Problem]:
        return [p for p in self.validate(plan) if p.severity == "error"]

    def ensure_valid(self, plan: Plan) -> None:
        """Raise ``PlanInvalid`` listing the errors, if there are any."""
        errors = self.errors(plan)
        if errors:
            raise PlanInvalid(errors)

    def _check_step(self, plan: Plan, index: int, step: Step) -> list[Problem]:
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
            if refs:
                with_refs.add(name)
            for ref in refs:
                if ref.step >= len(plan.steps):
                    problem(f"params.{name}", f"{ref} refers to step {ref.step}, but the plan has "
                            f"only {len(plan.steps)} steps (0 to {len(plan.steps) - 1})")
                    continue
                if ref.step >= index:
                    which = "itself" if ref.step == index else f"step {ref.step}, which comes later"
                    problem(f"params.{name}", f"{ref} refers to {which}; a step can only use the results of earlier steps")
                    continue
                source = plan.steps[ref.step]
                if source.tool in self.registry:
                    why = check_path(self.registry.get(source.tool).returns, ref.path)
                    if why:
                        problem(f"params.{name}", f"{ref}: {source.tool} output cannot have this path: {why}")

        if tool is not None:
            for field, message in tool.check_arguments(step.params, skip=with_refs):
                problem(f"params.{field}", message)

        ids = {s.id for s in plan.steps}
        for dep in step.depends_on:
            if dep == step.id:
                problem("depends_on", "a step cannot depend on itself")
            elif dep not in ids:
                problem("depends_on", f"depends on {dep!r}, which is not a step of this plan")
        return out

    def _check_cycles(self, plan: Plan) -> list[Problem]:
        import networkx as nx  # here, not at the top: it costs the command line ~0.5 s to import

        graph = nx.DiGraph()
        graph.add_nodes_from(s.id for s in plan.steps)
        graph.add_edges_from(plan.edges())
        out = []
        found = [c for c in nx.simple_cycles(graph) if len(c) >= 2]  # self-loops: reported per step
        # networkx's order varies between runs; start each cycle at its earliest step so the
        # same plan always gets the same message.
        position = {s.id: n for n, s in enumerate(plan.steps)}
        for cycle in found:
            start = min(range(len(cycle)), key=lambda n: position[cycle[n]])
            cycle[:] = cycle[start:] + cycle[:start]
        for cycle in sorted(found, key=lambda c: [position[i] for i in c]):
            names = " → ".join(plan.label(i) for i in [*cycle, cycle[0]])
            first = plan.index_of(cycle[0])
            out.append(Problem(f"dependency cycle: {names}", "depends_on", cycle[0], first,
                               plan.steps[first].tool))
        return out
