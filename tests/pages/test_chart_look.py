"""ui/charts.streamlit_look: a figure in Streamlit's light look with no template left, so that
Plotly.react finds nothing to redraw in the chart component's second pass (issue 24). How it
looks is checked in Chromium (tests/browser/test_chart_look.py); here, what it writes."""
from __future__ import annotations

import base64
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
import streamlit  # noqa: F401 - registers Streamlit's plotly template, the app's default

from rnnviz.figures.common import heatmap, style
from rnnviz.figures.wire import LIST_MAX
from ui.charts import STREAMLIT_LIGHT, LookedFigure, looked, streamlit_look

pytestmark = pytest.mark.pages


def _bars() -> dict:
    fig = go.Figure([go.Bar(x=np.arange(5.0), y=list("abcde"), orientation="h"),
                     go.Scatter(x=np.arange(3.0), y=np.arange(3.0), xaxis="x2", yaxis="y2")])
    fig.update_layout(xaxis2={"domain": [0.6, 1]}, yaxis2={"anchor": "x2"})
    return style(fig, "Bars").to_plotly_json()


def test_no_template_is_left_and_streamlits_placeholders_are_its_colours():
    fig = _bars()
    assert "template" in fig["layout"] and "#000001" in json.dumps(fig["layout"]["template"])
    out = streamlit_look(fig)
    assert "template" not in out["layout"]
    assert out["layout"]["colorway"][0] == "#0068c9"  # Streamlit's first categorical colour
    assert "#0000" not in json.dumps(out, default=str)
    assert "template" in fig["layout"]  # pure: the figure given is left as it was


def test_the_figures_own_settings_win_over_the_theme():
    out = streamlit_look(_bars())["layout"]
    assert out["title"]["text"] == "Bars" and out["title"]["font"]["weight"] == "bold"
    assert out["title"]["font"]["color"] == "#31333F"  # style()'s dark title, not the theme's
    assert out["margin"]["l"] == 10 and out["margin"]["pad"] == STREAMLIT_LIGHT["margin"]["pad"]
    assert out["xaxis"]["tickfont"]["color"] == "#31333F"
    assert out["paper_bgcolor"] == "#FFFFFF"


def test_every_axis_gets_the_axis_defaults_but_a_bar_category_axis_no_grid():
    out = streamlit_look(_bars())["layout"]
    assert out["xaxis2"]["automargin"] and out["yaxis2"]["gridcolor"] == "#e6eaf1"
    assert "gridcolor" not in out["yaxis"] and "zerolinecolor" not in out["yaxis"]  # h bars: y is the category axis
    assert out["xaxis"]["showgrid"] is False  # the theme's own setting for x axes
    assert not any("tickcolor" in out[a] for a in ("xaxis", "yaxis", "xaxis2", "yaxis2"))  # ticks stay off


def test_a_heatmaps_axes_keep_the_themes_tick_colour():
    fig = heatmap(np.ones((3, 4)), list("abcd"), list("xyz"), "H", "x", "y", "v").to_plotly_json()
    out = streamlit_look(fig)["layout"]
    assert out["xaxis"]["tickcolor"] == out["yaxis"]["tickcolor"] == "#e6eaf1"  # Plotly draws their ticks


def test_short_arrays_go_as_lists_and_the_revision_follows_the_data():
    def fig(y, *more):
        return {"data": [{"type": "scatter", "y": y, "marker": {"color": y}}, *more], "layout": {}}
    small = np.arange(4.0)
    out = streamlit_look(fig(small))
    assert out["data"][0]["y"] == [0.0, 1.0, 2.0, 3.0] and out["data"][0]["marker"]["color"] == [0.0, 1.0, 2.0, 3.0]
    b64 = {"dtype": "f8", "bdata": base64.b64encode(small.tobytes()).decode()}  # as some builders write it
    assert streamlit_look(fig(b64))["data"][0]["y"] == [0.0, 1.0, 2.0, 3.0]
    again, moved = streamlit_look(fig(small.copy())), streamlit_look(fig(small + 1))
    assert again["layout"]["datarevision"] == out["layout"]["datarevision"] != moved["layout"]["datarevision"]


def test_an_array_with_nan_stays_base64_and_keeps_the_others_so():
    """JSON has no NaN (it would arrive as null): a blank cell's array stays typed, so all do."""
    z = np.array([[1.0, np.nan], [0.5, 2.0]])
    out = streamlit_look({"data": [{"type": "heatmap", "z": z}, {"type": "scatter", "y": np.arange(3.0)}],
                          "layout": {}})
    assert isinstance(out["data"][0]["z"], np.ndarray) and isinstance(out["data"][1]["y"], np.ndarray)


def test_one_long_array_keeps_every_array_base64():
    """Plotly redraws a figure with any typed array anyway: lists would only cost bytes."""
    out = streamlit_look({"data": [{"type": "scatter", "y": np.arange(4.0)},
                                   {"type": "heatmap", "z": np.zeros((LIST_MAX + 1,))}], "layout": {}})
    assert isinstance(out["data"][0]["y"], np.ndarray) and isinstance(out["data"][1]["z"], np.ndarray)


def test_a_looked_figure_is_sent_as_it_is():
    fig = looked(go.Figure(go.Bar(y=[1, 2])))
    assert isinstance(fig, LookedFigure) and fig.to_dict()["layout"]["datarevision"]
    sent = json.loads(pio.to_json(fig.to_dict(), validate=False))
    assert sent["data"][0]["y"] == [1, 2] and "template" not in sent["layout"]


def test_every_chart_is_shown_through_ui_charts():
    """A st.plotly_chart call elsewhere would send the template and be drawn twice per change."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    calls = [f"{p.relative_to(root)}:{n}" for d in ("ui", "pages") for p in sorted((root / d).rglob("*.py"))
             if p.name != "charts.py"
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "st.plotly_chart(" in line]
    assert calls == []
