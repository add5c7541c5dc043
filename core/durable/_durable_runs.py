"""``DurableRuns``: the Python API of runs that are in the store from their first step and
survive a kill of the process running them.

    runs = DurableRuns(store, registry)
    run = runs.run(plan)                       # saved as a plan version, then run to its end
    run_id = runs.start(plan); runs.execute(run_id, on_event=print)
    runs.resume(run_id)                        # after a kill: no finished step runs again
    runs.resume(run_id, decisions={"s3": "again"})  # a step in doubt: call its tool again
                                               # (without a decision: StepsInDoubt, nothing runs)
    runs.carry_on(run_id)                      # after a person decided on its waiting steps
    runs.go_on(run_id, step_budget=1)          # a further part of it here (the studio's Run next
                                               # step, Run all, Resume), any stopped part taken over
    runs.cancel(run_id)                        # from any thread: running steps cancelled, recorded
    runs.enqueue(run_id)                       # a worker (``plan-studio worker``) runs it

A run whose process is still alive is refused by ``resume`` (two processes would run it at
once); one whose process is gone (``executor_alive``) is taken over. Every way of carrying a run
on here (execute, resume, carry on, go on) first claims it in the store (``_claims``): of two
processes at once one goes on, the other gets ``RunStillGoing`` naming who has it.
"""

from __future__ import annotations

import asyncio
import functools
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping, TypeVar

from ..access._actor import Actor
from .._errors import PlanStudioError, RehearsalRefused, RunStillGoing, StepsInDoubt
from ..run._engine import RunRecorder
from ..run._executor import Event, Executor
from ..plan._model import Plan
from ..tooling._registry import ToolRegistry
from ..run._model import Run, StepRun
from ..validation._validator import Validator, first_few
from . import _runtime
from ..run._policy import RunLimits
from ._claims import RunClaimer, executor_alive
from ._holding import WorkerHold, hand_over, worker_hold
from ._outage import stops_clearly
from ._started_with import what_changed
from ._workflow import (IN_DOUBT, Bound, bind, cut_off_steps, doubt_topic, in_doubt_note, in_this_thread,
                        run_workflow)

__all__ = ["DurableRuns", "executor_alive"]

Decision = str  # "again": call the in-doubt step's tool again; "failed": fail it without a call


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _off_any_event_loop(method: _Method) -> _Method:
    """Make the call on a thread of its own when an event loop runs in the caller's thread (an
    ``async`` caller, a notebook, Playwright's sync API): DBOS's synchronous API refuses to run
    there, and the call blocks its caller either way."""
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return method(*args, **kwargs)
        with ThreadPoolExecutor(1, thread_name_prefix="plan-durable") as pool:
            return pool.submit(method, *args, **kwargs).result()
    return call  # type: ignore[return-value]


class DurableRuns:
    """Durable runs of plans against ``registry``, kept in ``store`` (SQLite or PostgreSQL).

    Without ``limits``, the user's (``Executor``'s default): a step of a tool that may write
    waits for a person; ``approve_writes=False`` opts out."""

    @_off_any_event_loop
    def __init__(self, store: Any, registry: ToolRegistry, synthesizer: Any = None, *,
                 limits: RunLimits | None = None, queues: tuple[str, ...] = (),
                 worker_concurrency: int | None = None, worker: bool = False,
                 approve_writes: bool | None = None) -> None:
        if approve_writes is not None:  # the explicit opt-out of the pause before writes, as ``Executor``'s
            limits = RunLimits.chosen(limits, approve_writes=approve_writes)
        self.store = store
        self.registry = registry
        # ``worker``: a ``plan-studio worker``'s runs wait in their workflow for decisions and are logged.
        self._bound = Bound(store=store, registry=registry, synthesizer=synthesizer, limits=limits,
                            waits_for_people=worker, logs_runs=worker)
        bind(self._bound)
        self._claimer = RunClaimer(store)  # one process carries a run on at a time
        with stops_clearly(None, store.database.path):
            _runtime.launch(store.database, queues=queues, worker_concurrency=worker_concurrency)

    # -- making runs -------------------------------------------------------------------------
    def start(self, plan: Plan, *, plan_id: str | None = None, version: int | None = None,
              message: str = "", parent_id: str | None = None, rerun_from: str | None = None,
              seeded: Mapping[str, StepRun] | None = None) -> str:
        """Put a new run of ``plan`` in the store (saving the plan as a version first when no
        ``plan_id`` is given) and return its id; nothing runs yet. Raises ``PlanInvalid``."""
        return self.new_run(plan, plan_id=plan_id, version=version, message=message, parent_id=parent_id,
                            rerun_from=rerun_from, seeded=seeded).id

    def new_run(self, plan: Plan, **start: Any) -> Run:
        """``start``, returning the run as it was put in the store (not read back): hand it to
        ``go_on`` and the run is not loaded again before its first step."""
        return self._stored(plan, **start)

    def _stored(self, plan: Plan, *, plan_id: str | None = None, version: int | None = None,
                message: str = "", parent_id: str | None = None, rerun_from: str | None = None,
                seeded: Mapping[str, StepRun] | None = None, submitted_by: str | None = None) -> Run:
        run = Executor(self.registry).start(plan)
        run.submitted_by = submitted_by  # who submitted the plan: never an approver of its steps
        if plan_id is None or version is None:
            saved = self.store.save_plan(plan, plan_id=plan_id, message=message)
            plan_id, version = saved.plan_id, saved.version
        for step_id, state in (seeded or {}).items():
            run.steps[step_id] = state.model_copy()
        self.store.save_run(run, plan_id=plan_id, version=version)
        if parent_id is not None:
            self.store.records.link(run.id, parent_id=parent_id, rerun_from=rerun_from)
        return run

    def run(self, plan: Plan, *, on_event: Callable[[Event], None] | None = None, **start: Any) -> Run:
        """Start a run of ``plan`` and run it to its end in this thread."""
        fresh = self._stored(plan, **start)
        return self._execute(fresh.id, on_event, fresh)

    # -- running them ------------------------------------------------------------------------
    def execute(self, run_id: str, *, on_event: Callable[[Event], None] | None = None) -> Run:
        """Run ``run_id`` in this thread until it ends (or waits on a step in doubt, forever:
        see ``resume``); the run as stored."""
        return self._execute(run_id, on_event, None)

    @_off_any_event_loop
    def _execute(self, run_id: str, on_event: Callable[[Event], None] | None, given: Run | None) -> Run:
        """``execute``; ``given``: the run as ``_stored`` just put it in the store (not read back)."""
        with self._claimer.claimed(run_id):
            return self._execute_claimed(run_id, on_event, given)

    def _execute_claimed(self, run_id: str, on_event: Callable[[Event], None] | None, given: Run | None) -> Run:
        from dbos import SetWorkflowID

        if on_event is not None:
            self._bound.listeners[run_id] = on_event
        in_this_thread.given, in_this_thread.wanted, in_this_thread.ran = given, run_id, None
        try:
            with stops_clearly(run_id, self.store.database.path), SetWorkflowID(run_id):
                run_workflow(run_id)
        finally:
            self._bound.listeners.pop(run_id, None)
            ran = in_this_thread.ran
            in_this_thread.given = in_this_thread.wanted = in_this_thread.ran = None
        # The run as its workflow left it here, every change written; else (a workflow DBOS
        # had run before, or one that ran elsewhere) as stored.
        return ran if ran is not None and ran.id == run_id else self.store.load_run(run_id)

    @_off_any_event_loop
    def carry_on(self, run_id: str, *, on_event: Callable[[Event], None] | None = None) -> Run:
        """Go on with a run that stopped held (steps waiting for a person) once a person decided
        on them (the decisions stored on its steps): its workflow ended when the run stopped, so
        this is a further workflow of the same run, reading it from the store: the steps that
        finished before are not run again, an approved step runs, a rejected one blocks."""
        with self._claimer.claimed(run_id):
            return self._carry_on_claimed(run_id, on_event)

    def _carry_on_claimed(self, run_id: str, on_event: Callable[[Event], None] | None) -> Run:
        from dbos import SetWorkflowID

        if on_event is not None:
            self._bound.listeners[run_id] = on_event
        try:
            with stops_clearly(run_id, self.store.database.path), \
                    SetWorkflowID(f"{run_id}-decided-{uuid.uuid4().hex[:12]}"):
                run_workflow(run_id)
        finally:
            self._bound.listeners.pop(run_id, None)
        return self.store.load_run(run_id)

    @_off_any_event_loop
    def resume(self, run_id: str, *, decisions: Mapping[str, Decision] | None = None,
               on_event: Callable[[Event], None] | None = None) -> Run:
        """Carry on ``run_id`` after its process stopped: finished steps keep their results and
        are not run again. ``decisions`` answer steps in doubt (``"again"`` or ``"failed"``).
        Claimed first (``_claims``): of two resumes at once, one carries the run on here and the
        other gets ``RunStillGoing`` naming it."""
        with self._claimer.claimed(run_id):
            return self._resume(run_id, decisions, on_event)

    def _resume(self, run_id: str, decisions: Mapping[str, Decision] | None,
                on_event: Callable[[Event], None] | None) -> Run:
        from dbos import DBOS

        self._check_tools(run_id)
        status = DBOS.get_workflow_status(run_id)
        if status is None:  # stored, never started (the process stopped right after start)
            return self.execute(run_id, on_event=on_event)
        mine = status.executor_id == _runtime.executor_id()
        if status.status == "PENDING" and (run_id in self._bound.active if mine else executor_alive(status.executor_id)):
            raise RunStillGoing(f"run {run_id!r} is still being run by {status.executor_id}")
        stored = self.store.load_run(run_id)
        if stored.finished:
            return stored
        if status.status == "ENQUEUED":  # on a queue: a worker takes it (a resume would run it twice)
            raise RunStillGoing(f"run {run_id!r} waits on the queue {status.queue_name} for a worker")
        actor, channel = self._bound.who.get(run_id, (Actor.system(), ""))
        self.store.audit.append(actor, "run.resumed", channel=channel, subject={"run": run_id},
                                detail={"status": stored.status, "decisions": dict(decisions or {}),
                                        "executor": _runtime.executor_id()})
        # Carried on here, in this thread, as a further part of the run (``go_on``): not put back
        # on DBOS's queue, where any process of this database could take it, even while another
        # runs it. A dead process's pending part is cancelled first: nothing else replays it.
        return self.go_on(run_id, decisions=decisions, on_event=on_event, run=stored)

    @_off_any_event_loop
    def go_on(self, run_id: str, *, step_budget: int | None = None, decisions: Mapping[str, Decision] | None = None,
              on_event: Callable[[Event], None] | None = None, should_stop: Callable[[], bool] | None = None,
              run: Run | None = None, watcher: RunRecorder | None = None) -> Run:
        """Run ``run_id`` further in this thread, from the store: to its end, or ``step_budget``
        steps; ``should_stop`` is asked before each step starts. The studio's Run next step, Run
        all and Resume: each a workflow of its own (the run's first takes the run's id), so the run
        stays resumable between them. Finished steps are not run again. A part of this run that a
        dead process left pending is cancelled in DBOS and carried on here instead (nothing else
        may replay it later). Raises ``RunStillGoing`` when a live process (or this one) drives
        it, ``StepsInDoubt`` unless ``decisions`` answer every step in doubt. ``run``: the run as
        stored, when the caller has it (from ``new_run`` or its own load): it is not loaded again,
        and the run as the workflow left it is returned (the store's copy, when it ran elsewhere).
        ``watcher`` (a ``RunRecorder``: a live view) is told every change the store is, after it.
        Claimed first (``_claims``): another process carrying the run on is named."""
        decided = dict(decisions or {})
        if any(decision not in ("again", "failed") for decision in decided.values()):
            raise PlanStudioError("a step in doubt is run 'again' or marked 'failed'")
        if run_id in self._bound.active:
            raise RunStillGoing(f"run {run_id!r} is being run in this process")
        with self._claimer.claimed(run_id):
            return self._go_on_claimed(run_id, step_budget, decided, on_event, should_stop, run, watcher)

    def _go_on_claimed(self, run_id: str, step_budget: int | None, decided: dict[str, Decision],
                       on_event: Callable[[Event], None] | None, should_stop: Callable[[], bool] | None,
                       run: Run | None, watcher: RunRecorder | None) -> Run:
        from dbos import DBOS, SetWorkflowID

        given = run if run is not None and run.id == run_id else None
        self._check_tools(run_id, given)
        parts = [w for w in DBOS.list_workflows(workflow_id_prefix=run_id, status="PENDING", load_input=False,
                                                load_output=False)
                 if w.workflow_id == run_id or w.workflow_id.startswith(f"{run_id}-")]
        for part in parts:
            if part.executor_id != _runtime.executor_id() and executor_alive(part.executor_id):
                raise RunStillGoing(f"run {run_id!r} is still being run by {part.executor_id}")
        doubt = self.in_doubt(run_id, given)
        undecided = [step for step in doubt if step not in decided]
        if undecided:
            stored = self.store.load_run(run_id)
            raise StepsInDoubt(run_id, undecided, [stored.plan.label(step) for step in undecided])
        if doubt:  # marked in doubt in the store just now: the workflow reads the run as marked
            given = None
        for part in parts:
            DBOS.cancel_workflow(part.workflow_id)
        workflow_id = run_id if DBOS.get_workflow_status(run_id) is None else f"{run_id}-part-{uuid.uuid4().hex[:12]}"
        if on_event is not None:
            self._bound.listeners[run_id] = on_event
        if should_stop is not None:
            self._bound.should_stop[run_id] = should_stop
        if watcher is not None:
            self._bound.watchers[run_id] = watcher
        in_this_thread.given, in_this_thread.wanted, in_this_thread.ran = given, run_id, None
        try:
            with stops_clearly(run_id, self.store.database.path), SetWorkflowID(workflow_id):
                run_workflow(run_id, step_budget, decided)
        finally:
            self._bound.listeners.pop(run_id, None)
            self._bound.should_stop.pop(run_id, None)
            self._bound.watchers.pop(run_id, None)
            ran = in_this_thread.ran
            in_this_thread.given = in_this_thread.wanted = in_this_thread.ran = None
        return ran if given is not None and ran is not None and ran.id == run_id else self.store.load_run(run_id)

    @contextmanager
    def acting(self, run_id: str, actor: Actor, channel: str = "") -> Iterator[None]:
        """While the block runs, ``actor`` (by ``channel``) carries ``run_id`` on: the audit's
        "run started / stopped / ended" name them (else the studio itself)."""
        self._bound.who[run_id] = (actor, channel)
        try:
            yield
        finally:
            self._bound.who.pop(run_id, None)

    def cancel(self, run_id: str) -> bool:
        """Cancel ``run_id`` when this process drives it now (from any thread): its running steps
        are cancelled (``async def`` tools) or abandoned (threads) and recorded ``cancelled``;
        everything recorded before stays. False when it is not being run here."""
        engine = self._bound.engines.get(run_id)
        return engine is not None and engine.cancel(run_id)

    def being_run_here(self, run_id: str) -> bool:
        return run_id in self._bound.active

    def _check_tools(self, run_id: str, run: Run | None = None) -> None:
        """Refuse to carry on a run whose plan no longer fits the tools loaded now (a tool gone,
        its parameters changed), or whose plan or tools changed since it started
        (``_started_with``), saying what: its steps would run other code. ``run``: as stored, if
        the caller has it."""
        run = run if run is not None else self.store.load_run(run_id)
        if run.rehearsal is not None:  # its results stood in: carried on here, real tools would run
            raise RehearsalRefused(f"run {run_id!r} is a rehearsal: it is never carried on with real tools; "
                                   "rehearse the plan again, or run it for real")
        changes = what_changed(self.store, run_id, run.plan, self.registry)
        if changes:
            raise PlanStudioError(f"run {run_id!r} cannot go on: {first_few(changes)}")
        misfit = Validator(self.registry).misfit(run.plan)
        if misfit is not None:
            raise PlanStudioError(f"run {run_id!r} cannot go on: {misfit}")

    @_off_any_event_loop
    def decide(self, run_id: str, step_id: str, decision: Decision, *, workflow_id: str | None = None) -> None:
        """Answer a step in doubt: ``"again"`` calls its tool again, ``"failed"`` fails it
        without a call. Kept by DBOS until the run reads it, also across restarts.
        ``workflow_id``: the run's part that waits (a worker's, ``worker_hold``), if not the first."""
        from dbos import DBOS

        if decision not in ("again", "failed"):
            raise PlanStudioError(f"a step in doubt is run 'again' or marked 'failed', not {decision!r}")
        DBOS.send(workflow_id or run_id, decision, topic=doubt_topic(step_id))

    @_off_any_event_loop
    def worker_hold(self, run_id: str) -> WorkerHold | None:
        """How workers hold ``run_id`` (``_holding``): None when no worker ever took it."""
        return worker_hold(self.store, run_id)

    @_off_any_event_loop
    def hand_over(self, hold: WorkerHold) -> str:
        """Tell the worker holding a run that its waiting steps were decided (``_holding``); when
        no part of it is pending (its wait ran out), a further part goes on the queue, for any
        live worker. The id of the workflow that goes on."""
        from dbos import DBOS, SetWorkflowID

        if hold.workflow_id is not None:
            return hand_over(hold)
        part = f"{hold.run_id}-decided-{uuid.uuid4().hex[:12]}"
        with SetWorkflowID(part):
            DBOS.enqueue_workflow(_runtime.RUN_QUEUE, run_workflow, hold.run_id)
        return part

    @_off_any_event_loop
    def check(self) -> None:
        """A read of DBOS's own tables (a readiness probe); raises when they cannot be read."""
        from dbos import DBOS

        DBOS.list_workflows(limit=1, load_input=False, load_output=False)

    def cannot_go_on(self, run_id: str, run: Run | None = None) -> str | None:
        """Why this process cannot carry ``run_id`` on (its tools, or the plan, changed), or None."""
        try:
            self._check_tools(run_id, run)
        except PlanStudioError as exc:
            return str(exc)
        return None

    @_off_any_event_loop
    def enqueue(self, run_id: str) -> None:
        """Hand ``run_id`` to the workers (``plan-studio worker``) through the shared queue."""
        from dbos import DBOS, SetWorkflowID

        with SetWorkflowID(run_id):
            DBOS.enqueue_workflow(_runtime.RUN_QUEUE, run_workflow, run_id)

    def in_doubt(self, run_id: str, run: Run | None = None) -> list[str]:
        """The run's steps that were cut off mid-call and whose tools may not repeat: they wait
        for a decision (and are marked in doubt in the store). Known before a resume, from the
        store alone: a step is written "started" before its call and "finished" after it.
        ``run``: as stored, if the caller has it."""
        run = run if run is not None else self.store.load_run(run_id)
        _repeat, doubt = cut_off_steps(run, self.registry)
        for step_id in doubt:
            if not (run.steps[step_id].error or "").startswith(IN_DOUBT):
                self.store.records.step_marked(run_id, step_id, "interrupted",
                                               in_doubt_note(run.plan.step(step_id).tool), run_status=IN_DOUBT)
        return doubt
