"""Every workbench use case checks the actor's role, through the Python API: a viewer's bench
is refused editing, saving, planning and running with one clear line (nothing changes); a
reviewer may not decide a review; services-level use cases raise ``Forbidden``."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import Actor, Forbidden, Plan, Role
from studio import workbench as wb
from workbench_helpers import demo_services, texts

PLAN = Plan.model_validate({"goal": "Facilities in Berlin", "steps": [
    {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}}]})


def _actor(role: Role) -> Actor:
    return Actor(id=f"user:{role.name}@example.com", name=role.name.title(), kind="person", role=role)


def test_a_viewer_reads_but_is_refused_every_change(tmp_path: Path) -> None:
    services = demo_services(tmp_path)
    saved = services.store.save_plan(PLAN, message="first")
    bench = wb.Workbench(actor=_actor(Role.viewer))
    assert wb.open_saved_plan(bench, services, saved.plan_id).ok
    before = bench.plan
    for name, out in [("plan", wb.plan_goal(bench, services, "facilities in Hamburg")),
                      ("edit", wb.apply_edit(bench, "rename", lambda p: p.model_copy(update={"goal": "x"}))[0]),
                      ("undo", wb.undo(bench)), ("approve", wb.approve(bench, services.validator)),
                      ("save", wb.save(bench, services.store, "mine")), ("run", wb.request_run(bench, services, "all"))]:
        assert not out.ok, name
        assert any("may not" in t and "needs the reviewer role (they have viewer)" in t for t in texts(out)), name
    assert bench.plan is before and len(services.store.versions(saved.plan_id)) == 1


def test_a_reviewer_edits_and_saves_but_may_not_decide_a_review(tmp_path: Path) -> None:
    services = demo_services(tmp_path)
    review = wb.submit_review(services, {"plan": PLAN.model_dump(mode="json"), "agent": "bot"},
                              actor=_actor(Role.reviewer))
    assert services.store.get_review(review.id).submitted_by == "user:reviewer@example.com"
    bench = wb.Workbench(actor=_actor(Role.reviewer))
    assert wb.open_review(bench, services.store, review.id).ok
    out = wb.decide_review(bench, services.store, review.id, approve=True, validator=lambda: services.validator)
    assert not out.ok and "needs the approver role" in " ".join(texts(out))
    assert services.store.review_status(review.id) == "pending"
    bench.actor = _actor(Role.approver)
    assert wb.decide_review(bench, services.store, review.id, approve=True, validator=lambda: services.validator).ok


@pytest.mark.parametrize(("call", "needed"), [
    (lambda s, a: wb.submit_review(s, {"plan": PLAN.model_dump(mode="json")}, actor=a), "reviewer"),
    (lambda s, a: wb.resume_stored_run(s, "r", {}, actor=a), "reviewer"),
    (lambda s, a: wb.cancel_stored_run(s, "r", actor=a), "reviewer"),
    (lambda s, a: wb.plan_for_goal(s, "facilities in Berlin", actor=a), "reviewer"),
])
def test_services_use_cases_raise_forbidden_naming_the_role(tmp_path: Path, call, needed: str) -> None:
    services = demo_services(tmp_path)
    with pytest.raises(Forbidden) as refused:
        call(services, _actor(Role.viewer))
    assert refused.value.needed == needed
