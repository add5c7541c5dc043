"""core ← tools ← studio ← pages: nothing imports upward, and nothing evaluates code."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
