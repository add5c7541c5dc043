"""The Plan page: a goal becomes a plan, shown as a graph beside its JSON; approve, run, save.

The JSON panel is the plan's own JSON, references by step id (``${steps.<id>.path}``), not the
seed form: ``depends_on`` there is already by id, and a reference by id keeps naming its step
when a user moves steps by editing the text, where a position would silently name another.
A ``${step[N]...}`` typed in is read by position (``core.plan._positions``) and shown by id.
"""

from __future__ import annotations

import streamlit as st

from core import FINISHED, RESUMABLE, Plan, Problem, Role, Run, RunProgress, StepRun, StepStatus

from .. import _actions as actions
from ._formats_panel import formats_panel
from . import _compare as compare
from . import _editor as editor
from .. import _unsaved as unsaved
from ... import workbench as wb
from ._graph import STATUS_COLOURS
from ._inspector import inspector
from ._json_panel import json_marks, json_panel
from ._answer_panel import answer_panel, streamed_answer
from ._onramp import example_goals_panel, goal_placeholder, guide
from ._planner_log_panel import planner_log_panel
from ._replan_panel import conflict_panel, replan_panel, versions_panel
from .._review_actions import review_services
from ._pause_panel import pause_panel
from ._rehearsal_panel import rehearsal_caption, rehearse_control, run_download
from ._rerun_panel import rerun_panel
from ._step_results import STATUS_COLOUR, step_result, step_title
from ._resume_panel import resume_panel
from ._review_bar import review_bar
from ...workbench._services import Services
from .._state import Keys, PERSIST, SavedRef, bench
from .._roles import role_gate, role_note
from .._session import get_services
from .._text import md_escape

__all__ = ["plan_page"]


# How often the page looks at a run in progress.
_PROGRESS_SECONDS = 0.5
# A run's succeeded steps drawn before "Show all": each is a table, and a 200-step run's
# tables made every rerun take seconds. Steps that did not succeed are always drawn.
_RESULTS_SHOWN = 20


def plan_page() -> None:
    # Once a plan exists the page starts with its goal: the navigation already says "Plan".
    services = actions.page_services("Plan", "start the studio", heading=bench().plan is None)
    if services is None:
        return
    _goal_form(services)
    actions.show_notices()
    unsaved.replace_question()
    plan: Plan | None = bench().plan
    guide(plan)
    if plan is None:
        example_goals_panel(services)
        st.info("Type a goal and press **Enter** (or **Plan**), pick an example, import a plan below, or "
                "**Start an empty plan** to build one step by step. The plan appears as a graph beside its JSON; "
                "review or edit it, approve it, then run it step by step.")
        formats_panel(services, None)
        return
    services = review_services(services)  # reviewing an agent's plan: its own tools count too
    conflict_panel(plan)
    with actions.shown("show the plan"):
        _plan_view(services, plan)


def _goal_form(services: Services) -> None:
    # A form so that Enter in the goal box plans, as the Plan button does.
    form = st.form("plan.goal_form", border=False, enter_to_submit=True)
    if bench().plan is None:
        form.text_input("Goal", key=Keys.GOAL, persist_state=PERSIST, placeholder=goal_placeholder(services))
        button, empty, about = form.columns([1, 2, 6], vertical_alignment="center")
    else:  # one row: the goal, Plan, and what plans
        goal, button, about = form.columns([6, 1, 3], vertical_alignment="center")
        goal.text_input("Goal", key=Keys.GOAL, persist_state=PERSIST, placeholder=goal_placeholder(services),
                        label_visibility="collapsed")
    button.form_submit_button("Plan", key="plan.make", type="primary", on_click=unsaved.plan_goal, width="stretch",
                              icon=":material/auto_awesome:", **role_gate(Role.reviewer, "make a plan"))
    if bench().plan is None:  # in the form too: the goal typed so far names the empty plan
        empty.form_submit_button("Start an empty plan", key="editor.empty", icon=":material/add_circle:",
                                 on_click=editor.start_empty_plan, **role_gate(Role.reviewer, "start a plan"))
    planner = services.planner_name
    if planner == "llm":
        planner += f" ({services.settings.model})"
    about.caption(f"Planner: **{md_escape(planner)}** · today: {services.settings.effective_today():%Y-%m-%d}"
                  f" · {len(services.registry)} tools")
    loading = getattr(getattr(services.planner, "client", None), "loading_notice", lambda: None)()
    if loading:  # a local server's first answer can take minutes: say so before the wait
        about.caption(md_escape(loading))


def _plan_view(services: Services, plan: Plan) -> None:
    run: Run | None = bench().run
    worker = bench().worker

    # Approve, Run and Save sit above the graph, filled once the plan is checked: a click on
    # Run all leaves the page where the run's progress and the graph are in view.
    actions_slot = st.container()
    # One view: the graph, and beside it what needs a person now (a waiting step, a run to
    # resume, an agent's review), the selected step (params, result, note) and the JSON.
    graph_column, side_column = st.columns([3, 2], gap="medium")
    with graph_column:
        editor.editor_toolbar(services, plan)
        # Filled last: the graph, or during a run its live progress and graph. A container, not
        # st.empty: an empty element would replace the graph drawn last at the start of every
        # full run of the page, and the graph would go blank until the page got this far.
        graph_slot = st.container()
        st.markdown(_graph_heading(plan, run))  # under the graph: the graph itself comes first
        if plan.steps:
            st.caption("Click a step to see and edit it beside the graph; **Connect**, then drag from a step to the "
                       "step that needs it; select a step or link and press Delete; Ctrl+Z / Ctrl+Shift+Z undo and "
                       "redo. Hover a step for its params, a link for what flowed along it. ⚠ and a red border: the "
                       "step has a problem; a dashed border: locked; a blue border: changed since approval.")
    with side_column:
        review_bar(services)
        if worker is None and run is not None:
            resume_panel(services)
            pause_panel(services, run)
        with actions.shown("show the step inspector"):
            inspector(services, plan, run)
        marks_slot = json_panel()

    # Checked only now: should checking fail, the JSON to fix the plan in is already on the page.
    problems = services.validator.validate(plan)  # with an agent's own tools in a review
    errors = [p for p in problems if p.severity == "error"]
    blocker = actions.json_blocker()
    json_marks(marks_slot, problems if blocker is None else [])  # the code editor, its problem lines marked
    if blocker is None:
        _problems(problems)
    else:
        # The problems found are the last valid plan's, not the text in the panel: show none.
        st.caption("Problems are checked once your edit in the Plan JSON is applied; until then the graph "
                   "shows the plan as it was." if bench().json_pending else
                   "Problems are checked once the Plan JSON parses; until then the graph shows "
                   "the last valid plan.")
    with actions_slot:
        _actions_bar(services, plan, errors, blocker)
    replan_panel(services, plan)
    planner_log_panel(plan)
    versions_panel(services)
    compare.compare_panel(services, plan)
    formats_panel(services, plan)

    lineage = _lineage(services, plan)
    if worker is None and run is not None:
        st.subheader("Run")
        rerun_panel(run)
        _results(plan, run, lineage)
        if not run.finished:  # decided, carried on or resumed elsewhere: shown within a second
            _watch_run()

    with graph_slot.container():
        if worker is not None:
            _live_run(plan, errors, lineage)  # progress and the graph, redrawn as the run goes
        elif plan.steps:
            # The graph where the live run draws it (a fragment is a container of its own, the
            # progress the first block in it): the same place, so it is updated, never drawn anew.
            with st.container():
                st.container()
                editor.editable_graph(plan, run, errors)
        else:
            st.info("No steps yet: press **Add step** to pick a tool, or add steps in the JSON.",
                    icon=":material/account_tree:")


def _graph_heading(plan: Plan, run: Run | None) -> str:
    """``Graph · 3 steps`` and the colours of the statuses its steps are in (pending before a run)."""
    shown = set(run.counts()) if run is not None else set()
    legend = [s for s in STATUS_COLOURS if s in shown] or ["pending"]
    return (f"**Graph** · {len(plan.steps)} step{'s' if len(plan.steps) != 1 else ''} · "
            + " ".join(f":{STATUS_COLOUR[s]}[●] " + s for s in legend))


def _lineage(services: Services, plan: Plan) -> str | None:
    """``rerun of run X from <step>`` for the stored run shown (or running), else None."""
    run_id = bench().run_saved
    return None if run_id is None else wb.rerun_lineage(services.store, run_id, plan)


def _problems(problems: list[Problem]) -> None:
    if not problems:
        st.success("No problems found: every tool exists, params fit, references and "
                   "dependencies hold.", icon=":material/check_circle:")
        return
    errors = sum(p.severity == "error" for p in problems)
    warnings = len(problems) - errors
    st.markdown(f"**Problems** · {errors} error{'s' if errors != 1 else ''}"
                + (f", {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""))
    groups: dict[int | None, list[Problem]] = {}
    for problem in sorted(problems, key=lambda p: -1 if p.step_index is None else p.step_index):
        groups.setdefault(problem.step_index, []).append(problem)
    for group in groups.values():
        for severity in ("error", "warning"):
            lines = [md_escape(str(p)) for p in group if p.severity == severity]
            if lines:
                getattr(st, severity)("  \n".join(lines))


def _actions_bar(services: Services, plan: Plan, errors: list[Problem], blocker: str | None) -> None:
    """Approve, Run and Save; all wait while ``blocker`` (the JSON does not parse) says why."""
    blocked = blocker is not None
    approved = actions.is_approved(plan) and not blocked
    saved: SavedRef | None = bench().saved
    # While a run goes on (this tab's, or one it watches) the Run buttons wait; while the run
    # shown waits for a decision or was cut off, deciding or Resume (below) comes first.
    going = actions.run_in_progress()
    other_first = going or wb.run_waits(bench()) or bench().run is not None and bench().run.status in RESUMABLE
    approve, run_next, run_all, rehearse, save, note = st.columns([1.1, 1.3, 1, 1.15, 1, 2.2],
                                                                 vertical_alignment="bottom")
    approve.button("Approve", key="plan.approve", on_click=compare.request_approve, icon=":material/verified:",
                   width="stretch", **role_gate(Role.reviewer, "approve the plan to run",
                                                disabled=blocked or bool(errors) or approved))
    run_next.button("Run next step", key="plan.run_next", on_click=actions.request_run, args=("next",),
                    icon=":material/skip_next:", width="stretch",
                    **role_gate(Role.reviewer, "run the plan", disabled=not approved or going))
    run_all.button("Run all", key="plan.run_all", on_click=actions.request_run, args=("all",),
                   type="primary" if approved and not other_first else "secondary", icon=":material/play_arrow:",
                   width="stretch", **role_gate(Role.reviewer, "run the plan", disabled=not approved or going))
    with rehearse:
        rehearse_control(services, plan, blocked or bool(errors) or going)
    save.button("Save", key="plan.save", on_click=actions.save, icon=":material/save:", width="stretch",
                **role_gate(Role.reviewer, "save the plan", disabled=blocked))
    note.text_input("Version note", key=Keys.SAVE_MESSAGE, persist_state=PERSIST,
                    placeholder="Version note (optional)", label_visibility="collapsed",
                    **role_gate(Role.reviewer, "save the plan"))

    compare.approve_diff_panel(plan)
    if bench().confirm_new_run is not None:
        _confirm_new_run()

    needs = role_note(Role.reviewer, "approve, run, save or edit the plan")
    if needs is not None:
        reason = f"Approve, Run, Save and editing are disabled. {md_escape(needs)}"
    elif blocked:
        reason = (f"Approve, Run and Save are disabled. {md_escape(blocker)}: they would act on the plan the "
                  "graph shows, not the text in the panel.")
    elif errors:
        reason = (f"Approve is disabled: the plan has {len(errors)} problem{'s' if len(errors) != 1 else ''}"
                  " to fix first (listed below the graph).")
    elif going:
        reason = "A run is going on: watch it above; Stop or Cancel it there."
    elif wb.run_waits(bench()):
        reason = "The run shown waits for your decision on a step: approve or reject it beside the graph."
    elif other_first:
        reason = ("The run shown was cut off: **Resume** beside the graph carries it on (steps that finished "
                  "are not run again).")
    elif approved:
        reason = ("Approved. Run it one step at a time or all at once; editing what runs withdraws approval "
                  "(locks and notes do not).")
    else:
        reason = "Review the plan, then approve it to run it."
    kept = ""
    if saved is not None:
        edited = saved.fingerprint != actions.fingerprint(plan)
        kept = f" · Saved as version {saved.version}" + (" (edited since: Save makes a new version)" if edited else "")
    run = bench().run
    if run is not None and not going:  # what the run shown came to, by the buttons that run it
        shown = "The rehearsal shown" if run.rehearsal is not None else "The run shown"  # no tool was called
        st.markdown(md_escape(f"{shown} ({run.status}): {wb.summarize_run(run).headline}") + kept,
                    help=f"{reason}\n\nThe selected step's result is beside the graph; every step's under **Run**.")
    else:
        st.caption(reason + kept)


def _confirm_new_run() -> None:
    live = bench().live_run
    with st.container(border=True, key="plan.new_run"):
        if live is None:
            st.warning("The last run finished. Start a new run? Its results replace the ones shown below.",
                       icon=":material/replay:")
            confirm, cancel, _ = st.columns([1.3, 1, 4.7])
        else:  # another run of this version is not over: open it, rather than run the plan twice
            st.warning(md_escape(f"Run {live.id} of this version is {live.state}. Open it to watch it, decide its "
                                 "waiting step or resume it; a second run calls every tool again."),
                       icon=":material/content_copy:")
            opening, confirm, cancel, _ = st.columns([1.3, 1.5, 1, 3.2])
            opening.button("Open that run", key="plan.new_run.open", type="primary", on_click=actions.open_live_run,
                           icon=":material/open_in_new:", width="stretch")
        confirm.button("Start a new run" if live is None else "Start a second run", key="plan.new_run.confirm",
                       type="primary" if live is None else "secondary", on_click=actions.confirm_new_run,
                       width="stretch")
        cancel.button("Cancel", key="plan.new_run.cancel", on_click=actions.cancel_new_run, width="stretch")


@st.fragment(run_every=_PROGRESS_SECONDS)
def _live_run(plan: Plan, errors: list[Problem], lineage: str | None) -> None:
    """The run in progress above its graph, redrawn on its own while the worker runs (the graph
    recolours its steps in place); clicks elsewhere on the page do not stop it. When the worker
    is done, the whole page runs again to collect it."""
    worker = bench().worker
    if worker is None or not worker.alive:
        st.rerun()
    progress = worker.progress()
    counts = progress.counts()
    done = sum(n for s, n in counts.items() if s in FINISHED)
    rehearsing = wb.is_rehearsing(bench())
    what = "the next step" if progress.kind == "next" else "the plan"
    # The lineage names a step by its note: the user's text, escaped (the label reads markdown).
    label = f"{'Rehearsing' if rehearsing else 'Running'} {what}: {done} of {len(progress.statuses)} steps done" + (f" · {md_escape(lineage)}" if lineage else "")
    # The progress in a block of its own, the graph second: where _plan_view draws it when no run goes.
    with st.container():
        with st.status(label, expanded=True, state="running"):
            if progress.current is not None:
                st.write(md_escape(f"{step_title(plan, progress.current)}: running"))
            streamed_answer(progress, worker)  # the model's answer streamed as it is written
        stop, cancel, note = st.columns([1, 1, 4], vertical_alignment="center")
        stop.button("Stop", key="plan.stop", on_click=actions.stop_run, icon=":material/stop:", width="stretch",
                    **role_gate(Role.reviewer, "stop a run", disabled=progress.stopping,
                                help="Stop after the step running now; the steps not started stay pending."))
        cancel.button("Cancel", key="plan.cancel", on_click=actions.cancel_run, icon=":material/cancel:", width="stretch",
                      **role_gate(Role.reviewer, "cancel a run",
                                  help="End the run now: steps running are marked cancelled; what finished is kept."))
        note.caption("Stopping after the current step…" if progress.stopping else
                     "A rehearsal: no tool is called; each step takes a pinned, recorded or made-up result."
                     if rehearsing else "The run is stored as it goes: a restart of the studio loses nothing that finished.")
    if plan.steps:
        editor.editable_graph(plan, _progress_run(plan, progress), errors)
    ended = [e for e in progress.events if e.type == "plan_step_end"][-5:]
    if ended:
        st.caption("Last finished: " + md_escape(" · ".join(
            f"{step_title(plan, e.step_id or '')}: {e.data['status']}" for e in reversed(ended))))


@st.fragment(run_every=_PROGRESS_SECONDS)
def _watch_run() -> None:
    """The run shown, not over and carried out by nothing of this tab: its cheap stamp in the
    store is looked at every half second, and the page reads the run again (or watches it live,
    carried on here) when it moved: a step decided over the API, MCP or in another tab."""
    b = bench()
    run = b.run
    if run is None or b.worker is not None or run.finished:
        return
    try:
        stamp = wb.run_stamp(get_services(), run.id)
    except Exception:  # the store away: the page says so on its next full run
        return
    seen = st.session_state.get(Keys.RUN_SEEN)
    if seen is None or seen[0] is not run:  # a run drawn for the first time: as it is now
        st.session_state[Keys.RUN_SEEN] = (run, stamp)
    elif seen[1] != stamp and actions.refresh_run():
        # Paired with the stamp read before the run was read again: should the run move on while
        # the page draws it (a decided step carried on in ms), the next look still sees it moved.
        st.session_state[Keys.RUN_SEEN] = (bench().run, stamp)
        st.rerun()


def _progress_run(plan: Plan, progress: RunProgress) -> Run:
    """The run in progress as far as the graph needs it: each step's status, a ``StepStatus``
    as the live view was told it (``core.run._live_view``), taken as it is; and for each step
    that ended, its result, error and duration as its events told them (the node shows them)."""
    steps = {step_id: StepRun(step_id=step_id, status=status) for step_id, status in progress.statuses.items()}
    for event in progress.events:
        state = steps.get(event.step_id or "")
        if state is None:
            continue
        if event.type == "tool_result":
            state.result, state.error = event.data.get("result"), event.data.get("error")
        elif event.type == "plan_step_end":
            state.duration_ms, state.error = event.data.get("duration_ms"), event.data.get("error")
    return Run(id=progress.run_id, plan=plan, steps=steps)


def _results(plan: Plan, run: Run, lineage: str | None) -> None:
    counts = ", ".join(f"{n} {s}" for s, n in run.counts().items())
    saved_note = " · saved with the plan" if bench().run_saved == run.id else ""
    came = f" · {lineage}" if lineage else ""
    # Between "Run next step" clicks nothing runs: the run is paused, or interrupted if a step was cut off.
    st.caption(md_escape(f"Run {run.id} · {run.status} · {counts}{saved_note}{came}{rehearsal_caption(run)}"))
    run_download(run)
    answer_panel(run)  # what the run came to, first: the summary, and the model's answer or the step-by-step one
    done = [s for s in (run.steps.get(step.id) for step in plan.steps)
            if s is not None and s.status != StepStatus.pending]
    if len(done) > _RESULTS_SHOWN and not st.toggle(f"Show all {len(done)} step results", key="plan.results_all"):
        done = [s for n, s in enumerate(done) if n < _RESULTS_SHOWN or s.status != StepStatus.succeeded]
    for state in done:
        with st.container(border=True):
            step_result(plan, state, run)
    for name, value in run.appended_results().items():
        st.markdown(f"**{md_escape(name)}**")
        if isinstance(value, (dict, list)):
            st.json(value, expanded=1)
        else:
            st.markdown(md_escape(value))
