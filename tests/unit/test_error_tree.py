"""core/_errors.py holds every error class of the project, and its docstring draws them: each
class under the parent it really has. Only a class private to its module (``_Name``) may be
defined elsewhere."""

from __future__ import annotations

import ast
import builtins
import inspect
import re
from pathlib import Path

import core._errors as errors

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "tools", "studio", "pages")
_BUILTIN_ERRORS = {name for name, value in vars(builtins).items()
                   if isinstance(value, type) and issubclass(value, BaseException)}


def drawn_tree(doc: str) -> dict[str, str]:
    """Each class the docstring draws, to the class drawn above it (roots are left out)."""
    drawn: dict[str, str] = {}
    parents: list[tuple[int, str]] = []
    for line in doc.splitlines():
        match = re.match(r"^    ((?:[│ ]   )*)(?:[├└]── )?([A-Za-z][\w.]*)", line)
        if not match:
            continue
        depth = len(match.group(1)) // 4 + (1 if "──" in line else 0)
        name = match.group(2)
        while parents and parents[-1][0] >= depth:
            parents.pop()
        if parents:
            drawn[name] = parents[-1][1]
        parents.append((depth, name))
    return drawn


def _base_name(cls: type) -> str:
    base = cls.__bases__[0]
    return base.__name__ if base.__module__ in ("builtins", errors.__name__) else f"{base.__module__}.{base.__name__}"


def test_the_docstring_tree_matches_the_classes():
    classes = {name: cls for name, cls in inspect.getmembers(errors, inspect.isclass)
               if issubclass(cls, BaseException) and cls.__module__ == errors.__name__}
    assert "HandedOver" in classes and "CliError" in classes  # the signals are drawn too
    assert drawn_tree(errors.__doc__ or "") == {name: _base_name(cls) for name, cls in classes.items()
                                                if cls is not errors.PlanStudioError}


def test_the_drawing_is_read_as_drawn():
    doc = "x\n\n    A\n    ├── B\n    │   └── C\n    └── D\n    Exception\n    └── E\n"
    assert drawn_tree(doc) == {"B": "A", "C": "B", "D": "A", "E": "Exception"}


def exception_classes_outside(root: Path) -> list[str]:
    """Public exception classes defined in the project's packages outside core/_errors.py: a
    class is one when a base is a built-in exception, an error class of core/_errors.py, a name
    ending in Error or Exception, or another class found here."""
    known = _BUILTIN_ERRORS | {name for name, cls in vars(errors).items()
                               if isinstance(cls, type) and issubclass(cls, BaseException)}
    definitions = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.ClassDef):
                    bases = [ast.unparse(base).rpartition(".")[2] for base in node.bases]
                    definitions.append((f"{path.relative_to(root)}:{node.lineno} {node.name}", node.name, bases))
    found: dict[str, str] = {}
    grew = True
    while grew:
        grew = False
        for where, name, bases in definitions:
            if where not in found and any(b in known or b.endswith(("Error", "Exception")) for b in bases):
                found[where] = name
                known.add(name)
                grew = True
    return sorted(where for where, name in found.items()
                  if not where.startswith("core/_errors.py:") and not name.startswith("_"))


def test_every_error_class_lives_in_the_errors_module():
    assert exception_classes_outside(ROOT) == []


def test_an_error_class_defined_elsewhere_is_found(tmp_path):
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "_errors.py").write_text("class Fine(Exception):\n    pass\n")
    (tmp_path / "studio").mkdir()
    (tmp_path / "studio" / "m.py").write_text(
        "import httpx2\nfrom core import PlanError\n"
        "class Mine(PlanError): ...\nclass Theirs(httpx2.DecodingError): ...\n"
        "class Deeper(Mine): ...\nclass _Private(ValueError): ...\nclass Plain: ...\n")
    assert exception_classes_outside(tmp_path) == ["studio/m.py:3 Mine", "studio/m.py:4 Theirs",
                                                   "studio/m.py:5 Deeper"]
