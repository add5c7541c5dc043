"""The command line's durable runs: ``run FILE`` records its run, ``runs`` lists them,
``resume RUN_ID`` carries one on after its process stopped, ``worker`` takes runs from the
shared queue (PostgreSQL), ``rerun RUN_ID --from STEP`` / ``--retry`` starts a linked new run;
``run FILE --rehearse`` rehearses the plan (no tool called) and stores it marked.

Each run is in the store from its first step (``core.durable``): a killed ``plan-studio run``
leaves a run that ``plan-studio runs`` lists and ``plan-studio resume`` finishes. The runs are
made and carried out through the workbench (``studio.workbench._carrying``): the process's one
durable engine, the runs live here known to the services, a rerun made as the page's and the
review API's are; this module prints them and asks the person at the terminal.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Collection

from core import (FINISHED, Event, NotFound, Plan, PlanInvalid, RehearsalRefused, Run, RunLimits, StepRun, StepStatus,
                  waiting_steps)
from core._errors import CliError

from ._cli_approval import approve_all, approve_on_terminal, refusal, steps_that_ask
from ..workbench import _carrying, read_pins, rehearse_plan
from ..workbench._durable_handle import durable_runs
from ..workbench._services import Services

__all__ = ["add_commands", "cmd_rehearse", "run_recorded"]

_EXIT_FAILED = 1


_APPROVE_WRITES = "approve every step that runs again and would wait for a person (tools that may write, " \
                  "steps marked ask-first), for the arguments it waits with"


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    """The durable-run commands, beside the others."""
    commands.add_parser("runs", parents=[common], help="list the latest runs: id, status, plan, started")
    resume = commands.add_parser("resume", parents=[common],
                                 help="carry on a run whose process stopped; finished steps keep their results")
    resume.add_argument("run_id", metavar="RUN_ID")
    resume.add_argument("--again", action="append", default=[], metavar="STEP",
                        help="a step in doubt (cut off mid-call), by its id or number: call its tool again (repeatable)")
    resume.add_argument("--failed", action="append", default=[], metavar="STEP",
                        help="a step in doubt: mark it failed without calling it (repeatable)")
    resume.add_argument("--dry-run", action="store_true", help="only say which steps would run again")
    resume.add_argument("--approve-writes", action="store_true", help=_APPROVE_WRITES)
    rerun = commands.add_parser("rerun", parents=[common],
                                help="a new run of a run's plan, reusing the results of the steps that "
                                     "do not depend on the chosen one")
    rerun.add_argument("run_id", metavar="RUN_ID")
    which = rerun.add_mutually_exclusive_group(required=True)
    which.add_argument("--from", dest="from_step", metavar="STEP",
                       help="run this step (its id or number) and all that depend on it again")
    which.add_argument("--retry", action="store_true", help="run the failed steps again (and what depends on them)")
    rerun.add_argument("--dry-run", action="store_true", help="only say which steps would run again")
    rerun.add_argument("--approve-writes", action="store_true", help=_APPROVE_WRITES)
    worker = commands.add_parser("worker", parents=[common],
                                 help="take runs from the shared queue (PLAN_STUDIO_DB on PostgreSQL) until stopped")
    worker.add_argument("--concurrency", type=int, default=4,
                        help="runs at once in this worker (default 4); a run waiting for a person holds one")
    worker.add_argument("--health-port", type=int, default=None, metavar="PORT",
                        help="serve GET /healthz and /readyz on this port (for a container's healthcheck)")
    worker.add_argument("--health-host", default="127.0.0.1", metavar="ADDRESS",
                        help="the address of those probes (default 127.0.0.1)")


def run_recorded(services: Services, plan: Plan, *, message: str, synthesizer: Any,
                 step_line: Callable[[Plan, StepRun], str],
                 interrupted: Callable[[Plan, Run], Exception], limits: RunLimits | None = None,
                 decide: Callable[[Run], bool] | None = None) -> Run:
    """Run ``plan`` durably (saved as a plan version, its run recorded step by step), printing
    each step's line as it ends. Raises ``PlanInvalid``, or ``interrupted(...)`` on Ctrl-C.

    When the run stops held (steps waiting for a person), ``decide`` asks about them (True when
    it decided any); the decisions are stored with the run's steps and the run goes on."""
    runs = durable_runs(services, synthesizer=synthesizer, limits=limits)
    run_id = _carrying.new_plan_run(runs, plan, message=message).id
    on_event = _live(plan, step_line)
    try:
        ran = _carrying.carry_out(services, runs, run_id, on_event=on_event)
        return _decided(services, runs, ran, on_event, decide)
    except KeyboardInterrupt:
        raise interrupted(plan, runs.store.load_run(run_id)) from None


def _decided(services: Services, runs: Any, run: Run, on_event: Callable[[Event], None],
             decide: Callable[[Run], bool] | None) -> Run:
    """``run`` carried on for as long as it stops held and ``decide`` decides on its waiting
    steps; the decisions are stored with the run's steps first."""
    while decide is not None and not run.finished and (waiting := waiting_steps(run)) and decide(run):
        for step_id in waiting:
            state = run.steps[step_id]
            if state.status == StepStatus.rejected:  # ends here, not in the run: its line is due now
                on_event(Event(type="plan_step_end", run_id=run.id, step_id=step_id,
                               data={"status": state.status.value, "error": state.error}))
        run = _carrying.go_on_decided(services, runs, run, waiting, on_event=on_event)
    return run


def _decider(args: argparse.Namespace, services: Services, plan: Plan, again: Collection[str]) -> \
        Callable[[Run], bool] | None:
    """Who decides on the steps of ``again`` that will wait for a person: ``--approve-writes``
    (each approved for the arguments it waits with), the person at the terminal, or nobody
    (the refusal said on stderr; None)."""
    if args.approve_writes:
        return lambda held: approve_all(held, services.registry)
    limits = services.executor.limits
    asking = steps_that_ask(plan, services.registry, limits.approve_writes, among=again, policy=limits.policy)
    if asking and not sys.stdin.isatty():
        print(refusal(asking), file=sys.stderr)
        return None
    return lambda held: approve_on_terminal(held, services.registry) > 0


def _event_state(event: Event, plan: Plan) -> StepRun:
    return StepRun(step_id=event.step_id or "", status=StepStatus(event.data["status"]), error=event.data.get("error"),
                   retried=event.data.get("retried") or [])


def _live(plan: Plan, step_line: Callable[[Plan, StepRun], str],
          before: dict[str, StepRun] | None = None) -> Callable[[Event], None]:
    """Prints each step's line once it ended, in plan order (steps run in parallel and end in
    any order: a line comes as soon as the steps above it have ended, so the output reads the
    same every time). ``before``: steps finished before a resume, printed as "done before"."""
    ended: dict[str, str] = {step_id: step_line(plan, state) + " (done before)"
                             for step_id, state in (before or {}).items()}
    results: dict[str, Any] = {}
    printed = 0

    def flush() -> None:
        nonlocal printed
        while printed < len(plan.steps) and plan.steps[printed].id in ended:
            print(ended[plan.steps[printed].id], flush=True)
            printed += 1

    def on_event(event: Event) -> None:
        if event.type == "tool_result" and event.step_id is not None:
            results[event.step_id] = event.data.get("result")
        elif event.type == "plan_step_end" and event.step_id is not None:
            state = _event_state(event, plan)
            if state.status == StepStatus.waiting:  # not ended: its line comes once it is decided
                return
            if state.status == StepStatus.interrupted:  # cut off before (a kill, an outage): runs again now
                return
            state.result = results.get(event.step_id)
            ended[event.step_id] = step_line(plan, state)
            flush()

    flush()
    return on_event


def cmd_rehearse(args: argparse.Namespace, services: Services, plan: Plan,
                 step_line: Callable[[Plan, StepRun], str], read: Callable[[Any], str]) -> int:
    """``run FILE --rehearse [--pins FILE] [--recording RUN_ID]``: each step's line says where its
    result came from; the rehearsal is stored marked (``plan-studio runs`` says "rehearsal")."""
    if not args.rehearse:
        raise CliError("--pins and --recording go with --rehearse (a real run calls the tools)")
    try:
        pins = read_pins(read(args.pins), str(args.pins)) if args.pins is not None else {}
        run = rehearse_plan(services, plan, pins=pins, recording_id=args.recording,
                            message=f"plan-studio run --rehearse {args.file.name}")
    except PlanInvalid as exc:
        for problem in exc.problems:
            print(f"{args.file}: {problem.severity}: {_one_line(problem)}", file=sys.stderr)
        return _EXIT_FAILED
    except (RehearsalRefused, NotFound) as exc:
        print(f"{args.file}: not rehearsed: {_one_line(exc)}", file=sys.stderr)
        return _EXIT_FAILED
    rehearsal = run.rehearsal
    assert rehearsal is not None  # made by rehearse_plan
    for step in plan.steps:
        print(f"{step_line(plan, run.steps[step.id])} [{rehearsal.source_of(step.id)}]")
    counts = ", ".join(f"{n} {s}" for s, n in run.counts().items())
    print(f"rehearsal {run.status}: {counts} (run {run.id}; no tool was called)")
    return _EXIT_FAILED if run.status == "failed" else 0


def cmd_runs(args: argparse.Namespace, services: Services) -> int:
    listing = services.store.records.recent()
    if not listing:
        print("no runs yet")
        return 0
    for run in listing:
        started = run.started_at.strftime("%Y-%m-%d %H:%M:%S") if run.started_at else "not started"
        came = f"  (from {run.parent_id}{f' at {run.rerun_from}' if run.rerun_from else ''})" if run.parent_id else ""
        marked = "  (rehearsal)" if run.rehearsal else ""
        print(f"{run.id}  {run.status:<11}  {started}  {run.plan_id} v{run.version}  {_one_line(run.goal)[:60]}"
              f"{came}{marked}")
    return 0


def cmd_resume(args: argparse.Namespace, services: Services, step_line: Callable[[Plan, StepRun], str],
               summary: Callable[[Run], str]) -> int:
    from core.durable import StepsInDoubt, named_step

    before = services.store.load_run(args.run_id)
    decisions = {**{named_step(before, step): "again" for step in args.again},
                 **{named_step(before, step): "failed" for step in args.failed}}
    done = {s.step_id: s for s in before.steps.values() if s.status in FINISHED}
    for line in _resume_lines(services, before, decisions):
        print(line)
    if args.dry_run:
        return 0
    decide = _decider(args, services, before.plan, [s.id for s in before.plan.steps if s.id not in done])
    if decide is None:
        return _EXIT_FAILED
    runs = durable_runs(services)
    try:
        on_event = _live(before.plan, step_line, done)
        ran = _carrying.carry_out(services, runs, args.run_id, resume=True, decisions=decisions, on_event=on_event)
        run = _decided(services, runs, ran, on_event, decide)
    except StepsInDoubt as exc:
        print(f"plan-studio: {_one_line(exc)}", file=sys.stderr)
        for step in exc.steps:
            print(f"  plan-studio resume {args.run_id} --again {step}   # call it again\n"
                  f"  plan-studio resume {args.run_id} --failed {step}  # mark it failed", file=sys.stderr)
        return _EXIT_FAILED
    print(summary(run))
    return _EXIT_FAILED if run.status == "failed" else 0


def _resume_lines(services: Services, run: Run, decisions: dict[str, str]) -> list[str]:
    """One line per step before a resume, as ``rerun`` shows them: kept, or run again (a writing
    tool's effect happens again; a step in doubt needs ``--again`` or ``--failed``)."""
    from core.durable import WRITES_AGAIN, step_line

    from ..workbench import run_again_lines

    again = {line.step_id: line for line in run_again_lines(services, run)}
    lines = []
    for step in run.plan.steps:
        line = again.get(step.id)
        note = None
        if line is not None and line.in_doubt:
            choice = {"again": "called again (--again)", "failed": "marked failed (--failed)"}.get(
                decisions.get(step.id, ""), "in doubt: give --again or --failed")
            note = f"cut off mid-call, may have had its effect: {choice}"
        elif line is not None and line.writes:
            note = WRITES_AGAIN
        lines.append(step_line(run.plan, step.id, again=line is not None, note=note))
    return lines


def cmd_rerun(args: argparse.Namespace, services: Services, step_line: Callable[[Plan, StepRun], str],
              summary: Callable[[Run], str]) -> int:
    from core.durable import rerun_choice

    parent = services.store.load_run(args.run_id)
    choice = rerun_choice(parent, from_step=args.from_step, retry=args.retry, registry=services.registry)
    for line in choice.describe():
        print(line)
    if args.dry_run:
        return 0
    decide = _decider(args, services, parent.plan, [s.id for s in parent.plan.steps if s.id not in choice.reused])
    if decide is None:
        return _EXIT_FAILED
    runs = durable_runs(services)
    plan_id, version = services.store.records.where(args.run_id)
    run_id = _carrying.new_rerun(runs, parent.plan, plan_id=plan_id, version=version, parent_id=parent.id,
                                 start=choice.start, reused=choice.reused).id
    print(f"run {run_id} (from {parent.id})", flush=True)
    on_event = _live(parent.plan, step_line, dict(choice.reused))
    ran = _carrying.carry_out(services, runs, run_id, on_event=on_event)
    run = _decided(services, runs, ran, on_event, decide)
    print(summary(run))
    return _EXIT_FAILED if run.status == "failed" else 0


def cmd_worker(args: argparse.Namespace, services: Services) -> int:
    import logging

    from core.durable import serve_queue

    from ._cli_health import WorkerHealth

    # One line per run and step (``core.durable._run_log``), and who decided, on standard error.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s plan-studio worker: %(message)s"))
    worker_log = logging.getLogger("plan_studio.worker")
    worker_log.addHandler(handler)
    worker_log.setLevel(logging.INFO)
    worker_log.propagate = False
    health = None
    if args.health_port is not None:
        try:
            health = WorkerHealth(args.health_host, args.health_port).start()
        except OSError as exc:
            print(f"plan-studio: error: cannot serve the health probes on {args.health_host}:{args.health_port}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
            return 2
    print("plan-studio worker: taking runs from the queue; Ctrl-C stops", file=sys.stderr, flush=True)
    serve_queue(services.store, services.registry, services.executor.synthesizer, concurrency=args.concurrency,
                limits=services.executor.limits, on_beat=health.beat if health is not None else None)
    return 0


def _one_line(message: object) -> str:
    return " ".join(str(message).split())
