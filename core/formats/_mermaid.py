"""A Mermaid flowchart of a plan, for docs and chats that render Mermaid. Export only.

One node per step (``n<index>``, so any step id is safe), labelled with the step's index,
tool and first few params; one edge per dependency (``Plan.edges``); nodes styled by tool
group (with a registry) and parallel steps drawn dashed. Label text is escaped with
Mermaid's ``#code;`` entities, so quotes, brackets and markup in params cannot break the
chart or inject HTML. The same plan always gives the same text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..plan._model import Plan
from ..plan._positions import positions_for_ids
from ..tooling._registry import ToolRegistry
from ._fidelity import step_list

__all__ = ["dump_mermaid", "mermaid_drops", "mermaid_label"]

MAX_PARAMS = 3
MAX_VALUE = 32
_UNSAFE = re.compile(r"""["#&<>\[\](){}|`;\\]""")
_GROUP_FILLS = {
    "waste": "#e3f2e1",
    "writer": "#f3e5f5",
    "lists": "#e3f0fb",
    "conversation": "#fff4d6",
}
_OTHER_FILLS = ["#fde7e7", "#e8eaf6", "#e0f7f4", "#f5f0e1", "#ececec"]
_UNKNOWN = "unregistered"


def mermaid_label(text: str) -> str:
    """``text`` made safe inside a quoted Mermaid label: one line, special characters as
    ``#code;`` entities."""
    one_line = " ".join(text.split())
    return _UNSAFE.sub(lambda m: f"#{ord(m.group())};", one_line)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE - 1] + "…"


def _label(index: int, tool: str, params: dict[str, Any]) -> str:
    lines = [mermaid_label(f"{index} · {tool}")]
    shown = list(params.items())[:MAX_PARAMS]
    lines += [mermaid_label(f"{k}: {_short(v)}") for k, v in shown]
    if len(params) > MAX_PARAMS:
        lines.append(mermaid_label(f"+{len(params) - MAX_PARAMS} more"))
    return "<br/>".join(lines)


def _class_name(group: str) -> str:
    return "group_" + (re.sub(r"[^A-Za-z0-9_]", "_", group) or "_")


def dump_mermaid(plan: Plan, registry: ToolRegistry | None = None) -> str:
    # The goal is not written: Mermaid reads "%%{...}%%" anywhere as a config directive,
    # and a goal is free text.
    out = ["flowchart LR"]
    index = {s.id: n for n, s in enumerate(plan.steps)}
    groups: dict[str, list[str]] = {}
    for n, step in enumerate(plan.steps):
        # Nodes are numbered, so references read by number too (the seed form)
        out.append(f'  n{n}["{_label(n, step.tool, positions_for_ids(step.params, index))}"]')
        if registry is not None:
            group = registry.get(step.tool).group if step.tool in registry else _UNKNOWN
            groups.setdefault(group, []).append(f"n{n}")
    out += [f"  n{index[a]} --> n{index[b]}" for a, b in plan.edges()]

    others = iter(_OTHER_FILLS * (len(groups) // len(_OTHER_FILLS) + 1))
    for group, nodes in groups.items():
        fill = _GROUP_FILLS.get(group) or ("#ffffff" if group == _UNKNOWN else next(others))
        stroke = ",stroke:#c62828" if group == _UNKNOWN else ""
        out.append(f"  classDef {_class_name(group)} fill:{fill}{stroke}")
        out.append(f"  class {','.join(nodes)} {_class_name(group)}")
    parallel = [f"n{n}" for n, s in enumerate(plan.steps) if s.parallel]
    if parallel:
        out.append("  classDef parallel stroke-dasharray:5 5")
        out.append(f"  class {','.join(parallel)} parallel")
    return "\n".join(out) + "\n"


def mermaid_drops(plan: Plan, registry: ToolRegistry | None = None) -> list[str]:
    """What the chart does not show: it is a picture of the plan, not the plan."""
    notices = []
    if plan.goal:
        notices.append("the goal")
    notices.append("metadata")
    if plan.steps:
        notices.append("step ids (nodes are n0, n1, …)")
    cut = [n for n, s in enumerate(plan.steps)
           if len(s.params) > MAX_PARAMS or any(len(_short(v)) < len(_full(v)) for v in s.params.values())]
    if cut:
        notices.append(f"params not shown in full of {step_list(cut)}")
    for what, field in (("notes", "note"), ("locks", "locked"), ("result keys", "result_key"),
                        ("format data", "format_data")):
        having = [n for n, s in enumerate(plan.steps) if getattr(s, field)]
        if having:
            notices.append(f"{what} of {step_list(having)}")
    return notices


def _full(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
