// Step-following elements (ui/stepped.py): served with the chart's code (ui/charts.served_files
// puts this file after plotly_chart.js in one module), so a stepped chart and a stepped block of
// text share one follower of the page's step slider.
//
// A stepped element carries a window of steps (data's "first" and one entry per step) and shows
// the one the page's step slider shows, from the moment the slider moves: the slider is
// Streamlit's own st.slider (key "follow"), which changes its thumb at once and only then asks
// the server to run. Without this, the new step reached the page only after that run and
// Streamlit's three redraws of every element (bench/results/browser_bound_s21.txt). The run
// still comes (it keeps the step in the session, the link and the other pages) and finds the
// element already showing what it would draw. A step outside the window: the element is marked
// stale and the server's run (a whole page, ui/stepped.outside) brings the new window.
const STEPPED_STYLE = `.rnnviz-stepped{overflow-wrap:break-word}
.rnnviz-stepped p,.rnnviz-stepped ul,.rnnviz-stepped ol{margin:0 0 1rem}
.rnnviz-stepped>:last-child,.rnnviz-stepped>div>:last-child{margin-bottom:0}
.rnnviz-stepped-stale{opacity:.33;transition:opacity .2s}
.rnnviz-stepped-info{background:rgba(28,131,225,.1);color:#004280;border-radius:.5rem;
padding:1rem;display:flex;gap:.75rem;align-items:flex-start}
.rnnviz-stepped-info .rnnviz-stepped-icon{font-family:"Material Symbols Rounded";font-size:1.25rem;
line-height:1.5rem;user-select:none}
.rnnviz-stepped-caption{font-size:.875rem;color:rgba(49,51,63,.6);margin:-.5rem 0 1rem}
.rnnviz-stepped-table{max-height:var(--rnnviz-table-height,none);overflow:auto;
border:1px solid rgba(49,51,63,.1);border-radius:.5rem;font-size:.875rem;margin-bottom:1rem}
.rnnviz-stepped-table table{border-collapse:separate;border-spacing:0;width:100%}
.rnnviz-stepped-table th,.rnnviz-stepped-table td{padding:.25rem .5rem;white-space:nowrap;
border-bottom:1px solid rgba(49,51,63,.1);border-right:1px solid rgba(49,51,63,.1);height:1.6rem}
.rnnviz-stepped-table thead th{position:sticky;top:0;background:#f8f9fb;color:rgba(49,51,63,.6);
font-weight:400;text-align:right;z-index:1}
.rnnviz-stepped-table tbody th{background:#f8f9fb;color:rgba(49,51,63,.6);font-weight:400;
text-align:left;position:sticky;left:0}
.rnnviz-stepped-table td{text-align:right;font-variant-numeric:tabular-nums}
.rnnviz-stepped-table td.s,.rnnviz-stepped-table thead th.s{text-align:left}`;
function steppedStyle() {
  if (document.getElementById("rnnviz-stepped-style")) return;
  const style = document.head.appendChild(document.createElement("style"));
  style.id = "rnnviz-stepped-style";
  style.textContent = STEPPED_STYLE;
}
// ---- the page's step slider ------------------------------------------------------------------
// Streamlit's slider is a react-aria range <input> inside the element of class st-key-<key>; it
// sets the input's aria-valuetext on every drawing of a new value (a key press, a drag, or the
// server's value after ◀ ▶, Play or a link), which one MutationObserver per tab watches.
const followers = new Map();  // slider key -> Set of callbacks (step, 1-based)
const shownStep = new Map();  // slider key -> the step its followers were last told
let sliderWatch = null;
function sliderInput(follow) {
  return document.querySelector(`.st-key-${CSS.escape(follow)} input[type="range"]`);
}
function sliderStep(follow) {
  const input = sliderInput(follow), step = input ? Number(input.value) : NaN;
  return Number.isInteger(step) ? step : null;
}
function keyOf(input) {
  const box = input.closest('[class*="st-key-"]');
  const name = box && [...box.classList].find(c => c.startsWith("st-key-"));
  return name ? name.slice("st-key-".length) : null;
}
// ---- the move's one run (ui/widgets.step_form) ----------------------------------------------
// Where the slider sits in a step form, its move runs nothing: the parts show the step at once,
// and the form's hidden sync button is pressed SYNC_MS after the learner's last move or release
// (one run keeps the step in the session), SOON_MS after it if a part has no slide for that step
// (a held key past the window: one run when it stops), and before the learner's next press or key
// elsewhere (a page change keeps the new step). A value drawn by the server (◀ ▶, Play, a link) is
// no move of the learner's: no sync. A part drawn while a move was still unsent sends it.
const SYNC_MS = 400, SOON_MS = 120, SENT_MS = 300;
const pending = new Map();  // slider key -> the sync's timer
let touched = { key: null, at: -Infinity }, held = null;  // the learner's last key or pointer on a slider
let sending = 0;  // syncs pressed in the last SENT_MS (their run's request is on its way)
function syncButton(follow) {
  return document.querySelector(`.st-key-step_sync_${CSS.escape(follow)} button`);
}
function marked() {  // <html data-rnnviz-sync> while a sync waits or was just sent (tools/server.wait_ready)
  document.documentElement.toggleAttribute("data-rnnviz-sync", pending.size > 0 || sending > 0);
}
function syncNow(follow) {
  if (!pending.has(follow)) return;
  clearTimeout(pending.get(follow));
  pending.delete(follow);
  if (held === follow) { syncLater(follow); return; }  // still dragging: from the release
  sending += 1;
  setTimeout(() => { sending -= 1; marked(); }, SENT_MS);
  marked();
  const button = syncButton(follow);
  if (!button) return;
  sentStep.set(follow, [sliderStep(follow), performance.now()]);  // a page link waits for its run
  button.click();
}
function syncLater(follow, ms = SYNC_MS) {
  clearTimeout(pending.get(follow));
  pending.set(follow, setTimeout(() => syncNow(follow), ms));
  marked();
}
function syncSoon(follow) {  // a part has no slide for the step: the server's run brings them
  if (pending.has(follow)) syncLater(follow, SOON_MS);
}
function learnerMoved(follow) {
  return (held === follow || (touched.key === follow && performance.now() - touched.at < 1000))
    && syncButton(follow) !== null;
}
function sliderKeyOf(target) {
  const box = target instanceof Element ? target.closest('[class*="st-key-"]') : null;
  const key = box && keyOf(box.querySelector('input[type="range"]') || box);
  return key && followers.has(key) ? key : null;
}
// ---- a page change right after a move ------------------------------------------------------------
// Streamlit sends a page change with the new page's widget states only. If it reaches the server
// before the sync's run has begun, the two requests merge: the sync's callback then reads the
// slider's value from before the move, and the next page opens at the old step. So a click on a
// page link waits until the form's hidden mark (ui/widgets.step_form) says the server's run has
// the step the sync sent, at most START_MS, then goes on.
const START_MS = 2000, LOOK_MS = 30;
const PAGE_LINK = '[data-testid="stSidebarNavLink"], [data-testid="stPageLink-NavLink"], [data-testid="stTopNavLink"]';
const sentStep = new Map();  // slider key -> [the step its last sync sent, performance.now() of the press]
let heldLink = null;
function keptStep(follow) {
  const mark = document.querySelector(`[data-rnnviz-kept="${CSS.escape(follow)}"]`);
  return mark ? Number(mark.dataset.step) : null;
}
function untaken() {
  const now = performance.now();
  return [...sentStep].some(([key, [step, at]]) => now - at < START_MS && keptStep(key) !== step);
}
function holdPageLink(event) {
  const link = event.target instanceof Element ? event.target.closest(PAGE_LINK) : null;
  if (!link) return;
  for (const key of [...pending.keys()]) syncNow(key);  // a click with no press before it (a key)
  if (!untaken()) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  const looking = heldLink !== null;
  heldLink = link;  // the learner's last click wins
  if (looking) return;
  const look = setInterval(() => {
    if (untaken()) return;  // (START_MS after the press it counts as taken)
    clearInterval(look);
    const go = heldLink;
    heldLink = null;
    if (go.isConnected) go.click();
  }, LOOK_MS);
}
let watchingInput = false;
function watchInput() {
  if (watchingInput) return;
  watchingInput = true;
  const touch = event => {  // the learner's key or press: on a slider, or elsewhere (sent first)
    const key = sliderKeyOf(event.target);
    touched = key ? { key, at: performance.now() } : { key: null, at: -Infinity };
    for (const other of [...pending.keys()]) if (other !== key) syncNow(other);
    if (key && pending.has(key)) syncLater(key);  // SYNC_MS from this key, also if its step is drawn late
    return key;
  };
  document.addEventListener("keydown", touch, true);
  document.addEventListener("pointerdown", event => { held = touch(event); }, true);
  const release = () => {
    if (held && pending.has(held)) syncLater(held);  // SYNC_MS from the release
    held = null;
  };
  document.addEventListener("pointerup", release, true);
  document.addEventListener("pointercancel", release, true);
  document.addEventListener("click", holdPageLink, true);
}
function unsent(follow, at) {  // a part drawn now: a move the learner made before it was there
  const now = sliderStep(follow);
  if (now !== null && now !== at && !pending.has(follow) && syncButton(follow)) syncLater(follow);
}
function onStep(follow, callback) {
  watchInput();
  if (!followers.has(follow)) followers.set(follow, new Set());
  followers.get(follow).add(callback);
  sliderWatch ||= new MutationObserver(records => {
    const moved = new Map();  // a redraw of the same value is no move (Streamlit sets the text on every drawing)
    for (const r of records) {
      if (r.target.tagName !== "INPUT" || r.target.type !== "range") continue;
      const key = keyOf(r.target), step = Number(r.target.value);
      if (key && followers.has(key) && Number.isInteger(step) && shownStep.get(key) !== step) moved.set(key, step);
    }
    for (const [key, step] of moved) shownStep.set(key, step);
    for (const key of moved.keys()) if (learnerMoved(key)) syncLater(key);
    for (const [key, step] of moved) for (const cb of [...(followers.get(key) || [])]) {
      try { cb(step); } catch (err) { console.error(err); }  // the other elements still follow
    }
  });
  if (followers.size === 1 && followers.get(follow).size === 1)
    sliderWatch.observe(document.body, { subtree: true, attributes: true, attributeFilter: ["aria-valuetext"] });
  return () => {
    const set = followers.get(follow);
    if (set) { set.delete(callback); if (!set.size) followers.delete(follow); }
    if (!followers.size && sliderWatch) { sliderWatch.disconnect(); sliderWatch = null; }
  };
}
// ---- math: KaTeX as Streamlit draws it (data's "katex": the address of Streamlit's rehype-katex
// module, whose KaTeX matches the KaTeX styles Streamlit's page has; its own katex module is
// another version, whose classes those styles miss) --------------------------------------------
let katexModule = null;
function katex(address) {
  return katexModule ||= import(new URL(address, document.baseURI).href).then(m => {
    const transform = m.default({ throwOnError: false });
    return (tex, display) => {  // tex -> KaTeX's nodes (hast), as st.markdown gets them
      const node = { type: "element", tagName: "span", children: [{ type: "text", value: tex }],
                     properties: { className: [display ? "math-display" : "math-inline"] } };
      const tree = { type: "root", children: [node] };
      transform(tree, { message() {} });
      return tree.children;
    };
  }).catch(err => { katexModule = null; throw err; });
}
function dom(node) {  // a hast node as DOM (KaTeX's own markup: classes, styles, aria-hidden)
  if (node.type === "text") return document.createTextNode(node.value);
  const el = document.createElement(node.type === "element" ? node.tagName : "span");
  for (const [k, v] of Object.entries(node.properties || {})) {
    if (v === false || v === null || v === undefined) continue;
    const name = k === "className" ? "class" : /^(aria|data)[A-Z]/.test(k)
      ? k.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`) : k;
    el.setAttribute(name, Array.isArray(v) ? v.join(" ") : v === true ? "" : String(v));
  }
  for (const child of node.children || []) el.appendChild(dom(child));
  return el;
}
function typeset(root, render) {
  // every math span markdown-it wrote (mdit_py_plugins.dollarmath), drawn by KaTeX; left as its
  // TeX source if KaTeX could not be loaded
  for (const el of root.querySelectorAll(".math.inline, .math.block")) {
    try { el.replaceChildren(...render(el.textContent, el.classList.contains("block")).map(dom)); }
    catch (err) { console.error(err); }
  }
}
function parsed(data) {
  return JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
}
// ---- a stepped block of HTML (text, a table) --------------------------------------------------
// data: {"follow": the slider's key, "first": the first step carried (1-based), "at": the step
// the server drew, "slides": one HTML text per step from "first" on (made by the server from the
// catalogue's markdown, every learner's text escaped), "kind": "" | "info" | "table", "icon": the
// info box's icon name, "height": a table's greatest height in px, "katex": KaTeX's address}.
export function stepped({ parentElement, data }) {
  const { follow, first, at, slides, kind, icon, height, katex: address } = parsed(data);
  steppedStyle();
  let root = parentElement.querySelector(".rnnviz-stepped");
  if (!root) {
    root = parentElement.appendChild(document.createElement("div"));
    root.__made = [];  // per slide: its HTML with the math drawn, once KaTeX has drawn it
  }
  root.className = `rnnviz-stepped${kind ? ` rnnviz-stepped-${kind}` : ""}`;
  if (height) root.style.setProperty("--rnnviz-table-height", `${height}px`);
  if (root.__slides !== slides.join("\u0000")) { root.__slides = slides.join("\u0000"); root.__made = []; }
  let gone = false, tex = null;
  const hasMath = slides.some(s => s.includes('class="math '));
  function show(step) {
    if (gone) return;
    const k = step - first;
    root.dataset.step = String(step);
    if (k < 0 || k >= slides.length) {  // the server's run brings the window around it
      root.classList.add("rnnviz-stepped-stale");
      syncSoon(follow);
      return;
    }
    root.classList.remove("rnnviz-stepped-stale");
    const body = root.__made[k] ?? slides[k];
    const html = kind === "info" ? `<span class="rnnviz-stepped-icon" aria-hidden="true">${icon}</span><div>${body}</div>` : body;
    if (root.__html !== html) { root.innerHTML = html; root.__html = html; }
    if (root.__made[k] === undefined && tex) { typeset(root, tex); keep(k); }
  }
  function keep(k) {
    const inner = kind === "info" ? root.lastElementChild : root;
    root.__made[k] = inner.innerHTML;
    root.__html = root.innerHTML;
  }
  function makeAll() {  // every slide's math drawn once, off screen, so a move only swaps HTML
    const scratch = document.createElement("div");
    slides.forEach((s, k) => {
      if (root.__made[k] !== undefined) return;
      scratch.innerHTML = s;
      typeset(scratch, tex);
      root.__made[k] = scratch.innerHTML;
    });
  }
  show(sliderStep(follow) ?? at);
  unsent(follow, at);
  const off = onStep(follow, show);
  if (hasMath) katex(address).then(t => {
    if (gone) return;
    tex = t;
    const step = Number(root.dataset.step);
    root.__html = null;  // drawn again, with its math
    makeAll();
    show(step);
  }, () => {});
  return () => { gone = true; off(); };
}
