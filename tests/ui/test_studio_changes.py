"""The few words a notice gives for what changed between two versions (the versions panel, a
re-plan, a save another tab beat): steps named by label (tool and short id, or the note),
params by name; references name steps by id, so a delete lists only what it changed."""

from __future__ import annotations

from core import Plan, delete_step, move_step, set_note, set_param, step_label
from studio.workbench._changes import describe_changes


def _chain(length: int) -> Plan:
    """Each step from step 2 on reads step 0 and, from step 3 on, the step before it."""
    steps = [{"id": "s0", "tool": "make_report"}, {"id": "s1", "tool": "make_report"}]
    for n in range(2, length):
        params = {"source": "${step[0].text}", "days": n}
        if n > 2:
            params["previous"] = f"${{step[{n - 1}].text}}"
        steps.append({"id": f"s{n}", "tool": "send_mail", "params": params, "depends_on": ["s0"]})
    return Plan.model_validate({"goal": "a long chain", "steps": steps})


def test_a_step_label_is_its_tool_and_short_id_or_its_note() -> None:
    plan = set_note(_chain(3), "s2", "Mail the weekly report\nto the team")
    assert step_label(plan.step("s1")) == "make_report · s1"
    assert step_label(plan.step("s2")) == "send_mail “Mail the weekly report”"
    long_id = plan.steps[0].model_copy(update={"id": "s_1a2b3c4d5e6f7a8b"})
    assert step_label(long_id) == "make_report · s_1a2b3c4d…"


def test_deleting_an_early_step_lists_only_that_step() -> None:
    plan = _chain(30)
    assert describe_changes(plan, delete_step(plan, "s1")) == "removed: make_report · s1"


def test_deleting_a_step_another_reads_lists_that_one_changed_by_param() -> None:
    plan = _chain(30)
    assert describe_changes(plan, delete_step(plan, "s2", dependents="unlink")) == \
        "removed: send_mail · s2; changed: send_mail · s3 (-previous)"


def test_a_change_is_named_param_by_param_and_a_noted_step_by_its_note() -> None:
    plan = set_note(_chain(5), "s3", "Remind the team")
    edited = set_param(set_param(plan, "s3", "days", 9), "s3", "previous", "${steps.s1.text}")
    # s3 now reads s1: depends_on lists it too (core.editing._param_edits), and the change says so.
    assert describe_changes(plan, edited) == (
        "changed: send_mail “Remind the team” (days 3 → 9, previous '${steps.s2.text}' → '${steps.s1.text}', "
        "depends_on)")


def test_a_move_is_named_and_the_steps_it_passed_are_not() -> None:
    plan = _chain(5)
    assert describe_changes(plan, move_step(plan, "s1", 4)) == "changed: make_report · s1 (moved)"
