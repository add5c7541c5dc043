"""The Plan page and plan formats: the export says what it dropped, and the Plan JSON panel
reads a plan in any format pasted into it, saying which it read it as."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from core import dump_plan
from core.formats import export_plan
from studio import Keys, get_services
from studio.ui.plan._formats_panel import PANEL_KEY
from apptest_helpers import edit_json, make_plan, no_failures, texts


def test_the_export_says_what_the_format_dropped(app: AppTest) -> None:
    plan = make_plan(app)
    app.session_state[PANEL_KEY] = True  # the user opens "Import / export"
    app.selectbox(key=Keys.EXPORT_FORMAT).set_value("llmcompiler").run()
    no_failures(app)
    dropped = export_plan(plan, "llmcompiler", get_services().registry).dropped
    assert dropped and "the goal" in dropped
    shown = texts(app)
    assert "Not in the LLMCompiler plan:" in shown
    assert all(notice.replace("\\", "") in shown for notice in dropped)
    app.selectbox(key=Keys.EXPORT_FORMAT).set_value("seed").run()
    assert "Not in the" not in texts(app)


def test_the_plan_json_panel_reads_the_default_cli_output(app: AppTest) -> None:
    plan = make_plan(app)
    seed = dump_plan(plan, "seed", get_services().registry)  # what `plan-studio plan` prints
    edit_json(app, seed)
    assert app.session_state[Keys.BENCH].json_error is None
    taken = app.session_state[Keys.BENCH].plan
    assert [(s.tool, s.params) for s in taken.steps] == [(s.tool, s.params) for s in plan.steps]
    assert "Read as Planner Agent JSON (seed)" in texts(app)
    assert json.loads(app.text_area(key=Keys.JSON).value)["steps"][0]["id"]  # now shown as native JSON


def test_the_plan_json_panel_reads_semantic_kernel_xml_and_names_it(app: AppTest) -> None:
    make_plan(app)
    edit_json(app, '<plan>\n  <function.WastePlugin.facilities_list location="Munich"/>\n</plan>')
    assert app.session_state[Keys.BENCH].json_error is None
    assert [s.params for s in app.session_state[Keys.BENCH].plan.steps] == [{"location": "Munich"}]
    assert "Read as Semantic Kernel XML plan" in texts(app)


def test_a_broken_plan_in_another_format_is_reported_in_its_terms_and_kept(app: AppTest) -> None:
    plan = make_plan(app)
    broken = '<plan>\n  <function.WastePlugin.facilities_list location="Munich"\n</plan>'
    edit_json(app, broken)
    error = app.session_state[Keys.BENCH].json_error
    assert error.startswith("Read as Semantic Kernel XML plan: line 3"), error
    assert app.text_area(key=Keys.JSON).value == broken
    assert app.session_state[Keys.BENCH].plan == plan


def test_a_teams_say_shows_its_citations_under_the_message_in_the_run(app: AppTest) -> None:
    from apptest_helpers import import_text, run_plan

    context = {"citations": [{"title": "Guide *bold*", "url": "https://example.org/g", "content": "Milk keeps."}]}
    import_text(app, "teams", json.dumps({"type": "plan", "commands": [
        {"type": "SAY", "response": {"role": "assistant", "content": "Milk keeps a week [1].", "context": context}}]}))
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    no_failures(app)
    [said] = list(app.chat_message)
    assert said.markdown[0].value.replace("\\", "") == "Milk keeps a week [1]."
    # Escaped: the title's asterisks show as written, the address as text, not a link.
    assert [c.value for c in said.caption] == [r"\[1\] Guide \*bold\* · `https://example.org/g`"]
