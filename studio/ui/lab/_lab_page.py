"""The Lab page: edit tools' descriptions for an experiment, re-plan a goal set with the tools' own
words and the edited ones side by side, save and reopen experiments, and see drift.

Sections (each its own module): the experiment bar here (open, name, save, new), the tool editor
(``_lab_edit``), the goal set (``_lab_goals``), the run and its results (``_lab_results``), drift
(``_lab_drift``). Every widget is keyed ``lab.…``. Saving is refused when another tab saved the
experiment since this one opened it: the work here stays as it is, and can be saved as a new
experiment or dropped for theirs.
"""

from __future__ import annotations

import json
import logging
from contextlib import contextmanager
from typing import Iterator

import streamlit as st

from core import PlanStudioError
from core.lab import Experiment, check_overrides
from core.storage import ExperimentConflict, PlanStore

from ._lab_draft import keep_lab_work, restore_lab_work
from ._lab_drift import drift_section
from ._lab_edit import tool_editor
from ._lab_goals import goal_set
from ._lab_results import results_section
from ._lab_state import LabWork, current_experiment, key, lab_work, open_experiment
from ...workbench._services import Services
from .._session import source_services
from .._text import md_escape

__all__ = ["lab_page"]

log = logging.getLogger(__name__)


@contextmanager
def _shown(action: str) -> Iterator[None]:
    """Any failure inside the block as one line where it happened, never a traceback."""
    try:
        yield
    except PlanStudioError as exc:
        st.error(md_escape(f"Could not {action}: {exc}"))
    except Exception as exc:
        log.error("the Lab could not %s", action, exc_info=exc)
        st.error(f"Could not {action}: unexpected {type(exc).__name__}. The details are in the studio's log.")


def lab_page() -> None:
    st.title("Lab")
    st.caption("Try other words for your tools: edit descriptions here (the tools themselves stay as they are), "
               "re-plan a set of goals with the tools' own words and with yours, and see what changes.")
    services: Services | None = None
    with _shown("load the tools"):
        services = source_services()
    if services is None:
        return
    with _shown("bring back the Lab's work"):
        lost = restore_lab_work(services.store)
        if lost:
            st.warning(lost, icon=":material/warning:")
    work = lab_work()
    with _shown("show the saved experiments"):
        _experiment_bar(work, services)
    experiment = current_experiment(work, services.registry)
    problems = check_overrides(services.registry, experiment.overrides)
    with _shown("show the tool editor"):
        tool_editor(work, services.registry, experiment, problems)
    with _shown("show the goal set"):
        goal_set(work, services.store)
    with _shown("run the experiment"):
        results_section(work, services, experiment, problems)
    with _shown("check for drift"):
        drift_section(work, services)
    with _shown("keep the Lab's work with this tab"):
        keep_lab_work(services.store, services.registry)


def _experiment_bar(work: LabWork, services: Services) -> None:
    store = services.store
    saved = store.lab.list()
    with st.container(border=True, key="lab.bar"):
        name, opened, choose, open_button, new = st.columns([3, 1.6, 2.4, 0.8, 0.8], vertical_alignment="bottom")
        name.text_input("Experiment", value=work.name, key=key(work, "name"))
        opened.caption(f"Saved as version {work.saved_version}" if work.saved_id else "Not saved yet")
        options = {s.id: f"{s.name} (v{s.version})" for s in saved}
        choose.selectbox("Saved experiments", list(options), format_func=options.get, key="lab.open.choice",
                         index=None, placeholder="Open a saved experiment" if saved else "None saved yet")
        open_button.button("Open", key="lab.open", on_click=_open, args=(store,), disabled=not saved)
        new.button("New", key="lab.new", on_click=_new)
        st.button("Save experiment", key="lab.save", type="primary", on_click=_save, args=(services,),
                  icon=":material/save:")
    if work.notice:
        st.success(md_escape(work.notice), icon=":material/check:")
        work.notice = None
    if work.conflict:
        with st.container(border=True, key="lab.conflict"):
            st.warning(md_escape(work.conflict), icon=":material/sync_problem:")
            mine, theirs, _ = st.columns([1.4, 1.4, 3])
            mine.button("Save mine as a new experiment", key="lab.conflict.mine", on_click=_save,
                        args=(services, True))
            theirs.button("Open their version (drops my changes)", key="lab.conflict.theirs",
                          on_click=_open_saved, args=(store, work.saved_id))


def _save(services: Services, as_new: bool = False) -> None:
    work = lab_work()
    experiment = current_experiment(work, services.registry)
    problems = check_overrides(services.registry, experiment.overrides)
    if problems:
        work.conflict = None
        work.notice = None
        st.toast(md_escape("Not saved: " + "; ".join(map(str, problems))), icon=":material/block:")
        return
    experiment_id = None if as_new else work.saved_id
    try:
        saved = services.store.lab.save(experiment.name, json.dumps(experiment.as_json()),
                                        experiment_id=experiment_id,
                                        expected_version=None if as_new else work.saved_version)
    except ExperimentConflict as exc:
        work.conflict = (f"Not saved: {exc}. Your edits are still here: save them as a new experiment, "
                         "or open their version instead.")
        return
    except PlanStudioError as exc:
        work.conflict = f"Not saved: {exc}. Your edits are still here."
        return
    work.name, work.tools, work.goals = experiment.name, list(experiment.tools), list(experiment.goals)
    work.overrides = dict(experiment.overrides)
    work.saved_id, work.saved_version, work.conflict = saved.id, saved.version, None
    work.notice = f"Saved “{saved.name}” as version {saved.version}."


def _open(store: PlanStore) -> None:
    chosen = st.session_state.get("lab.open.choice")
    if chosen:
        _open_saved(store, chosen)


def _open_saved(store: PlanStore, experiment_id: str | None) -> None:
    if experiment_id is None:
        return
    try:
        saved = store.lab.load(experiment_id)
        experiment = Experiment.from_json(json.loads(saved.content))
    except (PlanStudioError, ValueError, KeyError, TypeError) as exc:
        lab_work().conflict = f"Could not open the experiment: {exc}"
        return
    open_experiment(experiment, saved_id=saved.id, saved_version=saved.version)
    lab_work().notice = f"Opened “{saved.name}” (version {saved.version})."


def _new() -> None:
    open_experiment(Experiment(), saved_id=None, saved_version=None)
