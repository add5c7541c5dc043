"""The planner log: what a planner did to make a plan, kept in the plan's metadata.

``metadata.planner_log`` is a list of attempts. The LLM planner writes one per request: the
model's raw reply (cut to a few thousand characters), the validator's problems, the repair
message sent back, the date phrases it resolved, tokens, seconds, temperature and the tools
the schema offered. The embedded planner writes one: which words of the goal chose which tool
and which filter. It is saved with the plan's version like the rest of the metadata.

``log_lines`` turns it into plain lines (the CLI's ``plan -v``); anything the model wrote is
untrusted text and is escaped where it is drawn.
"""

from __future__ import annotations

from typing import Any

from ..plan._model import Plan

__all__ = ["LOG_KEY", "planner_log", "log_lines"]

LOG_KEY = "planner_log"


def planner_log(plan: Plan | None) -> list[dict[str, Any]]:
    """The attempts recorded with ``plan``; [] for a plan no planner logged."""
    log = getattr(plan.metadata, LOG_KEY, None) if plan is not None else None
    return [a for a in log if isinstance(a, dict)] if isinstance(log, list) else []


def log_lines(log: list[dict[str, Any]]) -> list[str]:
    """The log as plain lines, one block per attempt."""
    lines: list[str] = []
    for entry in log:
        lines.append(f"attempt {entry.get('attempt', '?')}: {attempt_summary(entry)}")
        for words in entry.get("words") or []:
            lines.append(f"  {words_line(words)}")
        for date in entry.get("dates") or []:
            lines.append(f"  date: {date}")
        for fix in entry.get("fixed") or []:
            lines.append(f"  fixed: {fix}")
        if entry.get("error"):
            lines.append(f"  error: {entry['error']}")
        if "reply" in entry:
            lines.append("  reply: " + _indented(str(entry["reply"])))
        for problem in entry.get("problems") or []:
            lines.append(f"  problem: {problem}")
        if entry.get("repair"):
            lines.append("  repair sent: " + _indented(str(entry["repair"])))
    return lines


def attempt_summary(entry: dict[str, Any]) -> str:
    """One line of figures: time, tokens, temperature, tools offered, problems found."""
    parts = []
    if entry.get("planner"):
        parts.append(str(entry["planner"]))
    if isinstance(entry.get("seconds"), (int, float)):
        parts.append(f"{entry['seconds']:.2f} s")
    if entry.get("prompt_tokens") is not None or entry.get("completion_tokens") is not None:
        parts.append(f"{entry.get('prompt_tokens', '?')} prompt + {entry.get('completion_tokens', '?')} reply tokens")
    if entry.get("temperature") is not None:
        parts.append(f"temperature {entry['temperature']}")
    tools = entry.get("tools")
    if isinstance(tools, list):
        parts.append("tools offered: " + ", ".join(map(str, tools)))
    if entry.get("response_format"):
        parts.append(f"structured output: {entry['response_format']}")
    if "problem_count" in entry:
        count = entry["problem_count"]
        parts.append("valid" if not count and "error" not in entry else f"{count} problem{'s' if count != 1 else ''}")
    return " · ".join(parts) if parts else "recorded"


def words_line(words: dict[str, Any]) -> str:
    """``"shipments" → tool shipments_list``, one word choice of the embedded planner."""
    return f"\"{words.get('words', '')}\" → {words.get('chose', '')}"


def _indented(text: str) -> str:
    return text.replace("\n", "\n    ")
