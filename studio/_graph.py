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

__all__ = ["CHANGED_BORDER", "GRAPH_MIN_HEIGHT", "LABEL_FONT_PX", "MIN_LABEL_PX", "NOTE_CHARS", "PROBLEM_BORDER", "STATUS_COLOURS", "VIS_NETWORK_FILE", "draw_graph_data", "graph_data", "show_graph", "vis_network_url"]

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
LABEL_FONT_PX = 15
# The browser never starts a plan's view smaller than this: a large plan pans instead of shrinking.
MIN_LABEL_PX = 12
# A longer note is cut in the tooltip, so the params below it stay in view.
NOTE_CHARS = 160
PROBLEM_BORDER = "#dc2626"
CHANGED_BORDER = "#2563eb"
_LOCKED_DASHES = [6, 4]
_LEVEL_GAP = 330  # room for the label of what flows along an edge between two steps
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


def _tooltip(index: int, plan: Plan, status: str, run: Run | None, problems: list[str]) -> str:
    step = plan.steps[index]
    lines = [f"step {index} · {step.tool}", f"status: {status}"]
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


def _label(index: int, tool: str, status: str, problem: bool, locked: bool, changed: bool = False) -> str:
    first = ("⚠ " if problem else "") + f"{index} · {tool}"
    second = [status] if status != StepStatus.pending.value else []
    second += ["locked"] if locked else []
    second += ["changed"] if changed else []
    return first + ("\n" + " · ".join(second) if second else "")


def _edge_flows(plan: Plan) -> dict[tuple[str, str], list[tuple[str, Reference]]]:
    """The (param, reference) pairs that carry data along each edge."""
    flows: dict[tuple[str, str], list[tuple[str, Reference]]] = {}
    for step in plan.steps:
        for name, ref in step.readable_references():
            if 0 <= ref.step < len(plan.steps):
                pairs = flows.setdefault((plan.steps[ref.step].id, step.id), [])
                if all(n != name or r.path != ref.path for n, r in pairs):
                    pairs.append((name, ref))
    return flows


def _edge_labels(plan: Plan) -> dict[tuple[str, str], str]:
    """What flows along each edge, into which param, e.g. ``data.*.id → facility_id``."""
    return {edge: ", ".join(f"{ref.path_text.lstrip('.') or 'result'} → {name}" for name, ref in pairs)
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
    for index, step in enumerate(plan.steps):
        state = run.steps.get(step.id) if run else None
        status = state.status.value if state is not None else StepStatus.pending.value
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
        label = _label(index, step.tool, status, step.id in flagged, step.locked, step.id in changed)
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
    # What vis lays out: while it stays the same, the browser recolours the nodes it has in
    # place (keeping the user's view) instead of drawing a new network.
    shape = json.dumps([[(n["id"], n["level"]) for n in nodes], [(e["from"], e["to"]) for e in edges],
                        options_data], sort_keys=True)
    return {"nodes": nodes, "edges": edges, "options": options_data, "statuses": statuses,
            "layout": hashlib.sha256(shape.encode()).hexdigest()[:16],
            "labelPx": LABEL_FONT_PX, "minLabelPx": MIN_LABEL_PX, "editable": editable,
            "selected": selected if selected in levels else None,
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
.ps-graph-canvas { width: 100%; height: 100%; }
.ps-graph-tools { position: absolute; top: 6px; right: 6px; z-index: 4; display: flex; gap: 4px; }
.ps-graph-tools button { font: 12px sans-serif; padding: 3px 8px; color: #111827; background: #ffffffe6;
                         border: 1px solid #9ca3af; border-radius: 5px; cursor: pointer; }
.ps-graph-tools button:hover { background: #f3f4f6; border-color: #111827; }
.ps-graph:focus { outline: 2px solid #2563eb; outline-offset: -2px; }
.ps-graph-tools button[aria-pressed=true] { background: #dbeafe; border-color: #2563eb; }
.ps-graph-hint { position: absolute; top: 6px; left: 8px; z-index: 4; font: 12px sans-serif; color: #1e3a8a;
                 background: #eff6ff; border: 1px solid #93c5fd; border-radius: 5px; padding: 3px 8px; }
.ps-graph-message { padding: 1rem; color: #991b1b; font-family: sans-serif; font-size: 0.9rem; }
/* pre-wrap: a long param wraps instead of being cut off at the tooltip's edge; the note is
   cut short in Python and comes after the params, so they stay in view. */
div.vis-tooltip { position: absolute; visibility: hidden; padding: 8px 10px; white-space: pre-wrap;
                  overflow-wrap: anywhere;
                  font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px;
                  color: #111827; background: #f9fafb; border: 1px solid #9ca3af; border-radius: 6px;
                  box-shadow: 2px 2px 8px rgba(0, 0, 0, 0.15); pointer-events: none; z-index: 5;
                  max-width: 480px; max-height: 360px; overflow: hidden; }
"""

_HTML = ('<div class="ps-graph" data-testid="plan-graph">'
         '<div class="ps-graph-tools">'
         '<button type="button" data-zoom="fit" title="Show as much of the plan as stays legible">Fit</button>'
         '<button type="button" data-zoom="in" title="Zoom in">Zoom in</button>'
         '<button type="button" data-zoom="out" title="Zoom out">Zoom out</button>'
         '<button type="button" data-edit="connect" hidden title="Then drag from the step that comes first '
         'to the step that needs it">Connect</button>'
         '</div><div class="ps-graph-hint" hidden></div><div class="ps-graph-canvas"></div></div>')

_JS = """/* plan graph */
const ZOOM_STEP = 1.25;

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

function showScale(root) {
  root.setAttribute("data-scale", root.__network.getScale().toFixed(4));
}

// The whole plan if its labels stay legible so; else the legible scale, starting at the
// first steps (top left), and the user pans or zooms to the rest.
function firstView(root, canvas, data) {
  const network = root.__network;
  network.fit({ animation: false });
  const legible = data.minLabelPx / data.labelPx;
  if (network.getScale() < legible) {
    const ids = data.nodes.map((n) => n.id);
    let left = Infinity, top = Infinity;
    for (const id of ids) {
      const box = network.getBoundingBox(id);
      left = Math.min(left, box.left);
      top = Math.min(top, box.top);
    }
    const margin = 44 / legible;  // clear of the zoom buttons in the top right
    network.moveTo({ scale: legible, animation: false, position: {
      x: left - margin + canvas.clientWidth / (2 * legible),
      y: top - margin + canvas.clientHeight / (2 * legible) } });
  }
  showScale(root);
}

// Labels never go below the legible size: Fit shows as much of the plan as stays legible
// (all of a small one), and neither the buttons nor the mouse wheel zoom out further.
function keepLegible(root) {
  const network = root.__network;
  if (network.getScale() < root.__legible) network.moveTo({ scale: root.__legible, animation: false });
}

// During a run the view follows the running step while it would leave the view, until the
// user moves the view themselves (drag, wheel, the zoom buttons): then it stays theirs.
function followRunning(root, data) {
  const network = root.__network;
  const at = data.statuses.indexOf("running");
  if (root.__userMoved || at < 0 || !data.nodes[at]) return;
  const id = data.nodes[at].id;
  const position = network.getPositions([id])[id];
  if (!position) return;
  const scale = network.getScale();
  const view = network.getViewPosition();
  const canvas = root.querySelector(".ps-graph-canvas");
  const halfWidth = canvas.clientWidth / (2 * scale), halfHeight = canvas.clientHeight / (2 * scale);
  if (Math.abs(position.x - view.x) < halfWidth * 0.8 && Math.abs(position.y - view.y) < halfHeight * 0.8) return;
  network.moveTo({ position, scale, animation: false });
}

function zoom(root, how) {
  const network = root.__network;
  if (!network) return;
  root.__userMoved = true;
  if (how === "fit") network.fit({ animation: false });
  else network.moveTo({ scale: network.getScale() * (how === "in" ? ZOOM_STEP : 1 / ZOOM_STEP), animation: false });
  keepLegible(root);
  showScale(root);
}

// The step Python has selected stays selected across redraws; an edge selection stays while it exists.
function keepSelection(root, data) {
  const network = root.__network;
  // What Python last drew as selected: once it matches a click, that click's rerun has arrived.
  root.setAttribute("data-drawn-selected", data.selected || "");
  const edge = root.__selection && root.__selection.edge;
  if (edge && root.__edges.get(edge.join(">"))) {
    network.setSelection({ nodes: [], edges: [edge.join(">")] });
  } else if (data.selected) {
    network.selectNodes([data.selected]);
    select(root, { node: data.selected });
  } else {
    network.unselectAll();
    select(root, null);
  }
}

function markDrawn(root, data) {
  root.__network.once("afterDrawing", () => {
    root.setAttribute("data-statuses", data.statuses.join(" "));
    root.setAttribute("data-ready", "true");
  });
}

// An edit, to Python: every action is a new trigger value (the nonce makes two equal ones differ).
function send(root, kind, extra) {
  if (!root.__editable) return;
  root.__component.setTriggerValue("action", { kind, ...(extra || {}), nonce: Date.now() + Math.random() });
}

function connectMode(root, on) {
  const network = root.__network;
  const button = root.querySelector("button[data-edit=connect]");
  const hint = root.querySelector(".ps-graph-hint");
  root.__connecting = on;
  button.setAttribute("aria-pressed", on ? "true" : "false");
  hint.hidden = !on;
  hint.textContent = on ? "Drag from a step to the step that needs it (Esc to cancel)" : "";
  root.setAttribute("data-mode", on ? "connect" : "view");
  if (!network) return;
  if (on) network.addEdgeMode(); else network.disableEditMode();
}

function select(root, selection) {
  root.__selection = selection;
  if (selection && selection.edge) root.setAttribute("data-selected-edge", selection.edge.join(">"));
  else root.removeAttribute("data-selected-edge");
  if (selection && selection.node) root.setAttribute("data-selected", selection.node);
  else root.removeAttribute("data-selected");
}

function deleteSelection(root) {
  const selection = root.__selection;
  if (!selection) return;
  if (selection.edge) send(root, "delete_edge", { source: selection.edge[0], target: selection.edge[1] });
  else if (selection.node) send(root, "delete_step", { step: selection.node });
}

function onKey(root, event) {
  const key = event.key.toLowerCase();
  const ctrl = event.ctrlKey || event.metaKey;
  if (key === "delete" || key === "backspace") deleteSelection(root);
  else if (ctrl && key === "z") send(root, event.shiftKey ? "redo" : "undo");
  else if (ctrl && key === "y") send(root, "redo");
  else if (key === "escape") connectMode(root, false);
  else return;
  event.preventDefault();
  event.stopPropagation();
}

// The page redrawn after a click in the graph (Streamlit replacing elements around it) drops
// the focus to the page body; the graph takes it back, so Delete and Ctrl+Z still reach it.
// Focus the user moved (a click or Tab elsewhere) is left where it went.
function keepFocus(root, event) {
  const pointer = window.__planStudioPointer;
  if (event.relatedTarget !== null || (!pointer.inGraph && Date.now() - pointer.at < 400)) return;
  requestAnimationFrame(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) root.focus({ preventScroll: true });
  });
}

// Clicks, keys and drawn edges become edits; wired once per network.
function wireEditing(root, vis) {
  const network = root.__network;
  network.on("click", (params) => {
    if (!root.__editable) return;
    root.focus({ preventScroll: true });
    if (params.nodes.length) {
      select(root, { node: params.nodes[0] });
      send(root, "select", { step: params.nodes[0] });
    } else if (params.edges.length) {
      const edge = root.__edges.get(params.edges[0]);
      select(root, { edge: [edge.from, edge.to] });
    } else {
      select(root, null);
      send(root, "select", { step: null });
    }
  });
}

// A DOM-free way to edit, for scripts and tests: the same edits the mouse and keys make.
function editorApi(root) {
  return {
    positions: () => {
      const network = root.__network;
      const out = {};
      for (const [id, at] of Object.entries(network.getPositions())) out[id] = network.canvasToDOM(at);
      return out;
    },
    connect: (source, target) => send(root, "connect", { source, target }),
    select: (step) => { select(root, step ? { node: step } : null); send(root, "select", { step }); },
    selectEdge: (source, target) => select(root, { edge: [source, target] }),
    deleteSelection: () => deleteSelection(root),
  };
}

export default function (component) {
  const { data, parentElement } = component;
  const root = parentElement.querySelector(".ps-graph");
  const canvas = root.querySelector(".ps-graph-canvas");
  root.style.height = data.height + "px";
  root.__component = component;
  root.__editable = Boolean(data.editable);
  root.__editor = editorApi(root);
  root.setAttribute("data-editable", root.__editable ? "true" : "false");
  // A comparison is a second graph on the page: tests and scripts tell them apart by this.
  root.setAttribute("data-testid", data.testid || "plan-graph");
  for (const button of root.querySelectorAll("button[data-zoom]")) {
    button.onclick = () => zoom(root, button.dataset.zoom);
  }
  const connect = root.querySelector("button[data-edit=connect]");
  connect.hidden = !root.__editable;
  connect.onclick = () => connectMode(root, !root.__connecting);
  if (root.__editable) {
    root.tabIndex = 0;
    root.onkeydown = (event) => onKey(root, event);
    root.onfocusout = (event) => keepFocus(root, event);
    window.__planStudioGraph = root;
    if (!window.__planStudioKeys) {
      // However the rerun after a click left the focus, a key pressed with nothing focused
      // (the page body) goes to the editable graph: typing in a field is never taken.
      window.__planStudioKeys = true;
      document.addEventListener("keydown", (event) => {
        const graph = window.__planStudioGraph;
        const active = document.activeElement;
        if (graph && graph.isConnected && graph.__editable && (active === null || active === document.body)) {
          onKey(graph, event);
        }
      });
    }
    if (!window.__planStudioPointer) {
      window.__planStudioPointer = { at: 0, inGraph: false };
      document.addEventListener("pointerdown", (event) => {
        window.__planStudioPointer.at = Date.now();
        window.__planStudioPointer.inGraph = event.composedPath().some(
          (node) => node.classList && node.classList.contains("ps-graph"));
      }, true);
    }
  } else {
    root.removeAttribute("tabindex");
    root.onkeydown = null;
  }
  loadVis(data.visUrl).then((vis) => {
    const nodes = data.nodes.map((n) => ({ ...n, label: unescape(n.label), title: tooltip(n.title) }));
    const edges = data.edges.map((e) => ({ ...e, label: e.label ? unescape(e.label) : undefined,
                                           title: e.title ? tooltip(e.title) : undefined }));
    if (root.__network && root.__layout === data.layout) {
      // Same steps and edges (a run in progress): recolour in place, keep the user's view.
      root.__nodes.update(nodes);
      root.__edges.update(edges);
      keepSelection(root, data);
      followRunning(root, data);
      markDrawn(root, data);
      root.__network.redraw();
      return;
    }
    root.removeAttribute("data-ready");
    if (root.__network) root.__network.destroy();
    canvas.replaceChildren();
    root.__nodes = new vis.DataSet(nodes);
    root.__edges = new vis.DataSet(edges);
    root.__layout = data.layout;
    const options = { ...data.options, manipulation: { enabled: false, initiallyActive: false,
      addEdge: (edge, done) => {
        done(null);  // Python adds it (or says why not) and draws the plan again
        connectMode(root, false);
        if (edge.from !== edge.to) send(root, "connect", { source: edge.from, target: edge.to });
      } } };
    root.__network = new vis.Network(canvas, { nodes: root.__nodes, edges: root.__edges }, options);
    wireEditing(root, vis);
    connectMode(root, false);
    keepSelection(root, data);
    root.__legible = data.minLabelPx / data.labelPx;
    root.__userMoved = false;
    root.__network.on("zoom", () => { root.__userMoved = true; keepLegible(root); showScale(root); });
    root.__network.on("dragEnd", (event) => { if (!event.nodes.length) root.__userMoved = true; });
    firstView(root, canvas, data);
    followRunning(root, data);
    markDrawn(root, data);
    root.__network.redraw();
  }, () => {
    canvas.replaceChildren();
    const message = document.createElement("div");
    message.className = "ps-graph-message";
    message.textContent = "The graph library could not be loaded. Start the studio with " +
      "`plan-studio` (it serves the library itself), or set server.enableStaticServing = true.";
    canvas.appendChild(message);
  });
}
"""

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
    if on_action is None:
        _plan_graph(key=key, data=data, height=data["height"])
    else:
        _plan_graph(key=key, data=data, height=data["height"], on_action_change=on_action)


def draw_graph_data(data: dict[str, Any], *, key: str) -> None:
    """Draw graph data made elsewhere (a comparison of two versions), read-only."""
    _plan_graph(key=key, data={**data, "visUrl": vis_network_url()}, height=data["height"])
