"""What a plan's steps and a finished run say in plain language, for people who never wrote code.

``step_sentence`` is one sentence per step from the tool's own description (its first sentence)
and the step's key params ("List sites: city Paris, kind big."); a reference reads "site id from
step 0". The step inspector shows it; the graph may put it on a node (call it with the plan and
the step's id). ``summarize_run`` is the offline answer as a reader wants it after a run: how many
steps did what, how many rows came back, the top rows of the final result, and what failed and
why. Nothing here escapes: the text is the tools' and plans' own, and the page escapes it where
it draws it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core import EXPLAINED, REPORT_ORDER, Plan, Run, StepRun, StepStatus, ToolRegistry, find_references
from core.planners import first_sentence

__all__ = ["RunSummary", "StepFailure", "step_sentence", "summarize_run"]

_PARAMS_SAID = 3       # params named in a step's sentence; more read as "and 2 more"
_VALUE_CHARS = 40      # characters of one param's value in a sentence
_TOP_ROWS = 5          # rows of the final result in the summary
_TEXT_CHARS = 2_000    # characters of a final result that is not rows


def step_sentence(registry: ToolRegistry, plan: Plan, step_id: str) -> str:
    """One plain sentence saying what the step does: "List sites: city Paris, kind big."."""
    step = plan.step(step_id)
    what = first_sentence(registry.get(step.tool).description) if step.tool in registry else ""
    what = what.rstrip(".") or _humanized(step.tool).capitalize()
    said = [f"{_humanized(name)} {_value(plan, value)}" for name, value in step.params.items()
            if value not in (None, "", [], {})]
    if not said:
        return f"{what}."
    more = len(said) - _PARAMS_SAID
    tail = f", and {more} more" if more > 0 else ""
    return f"{what}: {', '.join(said[:_PARAMS_SAID])}{tail}."


def _humanized(name: str) -> str:
    """``site_id`` → "site id", ``addItem`` → "add item"."""
    spaced = "".join(f" {c.lower()}" if c.isupper() else c for c in name).replace("_", " ")
    return " ".join(spaced.split()) or name


def _value(plan: Plan, value: Any) -> str:
    references = find_references(value)
    if references:
        steps = list(dict.fromkeys(r.step for r in references))
        known = {step.id for step in plan.steps}
        named = ", ".join(f"step {plan.index_of(s)}" if s in known else s for s in steps)
        return f"from {named}"
    if isinstance(value, list):
        text = ", ".join(str(v) for v in value)
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= _VALUE_CHARS else text[:_VALUE_CHARS - 1] + "…"


@dataclass(frozen=True)
class StepFailure:
    """A step that did not succeed, and why, in its run's words."""

    step: str  # "Step 1 · explode"
    status: str
    reason: str


@dataclass(frozen=True)
class RunSummary:
    """A finished run in a reader's terms (``summarize_run``)."""

    steps: int
    counts: dict[str, int]  # by status, in the status table's order
    rows: int  # rows returned by the succeeded steps, all told
    final: str | None  # the step whose result is the answer: "Step 3 · visits_list", None when none succeeded
    final_rows: int | None  # its row count, None when its result is not rows
    top_rows: list[Any]  # its first rows
    final_text: str | None  # its result when it is not rows (text, or JSON as text)
    failures: list[StepFailure]

    @property
    def headline(self) -> str:
        """"4 steps: 2 succeeded, 1 failed, 1 skipped · 4 rows"."""
        tally = ", ".join(f"{n} {status}" for status, n in self.counts.items())
        rows = f" · {self.rows} row{'s' if self.rows != 1 else ''}" if self.rows else ""
        return f"{self.steps} step{'s' if self.steps != 1 else ''}: {tally}{rows}"


def summarize_run(run: Run) -> RunSummary:
    """The run as counts, the final result's top rows and what failed and why; needs no model.

    The final result is the last succeeded step nothing else reads (the end of a chain), else the
    last succeeded step."""
    plan = run.plan
    states = [run.steps.get(step.id) or StepRun(step_id=step.id) for step in plan.steps]
    counts = {s.value: n for s in REPORT_ORDER if (n := sum(state.status == s for state in states))}
    succeeded = [state for state in states if state.status == StepStatus.succeeded]
    rows = sum(len(state.rows or []) for state in succeeded)
    read = {ref.step for step in plan.steps for ref in find_references(step.params)}
    read |= {dep for step in plan.steps for dep in step.depends_on}
    ends = [state for state in succeeded if state.step_id not in read]
    final = (ends or succeeded or [None])[-1]
    # Failed, skipped, rejected, cut off: each with its reason. A step waiting for a person has
    # not failed; the counts say it waits.
    failures = [StepFailure(_title(plan, state.step_id), state.status.value, state.error or "no reason recorded")
                for state in states if state.status in EXPLAINED and state.status != StepStatus.waiting]
    if final is None:
        return RunSummary(len(plan.steps), counts, rows, None, None, [], None, failures)
    final_rows = final.rows
    text = None
    if final_rows is None and final.result is not None:
        text = final.result[:_TEXT_CHARS] if isinstance(final.result, str) else _json(final.result)
    return RunSummary(len(plan.steps), counts, rows, _title(plan, final.step_id),
                      None if final_rows is None else len(final_rows),
                      list((final_rows or [])[:_TOP_ROWS]), text, failures)


def _title(plan: Plan, step_id: str) -> str:
    return f"Step {plan.index_of(step_id)} · {plan.step(step_id).tool}"


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _TEXT_CHARS else text[:_TEXT_CHARS - 1] + "…"
