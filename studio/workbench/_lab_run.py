"""A Lab experiment running beside the page: ``core.lab.run_experiment`` in a thread, its results
kept as they come, so the page draws progress while it runs and keeps what was done when the
user stops it (or the planner fails part-way). No Streamlit here: the page reads it.

``start_experiment`` is the use case the Lab page calls (and anyone else may): the checks that
say why an experiment cannot run (``experiment_blocker``), then the run, with the services' tools
and the planner the experiment names."""

from __future__ import annotations

import datetime as dt
import logging
import threading

from typing import Sequence

from core import LOCAL_ACTOR, Actor, PlanStudioError, Role, Settings, ToolRegistry, Validator
from core.lab import EditProblem, Experiment, GoalResult, PlannerFactory, check_overrides, run_experiment
from core.planners import Planner, make_planner

from ._bench import Outcome
from ._roles import refused_for_role
from ._messages import attempt
from ._services import Services

__all__ = ["LabRun", "experiment_blocker", "planner_factory", "start_experiment"]

log = logging.getLogger(__name__)


def planner_factory(settings: Settings, choice: str) -> PlannerFactory:
    """The planner ``choice`` names (a registered one: "embedded", "llm" or a plugin's), made
    for any registry (the original words and the edited ones get one each), with the session's
    model settings."""
    chosen = settings.model_copy(update={"planner": choice})

    def planner(registry: ToolRegistry) -> Planner:
        return make_planner(chosen, registry)

    return planner


class LabRun:
    """One run of an experiment in a background thread."""

    def __init__(self, experiment: Experiment, registry: ToolRegistry, planner_for: PlannerFactory, *,
                 today: dt.date, validator: Validator | None = None) -> None:
        self.experiment = experiment
        self.total = len(experiment.goals)
        self.results: list[GoalResult] = []  # appended by the thread, read by the page
        self.error: str | None = None
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._work, args=(registry, planner_for, today, validator),
                                        name="lab-run", daemon=True)

    def start(self) -> "LabRun":
        self._thread.start()
        return self

    def _work(self, registry: ToolRegistry, planner_for: PlannerFactory, today: dt.date,
              validator: Validator | None) -> None:
        try:
            for result in run_experiment(self.experiment, registry, planner_for, today=today,
                                         validator=validator, cancel=self._cancel):
                self.results.append(result)
        except PlanStudioError as exc:
            self.error = str(exc)
        except Exception as exc:  # the page shows a line, never a traceback; the log keeps it
            log.error("the Lab's run failed", exc_info=exc)
            self.error = f"unexpected {type(exc).__name__}; the details are in the studio's log"
        finally:
            self._done.set()

    def stop(self) -> None:
        """Stop before the next plan; what was done stays."""
        self._cancel.set()

    @property
    def stopping(self) -> bool:
        return self._cancel.is_set()

    @property
    def running(self) -> bool:
        return not self._done.is_set()

    @property
    def stopped_early(self) -> bool:
        return self._done.is_set() and len(self.results) < self.total

    def join(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)


def experiment_blocker(experiment: Experiment, problems: Sequence[EditProblem]) -> str | None:
    """Why ``experiment`` cannot run as it is (``problems``: its edits' problems), or None."""
    if problems:
        return "Fix the edits marked above first."
    if not experiment.goals:
        return "Add goals first."
    if not experiment.overrides:
        return "Edit a description first: there is nothing to compare."
    return None


def start_experiment(services: Services, experiment: Experiment, *,
                     actor: Actor = LOCAL_ACTOR) -> tuple[Outcome, LabRun | None]:
    """Plan every goal of ``experiment`` with the tools' words and with the edited ones, in the
    background (``LabRun``); refused, saying why, when it cannot run as it is."""
    out = Outcome()
    if refused_for_role(actor, out, Role.reviewer, "run a Lab experiment"):
        return out, None
    blocker = experiment_blocker(experiment, check_overrides(services.registry, experiment.overrides))
    if blocker is not None:
        return out.say("error", f"Could not run the experiment: {blocker}"), None
    with attempt(out, "run the experiment"):
        run = LabRun(experiment, services.registry, planner_factory(services.settings, experiment.planner),
                     today=services.settings.effective_today(), validator=Validator(services.registry)).start()
        return out.done(), run
    return out, None
