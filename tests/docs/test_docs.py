"""The README and the pages under docs/ must not drift from the code: every example in them runs
(Python blocks executed, ``bash run`` blocks run in a fresh folder, every other ``plan-studio``
call parsed by the real parser), every relative link resolves, the command line's page documents
every command and option, and the settings table is the one the settings declaration renders.

Fences: ```` ```python ```` is executed (a ``# text`` comment on its last line is what it prints
last); ```` ```python no-run ```` needs something these tests do not start (a running studio) and
is only compiled; ```` ```bash run ```` blocks of a page run in order, in one folder, and each must
exit 0; other ```` ```bash ```` blocks have their ``plan-studio`` calls parsed.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from core import Settings
from core._settings import FROM_OPTIONS_VARIABLE
from core._settings_table import REGENERATE, with_settings_table
from studio.cli._main import _parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README_PATH = ROOT / "README.md"
PAGES = [README_PATH, *sorted(DOCS.rglob("*.md"))]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


README = read(README_PATH)
CLI_PAGE = read(DOCS / "cli.md")
CONFIGURATION = read(DOCS / "configuration.md")


@dataclass(frozen=True)
class Block:
    """A fenced code block: where it is, its info string and its text."""

    path: Path
    line: int
    info: str
    code: str

    @property
    def language(self) -> str:
        return self.info.split()[0] if self.info else ""

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path, text: str | None = None) -> list[Block]:
    """The fenced code blocks of a Markdown page, in order."""
    text = read(path) if text is None else text
    return [Block(path, text.count("\n", 0, m.start()) + 1, m.group(1).strip(), m.group(2))
            for m in re.finditer(r"^```([^\n]*)\n(.*?)^```[ \t]*$", text, re.M | re.S)]


ALL_BLOCKS = [block for page in PAGES for block in blocks(page)]


def section(text: str, title: str) -> str:
    """The text of the ``## title`` section, up to the next level-2 heading."""
    match = re.search(rf"^## {re.escape(title)}[ \t]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"no '## {title}' section"
    return match.group(1)


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return dict(actions[0].choices)


def long_options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings if o.startswith("--")}


def example_argvs(code: str) -> list[tuple[str, list[str]]]:
    """Each ``plan-studio ...`` call in shell code: the line and its arguments, up to a pipe or
    redirection; a call may follow a pipe (``printf ... | plan-studio ...``)."""
    out = []
    for line in code.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            tokens = list(lexer)
        except ValueError:  # a line inside a multi-line quote (a heredoc's body, a JSON body)
            continue
        for start in [n for n, t in enumerate(tokens) if Path(t).name == "plan-studio"]:
            argv: list[str] = []
            for token in tokens[start + 1:]:
                if token and all(c in "();<>|&" for c in token):
                    break
                argv.append(token)
            out.append((line, argv))
    return out


def shell_blocks(page: Path | None = None) -> list[Block]:
    return [b for b in ALL_BLOCKS if b.language in ("bash", "sh") and (page is None or b.path == page)]


PARSER = _parser()
EXAMPLES = [(block, line, argv) for block in shell_blocks() for line, argv in example_argvs(block.code)]
CLI_EXAMPLES = [(line, argv) for block, line, argv in EXAMPLES if block.path == DOCS / "cli.md"]


# -- the README: one screen, opening with the two commands CI runs --------------------------------

def test_the_readme_opens_with_the_two_commands_and_fits_on_a_screen() -> None:
    opening = blocks(README_PATH)[:2]
    assert [b.info for b in opening] == ["bash", "bash"]
    assert README.index("```bash") < README.index(opening[0].code)  # nothing fenced before them
    start, test = (b.code.strip() for b in opening)
    assert "\n" not in start and start.endswith(".venv/bin/plan-studio")  # installs, then starts the studio
    assert "\n" not in test and "--extra test" in test and test.endswith(".venv/bin/python -m pytest")
    assert len(README.splitlines()) <= 60
    assert "](docs/images/plan-page.png)" in README and "](docs/index.md)" in README


def test_ci_runs_the_readmes_second_block() -> None:
    script = read(ROOT / ".ci" / "run")
    extract = re.search(r"cmd=\$\((awk .*?)\)\n", script).group(1)  # type: ignore[union-attr]
    found = subprocess.run(["bash", "-c", extract], cwd=ROOT, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == blocks(README_PATH)[1].code.strip()


# -- every example runs ------------------------------------------------------------------------------

PYTHON_BLOCKS = [b for b in ALL_BLOCKS if b.language == "python"]


def test_there_are_python_examples_in_the_readme_and_the_docs() -> None:
    run = [b for b in PYTHON_BLOCKS if "no-run" not in b.info.split()]
    assert {b.path for b in run} >= {README_PATH, DOCS / "your-tools.md"}
    assert len(run) > len(PYTHON_BLOCKS) - len(run)  # not-run blocks stay the exception


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=lambda b: b.where)
def test_each_python_example_runs_as_its_comment_says(block: Block, tmp_path: Path, capsys,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = compile(block.code, block.where, "exec")
    if "no-run" in block.info.split():
        return  # compiled: it is Python, at least
    monkeypatch.chdir(tmp_path)
    exec(compiled, {"__name__": "docs_example"})
    last = block.code.rstrip().splitlines()[-1]
    said = re.search(r"#\s*(.+)$", last)
    if said:
        assert capsys.readouterr().out.splitlines()[-1] == said.group(1).strip()


RUN_PAGES = sorted({b.path for b in shell_blocks() if "run" in b.info.split()[1:]})


def test_there_are_command_examples_that_run() -> None:
    assert {DOCS / "cli.md", DOCS / "your-tools.md"} <= set(RUN_PAGES)


@pytest.fixture(scope="module")
def bytecode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the examples' processes keep compiled modules: each ``plan-studio`` call would
    otherwise compile every module it imports again (this machine sets PYTHONDONTWRITEBYTECODE),
    twice the CPU of a user's call, whose Python keeps its bytecode."""
    return tmp_path_factory.mktemp("pycache")


@pytest.mark.timeout(900)  # a dozen plan-studio processes: minutes on a loaded machine
@pytest.mark.parametrize("page", RUN_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_pages_command_examples_run(page: Path, tmp_path: Path, bytecode: Path) -> None:
    """A page's ``bash run`` blocks, in order, in one fresh folder with its own data folder; each
    must exit 0 (a block runs with ``set -euo pipefail``)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PLAN_STUDIO_", "OPENAI_")) and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
               PLAN_STUDIO_DATA_DIR=str(tmp_path / "data"), PLAN_STUDIO_TODAY="2025-10-12",
               PYTHONPYCACHEPREFIX=str(bytecode))
    for block in [b for b in shell_blocks(page) if "run" in b.info.split()[1:]]:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", block.code], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{block.where} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"


def test_there_are_cli_examples_and_each_one_parses() -> None:
    assert len(CLI_EXAMPLES) >= 10
    for block, line, argv in EXAMPLES:
        try:
            PARSER.parse_args(argv)
        except SystemExit as exc:
            if exc.code == 0:  # --help
                continue
            pytest.fail(f"{block.where}: example does not parse (exit {exc.code}): {line}")


def test_the_example_check_catches_a_wrong_option() -> None:
    (line, argv), = example_argvs("plan-studio plan GOAL --fromat sk > x.xml   # a comment")
    assert argv == ["plan", "GOAL", "--fromat", "sk"]
    with pytest.raises(SystemExit):
        PARSER.parse_args(argv)


# -- every relative link resolves ----------------------------------------------------------------------

def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", read(path), flags=re.M | re.S)
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        base = slug(heading)
        out.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return out


def relative_links(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", read(path), flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in PAGES:
        for target in relative_links(page):
            file, _, anchor = target.partition("#")
            resolved = (page.parent / file).resolve() if file else page
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# A title, with `code`\n[ok](#a-title-with-code) [gone](missing.md) "
                    "[web](https://example.com) `[not](a-link.md)`\n")
    assert relative_links(page) == ["#a-title-with-code", "missing.md"]
    assert anchors(page) == {"a-title-with-code"}


def test_every_page_is_listed_in_the_index() -> None:
    """Each page under docs/ is linked from docs/index.md, itself or its folder (the decisions,
    which other changes add to), and the README links the index."""
    linked = {(DOCS / target.partition("#")[0]).resolve() for target in relative_links(DOCS / "index.md")}
    unlisted = [str(p.relative_to(ROOT)) for p in PAGES[1:]
                if p.name != "index.md" and not {p.resolve(), *p.resolve().parents} & linked]
    assert unlisted == [] and "](docs/index.md)" in README


# -- the command line's page ---------------------------------------------------------------------------

def test_every_command_is_documented() -> None:
    names = commands(PARSER)
    assert set(names) == {"plan", "validate", "run", "replan", "token", "mcp-server", "runs", "resume", "rerun",
                          "worker", "policy", "audit", "tools"}
    for name in names:
        assert re.search(rf"^## `plan-studio {name}\b", CLI_PAGE, re.M), f"no heading for '{name}'"
        assert any(argv[:1] == [name] for _, argv in CLI_EXAMPLES), f"no example of 'plan-studio {name}'"


@pytest.mark.parametrize("command", [None, "plan", "validate", "run", "replan", "token", "mcp-server", "runs",
                                     "resume", "rerun", "worker", "policy", "audit"])
def test_every_long_option_is_documented(command: str | None) -> None:
    parser = PARSER if command is None else commands(PARSER)[command]
    missing = sorted(o for o in long_options(parser) - {"--help"}
                     if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", CLI_PAGE))
    assert not missing, f"docs/cli.md does not mention {missing}"


def test_exit_statuses_are_documented() -> None:
    for status in ("0", "1", "2", "130"):
        assert re.search(rf"^\| {status} \| \S", CLI_PAGE, re.M)


# -- the settings table is generated from the declaration ----------------------------------------------

def test_the_settings_table_is_the_one_the_declaration_renders() -> None:
    assert with_settings_table(CONFIGURATION) == CONFIGURATION, (
        f"docs/configuration.md's settings table differs from core/_settings.py: run `{REGENERATE}`")


def test_every_setting_says_what_it_means() -> None:
    # The description is the table's "Meaning" cell: a setting declared without one is undocumented.
    assert [name for name, field in Settings.model_fields.items() if not field.description] == []


def test_the_settings_table_check_sees_a_changed_default() -> None:
    stale = CONFIGURATION.replace("| `PLAN_STUDIO_MODEL` | `gpt-4o-mini` |", "| `PLAN_STUDIO_MODEL` | `gpt-4` |")
    assert stale != CONFIGURATION and with_settings_table(stale) == CONFIGURATION


def test_every_setting_variable_is_documented() -> None:
    variables = {Settings.variable(name) for name in Settings.model_fields} | {FROM_OPTIONS_VARIABLE}
    assert len(variables) >= 8
    for name in sorted(variables | {"OPENAI_API_KEY", "OPENAI_BASE_URL"}):
        assert re.search(rf"^\| `{name}` \|", CONFIGURATION, re.M), f"{name} is not in docs/configuration.md"


# -- tables that mirror the code -----------------------------------------------------------------------

def table_rows(text: str) -> list[list[str]]:
    """The body rows of the markdown tables in ``text``, cells stripped."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.lstrip().startswith("|")]
    return [r for r in rows if not all(set(c) <= set("-: ") for c in r)][1:]


def test_the_formats_table_matches_the_registered_formats() -> None:
    from core import FORMATS
    first_table = read(DOCS / "formats.md").split("\n\n## ", 1)[0]
    documented = {row[0].strip("`"): (row[1], row[2]) for row in table_rows(first_table)}
    registered = {name: ("yes" if f.load else "no", "yes" if f.dump else "no") for name, f in FORMATS.items()}
    assert documented == registered


def test_the_pages_table_matches_the_navigation() -> None:
    from studio.ui._navigation import NAVIGATION
    rows = table_rows(read(DOCS / "studio.md"))
    assert [row[0].strip("*") for row in rows] == [spec.title for spec in NAVIGATION]
    for row, spec in zip(rows, NAVIGATION):
        page = DOCS / "studio" / f"{spec.title.lower()}.md"
        assert f"(studio/{page.name})" in row[2] and read(page).startswith(f"# The {spec.title} page\n")


def test_the_kept_work_page_matches_the_drafts_code() -> None:
    from studio.ui import _drafts

    kept = read(DOCS / "studio" / "your-work.md")
    assert f"Drafts not changed for {_drafts.DRAFT_MAX_AGE.days} days are" in kept.replace("\n  ", " ")
    assert f"`?{_drafts.DRAFT_PARAM}=…`" in kept
    for name in (_drafts.PLAN_PARAM, _drafts.VERSION_PARAM, _drafts.RUN_PARAM):
        assert f"`{name}`" in kept
