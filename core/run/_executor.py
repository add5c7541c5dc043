"""Runs an approved plan against a tool registry: one step, or every step, in parallel.

``Executor`` is the in-memory ``RunEngine`` (``_engine``): the one code path every run takes,
a durable engine adding a ``RunRecorder`` that keeps each change where it survives. Events
(``_events``) are yielded as they happen, so a UI can show them live:

    turn_start → plan_created → (plan_step_start → tool_call → tool_result → plan_step_end)*
    → text_delta* (only with a synthesizer) → turn_end

Steps run as soon as every step they depend on has succeeded, up to ``max_parallel`` at once
(``_run_pass``: sync tools on a pool of threads, ``async def`` tools awaited on an event loop;
``_scheduler``: which steps are ready); of the steps ready at once the one earliest in the
plan starts first, so with ``max_parallel=1`` a run goes in ``run_order``. A step whose tool
fails (or times out: each tool has a timeout, ``RunLimits``) is ``failed`` with the error;
a failure its retry policy names is tried again first, every call kept in ``attempts``. Every
step that depends on a failed one, directly or not, is ``skipped``; the rest still runs.

A step marked ``running`` is owned by the worker running it (a token held while the step
runs). When its worker is gone (the consumer abandoned the event generator, the process
stopped, or the run was loaded from storage) the step is ``interrupted``: it runs again on
the next ``run_next``/``run_all``, and the steps that depend on it wait for it. ``run_all``
always ends: when nothing more can start (a step the rest need is held by another live
worker), it returns with the run unfinished. ``cancel(run_id)`` ends a run being driven, from
any thread: its running steps become ``cancelled`` and it returns unfinished.

One driver carries a pass, whoever asked for it: ``drive(run)`` (``limit=1``: the next step).
``execute(plan)``, the CLI, a page's run (``BackgroundRun``, the workbench's durable handle), a
worker and a DBOS workflow all call it: the pass runs on a thread of its own while the caller
waits (``_driven_run``), and that thread calls a lone step's sync tool itself, time limit and all.

``run_all``/``run_next``/``resume`` stay beside it for a Python caller that pulls the events: the
same pass (``RunPass``), driven by its consumer, so nothing happens while the consumer holds an
event and the run it reads between two events is the run as of the first. Such a pass cannot
call a tool held to a time limit on its driving thread (a call left running past its limit would
keep the consumer): each such call goes to a pool thread and back. Making ``run_all`` a queue fed
by ``drive`` would drop that guarantee, and ``drive`` without its own thread would cost a chain of
short steps its place beside LangGraph (0.42x to 0.62x at 100 steps): ADR 0004.
"""

from __future__ import annotations

import threading
from typing import Callable, Iterator

from ._approval import GrantBook
from ._driven_run import DrivenRun
from ._engine import NO_RECORDER, Recorders, RunRecorder
from ._events import Event, EventType, Synthesizer, now
from .._limits import check_plan
from ..plan._model import Plan
from ..tooling._registry import ToolRegistry
from ._policy import RunLimits
from ._model import Run, StepRun
from ..plan._order import run_order
from ._run_pass import INTERRUPTED_NOTE, RunPass
from ._status import StepStatus
from ..validation._validator import Validator
from ._watchdog import HandedOver
from ..hooks import OBSERVING_RECORDER

__all__ = ["Event", "EventType", "Executor", "INTERRUPTED_NOTE", "Run", "StepRun", "StepStatus", "Synthesizer"]


class Executor:
    """Runs plans against ``registry``; refuses plans the validator finds errors in.

    ``limits`` holds runs to a number of steps at once, timeouts, retry policies and approvals
    (default: the user's, ``RunLimits.from_settings(Settings())``: a step of a tool that may
    write waits for a person, as in the studio and the CLI, unless ``PLAN_STUDIO_APPROVE_WRITES``
    is false); ``approve_writes=False`` is the explicit opt-out (nothing waits but steps marked
    ``ask_first``) and ``max_parallel`` overrides the limits' own. ``recorder`` is told of every
    change, and then the plugins observing runs (``core.hooks.OBSERVING_RECORDER``).
    """

    def __init__(self, registry: ToolRegistry, synthesizer: Synthesizer | None = None, *,
                 limits: RunLimits | None = None, max_parallel: int | None = None,
                 recorder: RunRecorder = NO_RECORDER, grants: GrantBook | None = None,
                 approve_writes: bool | None = None) -> None:
        self.registry = registry
        self.grants = grants  # the scoped approvals a step may pass on (``core.run._approval``)
        self.validator = Validator(registry)
        self.synthesizer = synthesizer
        limits = RunLimits.chosen(limits, approve_writes=approve_writes)
        self.limits = limits if max_parallel is None else limits.model_copy(update={"max_parallel": max_parallel})
        self.recorder = Recorders((recorder, OBSERVING_RECORDER))
        self._lock = threading.Lock()
        # The passes driving each run now (two consumers may drive one run: see run_all).
        self._passes: dict[str, list[RunPass]] = {}

    def start(self, plan: Plan) -> Run:
        """A new run of ``plan``; raises ``PlanInvalid`` if the plan has errors, ``PlanError``
        if it was edited in place past a bound of ``core._limits``."""
        check_plan(plan)
        self.validator.ensure_valid(plan)
        return Run.for_plan(plan)

    def order(self, plan: Plan) -> list[str]:
        return run_order(plan)

    def run_next(self, run: Run) -> Iterator[Event]:
        """Run the next step that can run (skipping those whose dependencies did not succeed)."""
        return self._streamed(run, limit=1, should_stop=None)

    def run_all(self, run: Run, *, should_stop: Callable[[], bool] | None = None) -> Iterator[Event]:
        """Run every step that can run, those ready at once in parallel; ``should_stop`` is asked
        before each step starts (when true no more start; the running ones finish).

        Returns when the run finishes, when ``should_stop()`` is true (the rest stays pending),
        when the run is cancelled, or when nothing more can start (another worker holds a step
        the rest wait for).
        """
        return self._streamed(run, limit=None, should_stop=should_stop)

    def resume(self, run: Run) -> Iterator[Event]:
        """Go on with a stopped, cut-off or loaded run: finished steps stay as they are."""
        return self.run_all(run)

    def cancel(self, run_id: str) -> bool:
        """Cancel the run with that id being driven now (from any thread); False if none is."""
        with self._lock:
            passes = list(self._passes.get(run_id, ()))
        for run_pass in passes:
            run_pass.cancel()
        return bool(passes)

    def execute(self, plan: Plan, *, on_event: Callable[[Event], object] | None = None) -> Run:
        """Validate and run the whole plan (``drive``); return the finished run."""
        run = self.start(plan)
        self.drive(run, on_event=on_event)
        return run

    def drive(self, run: Run, *, on_event: Callable[[Event], object] | None = None,
              should_stop: Callable[[], bool] | None = None, limit: int | None = None,
              watcher: RunRecorder | None = None) -> None:
        """Run every step that can run, as ``run_all`` does (``limit=1``: the next one, as
        ``run_next`` does), on a thread of its own while this one waits (``_driven_run``);
        ``on_event`` is told each event, on that thread. ``watcher`` (a live view) is told every
        change of this pass after the executor's own recorder."""
        if run.finished:
            return
        driven = DrivenRun(on_event)
        recorder = self.recorder if watcher is None else Recorders((self.recorder, watcher))
        run_pass = self._pass(run, limit=limit, should_stop=should_stop, hand_over=driven.hand_over,
                              recorder=recorder)
        driven.drive(self._begun(run_pass), carry_on=lambda: self._through(run_pass, run_pass.carry_on()),
                     cancel=run_pass.cancel)

    def _streamed(self, run: Run, *, limit: int | None, should_stop: Callable[[], bool] | None) -> Iterator[Event]:
        """The run's events, yielded to the caller's thread, which drives the run as it takes them."""
        if run.finished:
            return
        yield from self._begin(run, self.recorder)
        run_pass = self._pass(run, limit=limit, should_stop=should_stop, recorder=self.recorder)
        yield from self._through(run_pass, run_pass.events())

    def _begin(self, run: Run, recorder: RunRecorder) -> Iterator[Event]:
        if run.started_at is None:
            run.started_at = now()
            recorder.run_started(run)
            yield Event(type="turn_start", run_id=run.id, data={"goal": run.plan.goal})
            yield Event(type="plan_created", run_id=run.id, data={"plan": run.plan.model_dump(mode="json")})

    def _begun(self, run_pass: RunPass) -> Iterator[Event]:
        """The run's first events, then its pass's, all through ``_through``: the pass is known to
        ``cancel`` before they start, so it is forgotten however they end."""

        def begun_then_passed() -> Iterator[Event]:
            yield from self._begin(run_pass.run, run_pass.recorder)
            yield from run_pass.events()

        return self._through(run_pass, begun_then_passed())

    def _pass(self, run: Run, *, limit: int | None, should_stop: Callable[[], bool] | None,
              recorder: RunRecorder, hand_over: Callable[[], None] | None = None) -> RunPass:
        """A pass over ``run``, known to ``cancel`` until it stops."""
        run_pass = RunPass(run, self.registry, self.limits, recorder, limit=limit, should_stop=should_stop,
                           hand_over=hand_over, grants=self.grants)
        with self._lock:
            self._passes.setdefault(run.id, []).append(run_pass)
        return run_pass

    def _through(self, run_pass: RunPass, events: Iterator[Event]) -> Iterator[Event]:
        """``events`` of ``run_pass``, then the run's end or why it stopped."""
        run = run_pass.run
        handed_over = False
        try:
            yield from events
        except HandedOver:
            handed_over = True  # the pass goes on from another thread, still known to cancel
            raise
        except KeyboardInterrupt:
            run_pass.recorder.run_stopped(run, "cancel")
            raise
        except GeneratorExit:
            run_pass.recorder.run_stopped(run, "abandoned")
            raise
        finally:
            if not handed_over:
                with self._lock:
                    passes = self._passes.get(run.id, [])
                    if run_pass in passes:
                        passes.remove(run_pass)
                    if not passes:
                        self._passes.pop(run.id, None)
        if run_pass.reason is None:
            yield from self._finish(run, run_pass.recorder)
        else:
            run_pass.recorder.run_stopped(run, run_pass.reason)

    def _finish(self, run: Run, recorder: RunRecorder) -> Iterator[Event]:
        recorder.run_finished(run)
        if self.synthesizer is not None:
            parts: list[str] = []
            for piece in self.synthesizer(run):
                parts.append(piece)
                yield Event(type="text_delta", run_id=run.id, data={"text": piece})
            run.answer = "".join(parts)
        run.finished_at = now()
        yield Event(type="turn_end", run_id=run.id, data={"status": run.status, "counts": run.counts()})
