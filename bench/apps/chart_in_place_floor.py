"""A page for bench/bench_chart_in_place.py: does a chart drawn in place (ui.charts.chart, issue 24,
fifteenth session) draw a step move sooner than st.plotly_chart, which Streamlit 1.67 mounts anew
whenever the figure changes?

A step slider in a fragment draws, per ?parts= (comma-separated):

- terms: page 2's terms chart (rnnviz.figures.hidden.step_terms_bar, 64 units) through
  st.plotly_chart, in the look ui.charts writes (ui.charts.looked, theme=None): how the app drew
  every chart before;
- terms in place: the same figure through ui.charts.chart, which keeps its chart and hands it each
  new figure (Plotly.react, ui/plotly_chart.js); Plotly.js served from bench/apps/static
  (ui.charts.serve_plotly, as app.py does);
- jacobian / jacobian in place: the same for page 4's step Jacobian (rnnviz.figures.bptt.
  jacobian_parts: a bar and two 64 x 64 heatmaps).

Figures are built once per step (st.cache_resource), so the server's time is the slider's, not
the figures'. Not part of the app: a measurement (docs/serving.md, fifteenth session)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import streamlit as st  # noqa: E402
import torch  # noqa: E402

from bench.apps.floor_terms import UNITS, terms  # noqa: E402
from rnnviz.figures.bptt import jacobian_parts  # noqa: E402
from rnnviz.figures.hidden import step_terms_bar  # noqa: E402
from rnnviz.serve.nodelay import no_delay_on_tcp_sockets  # noqa: E402
from ui.charts import chart, looked, serve_plotly  # noqa: E402

STEPS = 20
PARTS = ("terms", "terms in place", "jacobian", "jacobian in place")
no_delay_on_tcp_sockets()  # as app.py
serve_plotly()  # as app.py: Plotly.js in bench/apps/static/
st.set_page_config(layout="wide")
parts = [p for p in st.query_params.get("parts", "").split(",") if p in PARTS]


def jacobian(step: int):
    """Page 4's step Jacobian figure for a random W_h (UNITS, UNITS) and this step's slopes."""
    gen = torch.Generator().manual_seed(1000 + step)
    W_h = torch.randn(UNITS, UNITS, generator=gen) / UNITS ** 0.5
    slope = 1 - torch.tanh(torch.randn(UNITS, generator=gen)) ** 2  # (UNITS,)
    return jacobian_parts(slope.numpy(), W_h.numpy(), (slope[:, None] * W_h).numpy(), step - 1)


@st.cache_resource
def figures() -> dict:
    """{(kind, step): figure in Streamlit's look}, built once per server."""
    return {(kind, k): looked(build(k)) for k in range(1, STEPS + 1)
            for kind, build in (("terms", lambda k: step_terms_bar(terms(k))), ("jacobian", jacobian))}


@st.fragment
def view() -> None:
    step = st.slider("step", 1, STEPS, 3, key="floor_step")
    for part in parts:
        kind = part.removesuffix(" in place")
        figure = figures()[(kind, step)]
        if part.endswith(" in place"):
            chart(figure, key=f"in_place_{kind}")
        else:
            st.plotly_chart(figure, theme=None, key=f"floor_{kind}")


view()
