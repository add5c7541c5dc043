"""The Plan page's on-ramp: example goals on the empty page, and a guide through a first run.

The example goals are the workbench's (``wb.example_goals``: made from the loaded tools' own
descriptions and parameters, whatever tools are loaded), worked out once per session and tool set:
planning each candidate takes a few tens of milliseconds. A click on one fills the goal box and
plans it at once: someone trying the studio for the first time expects a click to do something,
and the goal stays in the box to edit and plan again.

The guide is a short line of three steps (Plan → Approve → Run) that follows where the user is,
and says what to do next; "Hide guide" hides it for the rest of the session.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from core import RESUMABLE, Plan, Role, Run
from core.planners import ExampleGoal

from .. import _actions as actions
from .. import _unsaved as unsaved
from ... import workbench as wb
from ...workbench._services import Services
from .._roles import role_gate
from .._state import Keys, bench
from .._text import md_escape

__all__ = ["example_goals", "example_goals_panel", "goal_placeholder", "guide"]

# Session keys of the on-ramp (not widgets): the examples worked out, and the guide hidden.
EXAMPLES_KEY = "onramp.examples"
GUIDE_HIDDEN_KEY = "onramp.guide_hidden"

_STEPS = ("Plan", "Approve", "Run")


def example_goals(services: Services) -> list[ExampleGoal]:
    """The example goals for ``services``' tools, worked out once per session and tool set."""
    today = services.settings.effective_today()
    kept: tuple[Any, Any, list[ExampleGoal]] | None = st.session_state.get(EXAMPLES_KEY)
    if kept is not None and kept[0] is services.registry and kept[1] == today:
        return kept[2]
    try:
        examples = wb.example_goals(services)
    except Exception:  # noqa: BLE001 - a tool set the examples cannot read: the page goes on without them
        examples = []
    st.session_state[EXAMPLES_KEY] = (services.registry, today, examples)
    return examples


def goal_placeholder(services: Services) -> str:
    """The goal box's hint: the first example goal, in the tools' own words."""
    examples = example_goals(services)
    return f"e.g. {examples[0].goal}" if examples else "Say what you want the tools to do"


def example_goals_panel(services: Services) -> None:
    """Buttons with example goals; a click fills the goal box and plans it."""
    examples = example_goals(services)
    if not examples:
        return
    with st.container(key="onramp.examples"):
        st.markdown("**Try an example** · made from the tools loaded; a click plans it")
        columns = st.columns(len(examples))
        for n, (column, example) in enumerate(zip(columns, examples)):
            column.button(example.goal, key=f"onramp.example.{n}", on_click=_plan_example, args=(example.goal,),
                          icon=":material/lightbulb:", width="stretch",
                          **role_gate(Role.reviewer, "make a plan",
                                      help=f"Uses {', '.join(example.tools)}: {example.about}"))


def _plan_example(goal: str) -> None:
    st.session_state[Keys.GOAL] = goal
    unsaved.plan_goal()


def guide_stage(plan: Plan | None, run: Run | None) -> int:
    """Where the user is: 0 plan, 1 approve, 2 run, 3 done (a run finished)."""
    if plan is None:
        return 0
    if run is not None and run.finished:
        return 3
    if run is not None and run.started_at is not None or bench().worker is not None:
        return 2
    return 2 if actions.is_approved(plan) else 1


def guide(plan: Plan | None) -> None:
    """The first-run guide, unless hidden this session."""
    if st.session_state.get(GUIDE_HIDDEN_KEY):
        return
    run = bench().run
    stage = guide_stage(plan, run)
    marks = " → ".join(f"✓ {name}" if n < stage else f"**● {name}**" if n == stage else f"○ {name}"
                       for n, name in enumerate(_STEPS))
    with st.container(border=True, key="onramp.guide"):
        text, hide = st.columns([8, 1], vertical_alignment="center")
        text.markdown(f"{marks}  \n{_next(stage, run)}")
        hide.button("Hide guide", key="onramp.guide.hide", on_click=_hide, type="tertiary",
                    icon=":material/close:", help="Hide this guide for the rest of the session")


def _next(stage: int, run: Run | None) -> str:
    if stage == 0:
        return "Type what you want in **Goal** and press **Enter** (or pick an example below)."
    if stage == 1:
        return ("Check the steps: click one in the graph to see what it does. Then press **Approve**: only an "
                "approved plan runs.")
    if stage == 2 and run is not None and run.status == "waiting":
        return "A step waits for you: approve or reject it beside the graph."
    if stage == 2 and run is not None and run.status in RESUMABLE:
        return md_escape(f"The run is {run.status}: beside the graph, say what becomes of the steps it cut off "
                         "and Resume it (what finished does not run again).")
    if stage == 2 and run is not None and run.started_at is not None:
        return md_escape(f"The run is {run.status}: watch it above, or carry it on with the buttons.")
    if stage == 2:
        return ("Press **Run all** to run every step, or **Run next step** to go one at a time. Steps that may "
                "change something wait for your approval.")
    return ("Done: the **Summary** under **Run** says what came back. Change the goal or a step and go again, "
            "or **Save** the plan for later.")


def _hide() -> None:
    st.session_state[GUIDE_HIDDEN_KEY] = True
