"""A run as one DBOS workflow, driven by the project's own engine (``core.Executor``: the one
code path of every run, steps in parallel) with a recorder that writes each change to the store.

The store is where a run survives: ``StoreRecorder`` writes a step "started" with its resolved
arguments before its tool is called and its outcome right after (DBOS records a step only once
it returns, which would run a tool again whose effect happened before a kill). After a kill,
the workflow (replayed by DBOS, or resumed) loads the run as recorded: finished steps stay and
are not run again; a step cut off mid-call runs again only when its tool may repeat
(``_effects``); any other is *in doubt* and waits, inside the workflow, for the user's decision
(``DBOS.recv``, which survives restarts): "again" runs it, "failed" fails it without a call.

DBOS brings the rest: a run is a workflow with the run's id, so a queue hands it to exactly one
worker, a dead process's runs can be taken over, messages reach a waiting run, and runs are
recovered only by the release that wrote them (``_runtime``).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from dbos import DBOS

from ..access._actor import Actor
from ..run._engine import RunRecorder, StopReason
from ..run._events import Event, now
from ..run._executor import Executor
from ..tooling._registry import ToolRegistry
from ..run._policy import RunLimits
from ..run._model import Run, StepAttempt
from ..run._status import CUT_OFF, StepStatus
from ..run._approval import waiting_steps
from ._effects import may_repeat_named
from ._holding import DECIDED_TOPIC
from ._run_log import RunLog, decided_line, ended_line
from ._run_log import log as run_log
from ._outage import database_trouble
from ._started_with import record_tools

__all__ = ["IN_DOUBT", "Bound", "StoreRecorder", "bind", "bound", "cut_off_steps", "doubt_topic", "in_doubt_note",
           "in_this_thread", "run_workflow"]

log = logging.getLogger("core.durable")

# The note of a step that may have had its effect before a crash, and is not run again alone.
IN_DOUBT = "in doubt"
# How long an in-doubt step waits for a decision before it fails (a run is not kept open forever).
_DECISION_WAIT_SECONDS = 30 * 24 * 3600.0


def doubt_topic(step_id: str) -> str:
    return f"in-doubt:{step_id}"


def in_doubt_note(tool: str) -> str:
    return (f"{IN_DOUBT}: {tool} was called before the run stopped and may have had its effect; "
            "it is not run again until you decide (run it again, or mark it failed)")


@dataclass
class Bound:
    """What this process's workflows run with: the store, the tools, the final answer maker,
    the limits, and whoever listens to a run's events."""

    store: Any
    registry: ToolRegistry
    synthesizer: Any = None
    limits: RunLimits | None = None
    listeners: dict[str, Callable[[Event], None]] = field(default_factory=dict)
    # Told what the store is told, after it (a page's live view): ``DurableRuns.go_on(watcher=...)``.
    watchers: dict[str, RunRecorder] = field(default_factory=dict)
    # Set when a run ends: what a caller of resume waits on.
    stopped: dict[str, threading.Event] = field(default_factory=dict)
    active: set[str] = field(default_factory=set)  # runs being run in this process now
    # Runs this process stopped because the database went away: a worker carries them on once
    # it is back (``_worker``); nobody else may, as this process is alive.
    cut_off_by_outage: set[str] = field(default_factory=set)
    # Asked before each step of a run starts (a page's Stop); the engine driving each run here
    # now (what cancels it).
    should_stop: dict[str, Callable[[], bool]] = field(default_factory=dict)
    engines: dict[str, Executor] = field(default_factory=dict)
    # Who carries each run on here, and by which channel (``DurableRuns.acting``): named in the
    # audit's "run started / stopped / ended"; the studio itself when nobody said.
    who: dict[str, tuple[Actor, str]] = field(default_factory=dict)
    # A worker's: a run that stops with steps waiting for a person waits in its workflow for the
    # word that they were decided (``_holding``) instead of ending it; each run and step logged.
    waits_for_people: bool = False
    logs_runs: bool = False

    def signal(self, run_id: str) -> None:
        event = self.stopped.get(run_id)
        if event is not None:
            event.set()


class _InThisThread(threading.local):
    """A run handed between ``DurableRuns`` and the workflow it runs in the same thread (DBOS runs
    a workflow called directly in its caller's thread), so neither reads back what the other
    just wrote: ``given``, a run just put in the store; ``ran``, the run as the workflow left it,
    every change of it written. A workflow replayed or recovered finds neither, and loads."""

    given: Run | None = None
    wanted: str | None = None  # the id of the run whose ``ran`` the caller takes
    ran: Run | None = None


in_this_thread = _InThisThread()
_bound: list[Bound] = []
_bind_lock = threading.Lock()


def bind(value: Bound) -> None:
    with _bind_lock:
        _bound[:] = [value]


def bound() -> Bound:
    if not _bound:
        raise RuntimeError("no durable runs are set up in this process")
    return _bound[0]


class StoreRecorder:
    """The engine's ``RunRecorder`` for durable runs: every change written to the store as it
    happens, in a short transaction; the steps that start (or end) together share one. A part of
    the run starting, stopping and the run ending are put on record in the audit too, naming
    ``who`` (the actor and channel that carry it on)."""

    def __init__(self, store: Any, who: tuple[Actor, str] | None = None) -> None:
        self._records = store.records
        self._audit = store.audit
        self._who = who or (Actor.system(), "")

    def on_record(self, run: Run, action: str, detail: dict[str, Any]) -> None:
        actor, channel = self._who
        counts: dict[str, int] = {}
        for state in run.steps.values():
            counts[state.status.value] = counts.get(state.status.value, 0) + 1
        try:
            self._audit.append(actor, action, channel=channel, subject={"run": run.id},
                               detail={**detail, "status": run.status, "steps": counts, "goal": run.plan.goal})
        except Exception as exc:  # the run goes on; the log says what the audit lacks
            log.error("could not put %s of run %s on record: %s", action, run.id, exc)

    def run_started(self, run: Run) -> None:
        self._records.run_state(run.id, status="running", started_at=run.started_at)
        self.on_record(run, "run.started", {})

    def step_started(self, run: Run, step_id: str, attempt: StepAttempt, arguments: dict[str, Any]) -> None:
        self.steps_started(run, [(step_id, attempt, arguments)])

    def steps_started(self, run: Run, starts: list[tuple[str, StepAttempt, dict[str, Any]]]) -> None:
        # The steps of a wave, in one transaction: a write each was most of a fan-out's cost. A
        # step started when its first call did (each call is in its ``retried`` when it ends).
        self._records.steps_started(run.id, [(step_id, arguments, run.steps[step_id].started_at or attempt.started_at)
                                             for step_id, attempt, arguments in starts])

    def step_ended(self, run: Run, step_id: str) -> None:
        self._records.step_finished(run.id, run.steps[step_id])

    def steps_ended(self, run: Run, step_ids: list[str]) -> None:
        self._records.steps_finished(run.id, [run.steps[step_id] for step_id in step_ids])

    def run_stopped(self, run: Run, reason: StopReason) -> None:
        self._records.run_state(run.id, status=run.status)
        self.on_record(run, "run.stopped", {"reason": reason})

    def run_finished(self, run: Run) -> None:
        self._records.run_state(run.id, status=run.status, finished_at=run.finished_at or now())


class _StoreThenWatcher:
    """The store's recorder, then a watcher of the run (a live view): each change is written
    first, so what the watcher shows is in the store already."""

    def __init__(self, store: StoreRecorder, watcher: RunRecorder) -> None:
        self._store, self._watcher = store, watcher

    def run_started(self, run: Run) -> None:
        self._store.run_started(run)
        self._watcher.run_started(run)

    def step_started(self, run: Run, step_id: str, attempt: StepAttempt, arguments: dict[str, Any]) -> None:
        self.steps_started(run, [(step_id, attempt, arguments)])

    def steps_started(self, run: Run, starts: list[tuple[str, StepAttempt, dict[str, Any]]]) -> None:
        self._store.steps_started(run, starts)
        for step_id, attempt, arguments in starts:
            self._watcher.step_started(run, step_id, attempt, arguments)

    def step_ended(self, run: Run, step_id: str) -> None:
        self.steps_ended(run, [step_id])

    def steps_ended(self, run: Run, step_ids: list[str]) -> None:
        self._store.steps_ended(run, step_ids)
        for step_id in step_ids:
            self._watcher.step_ended(run, step_id)

    def run_stopped(self, run: Run, reason: StopReason) -> None:
        self._store.run_stopped(run, reason)
        self._watcher.run_stopped(run, reason)

    def run_finished(self, run: Run) -> None:
        self._store.run_finished(run)
        self._watcher.run_finished(run)


def cut_off_steps(run: Run, registry: ToolRegistry) -> tuple[list[str], list[str]]:
    """The steps of ``run`` (as recorded) whose call was cut off: those whose tools may repeat
    (they simply run again), and those in doubt (the user decides), each in plan order."""
    repeat, doubt = [], []
    for step in run.plan.steps:
        state = run.steps[step.id]
        if state.status not in CUT_OFF or (state.started_at is None and state.arguments is None):
            continue
        marked = (state.error or "").startswith(IN_DOUBT)
        safe = may_repeat_named(registry, step.tool)
        (doubt if marked or not safe else repeat).append(step.id)
    return repeat, doubt


def _settle_doubts(context: Bound, run: Run, decided: dict[str, str]) -> None:
    """Each step in doubt takes the user's decision: given with the workflow (``decided``), or
    waited for (sent with ``DurableRuns.decide``)."""
    _repeat, doubt = cut_off_steps(run, context.registry)
    for step_id in doubt:
        state, tool = run.steps[step_id], run.plan.step(step_id).tool
        if not (state.error or "").startswith(IN_DOUBT):
            context.store.records.step_marked(run.id, step_id, StepStatus.interrupted.value, in_doubt_note(tool),
                                              run_status=IN_DOUBT)
        decision = decided.get(step_id)
        while decision is None:
            came = DBOS.recv(doubt_topic(step_id), timeout_seconds=_DECISION_WAIT_SECONDS)
            # A replay after a take-over may hand back another message recorded at this point of
            # the workflow (a "look again"): only "again" or "failed" decide a step in doubt.
            decision = came if came in ("again", "failed") or came is None else None
            if came is None:
                break
        if decision == "again":
            state.status, state.error, state.worker = StepStatus.interrupted, None, None
        else:
            state.status = StepStatus.failed
            state.error = (f"{IN_DOUBT}: not run again ({decision or 'no decision came'}); "
                           f"{tool} may have had its effect before the run stopped")
            context.store.records.step_finished(run.id, state)


def _drive(context: Bound, run: Run, recorder: StoreRecorder, listener: Callable[[Event], None] | None,
           step_budget: int | None) -> None:
    watcher = context.watchers.get(run_id := run.id)
    if watcher is None and context.logs_runs:
        watcher = RunLog()
    executor = Executor(context.registry, context.synthesizer, limits=context.limits,
                        recorder=recorder if watcher is None else _StoreThenWatcher(recorder, watcher),
                        grants=context.store.grants)
    context.engines[run_id] = executor
    executor.drive(run, on_event=listener, should_stop=context.should_stop.get(run_id), limit=step_budget)


def _decided(context: Bound, run: Run) -> Run | None:
    """A worker's run held for a person: wait for word that its waiting steps were decided
    (``_holding.hand_over``), then the run as stored, each decision logged; None when no word
    came in time (the run stays waiting; a later decision puts a further part on the queue)."""
    run_log.info("run waiting run=%s steps=%s", run.id, ",".join(waiting_steps(run)))
    while True:
        if DBOS.recv(DECIDED_TOPIC, timeout_seconds=_DECISION_WAIT_SECONDS) is None:
            return None
        stored = context.store.load_run(run.id)
        waiting = waiting_steps(stored)
        if stored.finished or any(stored.steps[s].decision is None for s in waiting):
            continue  # another approver is still due; wait for the next word
        for step_id in waiting:
            run_log.info(decided_line(stored, step_id, stored.steps[step_id].decision))  # type: ignore[arg-type]
        return stored


@DBOS.workflow(name="plan_studio_run")
def run_workflow(run_id: str, step_budget: int | None = None, decisions: dict[str, str] | None = None) -> str:
    """Run the stored run ``run_id`` from what is recorded: to its end, or ``step_budget`` steps
    (a page's "Run next step"; the run stays paused, to go on in a later workflow). ``decisions``
    answer its steps in doubt (kept with the workflow's inputs). Its status."""
    context = bound()
    given, in_this_thread.given = in_this_thread.given, None
    run = given if given is not None and given.id == run_id else context.store.load_run(run_id)
    listener = context.listeners.get(run_id)
    context.active.add(run_id)
    try:
        record_tools(run.plan, context.registry)  # first, always: what a resume compares with
        _settle_doubts(context, run, decisions or {})
        recorder = StoreRecorder(context.store, context.who.get(run_id))
        _drive(context, run, recorder, listener, step_budget)
        while context.waits_for_people and not run.finished and waiting_steps(run):
            decided = _decided(context, run)
            if decided is None:
                return "waiting"
            run = decided
            _drive(context, run, recorder, listener, step_budget)
        if run.finished:
            context.store.records.run_ended(run.id, status=run.status, finished_at=run.finished_at or now(),
                                            answer=run.answer)
            recorder.on_record(run, "run.ended", {})  # its final status known now
            if context.logs_runs:
                run_log.info(ended_line(run))
        if in_this_thread.wanted == run_id:
            in_this_thread.ran = run
    except Exception as exc:
        if database_trouble(exc) is not None:
            context.cut_off_by_outage.add(run_id)
        raise
    finally:
        context.engines.pop(run_id, None)
        context.active.discard(run_id)
        context.signal(run_id)
    return run.status

