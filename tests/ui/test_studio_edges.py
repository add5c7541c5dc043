"""The studio at its edges: what a demanding or hostile user does to it, and what it must survive.

Most tests drive the real app through AppTest (see ``test_pages``). Two things only a browser
shows are tested in Chromium: how Streamlit renders untrusted text, and the graph's tooltips.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from apptest_helpers import (
    edit_json,
    import_text,
    make_plan,
    no_failures,
    plan_text,
    run_plan,
    texts,
)
from playwright.sync_api import Page, expect
from streamlit.testing.v1 import AppTest
from browser_helpers import click, enter, offsite, open_studio

from core import Plan
from studio import Keys
from studio.ui.plan._graph import graph_data
from studio.ui._text import md_escape

FOUR_STEP_GOAL = ("Get high-risk contaminants of rejected shipments from landfills in Munich, "
                  "then inspections at those facilities")


# -- untrusted text in markdown -----------------------------------------------------------------
def _segments_streamlit_sees(markdown: str) -> list[tuple[str, str]]:
    """("code" | "text", content) as CommonMark leaves them: code spans as written, text with
    backslash escapes and character references resolved. Streamlit's own rewriting (autolinks,
    icons, emoji, arrows) runs on the text segments only, after parsing."""
    out: list[tuple[str, str]] = []
    text: list[str] = []
    i = 0
    while i < len(markdown):
        if markdown[i] == "\\" and i + 1 < len(markdown) and re.match(r"[!-/:-@\[-`{-~]", markdown[i + 1]):
            text.append(markdown[i + 1])
            i += 2
            continue
        if markdown[i] == "`":
            fence = re.match(r"`+", markdown[i:]).group()
            close = re.compile(f"(?<!`){fence}(?!`)").search(markdown, i + len(fence))
            if close is None:  # no closing run: the backticks are text
                text.append(fence)
                i += len(fence)
                continue
            out.append(("text", html.unescape("".join(text))))
            text = []
            body = markdown[i + len(fence):close.start()]
            if body.startswith(" ") and body.endswith(" ") and body.strip():
                body = body[1:-1]
            out.append(("code", body))
            i = close.end()
            continue
        text.append(markdown[i])
        i += 1
    out.append(("text", html.unescape("".join(text))))
    return out


def _text_streamlit_sees(markdown: str) -> str:
    """What a reader sees (and copies) of ``markdown``."""
    return "".join(body for _kind, body in _segments_streamlit_sees(markdown))


# Streamlit 1.67's rewrites of parsed text, from its frontend bundle (remark-gfm's autolinks,
# its :streamlit: logo, the icons of ":material_...:", remark-emoji and its typographic arrows).
_REWRITES = {
    "web link": re.compile(r"(https?://|www(?=\.))[-.\w]+", re.IGNORECASE | re.ASCII),
    "e-mail link": re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+", re.ASCII),
    "logo image": re.compile(r":streamlit:"),
    "icon": re.compile(r":material_\w+:"),
    "emoji": re.compile(r":[\w+-]+:"),
    "arrow": re.compile(r"(?:^|\s)(?:<->|->|<-|--|>=|<=|~=)(?:\s|$)"),
}


@pytest.mark.parametrize("text", [
    "see www.evil.example", "see https://evil.example/x", "HTTP://EVIL.EXAMPLE", "mail me@evil.example",
    "logo :streamlit: here", "icon :material/home: here", "icon :material_home: here", "a :warning: b",
    "a -> b", "a <- b", "a <-> b", "a -- b", "a >= b", "a <= b", "a ~= b", "x`y`` :smile:`",
    "http://x/:material/home:", "a\n-> b\n", "10:30:00 -> done",
])
def test_escaped_text_leaves_nothing_for_streamlit_to_rewrite(text: str) -> None:
    escaped = md_escape(text)
    seen = _segments_streamlit_sees(escaped)
    plain = " ".join(body for kind, body in seen if kind == "text")
    assert [name for name, pattern in _REWRITES.items() if pattern.search(plain)] == []
    assert ":material/" not in escaped  # Streamlit rewrites this in the source, before parsing
    # What the reader sees and copies is the text itself, with no invisible characters added.
    assert "\u2060" not in escaped
    assert _text_streamlit_sees(escaped).replace("  \n", "\n") == text


def test_a_line_of_equals_signs_does_not_make_the_line_above_a_heading() -> None:
    escaped = md_escape("Title\n===\nmore")
    # A setext underline is a line of unescaped "=" (up to three spaces in front).
    assert not re.search(r"(?m)^ {0,3}=+[ \t]*$", escaped)
    assert _text_streamlit_sees(escaped) == "Title  \n===  \nmore"


def test_the_operators_own_endpoint_may_stay_a_link() -> None:
    escaped = md_escape("http://127.0.0.1:11434/v1", keep_links=True)
    assert _text_streamlit_sees(escaped) == "http://127.0.0.1:11434/v1"
    assert [kind for kind, _ in _segments_streamlit_sees(escaped)] == ["text"]


# -- references that do not parse ------------------------------------------------------------------
BAD_REFERENCE = "${step[0].data.0.id}"  # a dot before an index: the parser wants a field name


def _with_bad_reference(plan: Plan) -> str:
    data = json.loads(plan.model_dump_json())
    data["steps"][1]["params"]["facility_id"] = BAD_REFERENCE
    return json.dumps(data, indent=2)


def test_a_reference_that_does_not_parse_is_a_problem_by_step_and_the_page_keeps_working(app: AppTest) -> None:
    plan = make_plan(app)
    text = _with_bad_reference(plan)
    edit_json(app, text)
    assert app.session_state[Keys.BENCH].plan == Plan.model_validate_json(text)
    assert app.session_state[Keys.BENCH].json_error is None
    errors = [e.value.replace("\\", "") for e in app.error]
    read = BAD_REFERENCE.replace("${step[0]", f"${{steps.{plan.steps[0].id}")  # the panel reads positions as ids
    assert any(e.startswith(f"step 1 (shipments_list) · params.facility_id: {read}: expected a field name")
               for e in errors), errors
    assert app.button(key="plan.approve").disabled
    # The graph still draws, with the dependency the step declares.
    assert graph_data(app.session_state[Keys.BENCH].plan)["edges"][0]["from"] == plan.steps[0].id

    edit_json(app, plan.model_dump_json())
    assert app.session_state[Keys.BENCH].plan == plan
    assert not app.button(key="plan.approve").disabled


def test_an_import_with_a_reference_that_does_not_parse_lists_the_problem(app: AppTest) -> None:
    seed = {"steps": [
        {"tool": "facilities_list", "params": {}, "depends_on": [], "parallel": False},
        {"tool": "shipments_list", "params": {"facility_id": BAD_REFERENCE}, "depends_on": [0], "parallel": False},
    ]}
    import_text(app, "seed", json.dumps(seed))
    assert [s.params for s in app.session_state[Keys.BENCH].plan.steps] == [{}, {"facility_id": "${steps.s1.data.0.id}"}]
    errors = [e.value.replace("\\", "") for e in app.error]
    assert any(e.startswith("step 1 (shipments_list) · params.facility_id: ${steps.s1.data.0.id}") for e in errors)
    assert app.button(key="plan.approve").disabled


# -- wording ----------------------------------------------------------------------------------------
def test_json_errors_read_without_the_formats_code_name_or_pydantics_prefix(app: AppTest) -> None:
    make_plan(app)
    edit_json(app, "")
    assert app.session_state[Keys.BENCH].json_error == "the text is empty"
    edit_json(app, plan_text([{"id": "a", "tool": "facilities_list"}, {"id": "a", "tool": "shipments_list"}]))
    error = app.session_state[Keys.BENCH].json_error
    assert "id 'a' is used by an earlier step" in error
    assert "Value error" not in error and not error.startswith("native:")


def test_a_broken_import_names_the_format_once(app: AppTest) -> None:
    import_text(app, "sk", "<plan><function.X.Y a='1'></plan>")
    [error] = [e.value.replace("\\", "") for e in app.error]
    assert error.startswith("Could not import the Semantic Kernel XML plan: line 1: not well-formed XML")


def test_a_plan_without_steps_says_so_where_the_graph_would_be(app: AppTest) -> None:
    make_plan(app)
    edit_json(app, plan_text([]))
    assert "No steps yet: press **Add step** to pick a tool, or add steps in the JSON." in texts(app)
    assert "plan · steps: the plan has no steps" in texts(app)


# -- runs ---------------------------------------------------------------------------------------------
def _run_caption(at: AppTest) -> str:
    [caption] = [c.value for c in at.caption if c.value.startswith("Run ")]
    return caption


def test_a_run_between_run_next_step_clicks_is_paused_not_running(app: AppTest) -> None:
    make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "next")
    no_failures(app)
    assert " · paused · 1 succeeded, 1 pending" in _run_caption(app)
    run_plan(app, "next")
    assert " · succeeded · 2 succeeded" in _run_caption(app)


def test_editing_the_plan_mid_run_says_the_run_was_cleared(app: AppTest) -> None:
    make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "next")
    edit_json(app, app.text_area(key=Keys.JSON).value.replace('"Berlin"', '"Hamburg"'))
    assert app.session_state[Keys.BENCH].run is None
    assert [i.value for i in app.info] == [  # the run was stored with the version it ran
        "The plan changed, so its run was cleared \\(it stays stored with the saved version\\)\\. "
        "Approve the plan to run it again\\."]
    # Not said again when nothing was run.
    edit_json(app, app.text_area(key=Keys.JSON).value.replace('"Hamburg"', '"Munich"'))
    assert "run was cleared" not in texts(app)


# -- the graph ----------------------------------------------------------------------------------------
def test_an_edge_that_skips_a_column_curves_around_the_steps_in_between(app: AppTest) -> None:
    plan = make_plan(app, FOUR_STEP_GOAL)
    edges = {(e["from"], e["to"]): e for e in graph_data(plan)["edges"]}
    ids = [s.id for s in plan.steps]
    # facilities (column 0) -> inspections (column 2) passes contaminants (column 1).
    assert (ids[1], ids[3]) in edges
    assert edges[ids[1], ids[3]]["smooth"]["type"].startswith("curved")
    # Edges to the next column stay the layout's usual horizontal curves.
    assert "smooth" not in edges[ids[1], ids[2]] and "smooth" not in edges[ids[2], ids[3]]


def test_the_two_edges_of_a_cycle_bend_apart() -> None:
    plan = Plan.model_validate({"goal": "g", "steps": [
        {"id": "a", "tool": "facilities_list", "depends_on": ["b"]},
        {"id": "b", "tool": "shipments_list", "depends_on": ["a"]},
    ]})
    edges = graph_data(plan)["edges"]
    assert [e["smooth"]["type"] for e in edges] == ["curvedCW", "curvedCW"]  # opposite ways: opposite sides


def test_parallel_steps_sit_one_row_apart_and_say_they_are_parallel(app: AppTest) -> None:
    plan = make_plan(app, "Get shipments, facilities, and inspections from last week")
    assert [s.parallel for s in plan.steps] == [True, True, True]
    data = graph_data(plan)
    layout = data["options"]["layout"]["hierarchical"]
    assert layout["treeSpacing"] == layout["nodeSpacing"]  # unconnected steps are spaced like rows
    assert all("parallel: yes" in node["title"] for node in data["nodes"])


# -- in the browser ---------------------------------------------------------------------------------
HOSTILE_LINES = [
    "<img src=x onerror=alert(1)> <script>alert(2)</script> ![x](http://evil.example/x.png)",
    "[link](javascript:alert(3)) $x^2$ **bold** :red[red] :streamlit: :material/home: a -> b",
    "www.evil.example me@evil.example https://evil.example/a",
    "===",
]
HOSTILE = "\n".join(HOSTILE_LINES)


def _markup_in_main(page: Page) -> dict[str, list[str]]:
    """What markdown made of text in the page's main area, beyond the page's own title."""
    return page.evaluate("""() => {
      const main = document.querySelector('[data-testid=stMain]');
      const all = (css) => [...main.querySelectorAll(css)];
      return {
        links: all('a[href]').map(a => a.getAttribute('href')).filter(h => !h.startsWith('#')),
        images: all('img').map(i => i.getAttribute('src')),
        headings: all('[data-testid=stMarkdownContainer] :is(h1, h2, h3, h4)').map(h => h.textContent),
        maths: all('.katex').map(k => k.textContent),
        bold: all('[data-testid=stMarkdownContainer] strong').map(b => b.textContent).filter(t => t === 'bold'),
      };
    }""")


@pytest.mark.browser
def test_hostile_text_shows_as_written_in_the_browser(page: Page, studio) -> None:
    requests: list[str] = []
    dialogs: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)

    plan = {"goal": HOSTILE, "steps": [
        {"id": "a", "tool": "say", "params": {"message": HOSTILE}, "note": "A long note. " * 40},
        {"id": "b", "tool": "facilities_list", "params": {}},
    ]}
    page.get_by_test_id("stExpander").get_by_text("Import a plan").click()  # no rerun
    enter(page.get_by_role("textbox", name="Plan to import"), json.dumps(plan))
    click(page.get_by_role("button", name="Import"))
    expect(page.get_by_text("Imported 2 steps")).to_be_visible()
    click(page.get_by_role("button", name="Approve"))
    # Saved (a run is stored with its version), the note a version's message.
    enter(page.get_by_placeholder("Version note (optional)"), HOSTILE_LINES[2])
    click(page.get_by_role("button", name="Save"))
    expect(page.get_by_text("Saved as version 1.")).to_be_visible()
    click(page.get_by_role("button", name="Run all"))
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded"))).to_be_visible()

    # The SAY step's message is markdown in a chat bubble: every line reads exactly as written.
    said = page.get_by_test_id("stChatMessage").inner_text()
    for line in HOSTILE_LINES:
        assert line in said
    # "Step" heads the step inspector and "Run" the results (once a plan exists the page has no title):
    # none comes from the plan's text.
    assert _markup_in_main(page) == {"links": [], "images": [], "headings": ["Step", "Run"], "maths": [],
                                     "bold": []}

    # A long note wraps inside the tooltip instead of running off its edge.
    graph = page.locator("[data-testid=plan-graph][data-ready=true]")
    expect(graph).to_have_attribute("data-statuses", "succeeded succeeded")
    graph.scroll_into_view_if_needed()  # the run's results below may have scrolled it off the top
    point = graph.evaluate("el => el.__network.canvasToDOM(el.__network.getPositions(['a']).a)")
    box = graph.bounding_box()
    page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])
    tooltip = graph.locator(".vis-tooltip")
    expect(tooltip).to_contain_text("A long note.")
    assert tooltip.evaluate("t => t.scrollWidth <= t.clientWidth")

    # The goal is a Library card's title and the note a version's message.
    click(page.get_by_role("link", name="Library"))
    card = page.locator("[class*=st-key-library-card]")
    card.get_by_text("Versions and runs").click()  # no rerun
    expect(card.get_by_role("button", name="Open v1")).to_be_visible()
    shown = card.inner_text()
    for line in HOSTILE_LINES:
        assert line in shown
    assert _markup_in_main(page) == {"links": [], "images": [], "headings": ["Library"], "maths": [],
                                     "bold": []}

    assert dialogs == []
    assert offsite(requests) == []
