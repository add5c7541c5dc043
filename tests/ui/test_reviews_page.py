"""The Reviews page and the Plan page's review bar, through AppTest: a review an agent sent is
listed (escaped, pending first), opened into the editor, edited and approved or rejected."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from apptest_helpers import PLAN, edit_json, make_plan, no_failures, texts
from core import Plan, load_plan
from studio import Keys, get_services
from studio.workbench._api_token import ensure_token
from studio.workbench import submit_review
from studio.ui._text import md_escape

REVIEWS = "../pages/reviews.py"

SENT = {"goal": "Find contaminated shipments", "steps": [
    {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}},
    {"id": "ship", "tool": "shipments_list", "params": {"has_contaminants": True, "facility_id": "${step[0].data.*.id}"},
     "depends_on": ["fac"]},
]}


def _send(body: dict) -> str:
    return submit_review(get_services(), body).id


def test_pending_reviews_come_first_and_untrusted_text_is_escaped(app: AppTest) -> None:
    first = _send({"plan": SENT, "agent": "early-bot"})
    get_services().store.decide_review(first, approve=False, comment="no")
    hostile = dict(SENT, goal="![x](http://evil.example/a.png) **loud**")
    second = _send({"plan": hostile, "agent": "[bot](http://evil.example)"})
    app.switch_page(REVIEWS).run()
    no_failures(app)
    shown = "\n".join(str(m.value) for m in app.markdown)
    # Drawn as the characters sent (links as inline code), never as an image or a link.
    assert md_escape(hostile["goal"]) in shown and md_escape("[bot](http://evil.example)") in shown
    assert "1 pending · 2 in all" in texts(app)
    keys = [b.key for b in app.button if b.key and b.key.startswith("reviews.open.")]
    assert keys == [f"reviews.open.{second}", f"reviews.open.{first}"]


def test_a_review_opened_edited_and_approved_goes_back_with_the_edit(app: AppTest) -> None:
    review_id = _send({"plan": SENT, "agent": "shipping-bot"})
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()  # AppTest does not follow st.switch_page on its own
    no_failures(app)
    assert "from **shipping-bot**" in texts(app)
    assert app.session_state[Keys.BENCH].plan.goal == SENT["goal"]
    assert "No changes to the plan as sent." in texts(app)

    edit_json(app, app.text_area(key=Keys.JSON).value.replace('"Berlin"', '"Leipzig"'))
    assert "Your changes: facilities_list · fac edited" in texts(app)
    app.text_input(key="review.comment").input("Leipzig, not Berlin").run()
    app.button(key="review.approve").click().run()
    no_failures(app)
    assert "Approved and sent back to shipping-bot, with your edits; saved as version 1 of this plan." in texts(app)

    review = get_services().store.get_review(review_id)
    assert review.status == "approved" and review.comment == "Leipzig, not Berlin"
    assert review.approved_plan is not None and review.approved_plan.steps[0].params == {"location": "Leipzig"}
    assert [(d.step_id, d.decision) for d in review.decisions] == [("fac", "edited"), ("ship", "approved")]
    assert get_services().store.load_plan(review.plan_id, review.version) == review.approved_plan
    assert app.button(key="review.close")  # decided: only Close is left
    assert not [b for b in app.button if b.key == "review.approve"]


def test_a_review_approved_unchanged_is_said_to_go_back_as_sent(app: AppTest) -> None:
    review_id = _send({"plan": SENT, "agent": "shipping-bot"})
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()
    app.button(key="review.approve").click().run()
    no_failures(app)
    assert "Approved and sent back to shipping-bot as sent; saved as version 1 of this plan." in texts(app)
    assert not any("with your edits" in text for text in texts(app))


def test_a_rejected_review_keeps_the_comment_and_stores_no_version(app: AppTest) -> None:
    review_id = _send({"plan": SENT, "agent": "bot"})
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()
    app.text_input(key="review.comment").input("too broad").run()
    app.button(key="review.reject").click().run()
    no_failures(app)
    review = get_services().store.get_review(review_id)
    assert (review.status, review.comment, review.plan_id) == ("rejected", "too broad", None)
    assert {d.decision for d in review.decisions} == {"rejected"}
    assert get_services().store.list_plans() == []


def test_another_plan_in_the_editor_ends_the_review_so_it_cannot_be_approved_by_mistake(app: AppTest) -> None:
    review_id = _send({"plan": SENT, "agent": "bot"})
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()
    assert app.button(key="review.approve")
    make_plan(app, "Get inspections in Hamburg")  # a plan the agent never sent
    no_failures(app)
    assert not [b for b in app.button if b.key == "review.approve"]
    assert get_services().store.get_review(review_id).status == "pending"  # still waiting in Reviews


def test_a_plan_using_the_agents_own_tools_is_checked_against_their_definitions(app: AppTest) -> None:
    tools = [{"name": "send_mail", "description": "Send a mail",
              "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}}]
    plan = {"goal": "mail", "steps": [{"id": "m", "tool": "send_mail", "params": {"to": 42}}]}
    review_id = _send({"plan": plan, "tools": tools, "agent": "mailer"})
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()
    no_failures(app)
    said = texts(app)
    assert "unknown tool" not in said
    assert "params.to: must be text (got 42)" in said
    assert "agent's own tools (send_mail)" in said
    # The field itself, not every "42" in the text: the plan's created_at (the real clock) has
    # one at minute or second 42, and replacing that broke the JSON (a flake, 1 run in ~30).
    edited = json.loads(app.text_area(key=Keys.JSON).value)
    edited["steps"][0]["params"]["to"] = "ops@example.com"
    edit_json(app, json.dumps(edited, indent=2))
    assert "No problems found" in texts(app)


def test_a_review_link_opens_the_review(app: AppTest) -> None:
    review_id = _send({"plan": json.dumps(SENT), "agent": "bot"})
    app.query_params["review"] = review_id
    app.switch_page(REVIEWS).run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].review_id == review_id
    assert app.session_state[Keys.BENCH].plan == load_plan(json.dumps(SENT), "native").model_copy(
        update={"metadata": app.session_state[Keys.BENCH].plan.metadata})
    assert isinstance(app.session_state[Keys.BENCH].plan, Plan)


def test_settings_shows_the_api_token_only_when_asked_and_keeps_it_private(app: AppTest) -> None:
    app.switch_page("../pages/settings.py").run()
    no_failures(app)
    token = ensure_token(get_services().settings.data_dir)  # the studio's start makes it
    token_file = get_services().settings.data_dir / "api-token"
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    # Not drawn at all until asked for: a page that could watch this one would see nothing.
    assert token not in texts(app)
    assert [c.value for c in app.code] == []

    app.button(key="settings.token.reveal").click().run()
    assert [c.value for c in app.code] == [token]
    app.button(key="settings.token.hide").click().run()
    assert [c.value for c in app.code] == []


def test_the_plain_approve_checks_the_agents_own_tools_as_the_page_does(app: AppTest) -> None:
    """One truth: the problems listed, Approve's enabled state and Approve's own check all count
    the agent's tools, so an Approve the page offers is not refused for "unknown tool"."""
    tools = [{"name": "send_mail", "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}}}]
    plan = {"goal": "mail", "steps": [{"id": "m", "tool": "send_mail", "params": {"to": "ops@example.com"}}]}
    review_id = _send({"plan": plan, "tools": tools, "agent": "mailer"})
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()
    assert "No problems found" in texts(app)
    assert not app.button(key="plan.approve").disabled

    app.button(key="plan.approve").click().run()
    no_failures(app)
    assert not [e.value for e in app.error]  # on main: "The plan has 1 problem(s)" (unknown tool)
    assert not app.button(key="plan.run_all").disabled  # approved, not refused

    # A value the agent's schema refuses: listed, and Approve waits, by the same tools.
    sent = json.loads(app.text_area(key=Keys.JSON).value)
    sent["steps"][0]["params"]["to"] = 7
    edit_json(app, json.dumps(sent, indent=2))
    assert "params.to: must be text (got 7)" in texts(app)
    assert app.button(key="plan.approve").disabled and app.button(key="plan.run_all").disabled


def test_deleting_one_step_of_a_long_review_in_the_editor_lists_and_sends_back_only_that_step(app: AppTest) -> None:
    # Steps 16 to 29 read steps 2 to 15, written by position as an agent may send them: read
    # as ids, so deleting step 1 changes no other step.
    steps = [{"id": f"s{n}", "tool": "facilities_list", "params": {"location": f"City {n}"}} for n in range(16)]
    steps += [{"id": f"s{n}", "tool": "shipments_list",
               "params": {"has_contaminants": True, "facility_id": f"${{step[{n - 14}].data.*.id}}"}}
              for n in range(16, 30)]
    review_id = _send({"plan": {"goal": "a long chain", "steps": steps}, "agent": "long-bot"})
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()
    app.session_state[Keys.EDITOR_SELECTED] = "s1"
    app.run()
    app.button(key="editor.delete_step").click().run()
    no_failures(app)
    edited = app.session_state[Keys.BENCH].plan
    assert [s.id for s in edited.steps] == ["s0", *(f"s{n}" for n in range(2, 30))]
    # references name steps by id: the delete rewrote no other step
    sent = Plan.model_validate({"steps": steps})
    assert [s.params for s in edited.steps] == [s.params for s in sent.steps if s.id != "s1"]
    assert edited.step("s16").params["facility_id"] == "${steps.s2.data.*.id}"
    assert [line for line in texts(app).splitlines() if line.startswith("Your changes")] == \
        ["Your changes: facilities_list · s1 removed"]
    app.button(key="review.approve").click().run()
    no_failures(app)
    decisions = {d.step_id: d.decision for d in get_services().store.get_review(review_id).decisions}
    assert decisions == {s["id"]: "removed" if s["id"] == "s1" else "approved" for s in steps}
