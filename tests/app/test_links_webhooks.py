"""Issue 27, item 6, in process over a real store and a real HTTP receiver: a run that stops
with a step waiting posts one webhook carrying a signed link; the link shows what will run and
decides it once, as a signed-in person; a forged, expired, used or out-of-date link decides
nothing and says which; a submitted review posts one too; a failing receiver never breaks a run."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from core import ANONYMOUS, Actor, Forbidden, LinkRefused, Role, Settings, StepStatus
from studio import workbench as wb
from studio.workbench._api_token import ensure_token
from studio.workbench._link_signing import ensure_link_secret, read_token, sign_token
from studio.workbench._links import answer_link, open_link
from studio.workbench._services import build_services
from studio.workbench._webhook_config import (CONFIG_FILE, clear_webhook, last_delivery, save_webhook,
                                              webhook_config)
from studio.workbench._webhooks import Notifier
from webhook_receiver import receiver
from workbench_helpers import TODAY, run_until_a_marked_step_waits

ALICE = Actor("user:alice", "Alice", "person", Role.approver)
PLAN = {"goal": "Note milk", "steps": [{"id": "s1", "tool": "createList", "params": {"list": "groceries"}},
                                       {"id": "s2", "tool": "addItem", "params": {"list": "groceries", "item": "milk"},
                                        "depends_on": ["s1"]}]}


def _services(folder: Path, url: str | None, **settings):
    return build_services(Settings(data_dir=folder / "data", today=TODAY, approve_writes=True, webhook_url=url,
                                   webhook_format=settings.pop("fmt", "plain"), **settings))


def _token(post: dict) -> str:
    return post["link"].split("?link=", 1)[1]


@pytest.fixture
def waiting(tmp_path: Path):
    with receiver() as hook:
        services = _services(tmp_path, hook.url, public_url="https://studio.example.com")
        bench, marked = run_until_a_marked_step_waits(services)
        yield hook, services, bench, marked


def test_a_waiting_step_posts_one_link_that_shows_what_runs_and_decides_once(waiting) -> None:
    hook, services, bench, marked = waiting
    [post] = hook.wait_for(1)
    run = bench.run
    assert post["kind"] == "step_waiting" and (post["run_id"], post["step_id"]) == (run.id, marked)
    assert post["arguments_hash"] == wb.waiting_view(run, services.registry)[0].arguments_hash
    assert post["link"].startswith("https://studio.example.com/decide?link=")
    view = open_link(services, _token(post))
    assert view.tool == run.plan.step(marked).tool and view.arguments == run.steps[marked].arguments
    assert view.effects == "read-only" and [line.current for line in view.plan] == [False, True]
    assert run.steps[marked].decision is None, "opening a link decides nothing"

    out = answer_link(services, _token(post), approve=True, actor=ALICE)
    assert out.ok, out.notices
    decision = run.steps[marked].decision
    assert decision.approved and decision.channel == "link" and decision.actor_id == "user:alice"
    assert wb.join_stored_run(services, run.id, timeout=60)
    assert services.store.load_run(run.id).steps[marked].status == StepStatus.succeeded

    again = answer_link(services, _token(post), approve=False, actor=ALICE)
    assert not again.ok and "used already" in again.notices[0].text and "user:alice" in again.notices[0].text
    with pytest.raises(LinkRefused) as used:
        open_link(services, _token(post), actor=ALICE)
    assert used.value.why == "used"
    assert services.notifier.wait_sent(10) and len(hook.posts) == 1  # the run going on told nobody more


def test_a_forged_link_decides_nothing(waiting) -> None:
    hook, services, bench, marked = waiting
    token = _token(hook.wait_for(1)[0])
    forged = token[:10] + ("x" if token[10] != "x" else "y") + token[11:]
    out = answer_link(services, forged, approve=True, actor=ALICE)
    assert not out.ok and "not one this studio signed" in out.notices[0].text
    assert bench.run.steps[marked].decision is None and bench.run.steps[marked].status == StepStatus.waiting


def test_an_expired_link_decides_nothing(tmp_path: Path) -> None:
    with receiver() as hook:
        services = _services(tmp_path, hook.url, link_expiry=0.001)
        bench, marked = run_until_a_marked_step_waits(services)
        token = _token(hook.wait_for(1)[0])
    link = read_token(ensure_link_secret(services.settings.data_dir), token, now=0)
    while time.time() < link.expires:  # the condition itself, not a guess at how long
        time.sleep(0.001)
    out = answer_link(services, token, approve=True, actor=ALICE)
    assert not out.ok and "expired at" in out.notices[0].text
    assert bench.run.steps[marked].decision is None


def test_a_link_whose_step_changed_since_it_was_signed_decides_nothing(waiting) -> None:
    hook, services, bench, marked = waiting
    token = _token(hook.wait_for(1)[0])
    bench.run.steps[marked].arguments = {**bench.run.steps[marked].arguments, "facility_id": ["F999"]}
    with pytest.raises(LinkRefused) as changed:
        open_link(services, token)
    assert changed.value.why == "changed"
    assert not answer_link(services, token, approve=True, actor=ALICE).ok
    assert bench.run.steps[marked].decision is None


def test_a_link_made_for_another_step_is_not_taken_for_this_one(waiting) -> None:
    hook, services, bench, marked = waiting
    hook.wait_for(1)
    secret = ensure_link_secret(services.settings.data_dir)
    token, _ = sign_token(secret, "step", bench.run.id, "0" * 64, step_id=marked, expires_in=60)
    with pytest.raises(LinkRefused) as changed:
        open_link(services, token)
    assert changed.value.why == "changed"


def test_only_a_signed_in_approver_decides_from_a_link(waiting) -> None:
    hook, services, bench, marked = waiting
    token = _token(hook.wait_for(1)[0])
    for actor, said in [(ANONYMOUS, "Sign in"), (Actor("user:v", "Viewer", "person", Role.reviewer), "approver role")]:
        out = answer_link(services, token, approve=True, actor=actor)
        assert not out.ok and said in out.notices[0].text
    assert bench.run.steps[marked].decision is None
    assert open_link(services, token).tool, "a refused person does not use the link up"


def test_the_post_carries_the_link_and_no_secret_nor_the_arguments(tmp_path: Path) -> None:
    with receiver() as hook:
        services = _services(tmp_path, hook.url, fmt="slack")
        bench, marked = run_until_a_marked_step_waits(services)
        [post] = hook.wait_for(1)
    text = json.dumps(post)
    link = post["blocks"][-1]["elements"][0]["url"]
    assert "/decide?link=" in link and link in post["text"]
    assert ensure_token(services.settings.data_dir) not in text
    assert ensure_link_secret(services.settings.data_dir).hex() not in text
    assert "F001" not in text, "the arguments' values stay in the studio"
    assert hook.headers[0]["Content-Type"] == "application/json"


def test_a_submitted_review_posts_a_link_that_approves_it_once(tmp_path: Path) -> None:
    with receiver() as hook:
        services = _services(tmp_path, hook.url)
        review = wb.submit_review(services, {"plan": PLAN, "agent": "grocer <b>bot</b>"})
        [post] = hook.wait_for(1)
    assert post["kind"] == "review_submitted" and post["review_id"] == review.id and post["run_id"] is None
    view = open_link(services, _token(post))
    assert view.agent == "grocer <b>bot</b>" and [line.tool for line in view.plan] == ["createList", "addItem"]
    out = answer_link(services, _token(post), approve=True, actor=ALICE)
    assert out.ok, out.notices
    assert services.store.get_review(review.id).status == "approved"
    assert not answer_link(services, _token(post), approve=False, actor=ALICE).ok
    assert services.store.get_review(review.id).status == "approved"


def test_a_failing_receiver_is_tried_three_times_and_the_last_status_kept(tmp_path: Path) -> None:
    with receiver(statuses=[500, 503]) as hook:
        services = _services(tmp_path, hook.url)
        services.notifier = Notifier(services.settings, backoff=0.01)
        wb.submit_review(services, {"plan": PLAN, "agent": "a"})
        hook.wait_for(1)
        assert services.notifier.wait_sent(10)
    assert hook.answered == [500, 503, 200]
    delivery = last_delivery(services.settings)
    assert delivery.ok and delivery.attempts == 3 and delivery.detail == "HTTP 200"
    with receiver(statuses=[500] * 3) as hook:
        services.notifier = Notifier(services.settings.model_copy(update={"webhook_url": hook.url}), backoff=0.01)
        review = wb.submit_review(services, {"plan": PLAN, "agent": "a"})
        assert services.notifier.wait_sent(10)
    delivery = last_delivery(services.settings)
    assert not delivery.ok and delivery.attempts == 3 and delivery.detail == "HTTP 500"
    assert delivery.subject == review.id


def test_an_unreachable_webhook_never_breaks_the_run(tmp_path: Path) -> None:
    with receiver() as hook:
        closed = hook.url  # closed when the block ends: nothing listens there any more
    services = _services(tmp_path, closed)
    services.notifier = Notifier(services.settings, backoff=0.01)
    services.runs.on_held = lambda run: services.notifier.steps_waiting(services.registry, run)
    bench, marked = run_until_a_marked_step_waits(services)
    assert bench.run.steps[marked].status == StepStatus.waiting
    assert services.notifier.wait_sent(30)
    delivery = last_delivery(services.settings)
    assert not delivery.ok and delivery.detail.startswith("not delivered")


def test_the_webhook_saved_on_settings_wins_is_private_and_an_admins_change(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", webhook_url="http://127.0.0.1:1/env")
    assert webhook_config(settings).source == "setting"
    admin = Actor("user:root", "Root", "person", Role.admin)
    with pytest.raises(Forbidden):
        save_webhook(settings, "https://hooks.example.com/x", "slack", actor=ALICE)
    with pytest.raises(ValueError, match="http:// or https://"):
        save_webhook(settings, "file:///etc/passwd", "slack", actor=admin)
    saved = save_webhook(settings, "https://hooks.example.com/T0/B0/secret", "plain", actor=admin)
    assert (saved.url, saved.format, saved.source) == ("https://hooks.example.com/T0/B0/secret", "plain",
                                                       "settings page")
    assert stat.S_IMODE((settings.data_dir / CONFIG_FILE).stat().st_mode) == 0o600
    assert clear_webhook(settings, actor=admin).source == "setting"


def test_a_step_still_waiting_on_the_next_pass_is_not_announced_again(waiting) -> None:
    hook, services, bench, marked = waiting
    hook.wait_for(1)
    services.notifier.steps_waiting(services.registry, bench.run)  # the run held again, nothing new
    assert services.notifier.wait_sent(10) and len(hook.posts) == 1
    bench.run.steps[marked].arguments = {"facility_id": ["F002"], "has_contaminants": True}  # other arguments
    services.notifier.steps_waiting(services.registry, bench.run)
    assert len(hook.wait_for(2)) == 2 and hook.posts[1]["arguments_hash"] != hook.posts[0]["arguments_hash"]


def test_two_clicks_on_one_link_at_once_decide_once(waiting) -> None:
    from concurrent.futures import ThreadPoolExecutor

    hook, services, bench, marked = waiting
    token = _token(hook.wait_for(1)[0])
    with ThreadPoolExecutor(2) as pool:
        outs = list(pool.map(lambda approve: answer_link(services, token, approve=approve, actor=ALICE),
                             [True, False]))
    assert sorted(o.ok for o in outs) == [False, True]
    loser = next(o for o in outs if not o.ok)
    assert "used already" in loser.notices[0].text or "no longer waits" in loser.notices[0].text
    decided = next(o for o in outs if o.ok)
    assert bench.run.steps[marked].decision.approved == ("Approved" in decided.notices[-1].text)
    wb.join_stored_run(services, bench.run.id, timeout=60)
