"""No module over ``MAX_LINES`` lines: a longer one holds more than one concept; split it by concept."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 450
PACKAGES = ["core", "tools", "studio", "pages"]


def long_modules(root: Path, packages: list[str], most: int = MAX_LINES) -> dict[str, int]:
    """Each module of ``packages`` over ``most`` lines, with its length."""
    lengths = {str(path.relative_to(root)): len(path.read_text().splitlines())
               for package in packages for path in sorted((root / package).rglob("*.py"))}
    return {name: lines for name, lines in lengths.items() if lines > most}


def test_no_module_is_over_450_lines():
    assert long_modules(ROOT, PACKAGES) == {}


def test_the_size_rule_sees_a_long_module(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "short.py").write_text("x = 1\n" * MAX_LINES)
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert long_modules(tmp_path, ["pkg"]) == {"pkg/long.py": MAX_LINES + 1}
