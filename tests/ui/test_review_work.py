"""A reviewer's work is never lost or bypassed (AppTest; tests/browser/test_browser_review_work.py does it
in Chromium): a review in progress (its bar, comment, edits and the agent's own tools) survives a
reload and comes back when reopened from Reviews; Approve review waits while the plan has
problems, even for a click the page sent before it drew the button disabled; the step inspector
edits steps of the agent's own tools from their declared schemas."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from apptest_helpers import APP, PLAN, edit_json, no_failures, texts
from studio import Keys, get_services
from studio.workbench import submit_review

REVIEWS = "../pages/reviews.py"

REFUND_TOOLS = [{
    "name": "send_refund", "description": "Refund a customer.",
    "inputSchema": {"type": "object", "additionalProperties": False, "required": ["customer", "amount_eur"],
                    "properties": {
                        "customer": {"type": "string", "description": "Who gets the money."},
                        "amount_eur": {"type": "number", "minimum": 0, "maximum": 500},
                        "reason": {"type": "string", "enum": ["damaged", "late", "other"]},
                        "notify": {"type": ["boolean", "null"]}}},
}]
REFUND_PLAN = {"goal": "Refund Ada", "steps": [
    {"id": "refund", "tool": "send_refund", "params": {"customer": "ada", "amount_eur": 120}}]}


def _send(body: dict) -> str:
    return submit_review(get_services(), body).id


def _url(at: AppTest) -> dict[str, str]:
    return {name: str(value[0] if isinstance(value, list) else value) for name, value in at.query_params.items()}


def _tab(params: dict[str, str] | None = None) -> AppTest:
    """A new session: a reloaded tab when ``params`` is its URL, a new tab when empty."""
    tab = AppTest.from_file(str(APP), default_timeout=60)
    for name, value in (params or {}).items():
        tab.query_params[name] = value
    tab.run()
    no_failures(tab)
    return tab


def _open(app: AppTest, review_id: str) -> None:
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()  # AppTest does not follow st.switch_page on its own
    no_failures(app)


def _amount(app: AppTest) -> float:
    return app.session_state[Keys.BENCH].plan.step("refund").params["amount_eur"]


def _start_reviewing(app: AppTest) -> str:
    review_id = _send({"plan": REFUND_PLAN, "tools": REFUND_TOOLS, "agent": "refund-bot"})
    _open(app, review_id)
    edit_json(app, app.text_area(key=Keys.JSON).value.replace("120", "450"))
    app.text_input(key="review.comment").input("450, not 120").run()
    no_failures(app)
    return review_id


def _reviewing(tab: AppTest, review_id: str) -> None:
    """``tab`` holds the review with the reviewer's work: bar, comment, edit, agent's tools."""
    assert tab.session_state[Keys.BENCH].review_id == review_id
    assert tab.button(key="review.approve")
    assert tab.text_input(key="review.comment").value == "450, not 120"
    assert _amount(tab) == 450
    said = texts(tab)
    assert "from **refund-bot**" in said and "agent's own tools (send_refund)" in said
    assert "unknown tool" not in said.lower()
    assert "No problems found" in said


def test_a_reload_during_a_review_brings_back_its_bar_comment_edits_and_the_agents_tools(app: AppTest) -> None:
    review_id = _start_reviewing(app)
    back = _tab(_url(app))
    _reviewing(back, review_id)
    # Still the same review: approving it from the reloaded tab sends the edit and the comment.
    back.button(key="review.approve").click().run()
    no_failures(back)
    review = get_services().store.get_review(review_id)
    assert (review.status, review.comment) == ("approved", "450, not 120")
    assert review.approved_plan.step("refund").params["amount_eur"] == 450


def test_reopening_a_pending_review_from_reviews_brings_back_the_reviewers_work(app: AppTest) -> None:
    review_id = _start_reviewing(app)
    app.button(key="review.close").click().run()  # "Later": the review stays pending
    assert app.session_state[Keys.BENCH].review_id is None
    _open(app, review_id)
    _reviewing(app, review_id)
    # From another tab (a new session with no draft of its own) too.
    other = _tab()
    _open(other, review_id)
    _reviewing(other, review_id)


def test_reopening_a_review_in_the_tab_reviewing_it_keeps_the_work(app: AppTest) -> None:
    review_id = _start_reviewing(app)
    back = _tab(_url(app))  # reloaded: the session's state came from the draft
    _open(back, review_id)
    _reviewing(back, review_id)


def test_a_decided_review_reopens_as_decided_not_as_the_work_in_progress(app: AppTest) -> None:
    review_id = _start_reviewing(app)
    app.button(key="review.reject").click().run()
    no_failures(app)
    other = _tab()
    _open(other, review_id)
    assert _amount(other) == 120  # rejected: the plan as the agent sent it
    assert not [b for b in other.button if b.key == "review.approve"]


def test_approve_review_waits_while_the_plan_has_an_error_even_for_a_stale_click(app: AppTest) -> None:
    review_id = _send({"plan": REFUND_PLAN, "tools": REFUND_TOOLS, "agent": "refund-bot"})
    _open(app, review_id)
    edit_json(app, app.text_area(key=Keys.JSON).value.replace("120", "600"))
    assert "must be at most 500 (got 600)" in texts(app)
    assert app.button(key="review.approve").disabled
    assert app.button(key="plan.approve").disabled  # the same gate as Approve
    # Fixed, then broken again and clicked in the same go: the click was sent from a page that
    # drew the button enabled, and its callback runs after the panel's edit took the 600.
    edit_json(app, app.text_area(key=Keys.JSON).value.replace("600", "450"))
    assert not app.button(key="review.approve").disabled
    app.text_area(key=Keys.JSON).input(app.text_area(key=Keys.JSON).value.replace("450", "700"))
    app.button(key="review.approve").click().run()
    no_failures(app)
    assert get_services().store.get_review(review_id).status == "pending"
    assert _amount(app) == 700
    assert "Not approved. The plan has 1 problem to fix first" in texts(app)
    # Fixed, it goes through.
    edit_json(app, app.text_area(key=Keys.JSON).value.replace("700", "450"))
    assert not app.button(key="review.approve").disabled
    app.button(key="review.approve").click().run()
    review = get_services().store.get_review(review_id)
    assert review.status == "approved" and review.approved_plan.step("refund").params["amount_eur"] == 450


def test_approve_review_waits_while_the_plan_json_does_not_parse_even_for_a_stale_click(app: AppTest) -> None:
    review_id = _send({"plan": REFUND_PLAN, "tools": REFUND_TOOLS, "agent": "refund-bot"})
    _open(app, review_id)
    # Typed and clicked in one go: the click's callback may run before the panel's.
    app.text_area(key=Keys.JSON).input(app.text_area(key=Keys.JSON).value.replace("120", "600") + "\n}")
    app.button(key="review.approve").click().run()
    no_failures(app)
    assert get_services().store.get_review(review_id).status == "pending"


def test_the_inspector_edits_a_step_of_the_agents_own_tool_from_its_declared_schema(app: AppTest) -> None:
    review_id = _send({"plan": REFUND_PLAN, "tools": REFUND_TOOLS, "agent": "refund-bot"})
    _open(app, review_id)
    app.session_state[Keys.EDITOR_SELECTED] = "refund"  # as a click on the step in the graph does
    app.run()
    no_failures(app)
    assert "Unknown tool" not in texts(app)
    revision = app.session_state[Keys.BENCH].revision

    def key(name: str) -> str:
        return f"{Keys.EDITOR_FIELD_PREFIX}refund.{name}.{app.session_state[Keys.BENCH].revision}"

    assert "Who gets the money." in app.text_input(key=key("customer")).help
    amount = app.number_input(key=key("amount_eur"))
    assert (amount.value, amount.min, amount.max) == (120, 0, 500)
    assert app.selectbox(key=key("reason")).options == ["(not set)", "damaged", "late", "other"]
    assert app.toggle(key=key("notify")).label == "notify"

    # A value past its bound, typed in the JSON, is shown as it is (its problem listed), not a failure.
    edit_json(app, app.text_area(key=Keys.JSON).value.replace("120", "600"))
    assert app.number_input(key=key("amount_eur")).value == 600
    assert "Could not show the step inspector" not in texts(app)
    app.number_input(key=key("amount_eur")).set_value(450).run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].revision > revision
    app.selectbox(key=key("reason")).set_value("late").run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan.step("refund").params == {"customer": "ada", "amount_eur": 450, "reason": "late"}
    assert json.loads(app.text_area(key=Keys.JSON).value)["steps"][0]["params"]["reason"] == "late"
    # A required field cleared is refused on its field, as for the studio's own tools.
    app.text_input(key=key("customer")).input("").run()
    no_failures(app)
    assert "customer is required" in texts(app)
    assert app.session_state[Keys.BENCH].plan.step("refund").params["customer"] == "ada"


def test_reopening_brings_back_plan_json_text_that_does_not_parse_yet(app: AppTest) -> None:
    review_id = _start_reviewing(app)
    broken = app.text_area(key=Keys.JSON).value.replace("450", "475") + "\n}"
    edit_json(app, broken)
    assert app.session_state[Keys.BENCH].json_error
    other = _tab()  # another tab: only the review's own work record has it
    _open(other, review_id)
    assert other.text_area(key=Keys.JSON).value == broken
    assert other.session_state[Keys.BENCH].json_error == app.session_state[Keys.BENCH].json_error
    assert "Not applied: not valid JSON" in texts(other)
    assert other.button(key="review.approve").disabled


def test_the_inspector_draws_numbers_and_bounds_a_browser_cannot_hold(app: AppTest) -> None:
    huge = 10 ** 20  # past JavaScript's safe integers: a number field cannot hold it
    tools = [{"name": "count_up", "description": "Count.", "inputSchema": {"type": "object", "properties": {
        "start": {"type": "integer", "minimum": -huge, "maximum": huge},
        "total": {"type": "integer", "maximum": huge}}}}]
    plan = {"goal": "count", "steps": [{"id": "c", "tool": "count_up", "params": {"start": huge // 2, "total": 5}}]}
    _open(app, _send({"plan": plan, "tools": tools, "agent": "counter"}))
    app.session_state[Keys.EDITOR_SELECTED] = "c"
    app.run()
    no_failures(app)
    assert "Could not show the step inspector" not in texts(app)
    revision = app.session_state[Keys.BENCH].revision
    assert app.text_input(key=f"{Keys.EDITOR_FIELD_PREFIX}c.start.{revision}").value == str(huge // 2)
    total = app.number_input(key=f"{Keys.EDITOR_FIELD_PREFIX}c.total.{revision}")
    assert total.value == 5 and total.max != huge
