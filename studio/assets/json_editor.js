/* Plan JSON code editor: line numbers, highlighting, bracket matching and marked problem lines
   drawn over the page's own "Plan JSON" text area, which stays the one place the text lives
   (Streamlit's widget: its label, Ctrl+Enter and blur to apply, its value in session state).
   Only the lines in view are drawn, so a 300-step plan types as fast as a short one. */
const LINE_PX = 20;
const PAD_PX = 8;
const MARGIN_LINES = 10;
const STYLE_ID = "ps-code-style";

function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// The page-wide rules for the decorated text area (it lives outside this component's shadow root).
function ensureStyle(target) {
  if (document.getElementById(STYLE_ID)) return;
  const sel = `.${target} textarea[data-ps-code]`;
  const font = "font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace !important;" +
    "font-size: 13px !important; line-height: 20px !important; letter-spacing: 0 !important;" +
    "font-variant-ligatures: none !important; tab-size: 2;";
  const style = document.createElement("style");
  style.id = STYLE_ID;
  style.textContent = `
${sel} { ${font} white-space: pre !important; overflow-wrap: normal !important; overflow: auto !important;
  padding: ${PAD_PX}px ${PAD_PX}px ${PAD_PX}px calc(var(--ps-gutter, 40px) + 10px) !important;
  color: transparent !important; -webkit-text-fill-color: transparent !important; background: transparent !important;
  caret-color: #111827 !important; position: relative; z-index: 1; }
${sel}::selection { background: rgba(37, 99, 235, 0.28); }
.ps-code-layer { position: absolute; overflow: hidden; pointer-events: none; z-index: 0; ${font} }
.ps-code-layer .ps-lines, .ps-code-layer .ps-gutter, .ps-code-layer .ps-bands { position: absolute; top: 0; left: 0; will-change: transform; }
.ps-code-layer .ps-lines { margin: 0; padding: 0; white-space: pre; color: #1f2937; }
.ps-code-layer .ps-line, .ps-code-layer .ps-num, .ps-code-layer .ps-band { height: ${LINE_PX}px; }
.ps-code-layer .ps-gutter { width: var(--ps-gutter, 40px); text-align: right; color: #9ca3af; background: #f3f4f6;
  border-right: 1px solid #e5e7eb; box-sizing: border-box; padding-right: 6px; }
.ps-code-layer .ps-bands { right: 0; width: 100%; }
.ps-code-layer .ps-band-caret { background: rgba(17, 24, 39, 0.04); }
.ps-code-layer .ps-band-error { background: rgba(220, 38, 38, 0.10); }
.ps-code-layer .ps-band-warning { background: rgba(245, 158, 11, 0.12); }
.ps-code-layer .ps-num-error { color: #fff; background: #dc2626; font-weight: 600; }
.ps-code-layer .ps-num-warning { color: #111827; background: #fbbf24; font-weight: 600; }
.ps-code-layer .ps-num-caret { color: #111827; }
.ps-code-layer .ps-key { color: #1d4ed8; }
.ps-code-layer .ps-str { color: #047857; }
.ps-code-layer .ps-ref { color: #7c3aed; font-weight: 600; }
.ps-code-layer .ps-num-lit { color: #b45309; }
.ps-code-layer .ps-lit { color: #be185d; }
.ps-code-layer .ps-punct { color: #6b7280; }
.ps-code-layer .ps-match { background: rgba(37, 99, 235, 0.22); outline: 1px solid rgba(37, 99, 235, 0.6); border-radius: 2px; }
.ps-code-layer .ps-nomatch { background: rgba(220, 38, 38, 0.25); border-radius: 2px; }
.ps-code-layer .ps-at { text-decoration: underline wavy #dc2626; text-decoration-skip-ink: none; }
`;
  document.head.appendChild(style);
}

// One line of JSON as [start, end, class] tokens (a JSON string never spans lines).
const TOKEN = /("(?:[^"\\]|\\.)*"?)(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b|([{}\[\],:])/g;
function tokens(line) {
  const out = [];
  TOKEN.lastIndex = 0;
  let m;
  while ((m = TOKEN.exec(line)) !== null) {
    if (m[0] === "") { TOKEN.lastIndex++; continue; }
    const start = m.index;
    if (m[1] !== undefined) {
      const end = start + m[1].length;
      if (m[2]) out.push([start, end, "ps-key"]);
      else {
        // References inside a string stand out: they are what the graph's edges come from.
        const ref = /\$\{[^}]*\}?/g;
        let at = start, r;
        while ((r = ref.exec(m[1])) !== null) {
          if (r.index + start > at) out.push([at, r.index + start, "ps-str"]);
          out.push([r.index + start, r.index + start + r[0].length, "ps-ref"]);
          at = r.index + start + r[0].length;
        }
        if (at < end) out.push([at, end, "ps-str"]);
      }
      if (m[2]) out.push([end, end + m[2].length, "ps-punct"]);
    } else if (m[3] !== undefined) out.push([start, start + m[0].length, "ps-num-lit"]);
    else if (m[4] !== undefined) out.push([start, start + m[0].length, "ps-lit"]);
    else out.push([start, start + 1, "ps-punct"]);
  }
  return out;
}

// A line as HTML: its tokens, with the characters in ``marks`` ({column: class}) wrapped.
function lineHtml(line, marks) {
  const classes = new Array(line.length).fill("");
  for (const [start, end, cls] of tokens(line)) for (let i = start; i < end; i++) classes[i] = cls;
  let html = "", run = "", runClass = null;
  const flush = () => { if (run) html += runClass ? `<span class="${runClass}">${escapeHtml(run)}</span>` : escapeHtml(run); run = ""; };
  for (let i = 0; i < line.length; i++) {
    const cls = [classes[i], marks[i] || ""].filter(Boolean).join(" ");
    if (cls !== runClass) { flush(); runClass = cls; }
    run += line[i];
  }
  flush();
  const extra = marks[line.length];  // a mark just past the end (an error at the line's end)
  if (extra) html += `<span class="${extra}"> </span>`;
  return html || " ";
}

// Matching brackets of the whole text, outside strings: {offset: offset of its partner, or -1}.
function bracketPairs(text) {
  const pairs = new Map();
  const stack = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"' || c === "\n") inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") stack.push(i);
    else if (c === "}" || c === "]") {
      const open = stack.length ? stack[stack.length - 1] : -1;
      if (open >= 0 && (text[open] === "{") === (c === "}")) {
        stack.pop();
        pairs.set(open, i);
        pairs.set(i, open);
      } else pairs.set(i, -1);
    }
  }
  for (const open of stack) pairs.set(open, -1);
  return pairs;
}

function lineStarts(text) {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts, offset) {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid; else hi = mid - 1;
  }
  return lo;
}

class CodeView {
  constructor(textarea, target) {
    this.textarea = textarea;
    this.target = target;
    this.marks = [];
    this.text = null;
    textarea.setAttribute("data-ps-code", "on");
    textarea.setAttribute("spellcheck", "false");
    textarea.setAttribute("wrap", "off");
    const holder = textarea.parentElement;
    for (const old of holder.querySelectorAll(":scope > .ps-code-layer")) old.remove();
    if (getComputedStyle(holder).position === "static") holder.style.position = "relative";
    this.layer = document.createElement("div");
    this.layer.className = "ps-code-layer";
    this.layer.setAttribute("aria-hidden", "true");
    this.bands = document.createElement("div");
    this.bands.className = "ps-bands";
    this.gutter = document.createElement("div");
    this.gutter.className = "ps-gutter";
    this.lines = document.createElement("pre");
    this.lines.className = "ps-lines";
    this.layer.append(this.bands, this.lines, this.gutter);
    holder.insertBefore(this.layer, textarea);
    const draw = () => this.schedule();
    // Edited since the field took the focus: the Apply button shows (leaving the field applies too).
    textarea.addEventListener("focus", () => { this.atFocus = textarea.value; this.edited(false); });
    textarea.addEventListener("input", () => this.edited(textarea.value !== this.atFocus));
    textarea.addEventListener("blur", () => this.edited(false));
    for (const name of ["input", "scroll", "select", "click", "keyup", "focus", "blur"]) textarea.addEventListener(name, draw);
    document.addEventListener("selectionchange", () => { if (document.activeElement === textarea || this.focused()) draw(); });
    textarea.addEventListener("keydown", (event) => this.onKey(event));
    new ResizeObserver(draw).observe(textarea);
  }

  edited(yes) {
    if (this.onEdited) this.onEdited(yes);
  }

  focused() {
    let active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    return active === this.textarea;
  }

  // Tab indents (Escape first lets Tab leave the field, as in other code editors); Enter keeps
  // the line's indentation, one level more after an opening bracket. Ctrl+Enter stays Streamlit's.
  onKey(event) {
    const ta = this.textarea;
    if (event.key === "Escape") { this.escaped = true; return; }
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {  // Streamlit applies the text
      this.atFocus = ta.value;
      this.edited(false);
    }
    const escaped = this.escaped;
    this.escaped = false;
    if (event.ctrlKey || event.metaKey || event.altKey || ta.readOnly || ta.disabled) return;
    if (event.key === "Tab" && !event.shiftKey && !escaped) {
      event.preventDefault();
      document.execCommand("insertText", false, "  ");
    } else if (event.key === "Enter" && !event.shiftKey) {
      const before = ta.value.slice(0, ta.selectionStart);
      const line = before.slice(before.lastIndexOf("\n") + 1);
      const indent = line.match(/^\s*/)[0] + (/[{\[]\s*$/.test(line) ? "  " : "");
      event.preventDefault();
      document.execCommand("insertText", false, "\n" + indent);
    }
  }

  setMarks(marks) {
    this.marks = Array.isArray(marks) ? marks : [];
    this.schedule();
  }

  schedule() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = 0; this.draw(); });
  }

  goTo(line, column) {
    const ta = this.textarea;
    const starts = lineStarts(ta.value);
    const offset = Math.min(ta.value.length, (starts[Math.max(0, line - 1)] ?? ta.value.length) + Math.max(0, column - 1));
    ta.focus();
    ta.setSelectionRange(offset, offset);
    ta.scrollTop = Math.max(0, (line - 1) * LINE_PX - ta.clientHeight / 2);
    this.schedule();
  }

  draw() {
    const ta = this.textarea;
    if (!ta.isConnected) return;
    const text = ta.value;
    if (text !== this.text) {
      this.text = text;
      this.starts = lineStarts(text);
      this.pairs = null;  // worked out when the caret is on a bracket
    }
    const count = this.starts.length;
    const gutterPx = Math.max(3, String(count).length + 1) * 8 + 14;
    ta.style.setProperty("--ps-gutter", gutterPx + "px");
    const layer = this.layer;
    layer.style.setProperty("--ps-gutter", gutterPx + "px");
    layer.style.left = ta.offsetLeft + "px";
    layer.style.top = ta.offsetTop + "px";
    layer.style.width = ta.clientWidth + "px";
    layer.style.height = ta.clientHeight + "px";

    const first = Math.max(0, Math.floor((ta.scrollTop - PAD_PX) / LINE_PX) - MARGIN_LINES);
    const last = Math.min(count - 1, Math.ceil((ta.scrollTop + ta.clientHeight) / LINE_PX) + MARGIN_LINES);
    const focused = this.focused();
    const caret = ta.selectionStart === ta.selectionEnd ? ta.selectionStart : -1;
    const caretLine = caret >= 0 && focused ? lineOf(this.starts, caret) : -1;

    // What each drawn line carries: brackets matched at the caret, problem columns.
    const charMarks = new Map();
    const put = (offset, cls) => {
      const line = lineOf(this.starts, offset);
      if (line < first || line > last) return;
      const marks = charMarks.get(line) || {};
      const column = offset - this.starts[line];
      marks[column] = marks[column] ? marks[column] + " " + cls : cls;
      charMarks.set(line, marks);
    };
    if (caret >= 0 && focused) {
      for (const at of [caret - 1, caret]) {
        if (at < 0 || !"{}[]".includes(text[at] || "")) continue;
        if (!this.pairs) this.pairs = bracketPairs(text);
        if (!this.pairs.has(at)) continue;  // inside a string
        const partner = this.pairs.get(at);
        put(at, partner >= 0 ? "ps-match" : "ps-nomatch");
        if (partner >= 0) put(partner, "ps-match");
        break;
      }
    }
    const lineMarks = new Map();
    for (const mark of this.marks) {
      const line = mark.line - 1;
      if (line < 0 || line >= count) continue;
      if (!lineMarks.has(line) || mark.severity === "error") lineMarks.set(line, mark);
      if (mark.severity === "error") put(Math.min(this.starts[line] + Math.max(0, mark.column - 1), text.length), "ps-at");
    }

    let lines = "", nums = "", bands = "";
    for (let n = first; n <= last; n++) {
      const end = n + 1 < count ? this.starts[n + 1] - 1 : text.length;
      lines += `<div class="ps-line">${lineHtml(text.slice(this.starts[n], end), charMarks.get(n) || {})}</div>`;
      const mark = lineMarks.get(n);
      const kind = mark ? (mark.severity === "error" ? "error" : "warning") : (n === caretLine ? "caret" : "");
      nums += `<div class="ps-num${kind ? " ps-num-" + kind : ""}" data-line="${n + 1}">${n + 1}</div>`;
      bands += `<div class="ps-band${kind ? " ps-band-" + kind : ""}"></div>`;
    }
    const y = PAD_PX + first * LINE_PX - ta.scrollTop;
    this.lines.innerHTML = lines;
    this.lines.style.transform = `translate(${gutterPx + 10 - ta.scrollLeft}px, ${y}px)`;
    this.gutter.innerHTML = nums;
    this.gutter.style.transform = `translateY(${y}px)`;
    this.bands.innerHTML = bands;
    this.bands.style.transform = `translateY(${y}px)`;
    ta.setAttribute("data-ps-lines", String(count));
    ta.setAttribute("data-ps-marked", [...lineMarks.keys()].map((n) => n + 1).sort((a, b) => a - b).join(" "));
    this.onDrawn && this.onDrawn(caret >= 0 ? caretLine : -1, caret - (caretLine >= 0 ? this.starts[caretLine] : 0));
  }
}

function findTextarea(target) {
  return document.querySelector(`.${target} textarea`);
}

export default function (component) {
  const { data, parentElement } = component;
  const bar = parentElement.querySelector(".ps-code-bar");
  const where = bar.querySelector(".ps-code-where");
  const apply = bar.querySelector(".ps-code-apply");
  const jumps = bar.querySelector(".ps-code-jumps");
  ensureStyle(data.target);

  const attach = (tries) => {
    const textarea = findTextarea(data.target);
    if (!textarea) {
      if (tries > 0) requestAnimationFrame(() => attach(tries - 1));
      return;
    }
    let view = textarea.__psCode;
    if (!view || view.layer.parentElement !== textarea.parentElement) {
      view = textarea.__psCode = new CodeView(textarea, data.target);
    }
    view.onDrawn = (line, column) => {
      where.textContent = line >= 0 ? `Ln ${line + 1}, Col ${column + 1} · ${view.starts.length} lines`
                                    : `${view.starts.length} lines`;
    };
    view.onEdited = (yes) => { apply.hidden = !yes; };
    // The field keeps the focus until the click, then leaving it applies the text (Streamlit's own).
    apply.onmousedown = (event) => event.preventDefault();
    apply.onclick = () => textarea.blur();
    view.setMarks(data.marks);
    // The text may have been set from the server in this same update: draw again once it is in.
    requestAnimationFrame(() => view.schedule());
    // Drawn again only when the marks change: a rerun must not swap the button under a click.
    const marks = data.marks || [];
    const drawn = JSON.stringify(marks);
    if (jumps.__drawn === drawn) return;
    jumps.__drawn = drawn;
    jumps.replaceChildren();
    const current = () => { const now = findTextarea(data.target); return (now && now.__psCode) || view; };
    for (const mark of marks.slice(0, 6)) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "ps-code-jump ps-code-jump-" + (mark.severity === "error" ? "error" : "warning");
      button.textContent = `Line ${mark.line}`;
      button.title = mark.message;
      button.onclick = () => current().goTo(mark.line, mark.column);
      jumps.appendChild(button);
    }
    if (marks.length > 6) {
      const more = document.createElement("span");
      more.textContent = `+${marks.length - 6} more`;
      jumps.appendChild(more);
    }
  };
  attach(60);
  watchForNewTextarea(data.target, () => attach(0));
}

// Streamlit may put a new text area in the old one's place after this component was drawn (a
// rerun that remounts the widget): with nothing to draw again here, the editor would stay off
// until the next change of its marks. Any text area of the target without its editor gets it,
// looked for at most once an animation frame however much the page changes.
function watchForNewTextarea(target, attachNow) {
  window.__psCodeWatch = window.__psCodeWatch || {};
  const watch = window.__psCodeWatch[target] || (window.__psCodeWatch[target] = { attach: null, queued: false });
  watch.attach = attachNow;  // the latest component's, with its marks
  if (watch.observer) return;
  watch.observer = new MutationObserver(() => {
    if (watch.queued) return;
    watch.queued = true;
    requestAnimationFrame(() => {
      watch.queued = false;
      const textarea = findTextarea(target);
      const view = textarea && textarea.__psCode;
      if (textarea && (!view || view.layer.parentElement !== textarea.parentElement)) watch.attach();
    });
  });
  watch.observer.observe(document.body, { childList: true, subtree: true });
}
