"""The few words a notice gives for what changed between two versions (the versions panel, a
re-plan, a save another tab beat): steps named by label, params by name, references by the
step they name, so a delete does not list the steps it only renumbered."""

from __future__ import annotations

from core import Plan, delete_step, move_step
from studio._changes import describe_changes


def _chain(length: int) -> Plan:
    """Each step from step 2 on reads step 0 and, from step 3 on, the step before it."""
    steps = [{"id": "s0", "tool": "make_report"}, {"id": "s1", "tool": "make_report"}]
    for n in range(2, length):
        params = {"source": "${step[0].text}", "days": n}
        if n > 2:
            params["previous"] = f"${{step[{n - 1}].text}}"
        steps.append({"id": f"s{n}", "tool": "send_mail", "params": params, "depends_on": ["s0"]})
    return Plan.model_validate({"goal": "a long chain", "steps": steps})


def test_deleting_an_early_step_lists_only_that_step() -> None:
    plan = _chain(30)
    assert describe_changes(plan, delete_step(plan, "s1")) == "removed: step 1 (make_report)"


def test_deleting_a_step_another_reads_lists_that_one_changed_by_param() -> None:
    plan = _chain(30)
    assert describe_changes(plan, delete_step(plan, "s2", dependents="unlink")) == \
        "removed: step 2 (send_mail); changed: step 2 (send_mail) (-previous)"


def test_a_reference_pointed_at_another_step_is_a_change_though_its_text_is_the_same() -> None:
    plan = _chain(5)
    swapped = move_step(plan, "s2", 1)  # s3's reference follows s2 to step[1]
    retargeted = swapped.model_copy(update={"steps": [
        s.model_copy(update={"params": {**s.params, "previous": "${step[2].text}"}}) if s.id == "s3" else s
        for s in swapped.steps]})
    assert describe_changes(plan, retargeted) == \
        "changed: step 2 (make_report) (moved), step 3 (send_mail) (previous now reads another step)"
