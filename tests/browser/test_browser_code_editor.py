"""The Plan JSON as a code editor in real Chromium: line numbers, highlighting and bracket
matching drawn over the "Plan JSON" text area; a parse error's and a problem's line marked and
one click away; references by id or by position at a toggle; nothing fetched off the machine."""

from __future__ import annotations

import json
import re
from typing import Iterator

import pytest
from browser_helpers import ARTIFACTS, click, enter, graph, graph_nodes, offsite, open_studio, screenshot
from conftest import Studio, start_studio
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    yield from start_studio(tmp_path_factory.mktemp("code-editor"))


def _layer(page: Page) -> Locator:
    return page.locator(".st-key-plan-json .ps-code-layer")


def _caret_after(field: Locator, text: str) -> None:
    """Put the caret just after the first ``text`` in the field, its line in view (as a click
    there would; a focus alone scrolls to where the caret was)."""
    field.evaluate("(el, t) => { el.focus(); const at = el.value.indexOf(t) + t.length; el.setSelectionRange(at, at);"
                   " el.scrollTop = Math.max(0, (el.value.slice(0, at).split('\\n').length - 3) * 20); }", text)


def test_the_plan_json_is_a_code_editor_that_marks_errors_and_switches_reference_forms(page: Page, served) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, served.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")  # still the page's own text area
    text = plan_json.input_value()
    lines = text.count("\n") + 1

    # Line numbers for every line, highlighting by kind, a reference picked out.
    expect(plan_json).to_have_attribute("data-ps-lines", str(lines))
    layer = _layer(page)
    expect(layer.locator(".ps-num").first).to_have_text("1")
    expect(layer.locator(".ps-key", has_text='"goal"')).to_have_count(1)
    expect(layer.locator(".ps-ref").first).to_have_text(re.compile(r"^\$\{steps\.[\w-]+\.data"))
    assert layer.locator(".ps-lines").inner_text().replace("\u00a0", " ").startswith(text.split("\n")[0])

    # Bracket matching: the caret after an opening brace marks it and its closing one.
    _caret_after(plan_json, '"params": {')
    expect(layer.locator(".ps-match")).to_have_text(["{", "}"])
    params_line = next(n for n, t in enumerate(text.split("\n"), start=1) if '"params": {' in t)
    expect(page.get_by_test_id("plan-json-editor")).to_contain_text(
        f"Ln {params_line}, Col {text.split(chr(10))[params_line - 1].index('{') + 2} · {lines} lines")

    # Enter keeps the indentation (one more level after a bracket); nothing applies until Ctrl+Enter.
    _caret_after(plan_json, '"steps": [')
    page.keyboard.press("Enter")
    expect(plan_json).to_have_attribute("data-ps-lines", str(lines + 1))
    assert '"steps": [\n    \n' in plan_json.input_value()
    # The Apply button shows once the text is edited and applies it (blank lines: the same plan).
    apply = page.get_by_role("button", name="Apply", exact=True)
    expect(apply).to_be_visible()
    click(apply)
    expect(apply).to_be_hidden()
    expect(page.get_by_text("No problems found")).to_be_visible()

    # A dropped comma: the text is kept, the error names line, column, step and field, and its
    # line is marked in the gutter with a button that takes the caret there.
    broken = text.replace('"tool": "facilities_list",', '"tool": "facilities_list"', 1)
    line = next(n for n, t in enumerate(broken.split("\n"), start=1) if t.strip() == '"tool": "facilities_list"') + 1
    enter(plan_json, broken)
    expect(plan_json).to_have_value(broken)
    expect(page.get_by_text(re.compile(rf"Not applied: not valid JSON: .* line {line}, column \d+ "
                                       r"\(in step 0 · tool\)"))).to_be_visible()
    expect(plan_json).to_have_attribute("data-ps-marked", str(line))
    page.get_by_role("button", name=f"Line {line}").click()  # the text was scrolled to its end
    expect(page.get_by_test_id("plan-json-editor")).to_contain_text(f"Ln {line}, Col")
    expect(layer.locator(".ps-num-error")).to_have_text(str(line))
    expect(layer.locator(".ps-at")).to_have_count(1)
    graph(page, "pending pending")  # the last valid plan stays drawn
    screenshot(page, "code-editor-error-1280.png")

    # A plan that parses but names a tool that does not exist: that step's "tool" line is marked.
    data = json.loads(text)
    data["steps"][1]["tool"] = "shipment_list"
    unknown = json.dumps(data, indent=2)
    tool_line = next(n for n, t in enumerate(unknown.split("\n"), start=1) if '"shipment_list"' in t)
    enter(plan_json, unknown)
    expect(page.get_by_text("unknown tool 'shipment_list'")).to_be_visible()
    expect(plan_json).to_have_attribute("data-ps-marked", str(tool_line))
    page.get_by_role("button", name=f"Line {tool_line}").click()
    expect(layer.locator(".ps-num-error")).to_have_text(str(tool_line))
    page.screenshot(path=str(ARTIFACTS / "code-editor-problem-1280x800.png"))  # the first screen only

    # References by position at a toggle, and back by id; the graph keeps its edge, and the
    # JSON lists the dependency the reference makes.
    enter(plan_json, text)
    first_id = data["steps"][0]["id"]
    assert data["steps"][1]["depends_on"] == [first_id]
    click(page.get_by_text("References by position"))
    expect(plan_json).to_have_value(re.compile(r"\$\{step\[0\]\.data"))
    assert "${steps." not in plan_json.input_value()
    assert json.loads(plan_json.input_value())["steps"][1]["depends_on"] == [first_id]
    drawn = graph(page, "pending pending")
    assert len(graph_nodes(drawn)) == 2
    plan_json.evaluate("el => { el.scrollTop = 0; }")  # fill() left it scrolled to the end
    expect(layer.locator(".ps-ref").first).to_have_text(re.compile(r"^\$\{step\[0\]\.data"))
    screenshot(page, "code-editor-positions-1280.png")
    page.set_viewport_size({"width": 1920, "height": 1080})
    screenshot(page, "code-editor-positions-1920.png")
    page.screenshot(path=str(ARTIFACTS / "code-editor-positions-1920x1080.png"))
    click(page.get_by_text("References by position"))
    expect(plan_json).to_have_value(text)

    assert offsite(requested) == []
