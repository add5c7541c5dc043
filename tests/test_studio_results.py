"""How a run's results show on the Plan page, and what keeping them in the tab's draft costs."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from studio import Keys, get_services
from studio._text import md_escape

from apptest_helpers import edit_json, make_plan, no_failures, plan_text, run_plan

GREETING = "Hello *world* from [a tool](https://example.com) — {not: json}"


def greet(name: str) -> str:
    """Greet someone in plain words.

    Args:
        name: Who to greet.
    """
    return GREETING.replace("world", name)


def test_a_tool_that_returns_a_plain_string_shows_it_as_text(app: AppTest) -> None:
    """Streamlit's st.json reads a string as JSON text, so a plain string result showed as
    "Json Parse Error" on the page; it must show as the text itself, escaped."""
    get_services().registry.register(greet)
    make_plan(app)
    edit_json(app, plan_text([{"id": "a", "tool": "greet", "params": {"name": "world"}}]))
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    run = app.session_state[Keys.RUN]
    assert run.steps["a"].result == GREETING
    assert [j.value for j in app.json if GREETING in str(j.value)] == []  # not handed to st.json
    shown = [m.value for m in app.markdown if m.value.startswith("Hello")]
    assert shown, "the string result is not on the page"
    # Escaped as all untrusted text is: no emphasis, no link.
    assert shown == [md_escape(GREETING)] and r"Hello \*world\*" in shown[0]
