// What every chart element carries (ui/charts.py), kept small: it loads the chart's code once per
// tab from the app's static files (ui/plotly_chart.js, served under a name made of its content;
// ui/charts puts that name in CODE) and hands it each call. If the code cannot be loaded, the
// element shows data's "failed" message, and the next chart tries again.
// Lines that start with // are not sent.
const CODE = "./app/static/rnnviz-chart.js";
export default function (args) {
  let undo = null, gone = false;
  const code = window.__rnnvizChart ||= import(new URL(CODE, document.baseURI).href)
    .catch(err => { window.__rnnvizChart = null; throw err; });
  code.then(module => { if (!gone) undo = module.default(args); }, () => {
    const { parentElement, data } = args;
    if (gone || parentElement.querySelector(".rnnviz-chart-failed")) return;
    const note = parentElement.appendChild(document.createElement("p"));
    note.className = "rnnviz-chart-failed";
    note.textContent = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data)).failed;
  });
  return () => { gone = true; if (undo) undo(); };
}
