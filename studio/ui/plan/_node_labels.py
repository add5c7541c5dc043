"""What a step's box in the graph says: its tool, one or two key params and, once it ran, how
many rows its result holds and how long it took; a waiting step that it waits for a person
(and why, as the run says), a failed step its error, cut short.

Every line is plain text kept short here (the box is at most ``NODE_WIDTH_PX`` wide, so a
long param or error never makes it a wall of text); ``_graph`` HTML-escapes the whole label.
The full params, error and reason are in the step's tooltip and the side panel.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from core import Step, StepRun, StepStatus

__all__ = ["ERROR_CHARS", "OUTCOME_CHARS", "PARAM_CHARS", "REASON_CHARS", "duration_text", "key_params", "node_label", "outcome_line", "shorten"]

PARAM_CHARS = 28  # the key-params line, both params together
OUTCOME_CHARS = 24  # a line of what the run did: a failed step's error takes two of them at most
ERROR_CHARS = 2 * OUTCOME_CHARS - len("✗ failed: ")  # the error's own text, cut
REASON_CHARS = OUTCOME_CHARS  # a waiting step's reason, on the line under "waits for a person"
_VALUE_CHARS = 14  # one param's value, so a second param still fits


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with "…" when longer."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[:width - 1].rstrip() + "…"


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def key_params(params: dict[str, Any], sources: dict[str, str] | None = None) -> str:
    """One or two params as ``name=value``: literal values first (a value read from another
    step is already the label of the edge that brings it), in the plan's order. A param that is
    one reference and nothing else reads ``name ← step`` (``sources``: param name → the id of
    the step it reads)."""
    sources = sources or {}

    def reads(value: Any) -> bool:
        return "${" in _value_text(value)

    ordered = sorted(params.items(), key=lambda item: reads(item[1]))  # stable: plan order kept
    shown: list[str] = []
    for name, value in ordered[:2]:
        text = _value_text(value)
        whole = isinstance(value, str) and value.startswith("${") and value.endswith("}") and value.count("${") == 1
        if whole and name in sources:
            shown.append(f"{shorten(name, 12)} ← {shorten(sources[name], _VALUE_CHARS)}")
            if len(" · ".join(shown)) > PARAM_CHARS:
                shown.pop()
                break
            continue
        shown.append(f"{shorten(name, 12)}={shorten(text, _VALUE_CHARS)}")
        if len(" · ".join(shown)) > PARAM_CHARS:
            shown.pop()
            break
    if not shown and ordered:  # one very long name and value: cut the line itself
        name, value = ordered[0]
        shown = [shorten(f"{name}={_value_text(value)}", PARAM_CHARS)]
    more = len(params) - len(shown)
    return " · ".join(shown) + (f" · +{more}" if more > 0 and shown else "")


def duration_text(ms: float | None) -> str:
    """``35 ms``, ``1.2 s``, ``2 min 5 s``; "" when not timed."""
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms:.0f} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def _rows_text(state: StepRun) -> str:
    rows = state.rows
    if rows is None:
        return ""
    return f"{len(rows)} row{'' if len(rows) == 1 else 's'}"


def outcome_line(status: StepStatus, state: StepRun | None) -> str:
    """What happened to the step in the run, on one or two short lines ("" while pending)."""
    if status == StepStatus.pending:
        return ""
    if status == StepStatus.waiting:
        reason = state.ask.reason if state is not None and state.ask is not None else ""
        return "⚑ waits for a person" + (f"\n{shorten(reason, REASON_CHARS)}" if reason.strip() else "")
    if status == StepStatus.failed:
        error = state.error if state is not None and state.error else ""
        if not error.strip():
            return "✗ failed"
        # Wrapped here, not by vis, so the box is never wider than the layout made room for.
        lines = textwrap.wrap(f"✗ failed: {shorten(error, ERROR_CHARS)}", OUTCOME_CHARS)
        if len(lines) > 2:  # words wrap less tightly than characters count: say it goes on
            lines = [lines[0], lines[1][:OUTCOME_CHARS - 1].rstrip("…") + "…"]
        return "\n".join(lines)
    # A str enum joined as its own text: a poll of a live run reads no ``.value`` per step.
    done = [] if state is None else [part for part in (_rows_text(state) if status == StepStatus.succeeded else "",
                                                       duration_text(state.duration_ms)) if part]
    if status == StepStatus.succeeded and state is not None:
        return "✓ " + (" · ".join(done) if done else "succeeded")
    return " · ".join([status, *done])


def node_label(index: int, step: Step, status: StepStatus, state: StepRun | None, *, problem: bool = False,
               changed: bool = False) -> str:
    """The box's text: ``0 · tool``, its key params, what the run did, and its marks."""
    lines = [("⚠ " if problem else "") + f"{index} · {shorten(step.tool, 40)}"]
    params = key_params(step.params, {name: ref.step for name, ref in step.readable_references()})
    if params:
        lines.append(params)
    outcome = outcome_line(status, state)
    if outcome:
        lines.append(outcome)
    marks = (["locked"] if step.locked else []) + (["changed"] if changed else [])
    if marks:
        lines.append(" · ".join(marks))
    return "\n".join(lines)
