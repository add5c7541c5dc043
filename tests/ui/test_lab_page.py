"""The Lab page through Streamlit's AppTest: an edited description re-plans a goal set side by
side, a bad edit is refused naming the tool and field, experiments are saved and reopened, a
second tab's stale save is refused with nothing lost, goals come from the Library, drift lists
saved plans a changed tool would plan otherwise, and untrusted text is escaped."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.planners import EmbeddedPlanner
from studio.ui._session import source_services
from studio.ui._text import md_escape
from conftest import TEST_API_KEY  # noqa: F401  (the scripted server sets it)
from test_settings_pages import data_dir, model_server, no_failures, open_page, start, texts  # noqa: F401

LAB = "../pages/lab.py"
TODAY = dt.date(2025, 10, 12)
STEERED = "Analyse today's contaminants in Hannover"
GOALS = f"{STEERED}\nGet shipments from last week\nHannover"
NO_CITY = "Where the facility is."


def lab(at: AppTest | None = None) -> AppTest:
    return open_page(at or start(), LAB)


def revision(at: AppTest) -> int:
    return at.session_state["lab.work"].revision


def field(at: AppTest, part: str) -> str:
    return f"lab.{revision(at)}.{part}"


def pick(at: AppTest, *tools: str) -> None:
    at.multiselect(key=field(at, "tools")).set_value(list(tools)).run()
    no_failures(at)


def use_goals(at: AppTest, text: str) -> None:
    at.text_area(key=field(at, "goals.text")).input(text)
    at.button(key=field(at, "goals.use_text")).click().run()
    no_failures(at)


def run_and_wait(at: AppTest) -> None:
    at.button(key="lab.run").click().run()
    no_failures(at)
    run = at.session_state["lab.work"].run
    assert run is not None and run.join(60), "the experiment did not finish"
    at.run()
    no_failures(at)


def grid(at: AppTest, key: str = "lab.results") -> list[dict]:
    [frame] = [d for d in at.dataframe if d.proto.id and key in d.proto.id] or [at.dataframe[-1]]
    return frame.value.to_dict("records")


def test_one_description_edit_changes_the_tools_chosen_for_a_goal_set(data_dir) -> None:  # noqa: F811
    at = lab()
    assert at.button(key="lab.run").disabled  # nothing to compare yet
    pick(at, "facilities_list")
    at.text_input(key=field(at, "edit.facilities_list.param.location")).input(NO_CITY).run()
    use_goals(at, GOALS)
    run_and_wait(at)
    rows = {r["goal"]: r for r in grid(at)}
    assert rows[STEERED]["original words"] == "facilities_list → contaminants_list"
    assert rows[STEERED]["edited words"] == "contaminants_list"
    assert rows["Hannover"]["edited words"] == "no plan"
    page = texts(at)
    assert "3 of 3 goals planned · 2 planned differently with the edited words" in page
    assert "Get shipments from last week" not in [r["goal"] for r in grid(at)]  # only the changed ones
    # The edit is downloadable as a patch of the docstring; the source stays as it was.
    assert [b.proto.label for b in at.get("download_button") if "patch" in b.proto.label] == [
        "Download the edit as a patch (a diff of its docstring)"]


def test_an_edit_that_breaks_the_manual_is_refused_by_tool_and_field_and_kept(data_dir) -> None:  # noqa: F811
    at = lab()
    pick(at, "facilities_list")
    at.text_area(key=field(at, "edit.facilities_list.description")).input("   ").run()
    no_failures(at)
    assert any("facilities_list description is empty" in e.value.replace("\\", "") for e in at.error)
    use_goals(at, GOALS)
    assert at.button(key="lab.run").disabled
    at.button(key="lab.save").click().run()
    assert "Not saved: facilities_list description" in " ".join(t.value.replace("\\", "") for t in at.toast)
    assert at.session_state["lab.work"].saved_id is None
    assert at.text_area(key=field(at, "edit.facilities_list.description")).value == "   "  # nothing lost


def test_an_experiment_is_saved_reopened_and_a_second_tabs_stale_save_is_refused(data_dir) -> None:  # noqa: F811
    one = lab()
    pick(one, "facilities_list")
    one.text_input(key=field(one, "edit.facilities_list.param.location")).input(NO_CITY)
    one.text_input(key=field(one, "name")).input("No city")
    use_goals(one, GOALS)
    one.button(key="lab.save").click().run()
    no_failures(one)
    work = one.session_state["lab.work"]
    assert work.saved_version == 1 and "Saved “No city” as version 1." in texts(one)

    two = lab()  # another tab opens it
    two.selectbox(key="lab.open.choice").set_value(work.saved_id)
    two.button(key="lab.open").click().run()
    no_failures(two)
    assert two.text_input(key=field(two, "edit.facilities_list.param.location")).value == NO_CITY
    assert [g.goal for g in two.session_state["lab.work"].goals] == GOALS.splitlines()

    # Tab one saves again; tab two, still at version 1, is refused and keeps its edit.
    use_goals(one, STEERED)
    one.button(key="lab.save").click().run()
    two.text_input(key=field(two, "edit.facilities_list.param.location")).input("Mine: where it is.")
    two.button(key="lab.save").click().run()
    no_failures(two)
    said = texts(two)
    assert "was saved as version 2" in said and "Your edits are still here" in said
    assert two.text_input(key=field(two, "edit.facilities_list.param.location")).value == "Mine: where it is."
    saved = source_services().store.lab.load(work.saved_id)
    assert saved.version == 2 and json.loads(saved.content)["goals"] == [{"goal": STEERED, "source": "typed"}]
    two.button(key="lab.conflict.mine").click().run()
    no_failures(two)
    mine = two.session_state["lab.work"]
    assert mine.saved_id != work.saved_id and mine.saved_version == 1 and mine.conflict is None
    content = json.loads(source_services().store.lab.load(mine.saved_id).content)
    assert content["overrides"] == {"facilities_list": {"params": {"location": "Mine: where it is."}}}


def test_goals_from_the_library_bring_their_plans_as_expected(data_dir) -> None:  # noqa: F811
    at = lab()
    services = source_services()
    planner = EmbeddedPlanner(services.registry)
    services.store.save_plan(planner.plan(STEERED, today=TODAY))
    at.button(key=field(at, "goals.use_library")).click().run()
    no_failures(at)
    [goal] = at.session_state["lab.work"].goals
    assert goal.goal == STEERED and goal.expected is not None
    pick(at, "facilities_list")
    at.text_input(key=field(at, "edit.facilities_list.param.location")).input(NO_CITY).run()
    run_and_wait(at)
    [row] = grid(at)
    assert row["expected plan (original / edited)"] == "exact / 2 step(s) differ"
    assert "matched the expected plan: original words 1 of 1, edited words 0 of 1" in texts(at)


DEPOTS = '''
def depots_list(location: str | None = None) -> list[dict]:
    """List the depots.

    Args:
        location: {words}
    """
    return []
'''


def test_drift_lists_the_saved_plans_a_changed_tool_would_now_plan_differently(data_dir, tmp_path: Path,  # noqa: F811
                                                                               monkeypatch) -> None:
    from studio.ui._session import _services_for

    tools = tmp_path / "depots.py"
    tools.write_text(DEPOTS.format(words="City the depot is in."))
    monkeypatch.setenv("PLAN_STUDIO_TOOLS", str(tools))
    monkeypatch.setenv("PLAN_STUDIO_DEMO", "true")  # the demo tools beside the file: a saved plan uses them
    at = lab()  # the first visit remembers the tools as they are
    services = source_services()
    saved = services.store.save_plan(EmbeddedPlanner(services.registry).plan("Depots in Hannover", today=TODAY))
    services.store.save_plan(EmbeddedPlanner(services.registry).plan(STEERED, today=TODAY))
    assert saved.plan.steps[0].params == {"location": "Hannover"}
    assert [e.label for e in at.expander if e.label.startswith("Drift")] == ["Drift: 0 tools changed since last seen"]

    # The --tools file is edited and the studio started again: its docstring no longer says "city".
    tools.write_text(DEPOTS.format(words="Where the depot is."))
    _services_for.clear()
    at = lab()
    assert [e.label for e in at.expander if e.label.startswith("Drift")] == ["Drift: 1 tool changed since last seen"]
    at.button(key="lab.drift.check").click().run()
    no_failures(at)
    said = texts(at)
    assert "1 saved plan uses depots_list; 1 would now be planned differently" in said
    assert "Depots in Hannover" in said and saved.plan_id in said and "location: expected" in said
    at.button(key="lab.drift.seen").click().run()
    no_failures(at)
    assert at.button(key="lab.drift.check").disabled
    assert [e.label for e in at.expander if e.label.startswith("Drift")] == ["Drift: 0 tools changed since last seen"]


def test_untrusted_goals_are_escaped_where_drawn(data_dir) -> None:  # noqa: F811
    at = lab()
    pick(at, "facilities_list")
    at.text_input(key=field(at, "edit.facilities_list.param.location")).input(NO_CITY).run()
    hostile = "Hannover ![x](https://evil.example/p.png) :material/home:"
    use_goals(at, hostile)
    run_and_wait(at)
    drawn = [m.value for m in at.markdown if "evil" in m.value]
    assert drawn[0] == f"**1. {md_escape(hostile)}**"  # the link as code, the icon's colon as a character


def test_with_the_llm_planner_the_model_reads_each_variants_words(model_server) -> None:  # noqa: F811
    at = lab()
    pick(at, "addItem")
    edited = "Append exactly ONE grocery item; never two."
    at.text_area(key=field(at, "edit.addItem.description")).input(edited).run()
    use_goals(at, "Put milk on the groceries list")
    at.radio(key=field(at, "planner")).set_value("llm").run()
    add = {"steps": [{"tool": "addItem", "params": {"list": "groceries", "item": "milk"}, "depends_on": [],
                      "parallel": False}]}
    create = {"steps": [{"tool": "createList", "params": {"list": "groceries"}, "depends_on": [],
                         "parallel": False}, *add["steps"]]}
    model_server.reply(json.dumps(create))  # the original words
    model_server.reply(json.dumps(add))  # the edited words
    run_and_wait(at)
    assert edited not in model_server.messages(0)[0]["content"]
    assert edited in model_server.messages(1)[0]["content"]
    [row] = grid(at)
    assert (row["original words"], row["edited words"]) == ("createList → addItem", "addItem")


def test_every_widget_on_the_lab_page_is_keyed_lab(data_dir) -> None:  # noqa: F811
    at = lab()
    pick(at, "facilities_list")
    at.text_input(key=field(at, "edit.facilities_list.param.location")).input(NO_CITY).run()
    use_goals(at, GOALS)
    run_and_wait(at)
    # (st.tabs takes its key as a whole; AppTest lists each tab, which has none of its own.)
    kinds = ("button", "text_input", "text_area", "multiselect", "selectbox", "radio", "toggle", "expander",
             "download_button")
    widgets = [w for kind in kinds for w in at.get(kind)]
    assert len(widgets) > 15
    keys = [getattr(w, "key", None) or getattr(w.proto, "id", "") for w in widgets]
    assert [k for k in keys if not (k and ("lab." in k or "lab-" in k))] == []


def test_a_reload_brings_back_the_labs_unsaved_work(data_dir) -> None:  # noqa: F811
    from studio import Keys

    at = lab()
    pick(at, "facilities_list")
    at.text_input(key=field(at, "edit.facilities_list.param.location")).input(NO_CITY).run()
    use_goals(at, GOALS)
    draft_id = at.session_state[Keys.DRAFT_ID]

    again = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "studio" / "app.py"), default_timeout=60)
    again.query_params["draft"] = draft_id
    again = lab(again.run())  # a reload: a new session on the tab's URL
    assert again.text_input(key=field(again, "edit.facilities_list.param.location")).value == NO_CITY
    assert [g.goal for g in again.session_state["lab.work"].goals] == GOALS.splitlines()
    run_and_wait(again)
    assert "3 of 3 goals planned · 2 planned differently" in texts(again)


def test_a_tab_opened_from_anothers_url_gets_a_copy_of_the_labs_work(data_dir, monkeypatch) -> None:  # noqa: F811
    from studio import Keys
    from studio.ui import _drafts

    at = lab()
    pick(at, "facilities_list")
    at.text_input(key=field(at, "edit.facilities_list.param.location")).input(NO_CITY).run()
    use_goals(at, GOALS)
    draft_id = at.session_state[Keys.DRAFT_ID]
    monkeypatch.setattr(_drafts, "_held_elsewhere", lambda draft_id, session_id: True)  # the first tab is open

    other = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "studio" / "app.py"), default_timeout=60)
    other.query_params["draft"] = draft_id
    other = lab(other.run())
    assert other.session_state[Keys.DRAFT_ID] != draft_id
    assert other.text_input(key=field(other, "edit.facilities_list.param.location")).value == NO_CITY
    # Each tab writes its own: an edit in the copy leaves the first tab's work as it was.
    other.text_input(key=field(other, "edit.facilities_list.param.location")).input("Somewhere.").run()
    assert NO_CITY in source_services().store.load_draft(f"{draft_id}.lab").content
