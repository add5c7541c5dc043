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

// The whole plan, whatever its size: a large one is an overview to zoom into (the minimap
// and the jump-to-step list take the user to a step at a legible size).
function firstView(root) {
  const network = root.__network;
  network.fit({ animation: false });
  // Zooming out stops a little past the whole plan; zooming in to legible is always possible.
  root.__minScale = Math.min(network.getScale(), root.__legible) * 0.8;
  showScale(root);
}

// Neither the buttons nor the mouse wheel zoom out past the whole plan.
function keepMinimum(root) {
  const network = root.__network;
  if (network.getScale() < root.__minScale) network.moveTo({ scale: root.__minScale, animation: false });
}

// A step selected from outside the graph (jump-to-step, a new step) is brought into view at a
// legible size; the view is then the user's, so a run's progress no longer moves it.
function bringIntoView(root, id) {
  const network = root.__network;
  const position = network.getPositions([id])[id];
  if (!position) return;
  const scale = Math.max(network.getScale(), root.__legible);
  const canvas = root.querySelector(".ps-graph-canvas");
  const view = network.getViewPosition();
  const inside = Math.abs(position.x - view.x) < canvas.clientWidth / (2 * scale) * 0.8
    && Math.abs(position.y - view.y) < canvas.clientHeight / (2 * scale) * 0.8;
  if (inside && scale === network.getScale()) return;
  root.__userMoved = true;
  network.moveTo({ position, scale, animation: false });
  showScale(root);
}

// The overview of a large plan: every step a dot in its status colour, the view a rectangle;
// a click there centres the view on that point (at a legible size).
function drawMinimap(root) {
  const mini = root.querySelector(".ps-graph-minimap");
  const network = root.__network;
  if (!mini || !network) return;
  const positions = network.getPositions();
  const ids = Object.keys(positions);
  if (!ids.length) return;
  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
  for (const id of ids) {
    const p = positions[id];
    left = Math.min(left, p.x); right = Math.max(right, p.x);
    top = Math.min(top, p.y); bottom = Math.max(bottom, p.y);
  }
  const pad = 8, width = mini.width, height = mini.height;
  const spanX = Math.max(right - left, 1), spanY = Math.max(bottom - top, 1);
  const factor = Math.min((width - 2 * pad) / spanX, (height - 2 * pad) / spanY);
  const offsetX = (width - spanX * factor) / 2, offsetY = (height - spanY * factor) / 2;
  mini.__map = { left, top, right, bottom, factor, offsetX, offsetY };
  const context = mini.getContext("2d");
  context.clearRect(0, 0, width, height);
  for (const id of ids) {
    const node = root.__nodes.get(id);
    context.fillStyle = (node && node.color && node.color.background) || "#9ca3af";
    const x = offsetX + (positions[id].x - left) * factor, y = offsetY + (positions[id].y - top) * factor;
    context.fillRect(x - 2, y - 2, 4, 4);
  }
  const canvas = root.querySelector(".ps-graph-canvas");
  const scale = network.getScale(), view = network.getViewPosition();
  const viewWidth = canvas.clientWidth / scale, viewHeight = canvas.clientHeight / scale;
  context.strokeStyle = "#1d4ed8";
  context.lineWidth = 1.5;
  // Never smaller than a few pixels: in a long plan the view is a sliver of the whole.
  const rectWidth = Math.max(viewWidth * factor, 8), rectHeight = Math.max(viewHeight * factor, 8);
  context.strokeRect(offsetX + (view.x - left) * factor - rectWidth / 2, offsetY + (view.y - top) * factor - rectHeight / 2,
                     rectWidth, rectHeight);
}

// The minimap exists only for a plan that needs an overview: a small plan's graph has one canvas.
function overviewMap(root, wanted) {
  let mini = root.querySelector(".ps-graph-minimap");
  if (wanted && !mini) {
    mini = document.createElement("canvas");
    mini.className = "ps-graph-minimap";
    mini.setAttribute("data-testid", "graph-minimap");
    mini.title = "The whole plan: click to go there";
    mini.width = 200;
    mini.height = 110;
    root.appendChild(mini);
  } else if (!wanted && mini) {
    mini.remove();
    return;
  }
  if (mini) mini.onclick = (event) => minimapClick(root, event);
}

function minimapClick(root, event) {
  const mini = root.querySelector(".ps-graph-minimap");
  const map = mini.__map;
  const network = root.__network;
  if (!map || !network) return;
  const box = mini.getBoundingClientRect();
  const x = (event.clientX - box.left) * (mini.width / box.width), y = (event.clientY - box.top) * (mini.height / box.height);
  const scale = Math.max(network.getScale(), root.__legible);
  const canvas = root.querySelector(".ps-graph-canvas");
  // Kept within the plan: a click at an end of the map shows that end at the view's edge.
  const within = (at, low, high, half) => (high - low > 2 * half ? Math.min(Math.max(at, low + half), high - half) : (low + high) / 2);
  const margin = 160;  // about half a box and some air
  const position = {
    x: within(map.left + (x - map.offsetX) / map.factor, map.left - margin, map.right + margin, canvas.clientWidth / (2 * scale)),
    y: within(map.top + (y - map.offsetY) / map.factor, map.top - margin, map.bottom + margin, canvas.clientHeight / (2 * scale)) };
  root.__userMoved = true;
  network.moveTo({ position, scale, animation: false });
  showScale(root);
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
  root.__userMoved = how !== "fit";  // Fit hands the view back: a run's progress may move it again
  if (how === "fit") network.fit({ animation: false });
  else network.moveTo({ scale: network.getScale() * (how === "in" ? ZOOM_STEP : 1 / ZOOM_STEP), animation: false });
  keepMinimum(root);
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
    if (!root.isConnected) return;  // a root the page replaced: its successor says when it is drawn
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
// Every handler finds its root through the network: a network the page moved to a new root
// (``adopt``) acts for that one.
function wireEditing(network) {
  network.on("click", (params) => {
    const root = network.__root;
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

// The network drawn last under each key. Streamlit mounts a new element when the graph moves
// on the page (a run's live view ends and the page draws the graph again); the new element
// takes the network over, canvas and view and all, instead of drawing from blank.
function networks() {
  if (!window.__planStudioNetworks) window.__planStudioNetworks = new Map();
  return window.__planStudioNetworks;
}

const CARRIED = ["__network", "__nodes", "__edges", "__layout", "__legible", "__minScale", "__userMoved",
                 "__selection", "__lastSelected"];

function adopt(root, data) {
  const old = data.key ? networks().get(data.key) : null;
  if (!old || old === root || !old.__network || old.__layout !== data.layout) return;
  const canvas = old.querySelector(".ps-graph-canvas");
  root.querySelector(".ps-graph-canvas").replaceWith(canvas);
  for (const field of CARRIED) { root[field] = old[field]; old[field] = undefined; }
  root.__network.__root = root;
  networks().set(data.key, root);
  window.__planStudioAdopted = (window.__planStudioAdopted || 0) + 1;  // how often: for tests
  root.__network.setSize("100%", "100%");
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
  const draw = (vis) => {
    const nodes = data.nodes.map((n) => ({ ...n, label: unescape(n.label), title: tooltip(n.title) }));
    const edges = data.edges.map((e) => ({ ...e, label: e.label ? unescape(e.label) : undefined,
                                           title: e.title ? tooltip(e.title) : undefined }));
    overviewMap(root, data.overview);
    if (!root.__network) adopt(root, data);
    if (root.__network && root.__layout === data.layout) {
      // Same steps and edges (a run in progress, a param edited): the boxes change in place,
      // the user's view is kept, and the canvas never goes blank.
      root.__nodes.update(nodes);
      root.__edges.update(edges);
      keepSelection(root, data);
      if (data.selected && data.selected !== root.__lastSelected) bringIntoView(root, data.selected);
      root.__lastSelected = data.selected;
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
    let network = null;
    const options = { ...data.options, manipulation: { enabled: false, initiallyActive: false,
      addEdge: (edge, done) => {
        done(null);  // Python adds it (or says why not) and draws the plan again
        connectMode(network.__root, false);
        if (edge.from !== edge.to) send(network.__root, "connect", { source: edge.from, target: edge.to });
      } } };
    network = new vis.Network(canvas, { nodes: root.__nodes, edges: root.__edges }, options);
    network.__root = root;
    root.__network = network;
    if (data.key) networks().set(data.key, root);
    wireEditing(network);
    connectMode(root, false);
    keepSelection(root, data);
    root.__lastSelected = data.selected;
    root.__legible = data.minLabelPx / data.labelPx;
    root.__userMoved = false;
    network.on("zoom", () => { const at = network.__root; at.__userMoved = true; keepMinimum(at); showScale(at); });
    network.on("dragEnd", (event) => { if (!event.nodes.length) network.__root.__userMoved = true; });
    network.on("afterDrawing", () => drawMinimap(network.__root));
    firstView(root);
    followRunning(root, data);
    markDrawn(root, data);
    network.redraw();
  };
  // Once loaded, drawn at once: a new element taking a network over never paints a frame empty.
  if (window.vis && window.vis.Network) {
    draw(window.vis);
    return;
  }
  loadVis(data.visUrl).then(draw, () => {
    canvas.replaceChildren();
    const message = document.createElement("div");
    message.className = "ps-graph-message";
    message.textContent = "The graph library could not be loaded. Start the studio with " +
      "`plan-studio` (it serves the library itself), or set server.enableStaticServing = true.";
    canvas.appendChild(message);
  });
}
