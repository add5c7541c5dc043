"""Work survives: a tab's draft in the store and its URL bring the plan back after a reload, a
link opens a saved plan with its run, and the Library opens saved runs (AppTest; the browser
tests in test_browser_drafts.py do it in Chromium)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core import Settings, StepStatus
from core.storage import PlanStore
from studio import Keys
from studio.ui import _drafts

from apptest_helpers import APP, LIBRARY, PLAN, edit_json, make_plan, no_failures, run_plan, texts


def _reload(params: dict[str, str]) -> AppTest:
    """A new session (a reloaded tab, or another browser) opening the studio at ``params``."""
    tab = AppTest.from_file(str(APP), default_timeout=60)
    for name, value in params.items():
        tab.query_params[name] = value
    tab.run()
    no_failures(tab)
    return tab


def _store() -> PlanStore:
    return PlanStore(Settings.from_env().store_path)


def _url(at: AppTest) -> dict[str, str]:
    return {name: str(value[0] if isinstance(value, list) else value) for name, value in at.query_params.items()}


def test_every_tab_gets_its_own_draft_named_in_its_url(app: AppTest) -> None:
    draft_id = app.session_state[Keys.DRAFT_ID]
    assert _url(app) == {"draft": draft_id}
    other = _reload({})
    assert other.session_state[Keys.DRAFT_ID] not in (None, draft_id)
    # Nothing typed yet: nothing is written.
    with _store() as store:
        assert store.load_draft(draft_id) is None


def test_a_reload_brings_back_goal_plan_unsaved_broken_edit_approval_and_run(app: AppTest) -> None:
    plan = make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "next")
    run = app.session_state[Keys.BENCH].run
    assert run.steps[plan.steps[0].id].status == StepStatus.succeeded
    broken = app.session_state[Keys.JSON].replace('"Berlin"', '"Munich"') + "\n}"
    edit_json(app, broken)
    assert app.session_state[Keys.BENCH].json_error
    app.text_area(key=Keys.FEEDBACK).input("only high risk").run()

    back = _reload(_url(app))
    assert back.session_state[Keys.DRAFT_ID] == app.session_state[Keys.DRAFT_ID]
    assert back.session_state[Keys.GOAL] == app.session_state[Keys.GOAL]
    assert back.session_state[Keys.JSON] == broken
    assert back.session_state[Keys.BENCH].json_error == app.session_state[Keys.BENCH].json_error
    assert back.session_state[Keys.BENCH].plan == plan
    assert back.session_state[Keys.BENCH].approved == app.session_state[Keys.BENCH].approved
    assert back.session_state[Keys.BENCH].run == run
    assert back.session_state[Keys.FEEDBACK] == "only high risk"
    assert "Not applied: not valid JSON" in texts(back)
    assert back.text_area(key=Keys.JSON).value == broken
    # Fixing the text in the restored tab takes it, as in the tab it came from.
    edit_json(back, broken.removesuffix("\n}"))
    assert back.session_state[Keys.BENCH].json_error is None
    assert back.session_state[Keys.BENCH].plan.steps[0].params["location"] == "Munich"


def test_a_goal_typed_but_not_planned_comes_back_alone(app: AppTest) -> None:
    # The goal box sends its text on Enter or Plan (a form): a goal the planner cannot read is
    # kept without a plan.
    app.text_input(key=Keys.GOAL).input("zzqx blorp")
    app.button(key="plan.make").click().run()
    assert app.session_state[Keys.BENCH].plan is None
    back = _reload(_url(app))
    assert back.session_state[Keys.GOAL] == "zzqx blorp"
    assert back.session_state[Keys.BENCH].plan is None
    assert back.text_input(key=Keys.GOAL).value == "zzqx blorp"


def test_a_rerun_that_changed_nothing_writes_no_draft(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[str] = []
    original = PlanStore.save_draft

    def counting(self: PlanStore, draft_id: str, content: str):
        writes.append(content)
        return original(self, draft_id, content)

    monkeypatch.setattr(PlanStore, "save_draft", counting)
    make_plan(app)
    assert len(writes) == 1
    app.run()
    app.run()
    assert len(writes) == 1
    edit_json(app, app.session_state[Keys.JSON].replace('"Berlin"', '"Munich"'))
    assert len(writes) == 2
    assert "Munich" in json.loads(writes[-1])["json"]


def test_a_saved_plans_url_brings_it_back_with_its_run_without_the_draft(app: AppTest) -> None:
    make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app)
    app.button(key="plan.save").click().run()
    no_failures(app)
    saved = app.session_state[Keys.BENCH].saved
    run = app.session_state[Keys.BENCH].run
    app.run()
    url = _url(app)
    assert url == {"draft": app.session_state[Keys.DRAFT_ID], "plan": saved.plan_id,
                   "version": str(saved.version), "run": run.id}

    fresh = _reload({k: v for k, v in url.items() if k != "draft"})
    assert fresh.session_state[Keys.DRAFT_ID] != app.session_state[Keys.DRAFT_ID]
    assert fresh.session_state[Keys.BENCH].saved == saved
    assert fresh.session_state[Keys.BENCH].plan == app.session_state[Keys.BENCH].plan
    assert fresh.session_state[Keys.BENCH].run.id == run.id
    assert fresh.session_state[Keys.BENCH].run.status == "succeeded"
    assert fresh.session_state[Keys.BENCH].run_saved == run.id
    # A draft id nobody wrote (pruned, say) falls back to the saved plan too.
    pruned = _reload({**url, "draft": "0123456789abcdef"})
    assert pruned.session_state[Keys.BENCH].saved == saved


def test_a_link_to_a_plan_that_is_gone_says_so(app: AppTest) -> None:
    gone = _reload({"plan": "deadbeef", "version": "1"})
    assert gone.session_state[Keys.BENCH].plan is None
    assert "Could not open the plan: no plan with id 'deadbeef'" in texts(gone)


def test_an_unreadable_draft_is_reported_and_the_page_still_works(app: AppTest) -> None:
    with _store() as store:
        store.save_draft("00000000000000aa", "{not json")
    broken = _reload({"draft": "00000000000000aa"})
    assert "could not be brought back: its draft is unreadable" in texts(broken)
    make_plan(broken)


def test_a_draft_whose_plan_no_longer_loads_keeps_the_text_in_the_json_panel(app: AppTest) -> None:
    text = '{"goal": "g", "steps": [{"id": "a", "tool": "facilities_list", "params": {}}'  # cut short
    content = {"format": 1, "goal": "g", "json": text, "plan": {"goal": "g", "steps": "not a list"},
               "approved": True, "saved": {"plan_id": "gone", "version": 3}, "run": {"id": 5}}
    with _store() as store:
        store.save_draft("00000000000000bb", json.dumps(content))
    tab = _reload({"draft": "00000000000000bb"})
    said = texts(tab)
    assert "its plan no longer loads" in said
    assert "its saved version is gone" in said
    assert tab.session_state[Keys.JSON] == text
    assert tab.text_area(key=Keys.JSON).value == text
    assert tab.session_state[Keys.BENCH].json_error
    assert tab.session_state[Keys.BENCH].saved is None
    assert tab.session_state[Keys.BENCH].run is None


def test_a_draft_held_by_an_open_tab_is_copied_not_shared(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    make_plan(app)
    first_id = app.session_state[Keys.DRAFT_ID]
    monkeypatch.setattr(_drafts, "_held_elsewhere", lambda draft_id, session_id: True)
    second = _reload(_url(app))
    second_id = second.session_state[Keys.DRAFT_ID]
    assert second_id != first_id
    assert _url(second)["draft"] == second_id
    assert second.session_state[Keys.BENCH].plan == app.session_state[Keys.BENCH].plan
    edit_json(second, second.session_state[Keys.JSON].replace('"Berlin"', '"Munich"'))
    with _store() as store:
        assert "Munich" in store.load_draft(second_id).content
        assert "Munich" not in store.load_draft(first_id).content


def test_the_library_opens_a_plan_with_its_latest_run_and_any_saved_run(app: AppTest) -> None:
    make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "next")
    app.button(key="plan.save").click().run()
    paused = app.session_state[Keys.BENCH].run
    assert paused.status == "paused"
    run_plan(app, "all")
    finished = app.session_state[Keys.BENCH].run
    assert finished.id == paused.id and finished.status == "succeeded"
    run_plan(app, "all")  # a new run after the finished one: asked first, as Run next step is
    assert app.session_state[Keys.BENCH].run is finished and app.session_state[Keys.BENCH].confirm_new_run == "all"
    app.button(key="plan.new_run.confirm").click().run()
    worker = app.session_state[Keys.BENCH].worker
    assert worker is None or worker.join(60)  # None: the run ended and was collected within that rerun
    app.run()
    newest = app.session_state[Keys.BENCH].run
    assert newest.id != paused.id
    saved = app.session_state[Keys.BENCH].saved
    with _store() as store:
        runs = store.list_runs(saved.plan_id)
    assert [r.id for r in runs] == [newest.id, paused.id]

    make_plan(app, "Get facilities in Munich")  # another plan in the editor
    app.switch_page(LIBRARY).run()
    no_failures(app)
    app.button(key=f"library.open.{saved.plan_id}").click().run()
    app.switch_page(PLAN).run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].saved == saved
    assert app.session_state[Keys.BENCH].run.id == newest.id
    assert "Its latest run is shown below (succeeded)" in texts(app)

    app.switch_page(LIBRARY).run()
    app.button(key=f"library.open_run.{paused.id}").click().run()
    app.switch_page(PLAN).run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].run.id == paused.id
    assert f"Opened run {paused.id} (succeeded) of version 1" in texts(app)


def test_a_run_stored_mid_run_is_interrupted_in_the_library_and_opens_as_interrupted(app: AppTest) -> None:
    plan = make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "next")
    app.button(key="plan.save").click().run()
    saved = app.session_state[Keys.BENCH].saved
    run = app.session_state[Keys.BENCH].run.model_copy(deep=True)
    run.steps[plan.steps[1].id].status = StepStatus.running  # stored while a step ran
    with _store() as store:
        store.save_run(run, plan_id=saved.plan_id, version=saved.version)

    app.switch_page(LIBRARY).run()
    no_failures(app)
    said = texts(app)
    assert f"Run {run.id} · version 1" in said
    assert "interrupted (1 of 2 steps done)" in said  # nothing runs it now: cut off, to resume
    assert "1 running" not in said and "**running**" not in said
    app.button(key=f"library.open_run.{run.id}").click().run()
    app.switch_page(PLAN).run()
    no_failures(app)
    opened = app.session_state[Keys.BENCH].run
    assert opened.steps[plan.steps[1].id].status == StepStatus.interrupted
    assert "interrupted, 1 of 2 steps done" in texts(app)


def test_a_reload_during_a_run_keeps_the_run(app: AppTest) -> None:
    """The reloaded tab picks up the run its old session started (or, had it ended before
    the reload, the run as the draft kept it): either way the run is not lost."""
    make_plan(app)
    app.button(key="plan.approve").click().run()
    app.button(key="plan.run_all").click().run()  # started; this session never collects it
    no_failures(app)
    worker = app.session_state[Keys.BENCH].worker
    run_id = worker.run_id if worker is not None else app.session_state[Keys.BENCH].run.id

    back = _reload(_url(app))
    picked_up = back.session_state[Keys.BENCH].worker
    if picked_up is not None:
        assert picked_up.join(60), "the run did not finish"
        back.run()
        no_failures(back)
    assert back.session_state[Keys.BENCH].worker is None
    run = back.session_state[Keys.BENCH].run
    assert run.id == run_id and run.status == "succeeded"


def test_a_tab_reloaded_after_its_durable_run_went_on_shows_the_run_as_stored(app: AppTest) -> None:
    """The tab's draft keeps the run as it was when written; a durable run goes on after it
    (the studio stopped mid-run and was resumed elsewhere, say): reloaded, the tab shows the
    run as the store has it, not the draft's older copy."""
    plan = make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "next")
    run = app.session_state[Keys.BENCH].run
    second = plan.steps[1].id
    assert run.steps[second].status == StepStatus.pending
    with _store() as store:  # the run went on: its second step recorded, as a durable run writes it
        store.records.step_started(run.id, second, {"x": 1}, run.started_at)
    back = _reload(_url(app))
    shown = back.session_state[Keys.BENCH].run
    assert shown.id == run.id and shown.steps[second].status == StepStatus.interrupted


def _draft(draft_id: str) -> dict:
    with _store() as store:
        return json.loads(store.load_draft(draft_id).content)


def _older_release_draft(app: AppTest, run_value: object, *, part: str | None = None) -> str:
    """A draft as an older release wrote it, from ``app``'s: its run a copy (whole in the draft,
    or in a part of its own), not an id."""
    mine = _draft(app.session_state[Keys.DRAFT_ID])
    old_id = "0123456789abcdef"
    with _store() as store:
        store.save_draft(old_id, json.dumps({**mine, "run": run_value}))
        if part is not None:
            store.save_draft(old_id + ".run", part)
    return old_id


@pytest.mark.parametrize("layout", ["whole", "part"])
def test_an_older_draft_holding_a_copy_of_its_run_opens_and_then_names_it_by_id(app: AppTest, layout: str) -> None:
    """Drafts of older releases held the run (whole, then in a part of the draft): such a tab
    still opens with its run, the one the store has, and its draft is written again by id."""
    make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    run = app.session_state[Keys.BENCH].run
    if layout == "whole":
        old_id = _older_release_draft(app, run.model_dump(mode="json"))
    else:
        old_id = _older_release_draft(app, {"part": run.id},
                                      part=json.dumps(run.model_dump(mode="json", exclude={"plan"})))
    back = _reload({"draft": old_id})
    assert back.session_state[Keys.BENCH].run == run and back.session_state[Keys.BENCH].run_saved == run.id
    assert "Brought back" not in texts(back), texts(back)
    assert _draft(old_id)["run"] == {"id": run.id}  # written again at once: the id, no copy


def test_an_older_draft_with_a_run_only_in_the_page_stores_it_once_and_names_it(app: AppTest) -> None:
    """A run an older release kept only in the tab (never stored) is stored when the tab
    opens, with the version of its plan, as running it on would store it; then named by id."""
    from core import Executor
    from studio import get_services

    plan = make_plan(app)
    app.button(key="plan.approve").click().run()
    page_only = Executor(get_services().registry).start(plan)
    old_id = _older_release_draft(app, page_only.model_dump(mode="json"))
    back = _reload({"draft": old_id})
    shown = back.session_state[Keys.BENCH]
    assert shown.run.id == page_only.id and shown.run_saved == page_only.id, texts(back)
    with _store() as store:
        assert store.load_run(page_only.id).plan == plan
    assert _draft(old_id)["run"] == {"id": page_only.id}


def test_a_draft_naming_a_run_the_store_lost_says_so_and_still_opens(app: AppTest) -> None:
    make_plan(app)
    old_id = _older_release_draft(app, {"id": "gone0000run"})
    back = _reload({"draft": old_id})
    assert back.session_state[Keys.BENCH].plan is not None and back.session_state[Keys.BENCH].run is None
    assert "its run no longer loads (it is gone from the store" in texts(back)
