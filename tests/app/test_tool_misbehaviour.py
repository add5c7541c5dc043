"""Tools that misbehave: the user gets the truth, and no step is re-run by mistake.

An ``async def`` tool is awaited; a tool that calls ``sys.exit``, raises ``KeyboardInterrupt``
or returns something that is not JSON is a failed step saying so (never "interrupted", which
would run it again, side effect and all); a ``--tools`` source that blocks while it loads is
given up on after ``PLAN_STUDIO_TOOLS_TIMEOUT`` seconds, naming the file and line.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from core import BackgroundRun, Executor, Settings, StepStatus, ToolRegistry
from core.formats import plan_from_seed
from studio.workbench._services import build_services
from studio.cli._main import main
from tools import load_tools

ROOT = Path(__file__).resolve().parents[2]

MISBEHAVING = '''
import asyncio
import os
import signal
import sys
import time

SIDE_EFFECTS = []


async def slow_echo(text: str) -> str:
    """Echo a text after a short wait.

    Args:
        text: What to echo.
    """
    await asyncio.sleep(0.01)
    return text


def echo(text: str) -> str:
    """Echo a text.

    Args:
        text: What to echo.
    """
    return text


async def async_failure(text: str) -> str:
    """Fail after a short wait.

    Args:
        text: Unused.
    """
    await asyncio.sleep(0)
    raise ValueError("no luck with " + text)


def exiter(code: int) -> int:
    """Leave the process.

    Args:
        code: The exit status.
    """
    SIDE_EFFECTS.append("exiter")
    sys.exit(code)


def interrupter(x: int) -> int:
    """Raise KeyboardInterrupt, as if it were Ctrl-C.

    Args:
        x: Unused.
    """
    SIDE_EFFECTS.append("interrupter")
    raise KeyboardInterrupt


async def async_exiter(x: int) -> int:
    """Leave the process from a coroutine.

    Args:
        x: Unused.
    """
    raise SystemExit("bye")


def blobs(x: int) -> dict:
    """Rows with bytes in them.

    Args:
        x: Unused.
    """
    SIDE_EFFECTS.append("blobs")
    return {"data": [1, 2, {"blob": b"abc"}]}


def not_a_number(x: int) -> dict:
    """Rows with NaN in them.

    Args:
        x: Unused.
    """
    return {"data": [{"v": 1.5}, {"v": float("nan")}]}


def infinite(x: int) -> list:
    """A list with -Infinity in it.

    Args:
        x: Unused.
    """
    return [0.0, float("-inf")]


def an_object(x: int):
    """Return a plain object.

    Args:
        x: Unused.
    """
    return {"data": [object()]}


def itself(x: int):
    """Return a dict that holds itself.

    Args:
        x: Unused.
    """
    d = {"data": []}
    d["data"].append(d)
    return d


def ctrl_c(x: int) -> int:
    """Stand in for the user pressing Ctrl-C while this step runs.

    Args:
        x: Unused.
    """
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(30)
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
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "misbehaving.py"
    path.write_text(MISBEHAVING, encoding="utf-8")
    return path


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    def run(*argv: str | Path) -> Result:
        capsys.readouterr()
        status = main([*map(str, argv), "--data-dir", str(tmp_path / "data"), "--today", "2025-10-12"])
        out, err = capsys.readouterr()
        return Result(status, out, err)
    return run


def plan_file(tmp_path: Path, steps: list[dict[str, Any]]) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"steps": steps}), encoding="utf-8")
    return path


def registry_of(tools_file: Path) -> ToolRegistry:
    registry, problems = load_tools(Settings(tools=[str(tools_file)]), groups=[])
    assert problems == []
    return registry


# -- item 8: async def tools ------------------------------------------------------------------------


def test_an_async_tool_is_described_like_a_sync_one_and_awaited_on_the_cli(tmp_path, cli, tools_file):
    registry = registry_of(tools_file)
    assert registry.get("slow_echo").parameters["properties"]["text"]["type"] == "string"
    assert registry.get("slow_echo").returns == {"type": "string"}
    plan = plan_file(tmp_path, [{"tool": "slow_echo", "params": {"text": "hi"}},
                                {"tool": "slow_echo", "params": {"text": "${step[0]} again"}, "depends_on": [0]},
                                {"tool": "async_failure", "params": {"text": "me"}}])
    result = cli("run", plan, "--tools", tools_file, "--answer")
    assert "unexpected" not in result.err and "coroutine" not in result.err + result.out
    assert result.out.splitlines()[:3] == [
        "step 0 (slow_echo): succeeded, 1 result",
        "step 1 (slow_echo): succeeded, 1 result",
        "step 2 (async_failure): failed: async_failure failed: no luck with me"]
    assert result.status == 1


def test_an_async_tool_runs_in_the_studios_background_run(tools_file):
    executor = Executor(registry_of(tools_file))
    run = executor.start(plan_from_seed({"steps": [
        {"tool": "slow_echo", "params": {"text": "hi"}},
        {"tool": "slow_echo", "params": {"text": "${step[0]} again"}, "depends_on": [0]}]}))
    worker = BackgroundRun(executor, run, "all").start()
    assert worker.join(30) and worker.error is None
    assert [s.result for s in worker.run.steps.values()] == ["hi", "hi again"]
    assert worker.run.status == "succeeded"


# -- item 9: sys.exit, KeyboardInterrupt, results that are not JSON -----------------------------------

MISBEHAVIOURS = [
    ("exiter", {"code": 3}, "exiter failed: the tool called sys.exit(3)"),
    ("interrupter", {"x": 1}, "interrupter failed: the tool raised KeyboardInterrupt"),
    ("async_exiter", {"x": 1}, "async_exiter failed: the tool called sys.exit('bye')"),
    ("blobs", {"x": 1}, "blobs failed: its result is not JSON: bytes at data[2].blob"),
    ("not_a_number", {"x": 1}, "not_a_number failed: its result is not JSON: NaN at data[1].v"),
    ("infinite", {"x": 1}, "infinite failed: its result is not JSON: -Infinity at [1]"),
    ("an_object", {"x": 1}, "an_object failed: its result is not JSON: object at data[0]"),
    ("itself", {"x": 1}, "itself failed: its result is not JSON: it holds itself at data[0]"),
]


@pytest.mark.parametrize(("tool", "params", "error"), MISBEHAVIOURS, ids=[m[0] for m in MISBEHAVIOURS])
def test_a_misbehaving_tool_is_a_failed_step_on_the_cli(tmp_path, cli, tools_file, tool, params, error):
    plan = plan_file(tmp_path, [{"tool": tool, "params": params},
                                {"tool": "echo", "params": {"text": "needs it"}, "depends_on": [0]},
                                {"tool": "echo", "params": {"text": "independent"}}])
    result = cli("run", plan, "--tools", tools_file)
    assert result.status == 1, result.err
    assert result.err == ""
    lines = result.out.splitlines()
    assert lines[0] == f"step 0 ({tool}): failed: {error}"
    assert lines[1].startswith("step 1 (echo): skipped")
    assert lines[2] == "step 2 (echo): succeeded, 1 result"


@pytest.mark.parametrize(("tool", "params", "error"), MISBEHAVIOURS, ids=[m[0] for m in MISBEHAVIOURS])
def test_a_misbehaving_tool_is_failed_not_interrupted_in_the_studios_run(tools_file, tool, params, error):
    executor = Executor(registry_of(tools_file))
    run = executor.start(plan_from_seed({"steps": [{"tool": tool, "params": params},
                                                   {"tool": "echo", "params": {"text": "after"}}]}))
    worker = BackgroundRun(executor, run, "all").start()
    assert worker.join(30)
    assert worker.error is None
    first, second = worker.run.steps.values()
    assert first.status == StepStatus.failed and first.error == error
    assert first.result is None and first.arguments == params
    assert second.status == StepStatus.succeeded and worker.run.finished
    # Once it has failed, the step is done: running on does not call the tool again.
    module = sys.modules[executor.registry.get(tool).runner.func.__module__]
    before = list(module.SIDE_EFFECTS)
    assert list(executor.run_all(worker.run)) == [] and module.SIDE_EFFECTS == before


def test_the_users_ctrl_c_during_a_tool_still_interrupts_the_cli(tmp_path, cli, tools_file, ctrl_c_as_in_a_terminal):
    plan = plan_file(tmp_path, [{"tool": "ctrl_c", "params": {"x": 1}}])
    began = time.monotonic()
    result = cli("run", plan, "--tools", tools_file)
    assert result.status == 130
    assert result.err.startswith("plan-studio: interrupted: the run stopped during step 0 (ctrl_c)")
    assert time.monotonic() - began < 20  # the sleep after the signal was cut short


# -- item 10: a --tools source that blocks while it loads ------------------------------------------

BLOCKING = {
    "sleeps.py": "import time\n\ntime.sleep(10**6)\n",
    "asks.py": "answer = input('token? ')\n",
    "listens.py": "import socket\n\nserver = socket.socket()\nserver.bind(('127.0.0.1', 0))\n"
                  "server.listen()\nserver.accept()\n",
}
BLOCKING_LINE = {"sleeps.py": 3, "asks.py": 1, "listens.py": 6}


@pytest.mark.parametrize("name", sorted(BLOCKING))
def test_a_tools_file_that_blocks_at_import_is_given_up_on_by_the_cli(tmp_path, name):
    blocking = tmp_path / name
    blocking.write_text(BLOCKING[name], encoding="utf-8")
    began = time.monotonic()
    # Its own process, its stdin a pipe kept open: the CLI must say why and exit, not wait for the file.
    stdin, keep_open = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from studio.cli._main import main; sys.exit(main())",
         "validate", str(tmp_path / "plan.json"), "--tools", str(blocking), "--data-dir", str(tmp_path / "d")],
        cwd=ROOT, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PLAN_STUDIO_TOOLS_TIMEOUT": "1"})
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        os.close(stdin)
        os.close(keep_open)
    assert time.monotonic() - began < 60
    assert proc.returncode == 2, err
    assert out.replace("token? ", "") == ""  # input() prompts before it waits
    assert err == (f"plan-studio: error: {blocking}:{BLOCKING_LINE[name]}: still loading after 1 s "
                   "(waiting for input, a socket or a sleep while it loads?); not loaded\n")


def within(seconds: float, make: Any) -> Any:
    """``make()``, failing the test (instead of hanging it) when it takes longer than ``seconds``."""
    made: list[Any] = []
    thread = threading.Thread(target=lambda: made.append(make()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    return made[0]


def test_a_tools_file_that_blocks_at_import_leaves_the_studio_working(tmp_path, tools_file):
    blocking = tmp_path / "sleeps.py"
    blocking.write_text(BLOCKING["sleeps.py"], encoding="utf-8")
    # The well-behaved file beside it must load within the limit on a loaded machine too (0.5 s
    # was once not enough for its import there); the blocking one never loads whatever the limit.
    settings = Settings(demo=True, data_dir=tmp_path / "d", tools=[str(blocking), str(tools_file)], tools_timeout=5)
    services = within(60, lambda: build_services(settings))
    assert services.tool_problems == [f"{blocking}:3: still loading after 5 s (waiting for input, "
                                      "a socket or a sleep while it loads?); not loaded"]
    assert "slow_echo" in services.registry and "facilities_list" in services.registry
    # Loading it again (another session's settings) does not wait a second time for the same file.
    again = within(10, lambda: build_services(settings.model_copy(update={"tools_timeout": 30})))
    assert again.tool_problems and again.tool_problems[0].startswith(f"{blocking}:3: still loading")


def test_the_tools_timeout_is_a_setting_with_a_sensible_default(monkeypatch):
    assert 10 <= Settings().tools_timeout <= 20
    monkeypatch.setenv("PLAN_STUDIO_TOOLS_TIMEOUT", "2.5")
    assert Settings.from_env().tools_timeout == 2.5


def test_a_slow_but_finite_tools_file_still_loads(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text(textwrap.dedent('''
        import time
        time.sleep(0.2)

        def ping(x: int) -> int:
            """Echo.

            Args:
                x: A number.
            """
            return x
        '''), encoding="utf-8")
    registry, problems = load_tools(Settings(tools=[str(slow)], tools_timeout=20), groups=[])
    assert problems == [] and registry.get("ping").call({"x": 4}) == 4


# -- the same in the studio's own pages (AppTest) ------------------------------------------------------


def studio_with_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *sources: Path, timeout: str = "15"):
    from streamlit.testing.v1 import AppTest

    from apptest_helpers import APP

    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    monkeypatch.setenv("PLAN_STUDIO_TOOLS", os.pathsep.join(map(str, sources)))
    monkeypatch.setenv("PLAN_STUDIO_TOOLS_TIMEOUT", timeout)
    monkeypatch.setenv("PLAN_STUDIO_DEMO", "true")  # the demo tools beside the file
    return AppTest.from_file(str(APP), default_timeout=60).run()


def test_the_studio_runs_async_tools_and_fails_misbehaving_ones_saying_why(tmp_path, monkeypatch, tools_file):
    from apptest_helpers import edit_json, make_plan, no_failures, plan_text, run_plan, texts
    from studio import Keys

    app = studio_with_tools(tmp_path, monkeypatch, tools_file)
    make_plan(app)
    edit_json(app, plan_text([
        {"id": "a", "tool": "slow_echo", "params": {"text": "hi"}},
        {"id": "b", "tool": "exiter", "params": {"code": 3}},
        {"id": "c", "tool": "interrupter", "params": {"x": 1}},
        {"id": "d", "tool": "blobs", "params": {"x": 1}},
        {"id": "e", "tool": "not_a_number", "params": {"x": 1}},
    ]))
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    no_failures(app)
    run = app.session_state[Keys.BENCH].run
    assert {sid: s.status.value for sid, s in run.steps.items()} == {
        "a": "succeeded", "b": "failed", "c": "failed", "d": "failed", "e": "failed"}
    assert run.finished and run.steps["a"].result == "hi"
    page = texts(app)
    for said in ("exiter failed: the tool called sys.exit(3)", "interrupter failed: the tool raised KeyboardInterrupt",
                 "blobs failed: its result is not JSON: bytes at data[2].blob",
                 "not_a_number failed: its result is not JSON: NaN at data[1].v"):
        assert said in page
    assert "runs again" not in page and ":violet-badge[interrupted]" not in page


def test_the_tools_page_names_a_file_that_blocks_at_import_and_lists_the_rest(tmp_path, monkeypatch, tools_file):
    from apptest_helpers import no_failures

    blocking = tmp_path / "sleeps.py"
    blocking.write_text(BLOCKING["sleeps.py"], encoding="utf-8")
    app = within(60, lambda: studio_with_tools(tmp_path, monkeypatch, blocking, tools_file, timeout="0.5"))
    within(60, lambda: app.switch_page("../pages/tools.py").run())
    no_failures(app)
    warnings = [str(w.value).replace("\\", "").replace("`", "") for w in app.warning]
    assert warnings == [f"Not loaded: {blocking}:3: still loading after 0.5 s (waiting for input, a socket or a "
                        "sleep while it loads?); not loaded"]
    page = "\n".join(str(e.value) for e in app.markdown).replace("\\", "")
    assert "slow_echo" in page and "facilities_list" in page


def test_a_tool_of_its_own_class_that_raises_anything_fails_its_step_and_is_not_run_again():
    registry = ToolRegistry()

    @registry.register
    def fetch(url: str) -> str:
        """Fetch a page.

        Args:
            url: Where.
        """
        return url

    calls: list[dict] = []

    class Leaky(type(registry.get("fetch"))):  # a tool class whose call lets anything through
        def call(self, args: dict) -> Any:
            calls.append(args)
            raise RuntimeError("socket closed")

    tool = registry.get("fetch")
    leaky = Leaky(**{f.name: getattr(tool, f.name) for f in dataclasses.fields(tool)})
    registry._tools["fetch"] = leaky
    executor = Executor(registry)
    run = executor.execute(plan_from_seed({"steps": [{"tool": "fetch", "params": {"url": "x"}}]}))
    assert run.steps[run.plan.steps[0].id].status == StepStatus.failed
    assert run.steps[run.plan.steps[0].id].error == "fetch failed: RuntimeError: socket closed"
    assert list(executor.run_all(run)) == [] and len(calls) == 1


def test_a_generator_is_refused_as_a_tool_when_registered():
    from core import ToolDefinitionError

    async def pages(url: str):
        """Stream pages.

        Args:
            url: Where.
        """
        yield url

    with pytest.raises(ToolDefinitionError, match="is a generator"):
        ToolRegistry().register(pages)


def test_a_tools_file_that_exits_as_it_loads_is_named_not_the_cli_exiting_with_its_code(tmp_path, cli):
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\n\nsys.exit(3)\n", encoding="utf-8")
    result = cli("validate", tmp_path / "plan.json", "--tools", exits)
    assert result.status == 2
    assert result.err == f"plan-studio: error: {exits}:3: cannot be loaded: it called sys.exit(3)\n"


def test_a_tool_raising_keyboardinterrupt_fails_its_step_where_ctrl_c_is_ignored(tmp_path, cli, tools_file):
    import signal

    plan = plan_file(tmp_path, [{"tool": "interrupter", "params": {"x": 1}}])
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as for a command started with `&` by a script
    try:
        result = cli("run", plan, "--tools", tools_file)
    finally:
        signal.signal(signal.SIGINT, before)
    assert result.status == 1
    assert result.out.splitlines()[0] == "step 0 (interrupter): failed: interrupter failed: the tool raised KeyboardInterrupt"
