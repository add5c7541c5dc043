"""core ← tools ← studio ← pages: nothing imports upward, and nothing evaluates code.

Inside them, rooms; ``ROOMS`` says which rooms each may import (its own always):

    core     basics (_errors, _limits, _private_files), hooks (the extension points; imports no room)
             settings (_settings) ← tooling
             every room ← basics, hooks
             schema, plan, llm ← basics
             tooling ← schema
             validation ← plan, schema, tooling
             editing, formats ← plan, schema, tooling, validation
             run.model (the run, its statuses and events) ← plan
             access (actors and roles) ← basics
             policy (rules as data) ← plan, schema, tooling, validation, access
             run (the engine) ← run.model, plan, tooling, validation, llm, settings, access, policy
             storage ← plan, run.model, settings, access     (never the engine)
             durable ← run, run.model, storage               (the engine that keeps a run in the store)
             planners ← plan, tooling, validation, editing, formats, llm   (never run nor storage)
             lab ← plan, tooling, validation, formats, planners          (no storage: it reads a Library)
             traces (the spans of plans, reviews, runs) ← run.model, run, llm   (a plugin: nothing imports it)
             core (the package: the public API) ← every core room; no core room imports it
    tools    ← core, and the core rooms a tool group builds on
    studio   workbench ← core, tools: the one application layer
             ui, api, mcp, cli ← workbench, core, tools; never each other, but that cli starts the
                 MCP server through ``studio.mcp``'s public face
             client ← core;  entry (app.py, asgi.py) and the ``studio`` package assemble the rooms
    pages    ← studio

Streamlit is the ui's (and the entry scripts' and pages'): the cli only starts its server
(``streamlit.web.cli``).
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = {
    "core": {"tools", "studio", "pages", "streamlit"},
    "tools": {"studio", "pages", "streamlit"},
    "studio": {"pages"},
}


def imported_modules(path: Path) -> set[str]:
    """The absolute module names ``path`` imports (``from x import y`` counts ``x``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_upward_imports(package):
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}/ has no modules"
    bad = {str(f.relative_to(ROOT)): sorted(imported_roots(f) & FORBIDDEN[package]) for f in files}
    assert {f: m for f, m in bad.items() if m} == {}


@pytest.mark.parametrize("package", ["core", "tools"])
def test_no_eval_or_exec(package):
    for path in (ROOT / package).rglob("*.py"):
        calls = [n.func.id for n in ast.walk(ast.parse(path.read_text()))
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in {"eval", "exec"}]
        assert not calls, f"{path.relative_to(ROOT)} calls {calls}"


def test_the_layer_test_sees_a_violation(tmp_path):
    bad = tmp_path / "m.py"
    bad.write_text("import streamlit as st\nfrom studio.x import y\n")
    assert {"streamlit", "studio"} <= imported_roots(bad)



def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, root: Path, modules: set[str]) -> set[str]:
    """The project's modules that ``path`` imports, type-only imports included: a circle
    hidden behind ``TYPE_CHECKING`` is still two modules that cannot be read apart."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = parts[: len(parts) - node.level + 1] if node.level else []
            stem = ".".join([*base, *(node.module.split(".") if node.module else [])])
            # `from . import x` names a module; `from .m import x` names a name in m.
            targets = [f"{stem}.{a.name}" for a in node.names if f"{stem}.{a.name}" in modules] or [stem]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def import_circles(root: Path, packages: list[str]) -> list[list[str]]:
    import networkx as nx

    files = [f for package in packages for f in (root / package).rglob("*.py")]
    modules = {_module_name(f, root) for f in files}
    graph = nx.DiGraph([(_module_name(f, root), t) for f in files for t in _imports(f, root, modules)])
    return [sorted(c) for c in nx.simple_cycles(graph)]


def test_no_import_circles():
    assert import_circles(ROOT, ["core", "tools", "studio", "pages"]) == []


def test_the_circle_test_sees_a_type_only_circle(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from .b import x\n")
    (tmp_path / "pkg" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import y\n")
    assert import_circles(tmp_path, ["pkg"]) == [["pkg.a", "pkg.b"]]



BASICS = {"core.basics", "core.hooks"}  # the errors, the bounds, and the one list of extension points
PLAN_LEVEL = BASICS | {"core.plan", "core.schema", "core.tooling", "core.validation"}
CORE_ROOMS = {"core", "core.basics", "core.hooks", "core.settings", "core.plan", "core.schema", "core.tooling", "core.validation",
              "core.editing", "core.formats", "core.llm", "core.run.model", "core.run", "core.storage",
              "core.access", "core.policy",
              "core.durable", "core.planners", "core.lab", "core.traces"}
INTERFACES = {"studio.ui", "studio.api", "studio.mcp", "studio.cli"}
ROOMS: dict[str, set[str]] = {
    "core.basics": set(),
    "core.hooks": set(),  # imports nothing of the project: every room may tell it what it adds
    "core.schema": BASICS,
    "core.plan": BASICS,
    "core.tooling": BASICS | {"core.schema"},
    "core.settings": BASICS | {"core.tooling"},
    "core.llm": BASICS | {"core.settings"},
    "core.validation": PLAN_LEVEL,
    "core.editing": PLAN_LEVEL,
    "core.formats": PLAN_LEVEL,
    "core.run.model": BASICS | {"core.plan"},
    "core.access": BASICS,
    "core.policy": PLAN_LEVEL | {"core.access"},
    "core.run": PLAN_LEVEL | {"core.settings", "core.llm", "core.run.model", "core.access", "core.policy"},
    "core.storage": BASICS | {"core.settings", "core.plan", "core.run.model", "core.access"},
    "core.durable": PLAN_LEVEL | {"core.settings", "core.run.model", "core.run", "core.storage", "core.access",
                                  "core.policy"},
    "core.planners": PLAN_LEVEL | {"core.settings", "core.editing", "core.formats", "core.llm"},
    "core.lab": PLAN_LEVEL | {"core.formats", "core.planners"},
    "core.traces": BASICS | {"core.settings", "core.llm", "core.run.model"},
    "core": CORE_ROOMS - {"core"},
    "tools": {"core", "core.basics", "core.hooks", "core.schema", "core.tooling", "core.llm"},
    "studio.workbench": CORE_ROOMS | {"tools"},
    **{room: CORE_ROOMS | {"tools", "studio.workbench"} for room in INTERFACES},
    "studio.client": CORE_ROOMS,
    "studio.entry": CORE_ROOMS | INTERFACES | {"studio", "studio.workbench"},
    "studio": CORE_ROOMS | INTERFACES | {"studio.workbench", "studio.client"},
    "pages": {"studio"},
}
# One door between interfaces: ``plan-studio mcp-server`` starts the MCP server.
ROOMS["studio.cli"] = ROOMS["studio.cli"] | {"studio.mcp (public)"}
STREAMLIT_ROOMS = {"studio.ui", "studio.entry", "pages"}
STREAMLIT_SERVER = {"studio.cli": {"streamlit.web.cli"}}  # starts the studio; draws nothing
# What the run's engine may not be: the run as a value, which storage keeps and editing never needs.
RUN_MODEL = {"core.run._model", "core.run._status", "core.run._events"}


def room_of(module: str) -> str:
    """The room of a module of the project, by its dotted name."""
    parts = module.split(".")
    top, second = parts[0], (parts[1] if len(parts) > 1 else "")
    if top == "core":
        if not second:
            return "core"
        if second in {"_errors", "_limits", "_private_files"}:
            return "core.basics"
        if second in {"_settings", "_settings_table"}:
            return "core.settings"
        if second == "durable" or parts[1:3] == ["run", "durable"]:
            return "core.durable"
        if module in RUN_MODEL:
            return "core.run.model"
        return f"core.{second.lstrip('_')}"  # a module at core's root is a room of its own
    if top == "studio":
        if not second:
            return "studio"
        if second in {"app", "asgi"}:
            return "studio.entry"
        if len(parts) == 2 and f"studio.{second}" in INTERFACES:
            return f"studio.{second} (public)"
        return f"studio.{second}"
    return top


def room_violations(root: Path, packages: list[str]) -> dict[str, list[str]]:
    """Each module that imports a room its room may not, with what it imports; a module in a room
    ``ROOMS`` does not know is reported as such."""
    files = [f for package in packages for f in (root / package).rglob("*.py")]
    modules = {_module_name(f, root) for f in files}
    found: dict[str, list[str]] = {}
    for path in files:
        name = _module_name(path, root)
        room = room_of(name).removesuffix(" (public)")
        if room not in ROOMS:
            found[name] = [f"its room {room!r} is not in ROOMS"]
            continue
        bad = sorted(t for t in _imports(path, root, modules)
                     if room_of(t) not in ROOMS[room] | {room, f"{room} (public)"})
        if room not in STREAMLIT_ROOMS:
            bad += sorted(m for m in imported_modules(path)
                          if m.split(".")[0] == "streamlit" and m not in STREAMLIT_SERVER.get(room, set()))
        if bad:
            found[name] = bad
    return found


def test_every_room_imports_only_the_rooms_it_may():
    assert room_violations(ROOT, ["core", "tools", "studio", "pages"]) == {}


def test_every_room_is_drawn_and_may_import_only_rooms_that_exist():
    assert {target for allowed in ROOMS.values() for target in allowed} - set(ROOMS) == {"studio.mcp (public)"}
    drawn = set(re.findall(r"[a-z][a-z.]*", __doc__))
    assert {room.removeprefix("core.").removeprefix("studio.") for room in ROOMS} - drawn == set()


def test_the_room_rule_sees_a_violation(tmp_path):
    for folder in ["core/plan", "core/run", "core/lab", "core/storage", "studio/api", "studio/ui"]:
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "core" / "__init__.py").write_text("")
    (tmp_path / "studio" / "__init__.py").write_text("")
    (tmp_path / "core" / "run" / "_engine.py").write_text("")
    (tmp_path / "core" / "run" / "_model.py").write_text("from ..plan import _model\n")
    (tmp_path / "core" / "plan" / "_model.py").write_text("from ..run import _engine\n")  # plan ↛ run
    (tmp_path / "core" / "storage" / "_runs.py").write_text(
        "from ..run._model import x\nfrom ..run._engine import y\n")  # the model yes, the engine no
    (tmp_path / "core" / "lab" / "_goals.py").write_text("from ..storage._runs import z\n")  # lab ↛ storage
    (tmp_path / "studio" / "ui" / "_page.py").write_text("import streamlit\n")
    (tmp_path / "studio" / "api" / "_routes.py").write_text("import streamlit\nfrom ..ui._page import p\n")
    (tmp_path / "studio" / "cli").mkdir()
    (tmp_path / "studio" / "cli" / "_main.py").write_text("import streamlit.web.cli as serve\nimport streamlit.runtime\n")
    assert room_violations(tmp_path, ["core", "studio"]) == {
        "core.plan._model": ["core.run._engine"],
        "core.storage._runs": ["core.run._engine"],
        "core.lab._goals": ["core.storage._runs"],
        "studio.api._routes": ["studio.ui._page", "streamlit"],
        "studio.cli._main": ["streamlit.runtime"],  # starting the server is all the cli may do with it
    }


def private_names_imported(root: Path, packages: list[str]) -> dict[str, list[str]]:
    """Each module that imports a private name (``_x``, not a module) from another module: a
    helper two modules share has a public name in the room it belongs to."""
    files = [f for package in packages for f in (root / package).rglob("*.py")]
    modules = {_module_name(f, root) for f in files}
    found: dict[str, list[str]] = {}
    for path in files:
        name = _module_name(path, root)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            parts = package.split(".")
            base = parts[: len(parts) - node.level + 1] if node.level else []
            stem = ".".join([*base, *(node.module.split(".") if node.module else [])])
            if stem.split(".")[0] not in packages:
                continue
            found.setdefault(name, []).extend(
                f"{stem}.{a.name}" for a in node.names
                if a.name.startswith("_") and not a.name.startswith("__") and f"{stem}.{a.name}" not in modules)
    return {name: names for name, names in found.items() if names}


def test_no_module_imports_another_modules_private_name():
    assert private_names_imported(ROOT, ["core", "tools", "studio", "pages"]) == {}


def test_the_private_name_rule_sees_one(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "_a.py").write_text("_helper = 1\n")
    (tmp_path / "pkg" / "_b.py").write_text("from . import _a\nfrom ._a import _helper\n")
    assert private_names_imported(tmp_path, ["pkg"]) == {"pkg._b": ["pkg._a._helper"]}

def test_the_validator_knows_no_format():
    """Format-specific checks reach the validator through ``register_plan_check``, the hook a
    third-party format uses too; the validator itself imports nothing from ``core.formats``."""
    validation = ROOT / "core" / "validation" / "_validator.py"
    modules = {_module_name(f, ROOT) for f in (ROOT / "core").rglob("*.py")}
    found = _imports(validation, ROOT, modules)
    assert found and not {m for m in found if m == "core.formats" or m.startswith("core.formats.")}


def modules_reached(root: Path, packages: list[str], start: str) -> set[str]:
    """The project's modules that ``start`` (a package or module) imports, directly or not."""
    import networkx as nx

    files = [f for package in packages for f in (root / package).rglob("*.py")]
    modules = {_module_name(f, root) for f in files}
    graph = nx.DiGraph([(_module_name(f, root), t) for f in files for t in _imports(f, root, modules)])
    inside = [m for m in graph if m == start or m.startswith(start + ".")]
    return set().union(*(nx.descendants(graph, m) for m in inside)) - set(inside)


def test_storage_does_not_import_the_executor():
    # Storing a run needs what a run is (core.run._model), not the machinery that runs one.
    reached = modules_reached(ROOT, ["core"], "core.storage")
    assert "core.plan._model" in reached  # the walk follows the store's imports
    assert "core.run._executor" not in reached


def dialect_statements(path: Path) -> list[str]:
    """What in ``path``'s code (not its docstrings or comments) only one SQL dialect understands."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    words = ("pragma", "fts5", "sqlite_master", "on conflict", " match ", "begin immediate")
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in {"sqlite3", "psycopg"}]
        elif isinstance(node, ast.ImportFrom) and node.module and (
                node.module.startswith("sqlalchemy.dialects") or node.module == "sqlite3"):
            found.append(node.module)
        elif isinstance(node, ast.Attribute) and (
                node.attr.startswith(("on_conflict", "json_")) or node.attr in {"instr", "exec_driver_sql"}):
            found.append(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            found += [w.strip() for w in words if w in f" {node.value.lower()} "]
    return found


def test_every_dialect_specific_statement_is_in_one_storage_module():
    # So that a dialect (SQLite, PostgreSQL) is one module, not edits everywhere.
    storage = ROOT / "core" / "storage"
    dialects = ("_sqlite.py", "_postgres.py")
    assert all(dialect_statements(storage / name) for name in dialects)  # the scan sees them where they are
    elsewhere = {p.name: dialect_statements(p) for p in sorted(storage.glob("*.py")) if p.name not in dialects}
    assert {name: found for name, found in elsewhere.items() if found} == {}
