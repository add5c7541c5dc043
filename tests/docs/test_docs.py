"""The README's "Command line" section and the real CLI must not drift apart: every command
and long option the parser defines is documented, every documented example parses, and
every setting's environment variable is listed."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from core import Settings
from core._settings import FROM_OPTIONS_VARIABLE
from studio.cli._main import _parser

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(text: str, title: str) -> str:
    """The text of the ``## title`` section, up to the next level-2 heading."""
    match = re.search(rf"^## {re.escape(title)}[ \t]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


def code_lines(text: str) -> list[str]:
    """The lines inside fenced code blocks."""
    return [line for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S)
            for line in block.splitlines()]


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return dict(actions[0].choices)


def long_options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings if o.startswith("--")}


def example_argvs(text: str) -> list[tuple[str, list[str]]]:
    """Each ``plan-studio ...`` call in the code blocks: the line and its arguments, up to a
    pipe or redirection; a call may follow a pipe (``printf ... | plan-studio ...``)."""
    out = []
    for line in code_lines(text):
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
        starts = [n for n, t in enumerate(tokens) if Path(t).name == "plan-studio"]
        for start in starts:
            argv: list[str] = []
            for token in tokens[start + 1:]:
                if token and all(c in "();<>|&" for c in token):
                    break
                argv.append(token)
            out.append((line, argv))
    return out


CLI_SECTION = section(README, "Command line")
PARSER = _parser()
EXAMPLES = example_argvs(CLI_SECTION)


def test_the_section_comes_after_the_two_opening_command_blocks() -> None:
    fences = [m.start() for m in re.finditer(r"^```bash\n", README, re.M)]
    assert len(fences) >= 2 and README.index("## Command line") > fences[1]


def test_every_command_is_documented() -> None:
    names = commands(PARSER)
    assert set(names) == {"plan", "validate", "run", "replan", "token", "mcp-server", "runs", "resume", "rerun",
                          "worker"}
    for name in names:
        assert re.search(rf"^### `plan-studio {name}\b", CLI_SECTION, re.M), f"no heading for '{name}'"
        assert any(argv[:1] == [name] for _, argv in EXAMPLES), f"no example of 'plan-studio {name}'"


@pytest.mark.parametrize("command", [None, "plan", "validate", "run", "replan", "token", "mcp-server", "runs",
                                     "resume", "rerun", "worker"])
def test_every_long_option_is_documented(command: str | None) -> None:
    parser = PARSER if command is None else commands(PARSER)[command]
    missing = sorted(o for o in long_options(parser) - {"--help"}
                     if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", CLI_SECTION))
    assert not missing, f"README's Command line section does not mention {missing}"


def test_there_are_examples_and_each_one_parses() -> None:
    assert len(EXAMPLES) >= 10
    for line, argv in EXAMPLES:
        try:
            PARSER.parse_args(argv)
        except SystemExit as exc:
            if exc.code == 0:  # --help
                continue
            pytest.fail(f"README example does not parse (exit {exc.code}): {line}")


def test_the_example_check_catches_a_wrong_option() -> None:
    (line, argv), = example_argvs("```bash\nplan-studio plan GOAL --fromat sk > x.xml\n```\n")
    assert argv == ["plan", "GOAL", "--fromat", "sk"]
    with pytest.raises(SystemExit):
        PARSER.parse_args(argv)


def test_every_setting_variable_is_documented() -> None:
    variables = {Settings.variable(name) for name in Settings.model_fields} | {FROM_OPTIONS_VARIABLE}
    assert len(variables) >= 8
    for name in sorted(variables | {"OPENAI_API_KEY", "OPENAI_BASE_URL"}):
        assert re.search(rf"^\| `{name}` \|", CLI_SECTION, re.M), f"{name} is not in the README's table"


def test_exit_statuses_are_documented() -> None:
    for status in ("0", "1", "2", "130"):
        assert re.search(rf"^\| {status} \| \S", CLI_SECTION, re.M)


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the markdown tables in ``text``, cells stripped."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.lstrip().startswith("|")]
    return [r for r in rows if not all(set(c) <= set("-: ") for c in r)][1:]


def test_the_formats_table_matches_the_registered_formats() -> None:
    from core import FORMATS
    documented = {row[0].strip("`"): (row[1], row[2]) for row in table_rows(section(README, "Plan formats"))}
    registered = {name: ("yes" if f.load else "no", "yes" if f.dump else "no") for name, f in FORMATS.items()}
    assert documented == registered


def test_the_pages_table_matches_the_navigation() -> None:
    from studio.ui._navigation import NAVIGATION
    documented = [row[0].strip("*") for row in table_rows(section(README, "The studio"))]
    assert documented == [spec.title for spec in NAVIGATION]


def test_the_kept_work_section_matches_the_drafts_code() -> None:
    from studio.ui import _drafts

    kept = section(README, "The studio").split("### Your work is kept", 1)[1]
    assert f"Drafts not changed for {_drafts.DRAFT_MAX_AGE.days} days are" in kept.replace("\n  ", " ")
    assert f"`?{_drafts.DRAFT_PARAM}=…`" in kept
    for name in (_drafts.PLAN_PARAM, _drafts.VERSION_PARAM, _drafts.RUN_PARAM):
        assert f"`{name}`" in kept


def test_the_python_example_runs_as_its_comment_says(capsys) -> None:
    tools_section = section(README, "Your own tools")
    example = tools_section[tools_section.index("**From Python**"):]
    (code,) = re.findall(r"^```python\n(.*?)^```", example, re.M | re.S)[:1]
    expected = re.search(r"# (.+)$", code.rstrip().splitlines()[-1]).group(1)  # type: ignore[union-attr]
    exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})
    assert capsys.readouterr().out.splitlines()[-1] == expected
