"""The final answer after a run: the orchestrator's "synthesize" step.

``offline_summary`` says in plain words what each step did, from the results alone, so
the offline path has an answer too. ``ModelSynthesizer`` asks the model for a short answer
to the goal, streamed as it is written; if the model fails on the way it says so in one
line and falls back to the offline summary, because a synthesizer runs inside the
executor and must never raise there. The client scrubs API keys from the answer as it
streams (a key split across two pieces too); the one line about a failure is scrubbed here.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from ._executor import Run, StepRun, StepStatus, Synthesizer
from ._status import EXPLAINED, REPORT_ORDER
from .._settings import Settings
from ..llm import ModelClient, redact

__all__ = ["offline_summary", "offline_synthesizer", "ModelSynthesizer", "make_synthesizer"]

_ROWS_SHOWN = 20          # rows of one step's result the model sees
_STEP_CHARS = 4_000       # characters of one step's result the model sees
_TOTAL_CHARS = 24_000     # characters of all results together

_SYSTEM = (
    "You write the final answer after a plan of tool calls has run for a user. Answer the "
    "user's goal in plain language, in a few short sentences or a short list, using only the "
    "step results given. Give numbers where they matter. If a step failed or was skipped, say "
    "so and what is missing because of it. When results were shortened, say that totals come "
    "from the counts given. No JSON, no code.")


def offline_summary(run: Run) -> str:
    """What the run did, step by step, in plain language; needs no model."""
    plan = run.plan
    lines = [f"Goal: {plan.goal}" if plan.goal else "Goal: (none given)"]
    counts = run.counts()
    total = len(plan.steps)
    tally = ", ".join(f"{counts[s]} {s.value}" for s in REPORT_ORDER if counts.get(s))
    lines.append(f"{total} step{'s' if total != 1 else ''}: {tally}." if tally else "The plan has no steps.")
    for step in plan.steps:
        state = run.steps.get(step.id) or StepRun(step_id=step.id)
        lines.append(f"- {plan.label(step.id)}: {_describe(state)}")
    return "\n".join(lines)


def offline_synthesizer(run: Run) -> Iterator[str]:
    """``offline_summary`` as a synthesizer."""
    yield offline_summary(run)


def _describe(state: StepRun) -> str:
    if state.status == StepStatus.succeeded:
        rows = state.rows
        if rows is not None:
            count = state.result.get("count") if isinstance(state.result, dict) else None
            n = count if isinstance(count, int) and count >= len(rows) else len(rows)
            return f"succeeded, {n} row{'s' if n != 1 else ''}"
        if isinstance(state.result, str):
            return f"succeeded: {_clip(state.result, 200)}"
        return "succeeded" if state.result is None else f"succeeded: {_clip(_dumps(state.result), 200)}"
    if state.status in EXPLAINED:
        error = state.error or "no reason recorded"
        prefix = f"{state.status.value}: "
        return error if error.startswith(prefix) else prefix + error
    return state.status.value


class ModelSynthesizer:
    """A ``Synthesizer`` that streams the model's answer; never raises into the executor."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client

    def __call__(self, run: Run) -> Iterator[str]:
        produced = False
        try:
            for piece in self.client.stream(self.messages(run)):
                produced = True
                yield piece
        except Exception as exc:  # whatever went wrong, the run still gets an answer
            reason = redact(" ".join(str(exc).split())) or type(exc).__name__
            lead = "\n\n" if produced else ""
            yield (f"{lead}(The model could not finish the summary: {reason.rstrip('.')}. "
                   "Here is a summary from the results instead.)\n\n")
            yield offline_summary(run)
            return
        if not produced:
            yield offline_summary(run)

    def messages(self, run: Run) -> list[dict[str, str]]:
        return [{"role": "system", "content": _SYSTEM},
                {"role": "user", "content": f"Goal: {run.plan.goal}\n\nStep results:\n{_results_text(run)}"}]


def make_synthesizer(settings: Settings) -> Synthesizer:
    """The model's answer when the LLM planner is chosen and a model is configured;
    otherwise the offline summary (an offline session stays offline)."""
    if settings.planner == "llm" and settings.model_configured:
        return ModelSynthesizer(ModelClient(settings))
    return offline_synthesizer


def _results_text(run: Run) -> str:
    parts = []
    budget = _TOTAL_CHARS
    for step in run.plan.steps:
        state = run.steps.get(step.id) or StepRun(step_id=step.id)
        head = f"{run.plan.label(step.id)} with {_dumps(state.arguments or step.params)}: {_describe(state)}"
        body = ""
        if state.status == StepStatus.succeeded and state.result is not None:
            body = _clip(_result_for_model(state.result), min(_STEP_CHARS, max(budget, 0)))
        text = f"{head}\n{body}" if body else head
        budget -= len(text)
        parts.append(text)
    return "\n\n".join(parts)


def _result_for_model(result: Any) -> str:
    rows = result.get("data") if isinstance(result, dict) else result
    if isinstance(rows, list) and len(rows) > _ROWS_SHOWN:
        shown = rows[:_ROWS_SHOWN]
        return f"first {_ROWS_SHOWN} of {len(rows)} rows: {_dumps(shown)}"
    return _dumps(result)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _clip(text: str, limit: int) -> str:
    if limit <= 0:
        return "(left out: the results above already fill the space)"
    return text if len(text) <= limit else text[:limit - 1] + "…"
