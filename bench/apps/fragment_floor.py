"""A page for bench/bench_browser_floor.py: a step slider in a fragment and nothing else of the
app, so a move's time in Chromium is Streamlit's own floor. ?parts= picks what the fragment
draws besides the slider (comma-separated, in this order):

- text: one line of prose with the step in it;
- table: a 64 x 5 table of numbers that change with the step (page 2's step table);
- chart: page 2's terms chart (rnnviz.figures.hidden.step_terms_bar) for 64 units, drawn by
  st.plotly_chart in the app's look (ui.charts.looked, theme=None: how the app drew every chart
  until its charts were drawn in place, bench/bench_chart_in_place.py); its numbers change with
  the step;
- same chart: that chart for step 1 on every move (sent again, unchanged);
- written: a step written out as page 8 writes one: a paragraph with inline formulas, a display
  formula, an 11-row table whose first column is formulas, and a second paragraph of formulas;
- written once: the same words, formulas and table as written, in ONE markdown element (the
  table as Markdown, the display formula between $$);
- page: no part inside the fragment; around it, a page of the app's size that the move does not
  touch: a sidebar with a select box, a text area and 14 page links, and below the fragment 30
  paragraphs, 3 tables and 4 charts;
- bound: no part of its own: the slider writes its value to the URL (bind="query-params"), as
  every step slider of the app does.

The numbers come from a torch.Generator seeded with the step: no model, no cache. The server's
connections have TCP_NODELAY, as app.py gives them (rnnviz/serve/nodelay.py)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pandas as pd  # noqa: E402
import streamlit as st  # noqa: E402

from bench.apps.floor_terms import UNITS, terms  # noqa: E402
from rnnviz.figures.hidden import step_terms_bar  # noqa: E402
from rnnviz.serve.nodelay import no_delay_on_tcp_sockets  # noqa: E402
from ui.charts import looked  # noqa: E402

PARTS = ("text", "table", "chart", "same chart", "written", "written once", "page", "bound")

no_delay_on_tcp_sockets()  # as app.py
st.set_page_config(layout="wide")
parts = [p for p in st.query_params.get("parts", "").split(",") if p in PARTS]


@st.fragment
def view() -> None:
    bound = {"bind": "query-params"} if "bound" in parts else {}
    step = st.slider("step", 1, 20, 3, key="floor_step", **bound)
    now = terms(step)
    if "text" in parts:
        st.markdown(f"Step **{step}**: the largest |h| is {float(now['h'].abs().max()):.4f}.")
    if "table" in parts:
        st.dataframe(pd.DataFrame({k: v.double().numpy() for k, v in now.items()}))
    if "chart" in parts:
        st.plotly_chart(looked(step_terms_bar(now)), theme=None, key="floor_chart")
    if "same chart" in parts:
        st.plotly_chart(looked(step_terms_bar(terms(1))), theme=None, key="floor_same_chart")
    if "written" in parts:
        written(step, now)
    if "written once" in parts:
        st.markdown(written_once(step, now))


WRITTEN_TEX = r"c_t = f \odot c_{t-1} + i \odot g,\qquad h_t = o \odot \tanh(c_t)"


def written(step: int, now: dict) -> None:
    """Page 8's kind of step written out, with this step's numbers (ui/sections/gates/step.py):
    four elements."""
    first, rows, last = written_parts(step, now)
    st.markdown(first)
    st.latex(WRITTEN_TEX)
    st.table(pd.DataFrame(rows))
    st.markdown(last)


def written_once(step: int, now: dict) -> str:
    """written's words, formulas and table as one Markdown text."""
    first, rows, last = written_parts(step, now)
    head = "| | " + " | ".join(rows[0]) + " |\n|---|" + "---|" * len(rows[0])
    body = "\n".join(f"| {i} | " + " | ".join(row.values()) + " |" for i, row in enumerate(rows))
    return f"{first}\n\n$$\n{WRITTEN_TEX}\n$$\n\n{head}\n{body}\n\n{last}"


def written_parts(step: int, now: dict) -> tuple[str, list[dict], str]:
    h = now["h"].double()
    first = (f"At step $t = {step}$ the unit $u$ with the largest $|h_t|$ holds "
             f"$h_{{t,u}} = {float(h.abs().max()):.4f}$; $A = W_x x_t + W_h h_{{t-1}} + b$.")
    rows = [{"quantity": f"$A_{{{k}}} = W_{{x{k}}} x_t + b_{{{k}}}$", "shape": f"({UNITS},)",
             "values": ", ".join(f"{float(v):.3f}" for v in now[name][:8]) + ", ..."}
            for k, name in zip("ifgocnhrzab", ("Wx_x", "Wh_h", "b", "a", "h") * 3)]
    last = (f"$c_t = ({float(now['b'][0]):.3f}) \\times {float(now['a'][0]):.3f} + "
            f"{float(now['h'][0]):.3f} \\times {float(now['Wx_x'][0]):.3f}$")
    return first, rows, last


def page_around() -> None:
    """What `page` draws outside the fragment (drawn once, by the page's run)."""
    with st.sidebar:
        st.selectbox("model", ["notes", "default", "lstm", "gru"], key="floor_model")
        st.text_area("sentence", "Arrive Taipei on November 2nd and leave Boston", key="floor_text")
        for i in range(14):
            st.markdown(f"[page {i + 1}](#page-{i + 1})")
    for i in range(30):
        st.markdown(f"Paragraph {i + 1}: $h_t = \\tanh(W_x x_t + W_h h_{{t-1}} + b)$ with **{i}** units.")
        if i % 10 == 0:
            st.dataframe(pd.DataFrame({k: v.double().numpy() for k, v in terms(i).items()}))
    for i in range(4):
        st.plotly_chart(looked(step_terms_bar(terms(100 + i))), theme=None, key=f"floor_page_chart_{i}")


view()
if "page" in parts:
    page_around()
