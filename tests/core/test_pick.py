"""The clickable-heatmap layer (rnnviz.figures.pick): one invisible marker per cell carrying its
(row, col), the heatmap's hover repeated, a ring on the chosen cell, and the click read back."""
import numpy as np
import pytest

from rnnviz.figures.bptt import log_norm_heatmap
from rnnviz.figures.hidden import time_heatmap
from rnnviz.figures.pick import MAX_POINTS, clickable, picked

pytestmark = pytest.mark.core


def test_markers_carry_row_and_col():
    N = np.tril(np.arange(1.0, 10.0).reshape(3, 3))
    N[np.triu_indices(3, 1)] = np.nan
    fig = clickable(log_norm_heatmap(N, ["a", "b", "c"], "T", "c", "h"), chosen=(2, 0))
    hm, layer, _, ring = fig.data
    assert len(layer.x) == 9 and [list(c) for c in layer.customdata][5] == [1, 2]
    assert layer.x[5] == hm.x[2] and layer.y[5] == hm.y[1]  # the marker sits on its cell
    assert layer.marker.opacity == 0 and "%{text}" in layer.hovertemplate
    assert layer.text[3] == np.asarray(hm.customdata)[1, 0]  # the heatmap's own hover text
    assert ring.x == (hm.x[0],) and ring.y == (hm.y[2],)
    assert picked([{"customdata": [2, 1], "x": "3 c"}]) == (2, 1)
    assert picked([]) is None and picked(None) is None


def test_too_many_cells_keep_the_ring_only():
    h = np.zeros((MAX_POINTS // 8 + 1, 8))  # (T, H): one row more than fits
    fig = clickable(time_heatmap(h, [str(i) for i in range(h.shape[0])]), chosen=(0, 0))
    assert len(fig.data) == 3 and fig.data[1].marker.symbol == "square-open"
    out = clickable(time_heatmap(np.zeros((3, 2)), ["a", "b", "c"]), chosen=(5, 5))  # outside: no ring
    assert len(out.data) == 2


def test_a_chart_that_reports_cell_clicks_itself_gets_the_ring_only():
    """layer=False (the chart drawn in place reports a heatmap cell's click: ui/plotly_chart.js):
    no marker layer, whatever the size; the ring and the click mode as with it."""
    N = np.tril(np.arange(1.0, 10.0).reshape(3, 3))
    fig = clickable(log_norm_heatmap(N, ["a", "b", "c"], "T", "c", "h"), chosen=(2, 0), layer=False)
    hm, *rings = fig.data
    assert hm.type == "heatmap" and [r.marker.symbol for r in rings] == ["square-open", "square-open"]
    assert rings[0].x == (hm.x[0],) and rings[0].y == (hm.y[2],)
    assert fig.layout.clickmode == "event+select"
    assert len(clickable(log_norm_heatmap(N, ["a", "b", "c"], "T", "c", "h"), (2, 0)).data) == 4  # with it
