"""Compare versions: any two saved versions of the plan (or the plan being edited), drawn as one
graph with added steps, removed steps (ghosted), changed steps and changed edges coloured, and
a param-by-param list. A re-plan is compared with the version it came from, beside the feedback
that asked for it; approving a re-plan shows this comparison first.
"""

from __future__ import annotations

import hashlib
import html
import json
from typing import Any

import streamlit as st

from core import Plan, PlanDiff, diff_plans

from .. import _actions as actions
from ._graph import graph_data, draw_graph_data
from .._review_actions import editor_services
from ...workbench._services import Services
from .._session import get_services
from .._state import Keys, SavedRef, bench
from .._text import md_escape

__all__ = ["CURRENT", "DIFF_COLOURS", "REPLAN_PREFIX", "approve_diff_panel", "compare_panel", "diff_graph_data", "diff_lines",
           "request_approve"]

CURRENT = "current"  # the plan in the editor, saved or not
REPLAN_PREFIX = "re-plan: "  # how actions.replan notes a re-planned version
# kind -> (fill, border)
DIFF_COLOURS: dict[str, tuple[str, str]] = {
    "added": ("#dcfce7", "#16a34a"),
    "removed": ("#f3f4f6", "#9ca3af"),
    "changed": ("#fef3c7", "#d97706"),
    "same": ("#ffffff", "#9ca3af"),
}
_EDGE_COLOURS = {"added": "#16a34a", "removed": "#9ca3af", "same": "#6b7280"}


def diff_graph_data(old: Plan, new: Plan, diff: PlanDiff) -> dict[str, Any]:
    """One graph of both versions: the new plan's steps coloured by what happened to them, the
    removed ones ghosted beside them, and each edge added, removed or kept."""
    removed = [s for s in old.steps if s.id in set(diff.removed)]
    # Params and dependencies left out: the edges come from the diff, and a ghosted step's
    # references count positions in the old plan.
    bare = [s.model_copy(update={"params": {}, "depends_on": []}) for s in [*new.steps, *removed]]
    data = graph_data(new.model_copy(update={"steps": bare}))
    added, changed = set(diff.added), {c.new_id: c for c in diff.changed}
    kinds = {s.id: "added" if s.id in added else "changed" if s.id in changed else "same" for s in new.steps}
    kinds.update({s.id: "removed" for s in removed})
    for node in data["nodes"]:
        kind = kinds[node["id"]]
        fill, border = DIFF_COLOURS[kind]
        node["color"] = {"background": fill, "border": border,
                         "highlight": {"background": fill, "border": "#111827"},
                         "hover": {"background": fill, "border": "#111827"}}
        node["font"] = {"color": "#9ca3af" if kind == "removed" else "#111827"}
        node["borderWidth"] = 1 if kind == "same" else 3
        plan = old if kind == "removed" else new
        node["label"] = html.escape(f"{plan.index_of(node['id'])} · {plan.step(node['id']).tool}"
                                    + ("" if kind == "same" else f"\n{kind}"))
        if kind == "removed":
            node["shapeProperties"] = {"borderDashes": [4, 4], "borderRadius": 6}
        what = changed[node["id"]].describe() if node["id"] in changed else ""
        node["title"] = html.escape(f"{plan.label(node['id'])} · {kind}" + (f"\n{what}" if what else ""))
    edge_kinds = {(e.from_id, e.to_id): e.change for e in diff.edges}
    pairs = list(dict.fromkeys([*new.edges(), *edge_kinds]))
    edges = []
    for source, target in pairs:
        if source not in kinds or target not in kinds:
            continue
        kind = edge_kinds.get((source, target), "same")
        edge: dict[str, Any] = {"id": f"{source}>{target}", "from": source, "to": target, "arrows": "to",
                                "color": {"color": _EDGE_COLOURS[kind]}, "width": 1.5 if kind == "same" else 3}
        if kind != "same":
            edge["label"] = kind
        if kind == "removed":
            edge["dashes"] = True
        edges.append(edge)
    data["edges"] = edges
    data["testid"] = "compare-graph"
    data["statuses"] = [kinds[n["id"]] for n in data["nodes"]]
    shape = json.dumps([[n["id"] for n in data["nodes"]], [e["id"] for e in edges]])
    data["layout"] = hashlib.sha256(shape.encode()).hexdigest()[:16]
    return data


def diff_lines(diff: PlanDiff) -> list[str]:
    """The comparison as lines: counts, then each added, removed and changed step (param by
    param) and each added or removed edge."""
    return [] if diff.is_empty else diff.summary().splitlines()


def _version_options(services: Services, saved: SavedRef | None) -> dict[Any, tuple[str, Plan | None, str]]:
    """{choice: (label, plan, version note)}; ``CURRENT`` is the plan being edited."""
    plan: Plan = bench().plan
    options: dict[Any, tuple[str, Plan | None, str]] = {CURRENT: ("the plan being edited", plan, "")}
    if saved is not None:
        for version in services.store.versions(saved.plan_id):
            options[version.version] = (f"version {version.version}" + (f" · {version.message}" if version.message else ""),
                                        version.plan, version.message)
    return options


def compare_panel(services: Services, plan: Plan) -> None:
    """"Compare versions": pick two, see what changed between them."""
    saved: SavedRef | None = bench().saved
    with st.expander("Compare versions", key="editor.compare_panel", icon=":material/compare:"):
        with actions.shown("compare versions"):
            options = _version_options(services, saved)
            choices = list(options)
            if len(choices) < 2:
                st.caption("Save the plan to compare its versions: every save makes one.")
                return
            versions = [c for c in choices if c != CURRENT]
            default_old = (saved.version - 1 if saved is not None and saved.version - 1 in versions
                           else versions[0])
            if st.session_state[Keys.EDITOR_COMPARE_OLD] not in choices:
                st.session_state[Keys.EDITOR_COMPARE_OLD] = default_old
            if st.session_state[Keys.EDITOR_COMPARE_NEW] not in choices:
                st.session_state[Keys.EDITOR_COMPARE_NEW] = CURRENT
            left, right = st.columns(2)
            left.selectbox("Older", options=choices, key=Keys.EDITOR_COMPARE_OLD,
                           format_func=lambda c: options[c][0])
            right.selectbox("Newer", options=choices, key=Keys.EDITOR_COMPARE_NEW,
                            format_func=lambda c: options[c][0])
            old_choice, new_choice = st.session_state[Keys.EDITOR_COMPARE_OLD], st.session_state[Keys.EDITOR_COMPARE_NEW]
            old, new = options[old_choice][1], options[new_choice][1]
            note = options[new_choice][2]
            if note.startswith(REPLAN_PREFIX):
                st.info(md_escape(f"A re-plan, asked for: “{note.removeprefix(REPLAN_PREFIX)}”"),
                        icon=":material/edit_note:")
            if old is not None and new is not None:
                show_diff(old, new, key="editor.compare.graph")


def show_diff(old: Plan, new: Plan, *, key: str) -> None:
    """The coloured graph of both versions and the param-by-param list."""
    diff = diff_plans(old, new)
    lines = diff_lines(diff)
    if not lines:
        st.success("No differences: both versions run the same steps with the same params.")
        return
    st.markdown(" ".join(f":{colour}[■] {kind}" for kind, colour in
                         (("added", "green"), ("removed", "gray"), ("changed", "orange"))) +
                " · removed steps are ghosted, removed links dashed")
    draw_graph_data(diff_graph_data(old, new, diff), key=key)
    st.markdown("\n".join(f"- {md_escape(line)}" for line in lines))


def _replan_source(services: Services) -> tuple[Plan, int, str] | None:
    """(the plan it came from, its version, the feedback) when the open version is a re-plan."""
    saved: SavedRef | None = bench().saved
    if saved is None:
        return None
    versions = {v.version: v for v in services.store.versions(saved.plan_id)}
    this = versions.get(saved.version)
    if this is None or not this.message.startswith(REPLAN_PREFIX) or saved.version - 1 not in versions:
        return None
    return versions[saved.version - 1].plan, saved.version - 1, this.message.removeprefix(REPLAN_PREFIX)


def request_approve() -> None:
    """Approve; a re-plan first shows what it changed, and is approved from there."""
    bench().notices = []
    with actions.reported("approve the plan"):
        if not st.session_state[Keys.EDITOR_CONFIRM_APPROVE] and _replan_source(get_services()) is not None:
            st.session_state[Keys.EDITOR_CONFIRM_APPROVE] = True
            return
    _approve()


def _approve() -> None:
    # Checked against the tools the page lists the plan's problems with, or an Approve the page
    # offers would be refused for "unknown tool" in a review of a plan using the agent's tools.
    with actions.reported("approve the plan"):
        actions.approve(editor_services().validator)


def _cancel_approve() -> None:
    st.session_state[Keys.EDITOR_CONFIRM_APPROVE] = False


def approve_diff_panel(plan: Plan) -> None:
    """The re-plan's changes, shown before it is approved."""
    if not st.session_state[Keys.EDITOR_CONFIRM_APPROVE] or actions.is_approved(plan):
        return
    with actions.shown("show what the re-plan changed"):
        source = _replan_source(get_services())
        if source is None:
            return
        old, version, feedback = source
        with st.container(border=True, key="editor.approve_diff"):
            st.markdown("**Before you approve:** " + md_escape(f"this plan is a re-plan of version {version}, "
                                                                 f"asked for: “{feedback}”. What it changed:"))
            show_diff(old, plan, key="editor.approve_diff.graph")
            confirm, cancel, _ = st.columns([1.4, 1, 4])
            confirm.button("Approve these changes", key="editor.approve_diff.confirm", type="primary",
                           on_click=_approve, width="stretch", icon=":material/verified:")
            cancel.button("Not yet", key="editor.approve_diff.cancel", on_click=_cancel_approve, width="stretch")
