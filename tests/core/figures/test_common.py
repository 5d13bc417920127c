"""The shared heatmap: exact hover values, NaN / inf shown as such with a legend."""
import math

import numpy as np

from rnnviz.figures.common import heatmap, nonfinite_note, step_labels
from rnnviz.formatting import num


def test_fmt_spells_out_non_finite():
    assert [num(v) for v in (math.inf, -math.inf, math.nan, 0.12345)] == ["inf", "-inf", "NaN", "0.1235"]


def test_heatmap_keeps_exact_values_on_hover_and_blanks_non_finite():
    z = np.array([[1.0, np.inf], [np.nan, -2.5]])
    fig = heatmap(z, ["a", "b"], ["r1", "r2"], "T", "x", "y", "c")
    trace = fig.data[0]
    assert trace.customdata.tolist() == [["1", "inf"], ["NaN", "-2.5"]]
    assert np.isnan(np.asarray(trace.z, dtype=float)[0, 1])
    assert "1 cell is inf" in fig.layout.annotations[0].text
    assert "1 cell is NaN" in fig.layout.annotations[0].text
    assert fig.layout.title.text == "T" and fig.layout.xaxis.title.text == "x"


def test_no_legend_when_finite_and_unique_step_labels():
    assert nonfinite_note([[1.0, 2.0]]) == ""
    assert not heatmap([[1.0]], ["a"], ["b"], "T", "x", "y", "c").layout.annotations
    assert step_labels(["I", "like", "I"]) == ["1 I", "2 like", "3 I"]


# ---- the shared figure style -----------------------------------------------------------------

def _contrast(hex_fg: str, hex_bg: str = "#FFFFFF") -> float:
    """WCAG contrast ratio of two sRGB colours."""
    def lum(h):
        c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    a, b = sorted((lum(hex_fg), lum(hex_bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def test_style_sets_margins_dark_12px_axis_text_on_every_subplot():
    from plotly.subplots import make_subplots

    from rnnviz.figures.common import AXIS_TEXT, MARGIN, MUTED_TEXT, style
    fig = style(make_subplots(rows=1, cols=2, subplot_titles=("a", "b")), "T", 300)
    assert fig.layout.margin.to_plotly_json() == MARGIN and fig.layout.title.text == "T"
    for ax in (fig.layout.xaxis, fig.layout.xaxis2, fig.layout.yaxis, fig.layout.yaxis2):
        assert ax.tickfont.color == AXIS_TEXT and ax.tickfont.size >= 12 and ax.exponentformat == "power"
    assert all(a.font.color == AXIS_TEXT for a in fig.layout.annotations)
    assert _contrast(AXIS_TEXT) >= 4.5 and _contrast(MUTED_TEXT) >= 4.5


def test_log_axes_get_a_tick_per_power_of_ten_spaced_for_wide_ranges():
    import plotly.graph_objects as go

    from rnnviz.figures.common import log_axis, log_ticks, style
    fig = go.Figure(go.Scatter(x=[1, 2], y=[1e-3, 1]))
    fig.update_yaxes(type="log")
    fig = style(fig)
    assert fig.layout.yaxis.dtick == 1 and fig.layout.yaxis.exponentformat == "power"
    fig = log_axis(go.Figure(go.Scatter(x=[1, 2], y=[1e-38, 1])), [1e-38, 1.0, 0.0, float("nan")])
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis.dtick == 5  # 38 decades: every 5th power
    assert log_ticks(3)["dtick"] == 1


def test_many_series_are_grouped_into_bands_in_the_legend():
    import plotly.graph_objects as go

    from rnnviz.figures.common import LEGEND_MAX_ITEMS, style
    fig = style(go.Figure([go.Scatter(x=[0, 1], y=[i, i], name=f"L_{i}") for i in range(3, 72)]))
    shown = [tr for tr in fig.data if tr.showlegend]
    assert len(shown) <= LEGEND_MAX_ITEMS and shown[0].legendgrouptitle.text == "L_3 – L_11"
    assert {tr.legendgroup for tr in fig.data} == {tr.legendgroup for tr in shown}  # each band has an entry
    few = style(go.Figure([go.Scatter(x=[0], y=[0], name=f"s{i}") for i in range(3)]))
    assert all(tr.showlegend is None and not tr.legendgroup for tr in few.data)


def test_overview_and_page_2_heatmaps_share_one_orientation():
    from rnnviz.figures.hidden import time_heatmap
    from rnnviz.figures.overview import hidden_heatmap
    h = np.arange(12.0).reshape(3, 4)  # (T, H)
    a, b = hidden_heatmap(h, ["x", "y", "z"]), time_heatmap(h, ["x", "y", "z"])
    for f in (a, b):
        assert f.data[0].x == ("1 x", "2 y", "3 z") and np.array_equal(np.asarray(f.data[0].z), h.T)


def _figure_builders():
    """(file, function, source) of every public function in rnnviz/figures that makes a figure."""
    import ast
    from pathlib import Path
    root = Path(__file__).resolve().parents[3] / "rnnviz" / "figures"
    for path in sorted(root.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                src = ast.unparse(node)
                if any(made in src for made in ("go.Figure(", "subplots(", "plain_figure(")):
                    yield path.name, node.name, src


def test_every_figure_builder_goes_through_style():
    """One look: a builder ends in style() (directly, or through heatmap() / output's _layout(),
    which call it); the builders of common.py itself are the style's parts, grid.py's the grids."""
    import re
    builders = list(_figure_builders())
    assert len(builders) >= 40
    skipped = [(f, n) for f, n, src in builders
               if f not in ("common.py", "grid.py") and not re.search(r"(?<!\w)(style|heatmap|_layout)\(", src)]
    assert skipped == []
    shadowed = [(f, n) for f, n, src in builders if re.search(r"(?<![\w.])style = ", src)]
    assert shadowed == []  # a local named style would hide the function


def test_style_keeps_the_template_of_the_trace_types_drawn():
    """A styled figure carries the default template's trace defaults for its own trace types only
    (plotly's template holds 24 types, 7 KB of every figure's JSON; Streamlit's, the default once
    Streamlit is imported, 10 types, 3.7 KB): what it draws keeps the same defaults."""
    import json

    import plotly.graph_objects as go
    import plotly.io as pio

    from rnnviz.figures.common import style

    full = pio.templates[pio.templates.default].to_plotly_json()
    fig = go.Figure([go.Bar(x=[1], y=[2]), go.Heatmap(z=[[1.0]])])
    sent = json.loads(pio.to_json(style(fig), validate=False))["layout"]["template"]
    drawn = [k for k in ("bar", "heatmap") if k in full["data"]]
    assert drawn and sorted(sent["data"]) == drawn
    assert {k: sent["data"][k] for k in drawn} == json.loads(json.dumps({k: full["data"][k] for k in drawn}))
    assert sent["layout"] == json.loads(json.dumps(full["layout"]))
    assert len(json.dumps(sent)) < len(json.dumps(full))
