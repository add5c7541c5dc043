"""core/_errors.py's docstring draws the tree of error classes; it must name every class
under the parent it really has."""

from __future__ import annotations

import inspect
import re

import core._errors as errors
from core import PlanStudioError


def test_the_docstring_tree_matches_the_classes():
    drawn: dict[str, str] = {}
    parents: list[tuple[int, str]] = []
    for line in (errors.__doc__ or "").splitlines():
        match = re.match(r"^    ((?:[│ ]   )*)(?:[├└]── )?([A-Z]\w+)", line)
        if not match:
            continue
        depth = len(match.group(1)) // 4 + (1 if "──" in line else 0)
        name = match.group(2)
        while parents and parents[-1][0] >= depth:
            parents.pop()
        if parents:
            drawn[name] = parents[-1][1]
        parents.append((depth, name))
    classes = {name: cls for name, cls in inspect.getmembers(errors, inspect.isclass)
               if issubclass(cls, PlanStudioError) and cls is not PlanStudioError}
    assert drawn == {name: cls.__bases__[0].__name__ for name, cls in classes.items()}
