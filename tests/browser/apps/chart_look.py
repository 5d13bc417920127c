"""A page for tests/browser/test_chart_look.py: each figure drawn three times: the way the app drew
charts first (st.plotly_chart with Streamlit's theme), in Streamlit's look written by the app
through st.plotly_chart (ui.charts.looked, theme=None: what ui.charts.chart falls back to), and
as the app draws them now (ui.charts.chart: in place, with the Plotly.js this page serves).
The figures use what the app's figures use: a heatmap with category axes and pick markers on
top, horizontal and vertical bars in subplots, a shared colour axis, lines with a legend."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import numpy as np  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402
from plotly.subplots import make_subplots  # noqa: E402

from rnnviz.figures.common import heatmap, style  # noqa: E402
from ui.charts import chart, looked, serve_plotly  # noqa: E402

serve_plotly()  # as app.py: Plotly.js in static/ beside this page
st.set_page_config(layout="wide")
rng = np.random.default_rng(0)
steps = [f"t={k + 1} w{k}" for k in range(9)]
units = [f"u{k + 1}" for k in range(24)]

picked = heatmap(rng.normal(size=(24, 9)), steps, units, "Hidden states", "step", "unit", "h")
picked.add_trace(go.Scatter(x=steps, y=units[:9], mode="markers", marker={"size": 9, "opacity": 0}))

bars = make_subplots(rows=1, cols=2, subplot_titles=("by unit", "by step"))
bars.add_trace(go.Bar(x=rng.normal(size=12), y=units[:12], orientation="h", name="W_x x"), 1, 1)
bars.add_trace(go.Bar(x=steps, y=rng.normal(size=9), name="W_h h"), 1, 2)
bars.add_trace(go.Bar(x=steps, y=rng.normal(size=9), name="b"), 1, 2)
bars = style(bars, "Bars", layout={"barmode": "relative"})

shared = make_subplots(rows=1, cols=2)
for col in (1, 2):
    shared.add_trace(go.Heatmap(z=rng.uniform(size=(6, 9)), coloraxis="coloraxis"), 1, col)
shared = style(shared, "Two maps, one colour axis", layout={"coloraxis": {"colorscale": "Viridis"}})

lines = style(go.Figure([go.Scatter(y=np.cumsum(rng.normal(size=40)), name=f"run {k}", mode="lines")
                         for k in range(4)]), "Lines")

for name, fig in (("picked", picked), ("bars", bars), ("shared", shared), ("lines", lines)):
    # one below the other, at the same x: side by side, columns start at fractions of a pixel and
    # the same chart is drawn 1 px apart in a screenshot
    st.plotly_chart(fig, key=f"themed_{name}")
    st.plotly_chart(looked(fig), theme=None, key=f"looked_{name}")
    chart(fig, key=f"in_place_{name}")
