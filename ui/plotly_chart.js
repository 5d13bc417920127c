// The app's chart (ui/charts.py): one Plotly chart that stays in the page and is updated in
// place. Streamlit 1.67 mounts a changed st.plotly_chart anew (a new element id); here the same
// <div> takes each new figure through Plotly.react, 1.9-2.9x less of a step move's drawing
// (bench/bench_chart_in_place.py). data: {"figure": Plotly's JSON as st.plotly_chart sends it,
// "failed": the message shown if Plotly.js cannot be loaded, "full" and "close": the labels of
// the full-screen button, as Streamlit's charts have one}, as UTF-8 bytes (ui/charts._payload).
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
// The full-screen button, as Streamlit's chart toolbar has it: shown on hover above the chart's
// top right; the chart then fills the window (its height too) until the button or Escape.
const STYLE = `.rnnviz-chart-frame{position:relative}
.rnnviz-chart-full{position:absolute;top:-2.1rem;right:0;z-index:3;opacity:0;display:flex;
align-items:center;justify-content:center;width:2rem;height:2rem;padding:0;border:none;
border-radius:.5rem;background:#fff;color:#31333F;cursor:pointer}
.rnnviz-chart-full:hover{background:#f0f2f6}
.rnnviz-chart-frame:hover .rnnviz-chart-full,.rnnviz-chart-full:focus-visible,
.rnnviz-chart-fullscreen .rnnviz-chart-full{opacity:1}
.rnnviz-chart-fullscreen{position:fixed;inset:0;z-index:1000100;background:#fff;
padding:3.5rem 2.5rem 1.5rem;overflow:auto}
.rnnviz-chart-fullscreen .rnnviz-chart-full{top:.75rem;right:1.5rem}`;
const ICON = {  // Material Symbols "fullscreen" and "fullscreen_exit" (24 x 24)
  full: "M5 19v-5h2v3h3v2H5Zm0-9V5h5v2H7v3H5Zm9 9v-2h3v-3h2v5h-5Zm3-9V7h-3V5h5v5h-2Z",
  close: "M8 19v-3H5v-2h5v5H8Zm6 0v-5h5v2h-3v3h-2Zm-9-9V8h3V5h2v5H5Zm9 0V5h2v3h3v2h-5Z",
};
const FULL_PAD = 80;  // the padding above and below the chart in full screen (3.5rem + 1.5rem)
function fullHeight() { return Math.max(300, window.innerHeight - FULL_PAD); }
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
  frame.__onKey = event => { if (event.key === "Escape" && frame.__full) setFull(frame, false); };
  frame.__onResize = () => { if (frame.__full) relayoutSize(frame); };
  return frame;
}
function drawButton(frame) {
  const button = frame.querySelector(".rnnviz-chart-full");
  const label = frame.__full ? frame.__labels.close : frame.__labels.full;
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
  div.__width = div.getBoundingClientRect().width;
  div.__plotly.relayout(div, frame.__full ? { width: div.__width, height: fullHeight() }
                                          : { width: null, height: div.__height ?? null });
}
function setFull(frame, on) {
  frame.__full = on;
  frame.classList.toggle("rnnviz-chart-fullscreen", on);
  const listen = on ? "addEventListener" : "removeEventListener";
  document[listen]("keydown", frame.__onKey);
  window[listen]("resize", frame.__onResize);
  drawButton(frame);
  relayoutSize(frame);
}
export default function ({ parentElement, data }) {
  const { figure, failed, full, close } = JSON.parse(
    typeof data === "string" ? data : new TextDecoder().decode(data));
  const frame = frameOf(parentElement);
  frame.__labels = { full, close };
  drawButton(frame);
  const div = frame.querySelector(".rnnviz-chart");
  // each call is one figure; a call Streamlit has replaced or removed draws nothing more
  const call = (div.__calls = (div.__calls || 0) + 1);
  let gone = false;
  plotly().then(Plotly => {
    if (gone || div.__calls !== call) return;
    parentElement.querySelector(".rnnviz-chart-failed")?.remove();
    div.__plotly = Plotly;
    div.__height = figure.layout.height;  // the figure's own height, for leaving full screen
    const layout = frame.__full ? { ...figure.layout, width: div.__width, height: fullHeight() } : figure.layout;
    Plotly.react(div, figure.data, layout, { displaylogo: false });
    // follow the width Streamlit gives the chart (a sidebar opened or closed, the window resized)
    div.__width = div.getBoundingClientRect().width;
    div.__resize ||= new ResizeObserver(([seen]) => {
      const width = seen.contentRect.width;
      if (width && Math.abs(width - div.__width) >= 1 && div._fullLayout) {
        div.__width = width;
        div.__plotly.Plots.resize(div);
      }
    });
    div.__resize.observe(div);
  }, () => {
    if (gone || parentElement.querySelector(".rnnviz-chart-failed")) return;
    const note = parentElement.insertBefore(document.createElement("p"), frame);
    note.className = "rnnviz-chart-failed";
    note.textContent = failed;
  });
  // Streamlit calls this when the chart leaves the page, and for a call it replaced at once
  return () => {
    gone = true;
    if (div.__calls !== call) return;
    if (frame.__full) setFull(frame, false);
    if (div.__resize) div.__resize.disconnect();
    if (div.__plotly) div.__plotly.purge(div);
  };
}
