"""The Plan page's on-ramp through AppTest: example goals on the empty page that plan on a click,
the guide following plan → approve → run → done and hidden for the session, the step's plain
sentence in the inspector, and the readable summary after a run."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from apptest_helpers import no_failures, run_plan, texts
from core import Role
from studio import Keys
from studio.ui.plan._onramp import EXAMPLES_KEY, GUIDE_HIDDEN_KEY


def guide_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown if "Plan" in m.value and "→" in m.value)


def examples(at: AppTest) -> list:
    return [b for b in at.button if b.key and b.key.startswith("onramp.example.")]


def test_an_example_goal_plans_on_a_click_and_the_guide_follows_to_done(app: AppTest) -> None:
    shown = examples(app)
    made = app.session_state[EXAMPLES_KEY][2]
    assert [b.label for b in shown] == [e.goal for e in made] and len(shown) >= 2
    assert app.text_input(key=Keys.GOAL).placeholder == f"e.g. {made[0].goal}"
    assert "**● Plan**" in guide_text(app) and "press **Enter**" in guide_text(app)

    shown[0].click().run()
    no_failures(app)
    plan = app.session_state[Keys.BENCH].plan
    assert app.text_input(key=Keys.GOAL).value == made[0].goal == plan.goal
    assert tuple(s.tool for s in plan.steps) == made[0].tools
    assert examples(app) == []  # a plan is on the page: no examples over it
    assert "✓ Plan → **● Approve** → ○ Run" in guide_text(app)

    app.button(key="plan.approve").click().run()
    assert "✓ Plan → ✓ Approve → **● Run**" in guide_text(app)
    run_plan(app)
    assert "✓ Plan → ✓ Approve → ✓ Run" in guide_text(app) and "Done:" in guide_text(app)

    # The readable summary: counts of steps and rows, the final result's rows, the steps in an expander.
    run = app.session_state[Keys.BENCH].run
    rows = sum(len(s.rows or []) for s in run.steps.values())
    said = texts(app)
    assert f"**Summary** · {len(plan.steps)} steps: {len(plan.steps)} succeeded · {rows} rows" in said
    assert f"The final result, Step {len(plan.steps) - 1} · {plan.steps[-1].tool}" in said
    with_rows = [s for s in run.steps.values() if s.rows]
    assert len(app.dataframe) == len(with_rows) + 1  # the summary's top rows first, then each step's table
    assert len(app.dataframe[0].value) == min(5, len(run.steps[plan.steps[-1].id].rows))
    assert app.expander(key="plan.summary.steps") is not None  # the offline answer, step by step

    app.button(key="onramp.guide.hide").click().run()
    assert guide_text(app) == "" and app.session_state[GUIDE_HIDDEN_KEY] is True
    app.run()
    assert guide_text(app) == ""  # hidden for the session


def test_the_inspector_says_what_the_selected_step_does_in_plain_words(app: AppTest) -> None:
    examples(app)[0].click().run()
    plan = app.session_state[Keys.BENCH].plan
    app.session_state[Keys.EDITOR_SELECTED] = plan.steps[-1].id
    app.run()
    no_failures(app)
    said = texts(app)
    assert "from step 0" in said  # the chain's reference in words, not ${steps...}


def test_a_failed_step_is_named_with_its_reason_in_the_summary(app: AppTest) -> None:
    from apptest_helpers import edit_json, plan_text

    examples(app)[0].click().run()
    first = app.session_state[Keys.BENCH].plan.steps[0]
    # A step whose tool fails when called (no such list), then one that depends on it.
    edit_json(app, plan_text([{"id": "gone", "tool": "removeItem", "params": {"list": "<b>none</b>", "item": "x"}},
                              {"id": "after", "tool": first.tool, "params": {}, "depends_on": ["gone"]}],
                             goal="broken"))
    app.button(key="plan.approve").click().run()
    run_plan(app)
    said = texts(app)
    assert "**Summary** · 2 steps: 1 failed, 1 skipped" in said
    assert "No step succeeded, so there is no result to show." in said
    assert "**What did not work**" in said
    run = app.session_state[Keys.BENCH].run
    assert f"- Step 0 · removeItem: {run.steps['gone'].error}" in said and "<b>none</b>" in run.steps["gone"].error
    assert "- Step 1 · " in said and "skipped" in said


def test_with_a_model_the_example_goes_to_the_model_and_its_answer_is_shown_after_the_run(
        tmp_path, monkeypatch, llm_server) -> None:
    import json

    from apptest_helpers import APP

    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    monkeypatch.setenv("PLAN_STUDIO_PLANNER", "llm")
    monkeypatch.setenv("PLAN_STUDIO_MODEL", "test-model")
    monkeypatch.delenv("PLAN_STUDIO_DB", raising=False)
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    shown = examples(at)
    assert shown  # from the tools, whichever planner plans
    first_tool = at.session_state[EXAMPLES_KEY][2][0].tools[0]
    llm_server.reply(json.dumps({"steps": [{"tool": first_tool, "params": {}, "depends_on": [], "parallel": False}]}))
    shown[0].click().run()
    no_failures(at)
    assert shown[0].label in llm_server.text_of(0)  # the example goal, sent to the model
    at.button(key="plan.approve").click().run()
    answer = "There are *several* rows; see [this](https://x.example)."
    llm_server.reply(answer)
    run_plan(at)
    said = texts(at)
    # Escaped: no emphasis, and the address as code, never a link.
    assert "**Answer**\nThere are *several* rows; see `[this](https://x.example).`" in said
    assert "**Summary** · 1 step: 1 succeeded" in said
    assert not [e for e in at.expander if e.label == "Step by step"]  # the model's answer, not the offline one
