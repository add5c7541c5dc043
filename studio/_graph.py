"""The plan as a left-to-right dependency graph, drawn by vis-network in the browser.

pyvis builds the nodes, edges and options; a ``st.components.v2`` component draws them. The
vis-network script is pyvis's own bundled copy, served by the studio itself from
``studio/static`` (Streamlit's static serving), so the graph works with no network and
re-sending a changed plan costs a few KB instead of the whole library.

Step tools, params and notes come from planners, models and users, so every label and tooltip
is HTML-escaped here. The browser side shows tooltips through ``innerHTML`` of the escaped text
(so they read exactly as written and can hold no markup), and turns labels back into plain text
only to paint them on the canvas, where nothing is ever parsed as HTML.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import networkx as nx
import streamlit as st
from pyvis.network import Network

from core import Plan, Run, StepStatus

__all__ = ["GRAPH_MIN_HEIGHT", "STATUS_COLOURS", "VIS_NETWORK_FILE", "graph_data", "show_graph", "vis_network_url"]

VIS_NETWORK_FILE = Path(__file__).resolve().parent / "static" / "vis-network.min.js"

# status -> (fill, border, text)
STATUS_COLOURS: dict[str, tuple[str, str, str]] = {
    StepStatus.pending.value: ("#e5e7eb", "#9ca3af", "#111827"),
    StepStatus.running.value: ("#3b82f6", "#1d4ed8", "#ffffff"),
    StepStatus.succeeded.value: ("#16a34a", "#166534", "#ffffff"),
    StepStatus.failed.value: ("#dc2626", "#991b1b", "#ffffff"),
    StepStatus.skipped.value: ("#f59e0b", "#b45309", "#111827"),
    StepStatus.interrupted.value: ("#8b5cf6", "#6d28d9", "#ffffff"),
}

GRAPH_MIN_HEIGHT = 440
_LEVEL_GAP = 240
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
              "font": {"size": 15, "face": "sans-serif", "multi": False},
              "shapeProperties": {"borderRadius": 6}, "widthConstraint": {"maximum": 230}},
    "edges": {"arrows": {"to": {"enabled": True, "scaleFactor": 0.7}},
              "color": {"color": "#6b7280", "highlight": "#111827", "hover": "#111827"},
              "font": {"size": 12, "face": "sans-serif", "align": "middle", "color": "#374151",
                       "strokeWidth": 4, "strokeColor": "#ffffff"},
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


def _tooltip(index: int, plan: Plan, status: str, run: Run | None) -> str:
    step = plan.steps[index]
    lines = [f"step {index} · {step.tool}", f"status: {status}"]
    if step.note:
        lines.append(f"note: {step.note}")
    if step.parallel:  # nothing else in the graph shows it
        lines.append("parallel: yes")
    lines.append("params: " + (json.dumps(step.params, indent=2, ensure_ascii=False, default=str)
                               if step.params else "(none)"))
    state = run.steps.get(step.id) if run else None
    if state is not None and state.error:
        lines.append(f"error: {state.error}")
    return html.escape("\n".join(lines))


def _edge_labels(plan: Plan) -> dict[tuple[str, str], str]:
    """Which params carry a reference along each edge, e.g. ``facility_id``."""
    labels: dict[tuple[str, str], list[str]] = {}
    for step in plan.steps:
        for name, ref in step.readable_references():
            if 0 <= ref.step < len(plan.steps):
                names = labels.setdefault((plan.steps[ref.step].id, step.id), [])
                if name not in names:
                    names.append(name)
    return {edge: ", ".join(names) for edge, names in labels.items()}


def graph_data(plan: Plan, run: Run | None = None) -> dict[str, Any]:
    """Nodes, edges and options for vis-network; every text is HTML-escaped."""
    net = Network(directed=True, cdn_resources="in_line")
    levels = _levels(plan)
    statuses = []
    for index, step in enumerate(plan.steps):
        state = run.steps.get(step.id) if run else None
        status = state.status.value if state is not None else StepStatus.pending.value
        statuses.append(status)
        fill, border, text = STATUS_COLOURS[status]
        label = f"{index} · {step.tool}" + ("" if status == StepStatus.pending.value else f"\n{status}")
        net.add_node(step.id, label=html.escape(label), shape="box",
                     color={"background": fill, "border": border,
                            "highlight": {"background": fill, "border": "#111827"},
                            "hover": {"background": fill, "border": "#111827"}},
                     font={"color": text}, title=_tooltip(index, plan, status, run),
                     level=levels[step.id])
    labels = _edge_labels(plan)
    for source, target in plan.edges():
        extra = {}
        if levels[target] - levels[source] != 1:
            # An edge that skips a column runs straight through the steps in between, hiding
            # itself and its label; one inside a column (a cycle) lies on its way back. A curve
            # takes it around them, and the two ways of a cycle bend to opposite sides.
            extra["smooth"] = _DETOUR
        net.add_edge(source, target, label=html.escape(labels.get((source, target), "")), **extra)
    net.set_options(json.dumps(_OPTIONS))
    nodes, edges, _heading, _height, _width, options = net.get_network_data()
    rows = max([list(levels.values()).count(level) for level in set(levels.values())], default=1)
    return {"nodes": nodes, "edges": edges, "options": json.loads(options), "statuses": statuses,
            "height": min(640, max(GRAPH_MIN_HEIGHT, 90 + rows * _ROW_GAP))}


def vis_network_url() -> str:
    """Where the studio serves vis-network (``static/`` is served under ``app/static``)."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}/app/static/{VIS_NETWORK_FILE.name}" if base else f"/app/static/{VIS_NETWORK_FILE.name}"


# A css/js string on one line with a "/" in it is taken for a file path; both start with a comment line.
_CSS = """/* plan graph */
:host { display: block; }
.ps-graph { width: 100%; box-sizing: border-box; border: 1px solid #e5e7eb; border-radius: 8px; background: #ffffff;
            position: relative; overflow: hidden; }
.ps-graph-message { padding: 1rem; color: #991b1b; font-family: sans-serif; font-size: 0.9rem; }
/* pre-wrap: a long note or param wraps instead of being cut off at the tooltip's edge. */
div.vis-tooltip { position: absolute; visibility: hidden; padding: 8px 10px; white-space: pre-wrap;
                  overflow-wrap: anywhere;
                  font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px;
                  color: #111827; background: #f9fafb; border: 1px solid #9ca3af; border-radius: 6px;
                  box-shadow: 2px 2px 8px rgba(0, 0, 0, 0.15); pointer-events: none; z-index: 5;
                  max-width: 480px; overflow: hidden; }
"""

_HTML = '<div class="ps-graph" data-testid="plan-graph"></div>'

_JS = """/* plan graph */
function loadVis(url) {
  if (window.vis && window.vis.Network) return Promise.resolve(window.vis);
  if (!window.__planStudioVis) {
    window.__planStudioVis = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.onload = () => resolve(window.vis);
      script.onerror = () => { window.__planStudioVis = null; reject(new Error(url)); };
      document.head.appendChild(script);
    });
  }
  return window.__planStudioVis;
}

// The escaped text back to plain text, for the canvas only (never parsed as HTML).
function unescape(text) {
  return String(text || "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'").replace(/&amp;/g, "&");
}

// Escaped text as a tooltip element: it shows literally, markup and all.
function tooltip(escaped) {
  const element = document.createElement("div");
  element.innerHTML = escaped;
  return element;
}

export default function (component) {
  const { data, parentElement } = component;
  const container = parentElement.querySelector(".ps-graph");
  container.style.height = data.height + "px";
  container.removeAttribute("data-ready");
  loadVis(data.visUrl).then((vis) => {
    if (container.__network) container.__network.destroy();
    container.replaceChildren();
    const nodes = data.nodes.map((n) => ({ ...n, label: unescape(n.label), title: tooltip(n.title) }));
    const edges = data.edges.map((e) => ({ ...e, label: e.label ? unescape(e.label) : undefined }));
    container.__network = new vis.Network(container, { nodes, edges }, data.options);
    container.__network.once("afterDrawing", () => {
      container.setAttribute("data-statuses", data.statuses.join(" "));
      container.setAttribute("data-ready", "true");
    });
  }).catch(() => {
    container.replaceChildren();
    const message = document.createElement("div");
    message.className = "ps-graph-message";
    message.textContent = "The graph library could not be loaded. Start the studio with " +
      "`plan-studio` (it serves the library itself), or set server.enableStaticServing = true.";
    container.appendChild(message);
  });
}
"""

_plan_graph = st.components.v2.component("plan_studio_graph", html=_HTML, css=_CSS, js=_JS)


def show_graph(plan: Plan, run: Run | None = None, *, key: str) -> None:
    """Draw ``plan`` with each step coloured by its status in ``run``."""
    data = graph_data(plan, run)
    data["visUrl"] = vis_network_url()
    _plan_graph(key=key, data=data, height=data["height"])
