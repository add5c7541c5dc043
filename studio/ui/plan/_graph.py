"""The plan as a left-to-right dependency graph, drawn by vis-network in the browser.

pyvis builds the nodes, edges and options; a ``st.components.v2`` component draws them. The
vis-network script is pyvis's own bundled copy, served by the studio itself from
``studio/static`` (Streamlit's static serving), so the graph works with no network and
re-sending a changed plan costs a few KB instead of the whole library. The browser side
(drawing, zoom, the editor's clicks and keys) is ``studio/assets/graph.js`` and ``graph.css``.

Step tools, params and notes come from planners, models and users, so every label and tooltip
is HTML-escaped here. The browser side shows tooltips through ``innerHTML`` of the escaped text
(so they read exactly as written and can hold no markup), and turns labels back into plain text
only to paint them on the canvas, where nothing is ever parsed as HTML.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import networkx as nx
import streamlit as st
from pyvis.network import Network

from core import Plan, Problem, Reference, Run, StepStatus, flow_preview

from ._node_labels import OUTCOME_CHARS, node_label, shorten

__all__ = ["CHANGED_BORDER", "EDGE_LABEL_CHARS", "GRAPH_MIN_HEIGHT", "LABEL_FONT_PX", "MIN_LABEL_PX", "NODE_WIDTH_PX",
           "NOTE_CHARS", "OVERVIEW_STEPS", "PROBLEM_BORDER", "STATUS_COLOURS", "VIS_NETWORK_FILE", "draw_graph_data",
           "graph_data", "layout_spacing", "show_graph", "vis_network_url"]

_HERE = Path(__file__).resolve().parents[2]  # studio/, which holds static/ and assets/
VIS_NETWORK_FILE = _HERE / "static" / "vis-network.min.js"
_ASSETS = _HERE / "assets"

# status -> (fill, border, text)
STATUS_COLOURS: dict[StepStatus, tuple[str, str, str]] = {
    StepStatus.pending: ("#e5e7eb", "#9ca3af", "#111827"),
    StepStatus.running: ("#3b82f6", "#1d4ed8", "#ffffff"),
    StepStatus.succeeded: ("#16a34a", "#166534", "#ffffff"),
    StepStatus.failed: ("#dc2626", "#991b1b", "#ffffff"),
    StepStatus.skipped: ("#f59e0b", "#b45309", "#111827"),
    StepStatus.interrupted: ("#8b5cf6", "#6d28d9", "#ffffff"),
    StepStatus.cancelled: ("#64748b", "#334155", "#ffffff"),
    StepStatus.waiting: ("#facc15", "#a16207", "#111827"),  # waits for a person: look here
    StepStatus.rejected: ("#7f1d1d", "#450a0a", "#ffffff"),
}

# A plan of one row fits with room for the zoom buttons: the graph leaves the first screen to the rest.
GRAPH_MIN_HEIGHT = 320
LABEL_FONT_PX = 15
# The size labels are shown at when the browser takes the user to a step (jump-to-step, the
# minimap); the first view and Fit show the whole plan, however small that makes them.
MIN_LABEL_PX = 12
# A longer note is cut in the tooltip, so the params below it stay in view.
NOTE_CHARS = 160
PROBLEM_BORDER = "#dc2626"
CHANGED_BORDER = "#2563eb"
_LOCKED_DASHES = [6, 4]
# Past this many steps the graph offers an overview (a minimap) and jump-to-step.
OVERVIEW_STEPS = 50
NODE_WIDTH_PX = 210  # a box's text wraps at this width
EDGE_LABEL_CHARS = 32  # what flows along an edge, cut (its tooltip has the values that flowed)
_NODE_MARGIN = 12
_LINE_PX = 19  # one line of a box's text at LABEL_FONT_PX
_CHAR_PX = 7.0  # an average character of a box's text at LABEL_FONT_PX (sans-serif), as drawn
_EDGE_CHAR_PX = 6.6  # the same for an edge's label at 12 px
_CLEAR_PX = 26  # between a box and an edge label beside it: the arrow head and some air
_OUTCOME_LINES = 2  # what a run writes in a box: "✓ 12 rows · 35 ms", an error or a reason, two lines at most
_LEVEL_GAP = 330  # vis's column and row gaps before the labels size them
_ROW_GAP = 95

_OPTIONS: dict[str, Any] = {
    "layout": {"hierarchical": {"enabled": True, "direction": "LR", "levelSeparation": _LEVEL_GAP,
                                "nodeSpacing": _ROW_GAP, "sortMethod": "directed",
                                # Steps that share no edge are separate "trees" to vis, 200 px
                                # apart by default: parallel steps spread out and shrink the graph.
                                "treeSpacing": _ROW_GAP, "shakeTowards": "roots"}},
    "physics": {"enabled": False},
    "interaction": {"hover": True, "tooltipDelay": 150, "dragNodes": True, "zoomView": True,
                    "dragView": True},
    "nodes": {"shape": "box", "margin": 12, "borderWidth": 2,
              "font": {"size": LABEL_FONT_PX, "face": "sans-serif", "multi": False},
              "shapeProperties": {"borderRadius": 6}, "widthConstraint": {"maximum": NODE_WIDTH_PX}},
    "edges": {"arrows": {"to": {"enabled": True, "scaleFactor": 0.7}},
              "color": {"color": "#6b7280", "highlight": "#111827", "hover": "#111827"},
              # The label sits on a white box of its own: its edge stops at the box, never crosses it.
              "font": {"size": 12, "face": "sans-serif", "align": "middle", "color": "#374151",
                       "strokeWidth": 0, "background": "#ffffff"},
              "smooth": {"enabled": True, "type": "cubicBezier", "forceDirection": "horizontal",
                         "roundness": 0.5},
              "width": 1.5},
}


_DETOUR: dict[str, Any] = {"enabled": True, "type": "curvedCW", "roundness": 0.35}


def _levels(plan: Plan) -> dict[str, int]:
    """Columns left to right: each step one column after the furthest step it needs.

    Steps in a dependency cycle share a column, so an invalid plan still draws (the validator
    names the cycle); vis's own sorting would not finish on one.
    """
    graph = nx.DiGraph()
    graph.add_nodes_from(s.id for s in plan.steps)
    graph.add_edges_from(plan.edges())
    dag = nx.condensation(graph)
    level: dict[int, int] = {}
    for component in nx.topological_sort(dag):
        level[component] = max((level[p] + 1 for p in dag.predecessors(component)), default=0)
    return {step_id: level[dag.graph["mapping"][step_id]] for step_id in graph.nodes}


def _tooltip(index: int, plan: Plan, status: StepStatus, run: Run | None, problems: list[str]) -> str:
    step = plan.steps[index]
    # A StepStatus is its text (a str enum): written as it is, where an f-string would name its class.
    lines = [f"step {index} · {step.tool}", "status: " + status]
    lines += [f"problem: {message}" for message in problems]
    if step.locked:
        lines.append("locked: a re-plan keeps this step")
    if step.parallel:  # nothing else in the graph shows it
        lines.append("parallel: yes")
    # Params before the note, and the note cut short: a long note never hides them.
    lines.append("params: " + (json.dumps(step.params, indent=2, ensure_ascii=False, default=str)
                               if step.params else "(none)"))
    if step.note:
        note = step.note if len(step.note) <= NOTE_CHARS else step.note[:NOTE_CHARS - 1].rstrip() + "…"
        lines.append(f"note: {note}")
    state = run.steps.get(step.id) if run else None
    if state is not None and state.error:
        lines.append(f"error: {state.error}")
    return html.escape("\n".join(lines))


def _problems_by_step(problems: Iterable[Problem]) -> dict[str, list[str]]:
    """The errors of each step (warnings do not mark a step: the plan can still run)."""
    out: dict[str, list[str]] = {}
    for problem in problems:
        if problem.severity == "error" and problem.step_id is not None:
            field = f"{problem.field}: " if problem.field else ""
            out.setdefault(problem.step_id, []).append(field + problem.message)
    return out


def layout_spacing(labels: Iterable[str], edge_labels: Iterable[str]) -> tuple[int, int]:
    """(column gap, row gap) in canvas px, sized to what is drawn: a column is as far from the
    next as a box at its widest plus the longest edge label between them and room for the
    arrows, so no edge label lies on a box; rows as far apart as the tallest box and some air.

    ``labels`` are the boxes before a run; each is given ``_OUTCOME_LINES`` more for what a run
    writes in it, so the spacing (and with it the layout) stays the same while a run goes and
    the browser updates the boxes in place."""
    width = OUTCOME_CHARS * _CHAR_PX  # a line of what a run writes
    height = 0.0
    for label in labels:
        lines = label.split("\n")
        width = max(width, max(len(line) for line in lines) * _CHAR_PX)
        # vis wraps a line at the box's width: a long line takes as many lines as it needs.
        wrapped = sum(max(1, -(-int(len(line) * _CHAR_PX) // NODE_WIDTH_PX)) for line in lines)
        height = max(height, (wrapped + _OUTCOME_LINES) * _LINE_PX)
    edge = max((len(text) * _EDGE_CHAR_PX for text in edge_labels), default=0)
    column = min(width, NODE_WIDTH_PX) + 2 * _NODE_MARGIN + edge + 2 * _CLEAR_PX
    row = height + 2 * _NODE_MARGIN + 24
    return round(column), round(row)


def _edge_flows(plan: Plan) -> dict[tuple[str, str], list[tuple[str, Reference]]]:
    """The (param, reference) pairs that carry data along each edge."""
    flows: dict[tuple[str, str], list[tuple[str, Reference]]] = {}
    ids = {s.id for s in plan.steps}
    for step in plan.steps:
        for name, ref in step.readable_references():
            if ref.step in ids:
                pairs = flows.setdefault((ref.step, step.id), [])
                if all(n != name or r.path != ref.path for n, r in pairs):
                    pairs.append((name, ref))
    return flows


def _edge_labels(plan: Plan) -> dict[tuple[str, str], str]:
    """What flows along each edge, into which param, e.g. ``data.*.id → facility_id``."""
    return {edge: shorten(", ".join(f"{ref.path_text.lstrip('.') or 'result'} → {name}" for name, ref in pairs),
                          EDGE_LABEL_CHARS)
            for edge, pairs in _edge_flows(plan).items()}


def _flowed(plan: Plan, run: Run | None, edge: tuple[str, str]) -> str:
    """After a run: the values that flowed along ``edge``, per param (the first few, and how many)."""
    if run is None or edge[0] not in run.steps:
        return ""
    flows = flow_preview(plan, run, *edge)
    return "\n".join(f"{name}: {p.summary()}" for name, previews in flows.items() for p in previews
                      if p.status != "not yet run")


def graph_data(plan: Plan, run: Run | None = None, problems: Iterable[Problem] = (), *,
               changed: Iterable[str] = (), selected: str | None = None, editable: bool = False) -> dict[str, Any]:
    """Nodes, edges and options for vis-network; every text is HTML-escaped.

    Each box says what its step does (``_node_labels.node_label``): tool, key params and,
    in ``run``, rows and duration, or why it waits or failed. The columns and rows are spaced
    to the boxes and edge labels (``layout_spacing``).

    A step with an error in ``problems`` gets a thick red border and "⚠" before its label; a
    locked step a dashed border and "locked" under its label; a step in ``changed`` (edited
    since the approved version) "changed" under its label and a thick blue border. Each edge
    is labelled with what flows along it; after a run its tooltip shows the values that did.
    """
    changed = set(changed)
    net = Network(directed=True, cdn_resources="in_line")
    levels = _levels(plan)
    flagged = _problems_by_step(problems)
    statuses = []
    unrun_labels: list[str] = []
    for index, step in enumerate(plan.steps):
        state = run.steps.get(step.id) if run else None
        status = state.status if state is not None else StepStatus.pending
        statuses.append(status)
        fill, border, text = STATUS_COLOURS[status]
        marks: dict[str, Any] = {}
        focus = "#111827"  # the border of a hovered or selected step
        if step.id in flagged:
            border = focus = PROBLEM_BORDER  # red however the step is pointed at
            marks["borderWidth"] = marks["borderWidthSelected"] = 4
        elif step.id in changed:
            border = CHANGED_BORDER
            marks["borderWidth"] = 4
        if step.locked:
            marks["shapeProperties"] = {"borderDashes": _LOCKED_DASHES, "borderRadius": 6}
        label = node_label(index, step, status, state, problem=step.id in flagged, changed=step.id in changed)
        unrun_labels.append(node_label(index, step, StepStatus.pending, None, problem=step.id in flagged,
                                       changed=step.id in changed))
        net.add_node(step.id, label=html.escape(label), shape="box",
                     color={"background": fill, "border": border,
                            "highlight": {"background": fill, "border": focus},
                            "hover": {"background": fill, "border": focus}},
                     font={"color": text}, title=_tooltip(index, plan, status, run, flagged.get(step.id, [])),
                     level=levels[step.id], **marks)
    labels = _edge_labels(plan)
    for source, target in plan.edges():
        extra = {}
        if levels[target] - levels[source] != 1:
            # An edge that skips a column runs straight through the steps in between, hiding
            # itself and its label; one inside a column (a cycle) lies on its way back. A curve
            # takes it around them, and the two ways of a cycle bend to opposite sides.
            extra["smooth"] = _DETOUR
        flowed = _flowed(plan, run, (source, target))
        if flowed:
            extra["title"] = html.escape(flowed)
        net.add_edge(source, target, id=f"{source}>{target}",
                     label=html.escape(labels.get((source, target), "")), **extra)
    net.set_options(json.dumps(_OPTIONS))
    nodes, edges, _heading, _height, _width, options = net.get_network_data()
    rows = max([list(levels.values()).count(level) for level in set(levels.values())], default=1)
    options_data = json.loads(options)
    column_gap, row_gap = layout_spacing(unrun_labels, labels.values())
    hierarchical = options_data["layout"]["hierarchical"]
    hierarchical.update(levelSeparation=column_gap, nodeSpacing=row_gap, treeSpacing=row_gap)
    # What vis lays out: while it stays the same, the browser recolours the nodes it has in
    # place (keeping the user's view) instead of drawing a new network.
    shape = json.dumps([[(n["id"], n["level"]) for n in nodes], [(e["from"], e["to"]) for e in edges],
                        options_data], sort_keys=True)
    return {"nodes": nodes, "edges": edges, "options": options_data, "statuses": statuses,
            "layout": hashlib.sha256(shape.encode()).hexdigest()[:16],
            "labelPx": LABEL_FONT_PX, "minLabelPx": MIN_LABEL_PX, "editable": editable,
            "selected": selected if selected in levels else None,
            "overview": len(plan.steps) > OVERVIEW_STEPS,
            "height": min(640, max(GRAPH_MIN_HEIGHT, 90 + rows * row_gap))}


def vis_network_url() -> str:
    """Where the studio serves vis-network (``static/`` is served under ``app/static``)."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}/app/static/{VIS_NETWORK_FILE.name}" if base else f"/app/static/{VIS_NETWORK_FILE.name}"


# The browser side lives in studio/assets as plain JS and CSS (read, linted and diffed as such).
# st.components.v2 takes a one-line css/js string with a "/" in it for a file path, so the
# text is passed, and both files start with a comment line: never one line.
_CSS = (_ASSETS / "graph.css").read_text(encoding="utf-8")
_JS = (_ASSETS / "graph.js").read_text(encoding="utf-8")

_HTML = ('<div class="ps-graph" data-testid="plan-graph">'
         '<div class="ps-graph-tools">'
         '<button type="button" data-zoom="fit" title="Show the whole plan">Fit</button>'
         '<button type="button" data-zoom="in" title="Zoom in">Zoom in</button>'
         '<button type="button" data-zoom="out" title="Zoom out">Zoom out</button>'
         '<button type="button" data-edit="connect" hidden title="Then drag from the step that comes first '
         'to the step that needs it">Connect</button>'
         '</div><div class="ps-graph-hint" hidden></div><div class="ps-graph-canvas"></div></div>')

_plan_graph = st.components.v2.component("plan_studio_graph", html=_HTML, css=_CSS, js=_JS)


def show_graph(plan: Plan, run: Run | None = None, *, key: str, problems: Iterable[Problem] = (),
               changed: Iterable[str] = (), selected: str | None = None,
               on_action: Callable[[], None] | None = None) -> None:
    """Draw ``plan`` with each step coloured by its status in ``run``, errors and locks marked.

    Drawn again with the same ``key`` and the same steps and edges (a run in progress), the
    browser recolours the steps in place: the view stays where the user put it.

    With ``on_action`` the graph is an editor: clicks, drawn edges and keys become trigger
    values (``{"kind": "select" | "connect" | "delete_edge" | "delete_step" | "undo" |
    "redo", ...}``) that ``on_action`` reads from ``st.session_state[key].action``."""
    data = graph_data(plan, run, problems, changed=changed, selected=selected, editable=on_action is not None)
    data["visUrl"] = vis_network_url()
    data["key"] = key  # drawn again elsewhere on the page (a run ends), the browser keeps its network
    if on_action is None:
        _plan_graph(key=key, data=data, height=data["height"])
    else:
        _plan_graph(key=key, data=data, height=data["height"], on_action_change=on_action)


def draw_graph_data(data: dict[str, Any], *, key: str) -> None:
    """Draw graph data made elsewhere (a comparison of two versions), read-only."""
    _plan_graph(key=key, data={**data, "visUrl": vis_network_url()}, height=data["height"])
