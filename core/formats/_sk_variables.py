"""Semantic Kernel variables: ``$NAME`` in a value is the output of the latest earlier step
that set ``NAME`` (and ``$INPUT`` the previous step's). On export, which names the steps'
outputs go by, inventing them where a later step needs one; on import, the variables no
step set (see the docstring of ``_semantic_kernel``).

The name a step's output goes by is the SK format's own data, kept in the step's
``format_data["sk"]`` (see ``core.plan._model``), read here and written by the importer."""

from __future__ import annotations

import re
from typing import Any, Iterator

from .._errors import ReferenceSyntaxError
from ..plan._model import Plan, Step
from ..plan._references import find_references
from ._sk_values import walk_strings

__all__ = ["INPUT", "SK", "UNSET_VARIABLES", "VARIABLE", "Variables", "invented_name", "output_var",
           "sk_data", "unset_variable_uses"]

SK = "sk"  # the format's name: its namespace in a step's format_data

UNSET_VARIABLES = "sk_unset_variables"  # metadata field: variables no step set on import
INPUT = "input"  # SK's variable for the latest output (names compare in lower case)
# SK variable names; a letter or underscore first so "$5" in prose is not a variable.
VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_NAME_CHAR = re.compile(r"[A-Za-z0-9_]")


def output_var(step: Step) -> str | None:
    """The variable the step's output is known by (``setContextVariable``), if it has one;
    anything but text in its place is no name (format_data is free JSON)."""
    value = step.format_data.get(SK, {}).get("output_var")
    return value if isinstance(value, str) and value else None


def sk_data(name: str | None) -> dict[str, dict[str, str]]:
    """A step's ``format_data`` for the variable its output is known by."""
    return {SK: {"output_var": name}} if name else {}


def invented_name(index: int) -> str:
    return f"STEP_{index}_OUTPUT"


def unset_variable_uses(plan: Plan) -> Iterator[tuple[int, str, str]]:
    """(step index, param, ``$NAME``) for each use of a variable the plan was imported
    with but no earlier step set; see the docstring of ``_semantic_kernel``."""
    listed = (plan.metadata.model_extra or {}).get(UNSET_VARIABLES)
    if not isinstance(listed, list):
        return
    names = {v.lower() for v in listed if isinstance(v, str)}
    for n, step in enumerate(plan.steps):
        for param, value in step.params.items():
            found: list[str] = []

            def collect(text: str) -> str:
                found.extend(m.group(0) for m in VARIABLE.finditer(text)
                             if m.group(1).lower() in names and m.group(0) not in found)
                return text

            walk_strings(value, collect)
            for variable in found:
                yield n, param, variable


class Variables:
    """Which SK variable names the steps' outputs go by, inventing names where needed."""

    def __init__(self, plan: Plan) -> None:
        self.steps = plan.steps
        # SK speaks positions: a reference's step id is read as the step's position here.
        self.position = {s.id: n for n, s in enumerate(self.steps)}
        self.names: dict[int, str] = {n: name for n, s in enumerate(self.steps) if (name := output_var(s))}
        taken = {v.lower() for s in self.steps for v in (output_var(s), s.result_key) if v}
        for n, step in enumerate(self.steps):
            for ref in _safe_references(step.params):
                source = self.position.get(ref.step, n)
                if not ref.path and source < n and source not in self.names:
                    name, k = invented_name(source), 2
                    while name.lower() in taken:
                        name, k = f"{invented_name(source)}_{k}", k + 1
                    taken.add(name.lower())
                    self.names[source] = name
        # For each step whose output has a name, the first later step that sets the same
        # variable: worked out once, so each reference is one lookup, not a walk of the plan.
        self.overwritten_at: dict[int, int] = {}
        latest: dict[str, int] = {}
        for k in range(len(self.steps) - 1, -1, -1):
            name = self.names.get(k)
            if name is not None and name.lower() in latest:
                self.overwritten_at[k] = latest[name.lower()]
            for variable in {v.lower() for v in (name, self.steps[k].result_key) if v}:
                latest[variable] = k

    def usable(self, source: int, at: int) -> str | None:
        """The name by which step ``at`` can read step ``source``'s output, if any: no step
        in between may set the same variable, or ``$NAME`` would mean that step instead."""
        name = self.names.get(source)
        if name is None or not 0 <= source < at or self.overwritten_at.get(source, at) < at:
            return None
        if name.lower() == INPUT and source != at - 1:
            return None  # $INPUT is always the previous step's output
        return name

    def to_sk(self, text: str, at: int) -> str:
        out, pos = [], 0
        for ref in _safe_references(text):
            start = text.find(ref.text, pos)
            end = start + len(ref.text)
            source = self.position.get(ref.step, -1)
            name = None if ref.path else self.usable(source, at)
            if name is None or _NAME_CHAR.match(text, end):
                continue  # kept as reference text, by position (positions_for_ids)
            out += [text[pos:start], f"${name}"]
            pos = end
        out.append(text[pos:])
        return "".join(out)


def _safe_references(value: Any) -> list[Any]:
    try:
        return find_references(value)
    except ReferenceSyntaxError:
        return []  # malformed reference text is written as it is; the validator reports it
