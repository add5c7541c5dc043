"""The Settings and Tools pages through Streamlit's AppTest: the real app, services and tools.

Each test gets its own data folder and today pinned to 2025-10-12, like tests/ui/test_pages.py.
The LLM tests use the scripted OpenAI-compatible server (``llm_server``), which also sets
``OPENAI_API_KEY`` to a key-shaped secret that must never reach the page or the database.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import TEST_API_KEY
from core.planners import render_manual
from llm_server import LLMServer
from plugin_helpers import PARROT_PLANNER, install, installed  # noqa: F401 (a fixture)
from studio import Keys, get_services
from studio.ui._navigation import NAVIGATION
from studio.ui._text import md_escape
from studio.ui._tools_page import parameter_rows

APP = Path(__file__).resolve().parents[2] / "studio" / "app.py"
# Relative to the entry script, as AppTest wants.
PLAN = "../pages/plan.py"
SETTINGS = "../pages/settings.py"
TOOLS = "../pages/tools.py"
GOAL = "Get facilities in Berlin, then their shipments"
BERLIN_SHIPMENTS = {"steps": [
    {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
    {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0],
     "parallel": False},
]}
_ENVIRONMENT = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLAN_STUDIO_PLANNER", "PLAN_STUDIO_DB",
                "PLAN_STUDIO_MODEL", "PLAN_STUDIO_TEMPERATURE", "PLAN_STUDIO_MAX_RETRIES",
                "PLAN_STUDIO_TIMEOUT", "PLAN_STUDIO_FROM_OPTIONS")


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in _ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    return tmp_path / "data"


@pytest.fixture
def model_server(data_dir: Path, llm_server: LLMServer) -> LLMServer:
    """The scripted server, its variables set after ``data_dir`` cleared the environment."""
    return llm_server


def start() -> AppTest:
    return AppTest.from_file(str(APP), default_timeout=60).run()


@pytest.fixture
def app(data_dir: Path) -> AppTest:
    return start()


def no_failures(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def texts(at: AppTest) -> str:
    """Everything the page says, as one string, markdown escapes removed."""
    parts = [e.value for kind in ("markdown", "caption", "error", "warning", "success", "info")
             for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts).replace("\\", "")


def tree_text(at: AppTest) -> str:
    """Every element the run produced, as protobuf text: labels, values, tables, code, all."""
    parts: list[str] = []

    def walk(node: object) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(parts)


def open_page(at: AppTest, script: str) -> AppTest:
    at.switch_page(script).run()
    no_failures(at)
    return at


def choose(at: AppTest, *, planner: str | None = None, model: str | None = None,
           temperature: float | None = None, max_retries: int | None = None) -> None:
    """Fill the Settings form and press Apply."""
    if planner is not None:
        at.radio(key=Keys.SETTINGS_PLANNER).set_value(planner)
    if model is not None:
        at.text_input(key=Keys.SETTINGS_MODEL).input(model)
    if temperature is not None:
        at.number_input(key=Keys.SETTINGS_TEMPERATURE).set_value(temperature)
    if max_retries is not None:
        at.number_input(key=Keys.SETTINGS_MAX_RETRIES).set_value(max_retries)
    at.button(key="settings.apply").click().run()
    no_failures(at)


def make_plan(at: AppTest, goal: str = GOAL) -> None:
    at.text_input(key=Keys.GOAL).input(goal)
    at.button(key="plan.make").click().run()
    no_failures(at)


def plan_caption(at: AppTest) -> str:
    [caption] = [c.value for c in at.caption if c.value.startswith("Planner:")]
    return caption.replace("\\", "")


# -- navigation -----------------------------------------------------------------------------------
def test_the_navigation_is_plan_library_reviews_tools_lab_audit_settings(app: AppTest) -> None:
    # AppTest keeps what st.navigation registered, in order; the default page sits at "/". Decide,
    # a signed link's page, is registered last and hidden from the menu.
    pages = list(app._registered_pages.values())
    assert [p["page_name"] for p in pages] == ["Plan", "Library", "Reviews", "Tools", "Lab", "Audit", "Settings",
                                               "Decide"]
    assert [p["url_pathname"] for p in pages] == ["", "library", "reviews", "tools", "lab", "audit", "settings",
                                                  "decide"]
    assert [Path(p["script_path"]).name for p in pages] == ["plan.py", "library.py", "reviews.py", "tools.py",
                                                            "lab.py", "audit.py", "settings.py", "decide.py"]
    assert [spec.hidden for spec in NAVIGATION] == [False] * 7 + [True]


# -- settings ---------------------------------------------------------------------------------------
def test_by_default_the_embedded_planner_is_used_and_no_key_is_set(app: AppTest, data_dir: Path) -> None:
    open_page(app, SETTINGS)
    page = texts(app)
    assert "| Planner | Embedded (offline rules from the tool registry) |" in page
    assert "| `OPENAI_API_KEY` set | no |" in page
    assert "| `OPENAI_BASE_URL` | OpenAI default |" in page
    assert f"| Data folder | {data_dir} |" in page
    assert f"| Database | {data_dir / 'studio.sqlite3'} |" in page
    assert "| Today | 2025-10-12 (pinned by `PLAN_STUDIO_TODAY`) |" in page
    assert "| Settings from | the environment |" in page
    assert not app.warning and not app.error
    # The form starts at the settings in use.
    assert app.radio(key=Keys.SETTINGS_PLANNER).value == "embedded"
    assert app.text_input(key=Keys.SETTINGS_MODEL).value == "gpt-4o-mini"
    assert app.number_input(key=Keys.SETTINGS_TEMPERATURE).value == 0.1
    assert app.number_input(key=Keys.SETTINGS_MAX_RETRIES).value == 3


def test_a_date_pinned_by_the_command_line_is_said_to_be(data_dir: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # What `plan-studio --today 2025-10-12` hands the studio it starts (tests/app/test_cli.py).
    monkeypatch.setenv("PLAN_STUDIO_FROM_OPTIONS", "today")
    app = start()
    open_page(app, SETTINGS)
    assert "| Today | 2025-10-12 (pinned by `--today`) |" in texts(app)


def test_with_a_key_the_page_says_yes_and_never_shows_the_key(model_server: LLMServer) -> None:
    at = open_page(start(), SETTINGS)
    page = texts(at)
    assert "| `OPENAI_API_KEY` set | yes |" in page
    assert f"| `OPENAI_BASE_URL` | {model_server.base_url} |" in page
    choose(at, planner="llm", model="test-model")
    for text in (tree_text(at), texts(at), repr(at.session_state.to_dict())):
        assert TEST_API_KEY not in text
        assert TEST_API_KEY.removeprefix("sk-") not in text


def test_llm_chosen_in_settings_plans_through_the_model(model_server: LLMServer, data_dir: Path) -> None:
    at = open_page(start(), SETTINGS)
    choose(at, planner="llm", model="test-model", temperature=0.3)
    assert "Applied for this session: LLM planner, model test-model." in texts(at)
    assert "| Planner | LLM · model test-model · temperature 0.3 · 3 repair retries · timeout 60 s |" in texts(at)
    assert "| Settings from | this session's choices |" in texts(at)

    open_page(at, PLAN)
    assert "Planner: **llm (test-model)**" in plan_caption(at)
    model_server.reply(json.dumps(BERLIN_SHIPMENTS))
    make_plan(at)
    plan = at.session_state[Keys.BENCH].plan
    assert plan is not None, texts(at)
    assert [s.tool for s in plan.steps] == ["facilities_list", "shipments_list"]
    assert plan.metadata.planner == "llm"
    [request] = model_server.requests
    assert (request["model"], request["temperature"]) == ("test-model", 0.3)
    assert GOAL in model_server.text_of(0)

    at.button(key="plan.save").click().run()
    no_failures(at)
    assert "Saved as version 1." in texts(at)
    assert TEST_API_KEY not in tree_text(at)
    [summary] = get_services().store.list_plans()
    assert (summary.goal, summary.planner) == (GOAL, "llm")
    # Every file the studio wrote (the database, its journal, the tools' data), byte for byte.
    stored = b"".join(f.read_bytes() for f in data_dir.rglob("*") if f.is_file())
    assert (data_dir / "studio.sqlite3").is_file()
    assert TEST_API_KEY.encode() not in stored

    # The choice belongs to that browser session: a new one, and code outside any session,
    # get the environment's embedded planner.
    other = open_page(start(), PLAN)
    assert "Planner: **embedded**" in plan_caption(other)
    assert get_services().planner_name == "embedded"


def test_llm_without_a_key_warns_what_to_set_and_plan_says_why(app: AppTest) -> None:
    open_page(app, SETTINGS)
    choose(app, planner="llm")
    [warning] = [w.value for w in app.warning]
    assert "OPENAI_API_KEY" in warning and "OPENAI_BASE_URL" in warning and "Ollama" in warning
    assert [i.value.replace("\\", "") for i in app.info] == ["Applied for this session: LLM planner, model gpt-4o-mini."]
    assert not app.success

    open_page(app, PLAN)
    assert "Planner: **llm (gpt-4o-mini)**" in plan_caption(app)
    make_plan(app)
    assert app.session_state[Keys.BENCH].plan is None
    [error] = [e.value.replace("\\", "") for e in app.error]
    assert error.startswith("Could not make a plan: No model configured: set OPENAI_API_KEY")

    # Back to the environment's settings, and planning works offline again.
    open_page(app, SETTINGS)
    app.button(key="settings.reset").click().run()
    no_failures(app)
    assert app.radio(key=Keys.SETTINGS_PLANNER).value == "embedded"
    assert "| Settings from | the environment |" in texts(app)
    assert not app.warning
    open_page(app, PLAN)
    make_plan(app, "Get facilities in Munich")
    assert [s.tool for s in app.session_state[Keys.BENCH].plan.steps] == ["facilities_list"]


@pytest.mark.parametrize(("field", "value", "named"), [
    ("temperature", 5.0, "Temperature: input should be less than or equal to 2 (got 5.0)"),
    ("max_retries", 11, "Max retries: input should be less than or equal to 10 (got 11)"),
    ("model", "   ", "Model: type a model name"),
])
def test_a_bad_value_is_named_and_the_previous_settings_are_kept(app: AppTest, field: str, value: object,
                                                                  named: str) -> None:
    open_page(app, SETTINGS)
    choose(app, planner="llm", model="first-model")
    before = app.session_state[Keys.SETTINGS_OVERRIDES]
    assert before["model"] == "first-model" and before["temperature"] == 0.1

    choose(app, planner="embedded", **{field: value})
    [error] = [e.value.replace("\\", "") for e in app.error]
    assert named in error and "the settings in use are unchanged" in error
    assert app.session_state[Keys.SETTINGS_OVERRIDES] == before
    assert "| Planner | LLM · model first-model · temperature 0.1" in texts(app)
    # What the user typed stays in the form to be corrected.
    widget = {"temperature": Keys.SETTINGS_TEMPERATURE, "max_retries": Keys.SETTINGS_MAX_RETRIES,
              "model": Keys.SETTINGS_MODEL}[field]
    assert app.session_state[widget] == value
    open_page(app, PLAN)
    assert "Planner: **llm (first-model)**" in plan_caption(app)


# -- tools ------------------------------------------------------------------------------------------
def test_the_tools_page_lists_every_tool_and_the_manual_verbatim(app: AppTest) -> None:
    open_page(app, TOOLS)
    registry = get_services().registry
    page = texts(app)
    assert len(registry) >= 10
    for tool in registry:
        assert f"**{tool.name}** · group {tool.group}" in page
        assert tool.description.strip() in page
    assert f"{len(registry)} tools in " in page
    [manual] = app.code
    assert manual.value == render_manual(registry)

    # Static tables (their cells are escaped markdown) wrap long text rather than cut it off.
    tables = [t.value for t in app.table]
    assert len(tables) == sum(1 for t in registry if t.parameters.get("properties"))
    facilities = tables[registry.names().index("facilities_list")]
    kind = facilities.set_index("name").loc["type"]
    assert kind["type"] == "string" and kind["required"] == ""
    assert kind["allowed values"] == "recycling, sorting, composting, incineration, landfill"
    assert kind["description"] == md_escape("Kind of facility.")
    limit = facilities.set_index("name").loc["limit"]
    assert (limit["type"], limit["default"]) == ("integer", "100")
    assert limit["allowed values"] == "at least 1"  # the schema's bound, as the validator checks it
    names = {r["name"]: r["allowed values"] for r in parameter_rows(registry.get("addItem"))}
    assert names == {"list": "not blank", "item": "not blank"}
    dates = {r["name"]: r["type"] for r in parameter_rows(registry.get("shipments_list"))}
    assert dates["date_from"] == "date"
    assert dates["facility_id"] == "string or list of string"

    app.text_input(key=Keys.TOOLS_FILTER).input("LIST").run()
    no_failures(app)
    shown = [m.value for m in app.markdown if m.value.startswith("**") and " · group " in m.value]
    expected = [t.name for t in registry if "list" in t.name.lower()]
    assert len(shown) == len(expected) >= 5
    assert f"{len(expected)} of {len(registry)} tools" in texts(app)
    assert app.code[0].value == render_manual(registry)  # the manual is always the whole registry

    app.text_input(key=Keys.TOOLS_FILTER).input("no such tool").run()
    assert "No tool name contains that text." in texts(app)


HOSTILE = '<img src=x onerror="alert(1)"> ![t](http://evil.example/p.png) [click](http://evil.example) $x$'


def test_a_tool_description_with_markdown_and_html_is_escaped(app: AppTest) -> None:
    def hostile_tool(note: str = "") -> dict:
        """<img src=x onerror="alert(1)"> ![t](http://evil.example/p.png) [click](http://evil.example) $x$

        Args:
            note: ![n](http://evil.example/n.png)

        Returns:
            <script>alert(2)</script> [more](http://evil.example)
        """
        return {}

    registry = get_services().registry  # the same services the app uses
    registry.register(hostile_tool, group="<b>third</b>")
    open_page(app, TOOLS)
    markdown = [m.value for m in app.markdown]
    assert md_escape(HOSTILE) in markdown
    assert "**hostile\\_tool** · group \\<b\\>third\\</b\\>" in markdown
    assert f"**Returns:** {md_escape('<script>alert(2)</script> [more](http://evil.example)')}" in markdown
    # Nothing left that markdown would turn into a tag, an image, a link or maths (inline code
    # shows its text as written).
    unescaped = re.compile(r"(?<!\\)[<>!\[\]()$]")
    outside_code = [re.sub(r"(?<!\\)(`+).*?\1", "", v) for v in markdown]
    assert [v for v in outside_code if unescaped.search(v)] == []
    # Tables and the manual are not markdown: there the text is shown exactly as written.
    [row] = parameter_rows(registry.get("hostile_tool"))
    assert row["description"] == "![n](http://evil.example/n.png)"
    assert HOSTILE in app.code[0].value


def test_an_installed_planner_is_offered_and_in_use_once_chosen(data_dir: Path, installed, tmp_path: Path) -> None:
    installed(install(tmp_path / "site", "parrot-planner", {"plan_studio": {"parrot": "parrot_planner"}},
                      {"parrot_planner.py": PARROT_PLANNER}))
    app = open_page(start(), SETTINGS)
    radio = app.radio(key=Keys.SETTINGS_PLANNER)
    assert radio.options == ["Embedded (offline)", "LLM (model endpoint)", "Parrot (a test plugin)"]
    choose(app, planner="parrot")
    assert app.success[0].value.replace("\\", "") == "Applied for this session: parrot planner."
    assert "| Planner | Parrot (a test plugin) |" in texts(open_page(app, SETTINGS))
