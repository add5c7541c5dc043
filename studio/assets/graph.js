/* plan graph */
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
