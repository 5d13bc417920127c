// The app's chart (ui/charts.py): one Plotly chart that stays in the page and is updated in
// place. Streamlit 1.67 mounts a changed st.plotly_chart anew (a new element id); here the same
// <div> takes each new figure through Plotly.react, 1.9-2.9x less of a step move's drawing
// (bench/bench_chart_in_place.py). data: {"figure": Plotly's JSON as st.plotly_chart sends it,
// "failed": the message shown if Plotly.js cannot be loaded}, as UTF-8 bytes.
// Plotly.js comes once per tab from the app's static files (ui/charts.serve_plotly).
// Lines that start with // are not sent (every chart element carries this code).
const PLOTLY_JS = "./app/static/plotly.min.js";
function plotly() {
  // one <script> per tab; after a failure the next chart tries again
  return window.Plotly ? Promise.resolve(window.Plotly) : (window.__rnnvizPlotly ||= new Promise((ok, no) => {
    const s = document.createElement("script");
    s.src = PLOTLY_JS;
    s.onload = () => ok(window.Plotly);
    s.onerror = () => { window.__rnnvizPlotly = null; no(); };
    document.head.appendChild(s);
  }));
}
export default function ({ parentElement, data }) {
  const { figure, failed } = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
  let div = parentElement.querySelector(".rnnviz-chart");
  if (!div) {
    div = parentElement.appendChild(document.createElement("div"));
    div.className = "rnnviz-chart";
  }
  plotly().then(Plotly => Plotly.react(div, figure.data, figure.layout, { displaylogo: false, responsive: true }))
    .catch(() => { div.textContent = failed; });
  // called once, when the chart leaves the page
  return () => window.Plotly && window.Plotly.purge(div);
}
