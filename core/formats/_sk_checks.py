"""What the validator checks for the Semantic Kernel format, registered through the same hook
as any format's checks (``register_format``): a ``$NAME`` the plan was imported with that no
earlier step sets would reach the tool as the text ``$NAME``. A warning, not an error: SK
itself keeps such a name as text (``$top`` inside an OData JSON payload is meant as text)."""

from __future__ import annotations

from typing import Iterator

from ..plan._model import Plan
from ..validation._validator import Problem
from ._sk_variables import output_var, unset_variable_uses

__all__ = ["unset_variable_problems"]


def unset_variable_problems(plan: Plan) -> Iterator[Problem]:
    for index, param, variable in unset_variable_uses(plan):
        step = plan.steps[index]
        name = variable[1:].lower()
        later = [n for n, s in enumerate(plan.steps)
                 if n > index and name in {(output_var(s) or "").lower(), (s.result_key or "").lower()}]
        why = (f"only {plan.label(plan.steps[later[0]].id)}, which comes later, sets it" if later
               else "it is the plan's input in Semantic Kernel, and a Plan Studio plan has none"
               if name == "input" else "no step sets it (setContextVariable)")
        yield Problem(
            f"{variable} is a Semantic Kernel variable, but {why}: the tool gets the text "
            f"{variable!r}, as in SK. If a value was meant, write it, or a reference to an earlier "
            "step's output", f"params.{param}", step.id, index, step.tool, severity="warning")
