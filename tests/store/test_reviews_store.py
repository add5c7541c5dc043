"""Reviews in the plan store, on real SQLite files: submitted, listed, decided once, with a
decision per step and the approved plan saved as a version; agents' tool definitions."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core import (NotFound, Plan, ReviewDecided, ReviewRequestError, ToolRegistry, Validator,
                  parse_tool_definitions, with_declared_tools)
from core.storage import PlanStore, step_decisions

PLAN = Plan.model_validate({"goal": "mail the report", "steps": [
    {"id": "a", "tool": "make_report", "params": {"days": 7}},
    {"id": "b", "tool": "send_mail", "params": {"to": "ops@example.com", "body": "${step[0].text}"},
     "depends_on": ["a"]},
]})


@pytest.fixture
def store(store_location: str | Path) -> PlanStore:
    with PlanStore(store_location) as opened:
        yield opened


def _submit(store: PlanStore, agent: str = "bot", plan: Plan = PLAN) -> str:
    return store.submit_review(plan, agent=agent, fmt="native", original_text=plan.model_dump_json()).id


def test_a_submitted_review_reads_back_whole_and_pending(store: PlanStore) -> None:
    tools = [{"name": "send_mail", "description": "d", "inputSchema": {"type": "object"}}]
    review_id = store.submit_review(PLAN, agent="bot", fmt="teams", original_text="TEXT", tools=tools).id
    review = store.get_review(review_id)
    assert (review.agent, review.status, review.format, review.original_text, review.goal) == \
        ("bot", "pending", "teams", "TEXT", "mail the report")
    assert review.plan == PLAN and review.tools == tools
    assert (review.decisions, review.approved_plan, review.plan_id, review.comment) == ([], None, None, "")
    assert store.review_status(review_id) == "pending"
    with pytest.raises(NotFound, match="no review with id 'nope'"):
        store.get_review("nope")


def test_the_list_puts_pending_first_then_the_newest(store: PlanStore) -> None:
    old, decided, new = (_submit(store, agent) for agent in ("old", "decided", "new"))
    store.decide_review(decided, approve=False)
    assert [r.id for r in store.list_reviews()] == [new, old, decided]
    assert [r.id for r in store.list_reviews("pending")] == [new, old]
    assert (store.count_reviews(), store.count_reviews("pending"), store.count_reviews("rejected")) == (3, 2, 1)
    assert [r.step_count for r in store.list_reviews(limit=1)] == [2]


def test_approving_with_edits_saves_the_version_and_a_decision_per_step(store: PlanStore) -> None:
    review_id = _submit(store)
    edited = PLAN.model_copy(update={"steps": [
        PLAN.steps[0].model_copy(update={"params": {"days": 30}}),
        Plan.model_validate({"goal": "", "steps": [{"id": "c", "tool": "archive"}]}).steps[0],
    ]})
    review = store.decide_review(review_id, approve=True, plan=edited, comment="30 days; archive, no mail")
    assert (review.status, review.comment) == ("approved", "30 days; archive, no mail")
    assert review.approved_plan == edited and review.plan == PLAN  # what was sent is kept too
    assert [(d.step_id, d.decision) for d in review.decisions] == [("a", "edited"), ("b", "removed"), ("c", "added")]
    assert store.load_plan(review.plan_id, review.version) == edited
    assert "approved in review" in store.versions(review.plan_id)[-1].message


def test_approving_onto_a_saved_plan_adds_its_next_version(store: PlanStore) -> None:
    saved = store.save_plan(PLAN, message="saved while reviewing")
    review = store.decide_review(_submit(store), approve=True, plan=PLAN.model_copy(update={"goal": "renamed"}),
                                 plan_id=saved.plan_id)
    assert (review.plan_id, review.version) == (saved.plan_id, 2)
    assert [(d.step_id, d.decision) for d in review.decisions] == [("a", "approved"), ("b", "approved")]


def test_a_rejection_rejects_every_step_and_saves_nothing(store: PlanStore) -> None:
    review = store.decide_review(_submit(store), approve=False, comment="no")
    assert {d.decision for d in review.decisions} == {"rejected"} and len(review.decisions) == 2
    assert (review.plan_id, review.approved_plan, store.list_plans()) == (None, None, [])


def test_a_review_is_decided_once_even_by_two_reviewers_at_once(tmp_path: Path) -> None:
    path = tmp_path / "studio.sqlite3"
    with PlanStore(path) as first, PlanStore(path) as second:
        review_id = _submit(first)
        barrier = threading.Barrier(2)

        def decide(store: PlanStore, approve: bool) -> str:
            barrier.wait()
            try:
                return store.decide_review(review_id, approve=approve, plan=PLAN).status
            except ReviewDecided as exc:
                return f"refused: already {exc.status}"

        with ThreadPoolExecutor(2) as pool:
            outcomes = sorted(pool.map(decide, [first, second], [True, False]))
        winner = first.get_review(review_id).status
        assert outcomes == sorted([winner, f"refused: already {winner}"])
        assert len(first.get_review(review_id).decisions) == 2  # one decision's rows, not two
        assert first.count_plans() == (1 if winner == "approved" else 0)


def test_a_hundred_concurrent_submissions_from_two_processes_worth_of_stores_are_all_kept(tmp_path: Path) -> None:
    path = tmp_path / "studio.sqlite3"
    with PlanStore(path) as first, PlanStore(path) as second:
        with ThreadPoolExecutor(16) as pool:
            ids = list(pool.map(lambda n: _submit(first if n % 2 else second, f"agent-{n}"), range(100)))
        assert len(set(ids)) == 100
        assert first.count_reviews() == 100
        assert sorted(r.agent for r in second.list_reviews()) == sorted(f"agent-{n}" for n in range(100))


def test_step_decisions_ignore_locks() -> None:
    locked = PLAN.model_copy(update={"steps": [s.model_copy(update={"locked": True}) for s in PLAN.steps]})
    assert {d.decision for d in step_decisions(PLAN, locked, approved=True)} == {"approved"}


# -- the agent's own tool definitions -----------------------------------------------------------

MAIL = {"name": "send_mail", "description": "Send a mail",
        "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
                        "required": ["to"], "additionalProperties": False}}
REPORT = {"name": "make_report", "description": "",
          "inputSchema": {"type": "object", "properties": {"days": {"type": "integer", "minimum": 1}}},
          "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}


def test_a_plan_is_checked_against_the_agents_tool_definitions() -> None:
    registry = with_declared_tools(ToolRegistry(), parse_tool_definitions([MAIL, REPORT]))
    assert Validator(registry).validate(PLAN) == []
    bad = Plan.model_validate({"goal": "g", "steps": [
        {"id": "a", "tool": "make_report", "params": {"days": 0}},
        {"id": "b", "tool": "send_mail", "params": {"cc": "x", "body": "${step[0].pages}"}, "depends_on": ["a"]},
    ]})
    found = {(p.step_index, p.field, p.message) for p in Validator(registry).validate(bad)}
    assert (0, "params.days", "must be at least 1 (got 0)") in found
    assert (1, "params.cc", "is not a parameter of this tool") in found
    assert (1, "params.to", "required parameter is missing") in found
    assert any(i == 1 and f == "params.body" and "no field 'pages'" in m for i, f, m in found)


def test_a_declared_tool_cannot_be_run_here() -> None:
    registry = with_declared_tools(ToolRegistry(), parse_tool_definitions([MAIL]))
    with pytest.raises(Exception, match="only the agent can run it"):
        registry.get("send_mail").call({"to": "x"})


@pytest.mark.parametrize(("tools", "field"), [
    ({"name": "x"}, "tools"),
    ([{"description": "no name"}], "tools[0].name"),
    ([MAIL, MAIL], "tools[1].name"),
    ([{"name": "x", "inputSchema": {"type": "nonsense"}}], "tools[0].inputSchema.type"),
    ([{"name": "x", "outputSchema": []}], "tools[0].outputSchema"),
])
def test_broken_tool_definitions_are_refused_naming_the_field(tools: object, field: str) -> None:
    with pytest.raises(ReviewRequestError) as caught:
        parse_tool_definitions(tools)
    assert caught.value.field == field


def _chain(length: int) -> Plan:
    """Steps that read earlier ones (written by position, as an agent sends them): each from step 0 and from the step before it;
    step 1 is read by none, step 2 only by step 3."""
    steps = [{"id": "s0", "tool": "make_report", "params": {"days": 7}},
             {"id": "s1", "tool": "make_report", "params": {"days": 1}}]
    for n in range(2, length):
        params = {"source": "${step[0].text}", "days": n}
        if n > 2:
            params["previous"] = f"${{step[{n - 1}].text}}"
        steps.append({"id": f"s{n}", "tool": "send_mail", "params": params,
                      "depends_on": ["s0"] + ([f"s{n - 1}"] if n > 2 else [])})
    return Plan.model_validate({"goal": "a long chain", "steps": steps})


def test_deleting_one_early_step_of_thirty_leaves_every_other_step_approved(store: PlanStore) -> None:
    from core import delete_step
    sent = _chain(30)
    review_id = _submit(store, plan=sent)
    edited = delete_step(sent, "s1")  # as the editor deletes
    # references name steps by id: the delete rewrote no other step
    assert [s.params for s in edited.steps] == [s.params for s in sent.steps if s.id != "s1"]
    review = store.decide_review(review_id, approve=True, plan=edited)
    decisions = {d.step_id: d.decision for d in review.decisions}
    assert decisions == {s.id: "removed" if s.id == "s1" else "approved" for s in sent.steps}


def test_deleting_a_step_others_read_marks_only_those_edited() -> None:
    from core import delete_step
    sent = _chain(30)
    edited = delete_step(sent, "s2", dependents="unlink")  # s3 loses its param reading s2
    decisions = {d.step_id: d.decision for d in step_decisions(sent, edited, approved=True)}
    assert {i for i, d in decisions.items() if d != "approved"} == {"s2", "s3"}
    assert (decisions["s2"], decisions["s3"]) == ("removed", "edited")


def test_a_reference_pointed_at_another_step_is_an_edit_even_where_its_text_is_unchanged() -> None:
    from core import move_step
    sent = _chain(5)
    # s3 reads step[2] (s2); after s1 and s2 swap places it still reads step[2], now s1.
    swapped = move_step(sent, "s2", 1)
    swapped = swapped.model_copy(update={"steps": [
        s.model_copy(update={"params": {**s.params, "previous": "${step[2].text}"}}) if s.id == "s3" else s
        for s in swapped.steps]})
    decisions = {d.step_id: d.decision for d in step_decisions(sent, swapped, approved=True)}
    assert decisions["s3"] == "edited"
    assert decisions["s4"] == "approved"


def test_a_step_the_reviewer_wrote_anew_is_added_even_where_it_matches_one_removed() -> None:
    # The agent knows its steps by the ids it sent: the same call under a new id is not its step.
    again = PLAN.steps[1].model_copy(update={"id": "b2"})
    decisions = step_decisions(PLAN, PLAN.model_copy(update={"steps": [PLAN.steps[0], again]}), approved=True)
    assert [(d.step_id, d.decision) for d in decisions] == [("a", "approved"), ("b", "removed"), ("b2", "added")]
