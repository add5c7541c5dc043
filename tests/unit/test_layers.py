"""core ← tools ← studio ← pages: nothing imports upward, and nothing evaluates code."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = {
    "core": {"tools", "studio", "pages", "streamlit"},
    "tools": {"studio", "pages", "streamlit"},
    "studio": {"pages"},
}


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
