// The app's chart (ui/charts.py): one Plotly chart that stays in the page and is updated in
// place. Streamlit 1.67 mounts a changed st.plotly_chart anew (a new element id); here the same
// <div> takes each new figure through Plotly.react, 1.9-2.9x less of a step move's drawing
// (bench/bench_chart_in_place.py). data: {"figure": Plotly's JSON as st.plotly_chart sends it,
// "failed": the message shown if Plotly.js cannot be loaded, "full" and "close": the labels of
// the full-screen button, as Streamlit's charts have one, "steady": which figures keep the chart's
// margins (ui/charts.steady_margins)}, as UTF-8 bytes (ui/charts._payload).
// A module served beside Plotly.js (ui/charts.serve_plotly), loaded once per tab by the small
// code every chart element carries (ui/chart_loader.js), which calls its default export.
// Plotly.js: plotly.py's copy, served by the app (ui/charts puts the served file's name, with its
// version, in PLOTLY_JS), loaded once per tab and kept apart: Streamlit's own chart code sets
// window.Plotly to its bundled copy, so the global is put back and never read here.
const PLOTLY_JS = "./app/static/plotly.min.js";
function plotly() {
  // one <script> per tab; after a failure the next chart tries again
  return window.__rnnvizPlotly ||= new Promise((ok, no) => {
    const before = window.Plotly, s = document.createElement("script");
    s.src = PLOTLY_JS;
    s.onload = () => {
      const own = window.Plotly;
      if (before !== undefined) window.Plotly = before;
      if (own && own !== before) ok(own); else { window.__rnnvizPlotly = null; no(); }
    };
    s.onerror = () => { window.__rnnvizPlotly = null; no(); };
    document.head.appendChild(s);
  });
}
// The full-screen button, as Streamlit's chart toolbar has it: shown on hover (or keyboard focus)
// above the chart's top right once the chart is drawn; the chart then fills the window (its height
// too) until the button or Escape. One chart at a time is in full screen.
const STYLE = `.rnnviz-chart-frame{position:relative}
.rnnviz-chart-full{position:absolute;top:-2.1rem;right:0;z-index:3;opacity:0;pointer-events:none;
display:none;align-items:center;justify-content:center;width:2rem;height:2rem;padding:0;border:none;
border-radius:.5rem;background:#fff;color:#31333F;cursor:pointer}
.rnnviz-chart-drawn .rnnviz-chart-full{display:flex}
.rnnviz-chart-full:hover{background:#f0f2f6}
.rnnviz-chart-frame:hover .rnnviz-chart-full,.rnnviz-chart-full:focus-visible,
.rnnviz-chart-fullscreen .rnnviz-chart-full{opacity:1;pointer-events:auto}
.rnnviz-chart-fullscreen{position:fixed;inset:0;z-index:1000100;background:#fff;
padding:3.5rem 2.5rem 1.5rem;overflow:auto}
.rnnviz-chart-fullscreen .rnnviz-chart-full{top:.75rem;right:1.5rem}`;
const ICON = {  // Material Symbols "fullscreen" and "fullscreen_exit" (24 x 24)
  full: "M5 19v-5h2v3h3v2H5Zm0-9V5h5v2H7v3H5Zm9 9v-2h3v-3h2v5h-5Zm3-9V7h-3V5h5v5h-2Z",
  close: "M8 19v-3H5v-2h5v5H8Zm6 0v-5h5v2h-3v3h-2Zm-9-9V8h3V5h2v5H5Zm9 0V5h2v3h3v2h-5Z",
};
let fullFrame = null;  // the chart in full screen, if any
function fullSize(frame, div) {
  // the chart's size in full screen: the frame's width and the window's height, less its padding
  const pad = getComputedStyle(frame);
  return { width: div.getBoundingClientRect().width,
           height: Math.max(300, window.innerHeight - parseFloat(pad.paddingTop) - parseFloat(pad.paddingBottom)) };
}
function frameOf(parentElement) {
  let frame = parentElement.querySelector(".rnnviz-chart-frame");
  if (frame) return frame;
  if (!document.getElementById("rnnviz-chart-style")) {
    const style = document.head.appendChild(document.createElement("style"));
    style.id = "rnnviz-chart-style";
    style.textContent = STYLE;
  }
  frame = parentElement.appendChild(document.createElement("div"));
  frame.className = "rnnviz-chart-frame";
  const button = frame.appendChild(document.createElement("button"));
  button.type = "button";
  button.className = "rnnviz-chart-full";
  const div = frame.appendChild(document.createElement("div"));
  div.className = "rnnviz-chart";
  button.addEventListener("click", () => setFull(frame, !frame.__full));
  frame.__onKey = event => {
    if (event.key === "Escape" && frame.__full && !event.defaultPrevented) setFull(frame, false);
  };
  frame.__onResize = () => { if (frame.__full) relayoutSize(frame); };
  return frame;
}
function drawButton(frame) {
  const label = frame.__full ? frame.__labels.close : frame.__labels.full;
  if (frame.__buttonLabel === label) return;  // drawn already
  frame.__buttonLabel = label;
  const button = frame.querySelector(".rnnviz-chart-full");
  button.setAttribute("aria-label", label);
  button.title = label;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.setAttribute("fill", "currentColor");
  const path = svg.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "path"));
  path.setAttribute("d", frame.__full ? ICON.close : ICON.full);
  button.replaceChildren(svg);
}
function relayoutSize(frame) {
  // in full screen, the window's size; back, the figure's own height and the width Streamlit gives
  const div = frame.querySelector(".rnnviz-chart");
  if (!div.__plotly || !div._fullLayout) return;
  if (frame.__full) {
    const size = fullSize(frame, div);
    div.__width = size.width;
    div.__plotly.relayout(div, size);
  } else {  // a null width is the first draw's: then measured again, as the sidebar may have moved
    div.__plotly.relayout(div, { width: null, height: div.__height ?? null });
    div.__width = div.getBoundingClientRect().width;
    div.__plotly.Plots.resize(div);
  }
}
function listen(frame, on) {
  const how = on ? "addEventListener" : "removeEventListener";
  document[how]("keydown", frame.__onKey);
  window[how]("resize", frame.__onResize);
  frame.classList.toggle("rnnviz-chart-fullscreen", on);
  if (on) { frame.setAttribute("role", "dialog"); frame.setAttribute("aria-modal", "true"); }
  else { frame.removeAttribute("role"); frame.removeAttribute("aria-modal"); }
  frame.__full = on;
  if (on) fullFrame = frame; else if (fullFrame === frame) fullFrame = null;
}
function setFull(frame, on) {
  if (on && fullFrame && fullFrame !== frame) setFull(fullFrame, false);
  listen(frame, on);
  drawButton(frame);
  relayoutSize(frame);
  frame.querySelector(".rnnviz-chart-full").focus();
}
// Steady margins: while "steady" stays the same (one model, sentence and language, and one kind
// of figure: ui/charts.steady_margins), a new figure starts from the margins the chart has, and
// Plotly's automargin only grows them. The plot area stays put as the step moves, and tick labels
// wider or narrower than the last no longer make Plotly draw the whole chart a second time
// (bench/bench_chart_react.py). Tick labels push the left and bottom margins, and overhang by a
// few pixels on the right and top; a colour bar or a legend that comes and goes there is placed
// within one draw, so the right and top margins keep at most EDGE pixels more than the figure's
// own: no wide blank where a colour bar was. Another sentence, another kind of figure, a new
// chart: Plotly's own margins, as st.plotly_chart draws them.
const EDGE = 32;
function withMargins(div, layout, steady) {
  if (div.__steady !== steady) { div.__steady = steady; div.__margins = null; }
  return div.__margins ? { ...layout, margin: { ...layout.margin, ...div.__margins } } : layout;
}
function keepMargins(div) {
  const full = div._fullLayout;
  if (!full?._size) return;
  if (!div.__margins) div.__own = { r: full.margin.r, t: full.margin.t };  // the figure's own
  const size = full._size, own = div.__own;
  div.__margins = { l: size.l, b: size.b,
                    r: Math.min(size.r, own.r + EDGE), t: Math.min(size.t, own.t + EDGE) };
}
// A chart that reports clicks (data's "clicks", ui/cellpick): a click on a heatmap cell is sent as
// the "select" event {"points": [{"customdata": [row, col]}]} (0-based indices of z; [row, col,
// panel] when the figure has several heatmaps, panel = the heatmap's order among them), as
// st.plotly_chart reports a click on rnnviz/figures/pick's marker over that cell; a click on a
// point that carries such customdata (that marker) is sent as it is.
function cellOf(div, p) {
  if (p.data?.type === "heatmap" && Array.isArray(p.pointNumber)) {
    const maps = div.data.map((tr, k) => (tr.type === "heatmap" ? k : -1)).filter(k => k >= 0);
    const cell = [p.pointNumber[0], p.pointNumber[1]];
    return maps.length > 1 ? [...cell, maps.indexOf(p.curveNumber)] : cell;
  }
  return Array.isArray(p.customdata) ? p.customdata : null;
}
function reportClicks(div, setTriggerValue) {
  div.__report = setTriggerValue;  // the latest call's
  if (div.__clicking) return;
  div.__clicking = true;
  div.on("plotly_click", event => {
    const points = (event?.points || []).map(p => cellOf(div, p)).filter(Boolean)
      .map(customdata => ({ customdata }));
    if (points.length && div.__clicks && div.__report) div.__report("select", { points: points.slice(0, 1) });
  });
}
// Out of sight: a chart drawn before that gets a new figure while it is far from the window (more
// than NEAR above or below it, or in a closed expander or tab) keeps its last drawing and takes
// the newest figure when it comes near (an IntersectionObserver). A step move then draws the
// charts a learner can see, not the ones below the fold; each waiting chart is drawn once, as it
// nears the window while scrolled to. A chart's first figure is drawn at once, wherever it is.
// Streamlit's main area scrolls in an element of its own (stMain), which clips what the observer
// sees: the margin goes on that scroll container too (scrollMargin), not on the window alone.
// Printing (or saving the page as PDF) draws every waiting chart first: the page prints as it is.
const NEAR = "400px 0px";
let sight = null;
const waiting = new Set();  // the charts with a figure waiting
function wait(div, draw) {
  div.__waiting = draw;
  waiting.add(div);
}
function unwait(div) {  // the figure that was waiting, if any, no longer waiting
  const draw = div.__waiting;
  div.__waiting = null;
  waiting.delete(div);
  return draw;
}
function drawWaiting(div) {
  const draw = unwait(div);
  if (draw) try { draw(); } catch (err) { console.error(err); }  // the other charts still draw
}
window.addEventListener("beforeprint", () => { for (const div of [...waiting]) drawWaiting(div); });
function watch(div) {
  sight ||= new IntersectionObserver(entries => {
    for (const seen of entries) seen.target.__near = seen.isIntersecting;  // every chart's first
    for (const seen of entries) if (seen.target.__near) drawWaiting(seen.target);
  }, { rootMargin: NEAR, scrollMargin: NEAR });
  if (!div.__watched) { div.__watched = true; sight.observe(div); }
}
function unwatch(div) {
  unwait(div);
  if (div.__watched && sight) sight.unobserve(div);
  div.__watched = false;
  div.__near = undefined;
}
export default function ({ parentElement, data, setTriggerValue }) {
  const { figure: drawn, failed, full, close, steady, clicks, steps } = JSON.parse(
    typeof data === "string" ? data : new TextDecoder().decode(data));
  let figure = drawn;  // the step's figure: the one drawn, or (a stepped chart) the slider's
  let step = null;  // a stepped chart: the step of `figure`
  const frame = frameOf(parentElement);
  frame.__labels = { full, close };
  drawButton(frame);
  const div = frame.querySelector(".rnnviz-chart");
  // each call is one figure; a call Streamlit has replaced or removed draws nothing more
  const call = (div.__calls = (div.__calls || 0) + 1);
  let gone = false;
  let offStep = null;
  if (steps) {  // a stepped chart (ui/stepped.py): the figure of the slider's step, at once
    steppedStyle();
    step = sliderStep(steps.follow) ?? steps.at;
    figure = figureAt(drawn, steps, step, frame);
    offStep = onStep(steps.follow, moved => {
      const next = figureAt(drawn, steps, moved, frame);
      if (gone || div.__calls !== call) return;
      step = moved;
      if (next === figure) { frame.dataset.step = String(moved); return; }  // outside the window
      figure = next;
      if (!div.__plotly || div.__drawn !== call) return;  // not drawn yet: drawn with this figure
      const draw = () => { if (!gone && div.__calls === call) drawFigure(div.__plotly); };
      if (div.__near === false && !frame.__full) {  // out of sight: drawn when it comes near
        wait(div, draw);
        frame.dataset.step = String(moved);
      } else { unwait(div); draw(); }
    });
  }
  plotly().then(Plotly => {
    if (gone || div.__calls !== call) return;
    const draw = () => { if (!gone && div.__calls === call) drawFigure(Plotly); };
    if (div._fullLayout && div.__near === false && !frame.__full) {  // drawn before, out of sight
      wait(div, draw);
      return;
    }
    unwait(div);  // an older figure that waited is superseded
    draw();
  }, () => {
    if (gone || parentElement.querySelector(".rnnviz-chart-failed")) return;
    const note = parentElement.insertBefore(document.createElement("p"), frame);
    note.className = "rnnviz-chart-failed";
    note.textContent = failed;
  });
  function drawFigure(Plotly) {
    parentElement.querySelector(".rnnviz-chart-failed")?.remove();
    div.__plotly = Plotly;
    div.__height = figure.layout?.height;  // the figure's own height, for leaving full screen
    const layout = frame.__full ? { ...figure.layout, ...fullSize(frame, div) } : figure.layout;
    div.__clicks = Boolean(clicks);
    div.__drawn = call;  // the call whose figure the chart shows (a newer one may be waiting)
    const shown = step;
    Plotly.react(div, figure.data, withMargins(div, layout, steady), { displaylogo: false })
      .then(() => {
        if (div.__drawn !== call) return;
        if (shown !== null) frame.dataset.step = String(shown);  // a stepped chart: drawn at that step
        keepMargins(div);
        if (clicks) reportClicks(div, setTriggerValue);  // div.on exists once Plotly has drawn
      });
    frame.classList.add("rnnviz-chart-drawn");  // the full-screen button: for a drawn chart only
    // follow the width Streamlit gives the chart (a sidebar opened or closed, the window resized),
    // from the width Plotly just drew at: measuring the <div> here would lay out the page again
    div.__width = div._fullLayout?.width ?? div.getBoundingClientRect().width;
    div.__resize ||= new ResizeObserver(([seen]) => {
      const width = seen.contentRect.width;
      if (width && Math.abs(width - div.__width) >= 1 && div._fullLayout) {
        div.__width = width;
        div.__plotly.Plots.resize(div);
      }
    });
    div.__resize.observe(div);
    watch(div);
  }
  // Streamlit calls this when the chart leaves the page, and for a call it replaced at once
  return () => {
    gone = true;
    if (offStep) offStep();
    if (div.__calls !== call) return;
    if (frame.__full) listen(frame, false);  // the chart leaves the page: no redraw, only the listeners
    if (div.__resize) div.__resize.disconnect();
    unwatch(div);
    if (div.__plotly) div.__plotly.purge(div);  // its click listener too
    div.__clicking = false;
  };
}
// A stepped chart's figure for a step (data's "steps": {"follow", "first", "at", "patches": one
// list per step from "first" on of [path, value] (set) or [path] (delete), ui/stepped.patches}):
// the drawn figure with that step's patch, copied only along the patched paths (the arrays no
// patch touches stay the same objects, which Plotly.react then skips). A step outside the window
// keeps the figure shown, faded, until the server's run brings the new window.
function figureAt(drawn, steps, step, frame) {
  const patch = steps.patches[step - steps.first];
  frame.classList.toggle("rnnviz-stepped-stale", patch === undefined);
  if (patch === undefined) { syncSoon(steps.follow); return frame.__stepFigure ?? drawn; }
  if (frame.__stepKey === step && frame.__stepBase === drawn) return frame.__stepFigure;
  const out = { ...drawn };
  for (const [path, ...value] of patch) {
    let node = out;
    for (const k of path.slice(0, -1)) {
      node[k] = Array.isArray(node[k]) ? node[k].slice() : { ...node[k] };
      node = node[k];
    }
    const last = path[path.length - 1];
    if (value.length) node[last] = value[0]; else delete node[last];
  }
  frame.__stepKey = step; frame.__stepBase = drawn; frame.__stepFigure = out;
  return out;
}
