"""A page for bench/bench_browser_floor.py: a step slider in a fragment and nothing else of the
app, so a move's time in Chromium is Streamlit's own floor. ?parts= picks what the fragment
draws besides the slider (comma-separated, in this order):

- text: one line of prose with the step in it;
- table: a 64 x 5 table of numbers that change with the step (page 2's step table);
- chart: page 2's terms chart (rnnviz.figures.hidden.step_terms_bar) for 64 units, drawn by
  ui.charts.chart as the app draws every chart; its numbers change with the step;
- same chart: that chart for step 1 on every move (sent again, unchanged).

The numbers come from a torch.Generator seeded with the step: no model, no cache."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pandas as pd  # noqa: E402
import streamlit as st  # noqa: E402
import torch  # noqa: E402

from rnnviz.figures.hidden import step_terms_bar  # noqa: E402
from ui.charts import chart  # noqa: E402

UNITS = 64
PARTS = ("text", "table", "chart", "same chart")

st.set_page_config(layout="wide")
parts = [p for p in st.query_params.get("parts", "").split(",") if p in PARTS]


def terms(step: int) -> dict:
    """The three terms of a_t and their sum, each (UNITS,), drawn for `step`."""
    gen = torch.Generator().manual_seed(step)
    wx, wh, b = (torch.randn(UNITS, generator=gen) for _ in range(3))
    a = wx + wh + b
    return {"Wx_x": wx, "Wh_h": wh, "b": b, "a": a, "h": torch.tanh(a)}


@st.fragment
def view() -> None:
    step = st.slider("step", 1, 20, 3, key="floor_step")
    now = terms(step)
    if "text" in parts:
        st.markdown(f"Step **{step}**: the largest |h| is {float(now['h'].abs().max()):.4f}.")
    if "table" in parts:
        st.dataframe(pd.DataFrame({k: v.double().numpy() for k, v in now.items()}))
    if "chart" in parts:
        chart(step_terms_bar(now), key="floor_chart")
    if "same chart" in parts:
        chart(step_terms_bar(terms(1)), key="floor_same_chart")


view()
