"""The Tools page's "Edit description (this session)", through Streamlit's AppTest: an edit
changes the functions manual the LLM planner sends in that session, Reset brings the tool's own
words back, and other sessions and the tool's source never see it. Effects are shown per tool."""

from __future__ import annotations

import json

from conftest import TEST_API_KEY  # noqa: F401  (the scripted server sets it)
from core.planners import render_manual
from llm_server import LLMServer
from studio import Keys, get_services
from studio.ui._text import md_escape
from test_settings_pages import (BERLIN_SHIPMENTS, PLAN, SETTINGS, TOOLS, choose, data_dir,  # noqa: F401
                                 make_plan, model_server, no_failures, open_page, start, texts)

DESCRIPTION = "Append exactly ONE grocery item; never two."
ITEM = "One item, singular, e.g. milk."


def open_editor(at, tool: str) -> None:
    """Open ``tool``'s "Edit description" expander, as a click on it does (its content is drawn only then)."""
    key = f"tools.edit.{tool}.open"
    if not (key in at.session_state and at.session_state[key]):
        at.session_state[key] = True
        at.run()
        no_failures(at)


def field(at, tool: str, part: str) -> str:
    """The key of a text field of ``tool``'s editor ("description", "param.<name>"): the one on the
    page, its editor opened first (it is drawn only when open)."""
    open_editor(at, tool)
    keys = [w.key for w in [*at.text_area, *at.text_input]]
    [key] = [k for k in keys if k and k.startswith(f"tools.edit.{tool}.") and k.endswith(f".{part}")]
    return key


def edit(at, tool: str, description: str, params: dict[str, str] | None = None) -> None:
    key = field(at, tool, "description")  # first: it may open the editor, drawing the page again
    at.text_area(key=key).input(description)
    for name, text in (params or {}).items():
        at.text_input(key=field(at, tool, f"param.{name}")).input(text)
    at.button(key=f"tools.edit.{tool}.apply").click().run()
    no_failures(at)


def test_an_edited_description_is_what_this_sessions_planner_reads_until_reset(model_server: LLMServer) -> None:  # noqa: F811 (the fixture)
    at = open_page(start(), SETTINGS)
    choose(at, planner="llm", model="test-model")
    open_page(at, TOOLS)
    own = render_manual(get_services().registry)
    assert at.code[0].value == own
    open_editor(at, "addItem")
    assert at.button(key="tools.edit.addItem.reset").disabled  # nothing to reset yet

    edit(at, "addItem", DESCRIPTION, {"item": ITEM})
    manual = at.code[0].value
    assert f"### addItem\n{DESCRIPTION}\n" in manual
    assert f"  - item: string; not blank; required. {ITEM}" in manual
    assert manual.replace(DESCRIPTION, "").count("### ") == own.count("### ")  # only addItem changed
    assert md_escape(DESCRIPTION) in [m.value for m in at.markdown]
    assert "Description edited for this session" in texts(at)
    assert at.session_state[Keys.TOOLS_OVERRIDES] == {"addItem": {"description": DESCRIPTION,
                                                                  "params": {"item": ITEM}}}

    # The planner of this session sends the edited words to the model.
    open_page(at, PLAN)
    model_server.reply(json.dumps(BERLIN_SHIPMENTS))
    make_plan(at)
    system = model_server.messages(0)[0]["content"]
    assert DESCRIPTION in system and ITEM in system

    # Another session, and code outside any session, read the tool's own words.
    other = open_page(start(), TOOLS)
    assert other.code[0].value == own == render_manual(get_services().registry)

    open_page(at, TOOLS)
    open_editor(at, "addItem")
    at.button(key="tools.edit.addItem.reset").click().run()
    no_failures(at)
    assert at.code[0].value == own
    assert at.text_area(key=field(at, "addItem", "description")).value.startswith("Add an item to the end")
    assert at.session_state[Keys.TOOLS_OVERRIDES] is None
    open_page(at, PLAN)
    model_server.reply(json.dumps(BERLIN_SHIPMENTS))
    make_plan(at)
    assert DESCRIPTION not in model_server.messages(1)[0]["content"]


def test_each_tool_shows_its_effects(data_dir) -> None:  # noqa: F811 (the fixture, by name)
    at = open_page(start(), TOOLS)
    page = texts(at)
    registry = get_services().registry
    effects = {tool.name: tool.effects.label for tool in registry}
    assert effects["deleteList"] == "writes, destructive" and effects["showList"] == "read-only"
    for label in set(effects.values()):
        assert f"Effects: {label}" in page


def test_an_edit_that_breaks_the_manual_is_refused_naming_the_tool_and_field(data_dir) -> None:  # noqa: F811
    at = open_page(start(), TOOLS)
    own = at.code[0].value
    edit(at, "addItem", "Add an item.", {"item": "x" * 5_001})
    assert any("addItem params.item is 5,001 characters long" in e.value.replace("\\", "") for e in at.error)
    assert at.session_state[Keys.TOOLS_OVERRIDES] is None and at.code[0].value == own
    assert at.text_input(key=field(at, "addItem", "param.item")).value == "x" * 5_001  # what was typed stays
    edit(at, "addItem", "   ", {"item": "One item."})
    assert any("addItem description is empty" in e.value.replace("\\", "") for e in at.error)
    edit(at, "addItem", "Add one item.", {"item": "One item."})
    assert not at.error and "### addItem\nAdd one item.\n" in at.code[0].value
