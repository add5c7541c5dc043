"""Two tabs, one plan; and runs that stay. Through AppTest.

Two tabs that opened the same version and both save: the second is told a newer version exists,
what it changed, and chooses to reload it or save on top; nothing is dropped silently. Locks
and notes do not change what runs, so they keep a finished run and its approval; "Run next
step" after a finished run asks before starting a new one.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core import load_plan
from studio import Keys, get_services

from apptest_helpers import APP, LIBRARY, PLAN, edit_json, make_plan, no_failures, run_plan, texts


def _open_in_new_tab(plan_id: str) -> AppTest:
    """Another browser tab of the same studio (same data folder), with the plan opened from the Library."""
    tab = AppTest.from_file(str(APP), default_timeout=60).run()
    tab.switch_page(LIBRARY).run()
    tab.button(key=f"library.open.{plan_id}").click().run()
    tab.switch_page(PLAN).run()
    no_failures(tab)
    return tab


def _change(tab: AppTest, old: str, new: str) -> None:
    text = tab.text_area(key=Keys.JSON).value
    assert old in text
    edit_json(tab, text.replace(old, new))


def _save(tab: AppTest, note: str = "") -> None:
    if note:
        tab.text_input(key=Keys.SAVE_MESSAGE).input(note)
    tab.button(key="plan.save").click().run()
    no_failures(tab)


@pytest.fixture
def two_tabs(app: AppTest) -> tuple[AppTest, AppTest, str]:
    """``app`` saved a plan as version 1; both tabs have version 1 open."""
    make_plan(app)
    _save(app)
    plan_id = app.session_state[Keys.BENCH].saved.plan_id
    return _open_in_new_tab(plan_id), _open_in_new_tab(plan_id), plan_id


def test_the_second_save_from_the_same_version_is_refused_and_says_what_changed(two_tabs) -> None:
    first, second, plan_id = two_tabs
    _change(first, '"Berlin"', '"Munich"')
    _save(first, "Munich please")
    assert "Saved as version 2." in texts(first)

    _change(second, '"Berlin"', '"Hamburg"')
    _save(second, "Hamburg")
    store = get_services().store
    assert [v.version for v in store.versions(plan_id)] == [1, 2]  # nothing written
    warning = texts(second)
    assert "Not saved: version 2 of this plan was saved" in warning
    assert "with the note “Munich please”" in warning
    assert "after version 1 that this tab opened" in warning
    assert "location 'Berlin' → 'Munich'" in warning
    assert "Its changes since version 1: changed: facilities_list “" in warning  # the step by label
    assert not [s for s in second.success if "Saved as" in s.value]
    assert second.session_state[Keys.BENCH].saved.version == 1
    assert {"plan.conflict.reload", "plan.conflict.save_on_top"} <= {b.key for b in second.button}


def test_save_mine_on_top_stores_a_version_after_the_newer_one_noting_it(two_tabs) -> None:
    first, second, plan_id = two_tabs
    _change(first, '"Berlin"', '"Munich"')
    _save(first)
    _change(second, '"Berlin"', '"Hamburg"')
    _save(second, "Hamburg")
    mine = second.session_state[Keys.BENCH].plan

    second.button(key="plan.conflict.save_on_top").click().run()
    no_failures(second)
    store = get_services().store
    versions = store.versions(plan_id)
    assert [v.version for v in versions] == [1, 2, 3]
    assert versions[2].plan == mine
    assert versions[2].message == "Hamburg · saved over version 2 (edited from version 1)"
    assert "Saved as version 3, after version 2" in texts(second)
    assert second.session_state[Keys.BENCH].conflict is None
    assert not any(b.key == "plan.conflict.save_on_top" for b in second.button)

    # The first tab is now the one behind: its next save is refused in turn.
    _change(first, '"Munich"', '"Leipzig"')
    _save(first)
    assert "Not saved: version 3 of this plan was saved" in texts(first)
    assert "location 'Munich' → 'Hamburg'" in texts(first)


def test_reload_opens_the_newer_version_and_drops_the_tabs_edits(two_tabs) -> None:
    first, second, plan_id = two_tabs
    _change(first, '"Berlin"', '"Munich"')
    _save(first)
    _change(second, '"Berlin"', '"Hamburg"')
    _save(second)
    assert "your unsaved edits in this tab are lost" in second.button(key="plan.conflict.reload").help.lower()

    second.button(key="plan.conflict.reload").click().run()
    no_failures(second)
    assert second.session_state[Keys.BENCH].saved.version == 2
    assert second.session_state[Keys.BENCH].plan == get_services().store.load_plan(plan_id, 2)
    assert '"Munich"' in second.text_area(key=Keys.JSON).value
    assert second.session_state[Keys.BENCH].conflict is None
    assert [v.version for v in get_services().store.versions(plan_id)] == [1, 2]


def test_replan_from_an_older_version_is_refused_too(two_tabs) -> None:
    first, second, plan_id = two_tabs
    _change(first, '"Berlin"', '"Munich"')
    _save(first)
    _change(second, '"Berlin"', '"Hamburg"')
    second.text_area(key=Keys.FEEDBACK).input("only high-risk shipments")
    second.button(key="plan.replan").click().run()
    no_failures(second)
    assert "Not saved: version 2 of this plan was saved" in texts(second)
    assert [v.version for v in get_services().store.versions(plan_id)] == [1, 2]
    assert '"Hamburg"' in second.text_area(key=Keys.JSON).value  # the tab's edit stays
    assert second.text_area(key=Keys.FEEDBACK).value == "only high-risk shipments"  # to ask again


# -- runs that stay ------------------------------------------------------------------------------

def _finished_run(app: AppTest):
    make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    run = app.session_state[Keys.BENCH].run
    assert run is not None and run.finished
    return run


def test_locking_a_step_keeps_the_finished_run_and_its_approval(app: AppTest) -> None:
    run = _finished_run(app)
    plan = app.session_state[Keys.BENCH].plan
    app.multiselect(key=Keys.LOCKS).select(plan.steps[0].id).run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan.steps[0].locked
    kept = app.session_state[Keys.BENCH].run
    assert kept is not None and kept.id == run.id and kept.steps == run.steps
    assert kept.plan == app.session_state[Keys.BENCH].plan  # saved with the version that holds the lock
    assert "its run was cleared" not in texts(app)
    assert f"Run {run.id}" in texts(app)
    assert not app.button(key="plan.run_all").disabled

    _save(app)
    saved = app.session_state[Keys.BENCH].saved
    [stored] = get_services().store.list_runs(saved.plan_id)
    assert (stored.id, stored.version) == (run.id, saved.version)


def test_editing_a_note_keeps_the_run_but_changing_a_param_clears_it(app: AppTest) -> None:
    run = _finished_run(app)
    data = json.loads(app.text_area(key=Keys.JSON).value)
    data["steps"][1]["note"] = "double-checked"
    edit_json(app, json.dumps(data, indent=2))
    assert app.session_state[Keys.BENCH].run.id == run.id

    _change(app, '"Berlin"', '"Munich"')
    assert app.session_state[Keys.BENCH].run is None
    assert "its run was cleared" in texts(app)


def test_opening_the_replan_panel_keeps_the_run(app: AppTest) -> None:
    run = _finished_run(app)
    # The panel's widgets as the browser sends them when it opens: the locks unchanged.
    app.multiselect(key=Keys.LOCKS).set_value([]).run()
    app.text_area(key=Keys.FEEDBACK).input("").run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].run.id == run.id


def test_run_next_step_after_a_finished_run_asks_first(app: AppTest) -> None:
    run = _finished_run(app)
    app.button(key="plan.run_next").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].worker is None and app.session_state[Keys.BENCH].run.id == run.id
    assert "The last run finished. Start a new run?" in texts(app)

    app.button(key="plan.new_run.cancel").click().run()
    assert "The last run finished" not in texts(app)
    assert app.session_state[Keys.BENCH].run.id == run.id

    app.button(key="plan.run_next").click().run()
    app.button(key="plan.new_run.confirm").click().run()
    no_failures(app)
    worker = app.session_state[Keys.BENCH].worker
    if worker is not None:  # else it ended so soon that the page collected it already
        assert worker.join(60)
        app.run()
        no_failures(app)
    fresh = app.session_state[Keys.BENCH].run
    assert fresh.id != run.id
    assert [s.status.value for s in fresh.steps.values()] == ["succeeded", "pending"]  # one step
    assert "The last run finished" not in texts(app)
