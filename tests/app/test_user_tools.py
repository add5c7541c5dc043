"""Your own Python tools: ``--tools FILE_OR_MODULE`` and ``PLAN_STUDIO_TOOLS``, loaded through the
same registry calls as the built-ins; a broken source is one line naming file, line and function."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from core import Settings
from studio.cli._main import main
from tools import build_registry, load_python_source, load_tools

GOOD = '''
"""Text tools of my own."""
from pathlib import Path  # imported: not a tool


def word_count(text: str) -> int:
    """Count the words in a text.

    Args:
        text: The text to count.
    """
    return len(text.split())


def shout(text: str, times: int = 1) -> str:
    """Upper-case a text.

    Args:
        text: What to shout.
        times: How many times.
    """
    return " ".join([text.upper()] * times)


def _helper(x):
    return x
'''


@dataclass
class Result:
    status: int
    out: str
    err: str


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in list(os.environ):
        # All but the pause for a person, which conftest turns off for tools that declare no effects.
        if name.startswith(("OPENAI_", "PLAN_STUDIO_")) and name != "PLAN_STUDIO_APPROVE_WRITES":
            monkeypatch.delenv(name)
    yield


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    def run(*argv: str | Path) -> Result:
        capsys.readouterr()
        status = main([*map(str, argv), "--data-dir", str(tmp_path / "data"), "--today", "2025-10-12"])
        out, err = capsys.readouterr()
        return Result(status, out, err)
    return run


def source(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def plan_file(tmp_path: Path, steps: list[dict]) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"steps": steps}), encoding="utf-8")
    return path


def test_a_file_of_plain_functions_becomes_tools_that_validate_and_run(tmp_path, cli):
    tools_file = source(tmp_path, "my_text.py", GOOD)
    plan = plan_file(tmp_path, [{"tool": "shout", "params": {"text": "hi", "times": 2}},
                                {"tool": "word_count", "params": {"text": "${step[0]}"}, "depends_on": [0]}])
    result = cli("run", plan, "--tools", tools_file)
    assert result.status == 0, result.err
    assert result.out.splitlines()[:3] == ["step 0 (shout): succeeded, 1 result",
                                           "step 1 (word_count): succeeded, 1 result", "run succeeded: 2 succeeded"]
    bad = plan_file(tmp_path, [{"tool": "shout", "params": {"text": "hi", "times": "2"}}])
    result = cli("validate", bad, "--tools", tools_file)
    assert result.status == 1 and "times" in result.out and "not the text '2'" in result.out


def test_a_step_tried_again_says_so_in_the_run_output(tmp_path, cli):
    tools_file = source(tmp_path, "flaky_tools.py", '''
        from core import RetryableError, RetryPolicy

        def register(registry, settings):
            calls = []

            def flaky(label: str) -> str:
                """Fail the first two calls.

                Args:
                    label: Returned.
                """
                calls.append(label)
                if len(calls) <= 2:
                    raise RetryableError(f"busy <{len(calls)}>")
                return label
            registry.register(flaky, retry=RetryPolicy(max_attempts=3, backoff_seconds=0.01))
        ''')
    result = cli("run", plan_file(tmp_path, [{"tool": "flaky", "params": {"label": "x"}}]), "--tools", tools_file)
    assert result.status == 0, result.err
    assert result.out.splitlines()[0] == ("step 0 (flaky): succeeded, 1 result [called 3 times under its retry "
                                          "policy (call 1: flaky failed: busy <1>; call 2: flaky failed: busy <2>)]")


def test_which_functions_count(tmp_path):
    registry = build_registry(Settings(data_dir=tmp_path), groups=[])
    names = load_python_source(str(source(tmp_path, "my_text.py", GOOD)), registry, Settings(data_dir=tmp_path))
    assert names == ["word_count", "shout"]  # not Path (imported), not _helper (private)
    tool = registry.get("shout")
    assert tool.group == "my_text" and tool.source.startswith("file ") and tool.source.endswith("my_text.py")
    assert tool.parameters["properties"]["times"] == {"default": 1, "description": "How many times.", "type": "integer"}
    assert tool.call({"text": "a", "times": 2}) == "A A"


def test_a_register_function_decides(tmp_path):
    path = source(tmp_path, "grouped.py", '''
        def register(registry, settings):
            def today_text() -> str:
                """Today's date as text."""
                return settings.effective_today().isoformat()
            registry.register(today_text, name="today", group="dates")

        def not_a_tool_here(x: int) -> int:
            """Ignored: register() says what the tools are."""
            return x
        ''')
    registry, problems = load_tools(Settings(data_dir=tmp_path, today="2025-10-12", tools=[str(path)]), groups=[])
    assert problems == [] and registry.names() == ["today"]
    assert registry.get("today").group == "dates" and registry.get("today").call({}) == "2025-10-12"


def test_a_module_and_module_function(tmp_path, monkeypatch):
    source(tmp_path, "mypkg_tools.py", GOOD)
    source(tmp_path, "mypkg_reg.py", '''
        from mypkg_tools import word_count

        def register_some(registry):
            registry.register(word_count, name="count_words", group="counting")
        ''')
    monkeypatch.syspath_prepend(str(tmp_path))
    registry, problems = load_tools(Settings(data_dir=tmp_path, tools=["mypkg_tools"]), groups=[])
    assert problems == [] and registry.names() == ["word_count", "shout"]
    assert registry.get("shout").group == "mypkg_tools" and registry.get("shout").source == "module mypkg_tools"
    registry, problems = load_tools(Settings(data_dir=tmp_path, tools=["mypkg_reg:register_some"]), groups=[])
    assert problems == [] and registry.names() == ["count_words"]
    assert registry.get("count_words").group == "counting"


@pytest.mark.parametrize(("text", "expected"), [
    ("def f(x: int) -> int:\n    \"\"\"Doc.\"\"\"\n    return x +\n", "{path}:3: syntax error: invalid syntax"),
    ("import os\nimport no_such_module_for_plan_studio\n",
     "{path}:2: cannot be loaded: ModuleNotFoundError: No module named 'no_such_module_for_plan_studio'"),
    ("def fine(x: int) -> int:\n    \"\"\"Doc.\"\"\"\n    return x\n\n\ndef untyped(x):\n    \"\"\"Doc.\"\"\"\n",
     "{path}:6: function untyped: parameter 'x' has no type hint"),
    ("def nodoc(x: int) -> int:\n    return x\n",
     "{path}:1: function nodoc: needs a docstring describing what it does"),
    ("def register(registry):\n    def ok() -> int:\n        \"\"\"Doc.\"\"\"\n        return 1\n"
     "    registry.register(ok)\n    def broken(y) -> int:\n        \"\"\"Doc.\"\"\"\n    registry.register(broken)\n",
     "{path}:6: function broken: parameter 'y' has no type hint"),
    ("def register(registry):\n    raise RuntimeError('no config file')\n",
     "{path}:2: register() failed: RuntimeError: no config file"),
    ("X = 1\n", "{path}: defines no public functions and no register(registry)"),
], ids=["syntax", "import", "untyped", "no-docstring", "register-refused", "register-raises", "empty"])
def test_a_broken_file_is_one_line_naming_file_line_and_function(tmp_path, cli, text, expected):
    path = source(tmp_path, "broken.py", text)
    result = cli("validate", plan_file(tmp_path, []), "--tools", path)
    assert result.status == 2
    assert result.err == f"plan-studio: error: {expected.format(path=path)}\n"
    assert "Traceback" not in result.err


def test_a_broken_file_does_not_stop_the_others(tmp_path):
    broken = source(tmp_path, "broken.py", "def f(x):\n    \"\"\"Doc.\"\"\"\n")
    good = source(tmp_path, "my_text.py", GOOD)
    registry, problems = load_tools(Settings(data_dir=tmp_path, tools=[str(broken), str(good)], demo=True))
    assert problems == [f"{broken}:1: function f: parameter 'x' has no type hint"]
    assert "shout" in registry and "facilities_list" in registry and "f" not in registry


def test_a_name_already_taken_is_refused_naming_both_sources_and_nothing_of_the_file_loads(tmp_path, cli):
    path = source(tmp_path, "clash.py", GOOD + '''

def say(message: str) -> str:
    """Mine, not the demo's."""
    return message
''')
    registry, problems = load_tools(Settings(data_dir=tmp_path, tools=[str(path)], demo=True))
    assert problems == [f"{path}: refused: a tool named 'say' is already loaded from the demo tools (group "
                        "'conversation', loaded by --demo or PLAN_STUDIO_DEMO=true) (tool names must be unique; "
                        "rename yours, or leave the demo tools out)"]
    assert registry.get("say").group == "conversation" and "shout" not in registry
    result = cli("validate", plan_file(tmp_path, []), "--tools", path, "--demo")
    assert result.status == 2 and "'say' is already loaded from the demo tools" in result.err
    # Without the demo tools nothing reserves the name: the user's say is the say.
    registry, problems = load_tools(Settings(data_dir=tmp_path, tools=[str(path)]))
    assert problems == [] and registry.get("say").source == f"file {path}" and "facilities_list" not in registry
    result = cli("tools", "--tools", path, "--json")
    listed = {row["name"]: row for row in json.loads(result.out)}
    assert result.status == 0 and set(listed) == {"word_count", "shout", "say"}
    assert listed["say"]["effects"] == "unknown (may write)" and listed["say"]["required"] == ["message"]


def test_plan_studio_tools_lists_effects_group_and_source(tmp_path, cli):
    path = source(tmp_path, "said.py", '''
from core import tool


@tool(read_only=True)
def weather_lookup(city: str) -> dict:
    """The weather in a city."""
    return {}


def drop_table(name: str) -> bool:
    """Drop a table.

    Effects: destructive
    """
    return True
''')
    result = cli("tools", "--tools", path)
    lines = {line.split()[0]: line for line in result.out.splitlines()}
    assert result.status == 0 and set(lines) == {"weather_lookup", "drop_table"}
    assert "read-only" in lines["weather_lookup"] and f"from file {path}" in lines["weather_lookup"]
    assert "writes, destructive" in lines["drop_table"] and "needs name" in lines["drop_table"]
    demo = cli("tools", "--json")  # no tools given: the demo tools, each named as theirs
    assert {row["source"] for row in json.loads(demo.out)} == {"the demo tools"}
    both = json.loads(cli("tools", "--tools", path, "--demo", "--json").out)
    assert {"weather_lookup", "say"} <= {row["name"] for row in both}
    bad = source(tmp_path, "bad.py", '''
def wipe() -> int:
    """Wipe.

    Effects: read-only, destructive
    """
    return 1
''')
    refused = cli("tools", "--tools", bad)
    assert refused.status == 2 and f"{bad}:1: function wipe: docstring line" in refused.err
    assert "both read-only and destructive" in refused.err


def test_tools_before_and_after_the_command_both_count(tmp_path, cli):
    first = source(tmp_path, "my_text.py", GOOD)
    second = source(tmp_path, "more.py", '''
        def halve(n: int) -> float:
            """Half of a number."""
            return n / 2
        ''')
    plan = plan_file(tmp_path, [{"tool": "shout", "params": {"text": "a"}}, {"tool": "halve", "params": {"n": 3}}])
    result = cli("--tools", first, "validate", plan, "--tools", second)
    assert (result.status, result.out) == (0, "valid\n"), result.err


def test_a_missing_file_or_module(tmp_path, cli):
    result = cli("validate", plan_file(tmp_path, []), "--tools", tmp_path / "nope.py", "--tools", "no_such_mod_xyz")
    assert result.status == 2
    assert result.err.splitlines() == [f"plan-studio: error: {tmp_path / 'nope.py'}: no such tool file",
                                       "plan-studio: error: no_such_mod_xyz: no such module (not a .py file either)"]


def test_the_environment_lists_sources_like_path(tmp_path, monkeypatch):
    good = source(tmp_path, "my_text.py", GOOD)
    monkeypatch.setenv("PLAN_STUDIO_TOOLS", os.pathsep.join([str(good), "json", "tools.writer:register", ""]))
    expected = [str(good), "json", "tools.writer:register"] if os.pathsep == ":" else None
    assert Settings.from_env().tools == expected


def test_the_studio_is_handed_the_sources_as_absolute_paths(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.chdir(tmp_path)
    source(tmp_path, "my_text.py", GOOD)

    def fake_streamlit(args, prog_name):
        seen.update(tools=os.environ["PLAN_STUDIO_TOOLS"], mcp=os.environ["PLAN_STUDIO_MCP"])

    import streamlit.web.cli as streamlit_cli
    # main() hands settings to the studio through the environment: let monkeypatch undo that.
    for name in ("PLAN_STUDIO_TOOLS", "PLAN_STUDIO_MCP", "PLAN_STUDIO_FROM_OPTIONS"):
        monkeypatch.setenv(name, "")
    monkeypatch.setattr(streamlit_cli, "main", fake_streamlit)
    assert main(["--tools", "my_text.py", "--mcp", "node a.js", "--mcp", "https://h/mcp"]) == 0
    assert seen == {"tools": str(tmp_path / "my_text.py"), "mcp": "node a.js\nhttps://h/mcp"}
    assert Settings.from_env().tools == [str(tmp_path / "my_text.py")]
    assert Settings.from_env().mcp == ["node a.js", "https://h/mcp"]


# -- the Settings page's MCP servers, through AppTest ----------------------------------------------

def test_mcp_servers_are_added_and_removed_on_settings_for_the_session(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from studio.ui._text import md_escape

    app_script = Path(__file__).resolve().parents[2] / "studio" / "app.py"
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_MCP_TIMEOUT", "60")
    at = AppTest.from_file(str(app_script), default_timeout=120).run()
    at.switch_page("../pages/settings.py").run()
    at.text_input(key="settings.mcp_new").input("https://h/mcp | not a header")
    at.button(key="settings.mcp.add").click().run()
    assert [e.value for e in at.error] == [md_escape("MCP server https://h/mcp: header 'not a header' is "
                                                     "not 'Name: value'. Not added.")]
    server = f"{sys.executable} {Path(__file__).resolve().parents[1] / 'mcp_test_server.py'} stdio"
    at.text_input(key="settings.mcp_new").input(server)
    at.button(key="settings.mcp.add").click().run()
    assert not at.exception and not at.error
    assert at.success[0].value == md_escape(f"Added for this session: MCP server {server}. Its tools are on Tools.")
    at.switch_page("../pages/tools.py").run()
    assert any("Say hello to someone, as plain text only" in m.value for m in at.markdown)
    at.switch_page("../pages/settings.py").run()
    at.button(key="settings.mcp.remove.0").click().run()
    at.switch_page("../pages/tools.py").run()
    assert not any("Say hello to someone" in m.value for m in at.markdown)
