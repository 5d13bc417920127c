// The app's chart (ui/charts.py): one Plotly chart that stays in the page and is updated in
// place. Streamlit 1.67 mounts a changed st.plotly_chart anew (a new element id); here the same
// <div> takes each new figure through Plotly.react, 1.9-2.9x less of a step move's drawing
// (bench/bench_chart_in_place.py). data: {"figure": Plotly's JSON as st.plotly_chart sends it,
// "failed": the message shown if Plotly.js cannot be loaded}, as UTF-8 bytes.
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
export default function ({ parentElement, data }) {
  const { figure, failed } = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
  let div = parentElement.querySelector(".rnnviz-chart");
  if (!div) {
    div = parentElement.appendChild(document.createElement("div"));
    div.className = "rnnviz-chart";
  }
  // each call is one figure; a call Streamlit has replaced or removed draws nothing more
  const call = (div.__calls = (div.__calls || 0) + 1);
  let gone = false;
  plotly().then(Plotly => {
    if (gone || div.__calls !== call) return;
    parentElement.querySelector(".rnnviz-chart-failed")?.remove();
    div.__plotly = Plotly;
    Plotly.react(div, figure.data, figure.layout, { displaylogo: false });
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
    const note = parentElement.insertBefore(document.createElement("p"), div);
    note.className = "rnnviz-chart-failed";
    note.textContent = failed;
  });
  // Streamlit calls this when the chart leaves the page, and for a call it replaced at once
  return () => {
    gone = true;
    if (div.__calls !== call) return;
    if (div.__resize) div.__resize.disconnect();
    if (div.__plotly) div.__plotly.purge(div);
  };
}
