"""A worker's log of what it runs: one line per run and per step, on the ``plan_studio.worker``
logger (``plan-studio worker`` sends it to standard error), so an operator reading a worker's
output (``docker compose logs worker``) sees each run start and end, each step's tool, status
and duration, and who decided on a step that waited for a person.

Lines are ``key=value`` pairs after a word saying what happened; values from the plan (the goal,
an error) are quoted and cut short, never spread over lines.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from ..run._engine import StopReason
from ..run._model import Run, StepAttempt, StepDecision
from ..run._status import StepStatus

__all__ = ["RunLog", "decided_line", "ended_line", "log"]

log = logging.getLogger("plan_studio.worker")
_SHOWN = 120  # characters of a goal or an error in a line


def _quoted(text: str | None) -> str:
    one = " ".join((text or "").split())
    return json.dumps(one[:_SHOWN] + ("…" if len(one) > _SHOWN else ""), ensure_ascii=False)


def decided_line(run: Run, step_id: str, decision: StepDecision) -> str:
    who = decision.actor_name or decision.actor_id or "someone"
    verb = "approved" if decision.approved else "rejected"
    return (f"step decided run={run.id} step={step_id} tool={run.plan.step(step_id).tool} {verb} "
            f"by={_quoted(who)} channel={decision.channel or '-'}")


class RunLog:
    """A ``RunRecorder`` (told after the store) writing a line per run and step."""

    def run_started(self, run: Run) -> None:
        log.info("run started run=%s steps=%d goal=%s", run.id, len(run.plan.steps), _quoted(run.plan.goal))

    def step_started(self, run: Run, step_id: str, attempt: StepAttempt, arguments: dict[str, Any]) -> None:
        log.info("step started run=%s step=%s tool=%s attempt=%d", run.id, step_id, run.plan.step(step_id).tool,
                 attempt.number)

    def step_ended(self, run: Run, step_id: str) -> None:
        state = run.steps[step_id]
        if state.status == StepStatus.waiting:
            log.info("step waiting run=%s step=%s tool=%s reason=%s", run.id, step_id, run.plan.step(step_id).tool,
                     _quoted((state.error or "").removeprefix("waiting for a person: ")))
            return
        took = f"{state.duration_ms / 1000:.3f}s" if state.duration_ms is not None else "-"
        error = f" error={_quoted(state.error)}" if state.error else ""
        decided = state.decision
        who = (f" decided_by={_quoted(decided.actor_name or decided.actor_id)} channel={decided.channel or '-'}"
               if decided is not None else "")
        log.info("step ended run=%s step=%s tool=%s status=%s duration=%s%s%s", run.id, step_id,
                 run.plan.step(step_id).tool, state.status.value, took, who, error)

    def run_stopped(self, run: Run, reason: StopReason) -> None:
        log.info("run stopped run=%s status=%s reason=%s", run.id, run.status, reason)

    def run_finished(self, run: Run) -> None:
        pass  # its status is known once the workflow wrote its end: ``ended``


def ended_line(run: Run) -> str:
    """The line of a run that ended (its status final)."""
    took = (run.finished_at - run.started_at).total_seconds() if run.finished_at and run.started_at else None
    return f"run ended run={run.id} status={run.status} duration={f'{took:.3f}s' if took is not None else '-'}"
