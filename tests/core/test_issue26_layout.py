"""Issue 26's browser-review leftovers that a figure can be checked for without a browser:
text contrast >= 4.5:1 (the shared style), page 4's J_t colour bars inside their own panels,
page 4's by-source chart coloured by one scale (a colour bar, not 10 colours and 2 legend
entries), page 8's three maps stacked full width, page 6's log axis labelled on decades only,
and subscripts rendered in plain-text places."""
import numpy as np
import pytest

from rnnviz.figures import bptt as figs
from rnnviz.figures import gates as gfigs
from rnnviz.figures import hidden as hfigs
from rnnviz.figures.common import AXIS_TEXT, MUTED_TEXT, contrast, style
from rnnviz.figures.train import loss_curve

TERMS = {k: np.array([0.1, -0.2, 0.3]) for k in ("Wx_x", "Wh_h", "b", "a", "h")}


def test_contrast_formula_and_the_shared_colours():
    assert contrast("#000000") == pytest.approx(21.0) and contrast("#FFFFFF") == pytest.approx(1.0)
    assert contrast("#808495") < 4.5  # Streamlit's grey: what the review measured (~3.7:1)
    assert contrast(AXIS_TEXT) >= 4.5 and contrast(MUTED_TEXT) >= 4.5


def _text_colours(fig) -> list[str]:
    lay = fig.layout
    out = [lay.font.color, lay.legend.font.color, lay.title.font.color]
    for name in ("xaxis", "yaxis", "xaxis2", "yaxis2", "xaxis3", "yaxis3"):
        ax = getattr(lay, name, None)
        if ax is not None and ax.tickfont.color is not None:
            out += [ax.tickfont.color, ax.title.font.color]
    out += [a.font.color for a in lay.annotations if a.font.color]
    return out


@pytest.mark.parametrize("make", [
    lambda: hfigs.step_terms_bar(TERMS),
    lambda: figs.scalar_chain_plot([1, 0.5, 0.25], 0.5, bound=[1, 0.5, 0.25]),
    lambda: figs.jacobian_parts(np.ones(3), np.eye(3), np.eye(3), 1),
    lambda: gfigs.influence_heatmaps({c: np.tril(np.ones((4, 4))) for c in "abc"}, list("wxyz")),
    lambda: style(__import__("plotly.graph_objects").graph_objects.Figure(), "t"),
])
def test_every_figure_text_is_at_least_4_5_to_1(make):
    colours = _text_colours(make())
    assert colours and all(c is not None and contrast(c) >= 4.5 for c in colours), colours


def test_jacobian_colour_bars_stay_under_their_own_panels():
    fig = figs.jacobian_parts(np.ones(4), np.eye(4), 0.5 * np.eye(4), 2)
    maps = [tr for tr in fig.data if tr.type == "heatmap"]
    assert len(maps) == 2
    for hm in maps:
        lo, hi = fig.layout["xaxis" + hm.xaxis[1:]].domain
        cb = hm.colorbar
        assert cb.orientation == "h" and cb.y < 0  # flat, below the panel
        assert lo - 1e-9 <= cb.x - cb.len / 2 and cb.x + cb.len / 2 <= hi + 1e-9  # never over the next one


def test_by_source_chart_colours_later_losses_by_one_scale():
    t, steps = 0, list(range(11))  # the direct part and 10 later losses: grouped in the legend
    fig = figs.paths_bar(np.ones((11, 3)), steps, t, [f"w{i}" for i in range(11)])
    bars = [tr for tr in fig.data if tr.type == "bar"]
    later = bars[1:]
    colours = [tr.marker.color for tr in later]
    assert len(set(colours)) == 10 and bars[0].marker.color == figs.DIRECT_COLOR
    assert colours[0] == figs.later_color(2, 2, 11) and colours[-1] == figs.later_color(11, 2, 11)
    darkness = [sum(int(c[i:i + 2], 16) if c.startswith("#") else 0 for i in (1, 3, 5)) for c in colours] \
        if colours[0].startswith("#") else [sum(map(int, c[4:-1].split(","))) for c in colours]
    assert darkness == sorted(darkness, reverse=True)  # near (light) to far (dark): one continuous scale
    scale = [tr for tr in fig.data if tr.type == "scatter" and tr.marker.colorbar.title.text]
    assert len(scale) == 1 and (scale[0].marker.cmin, scale[0].marker.cmax) == (2, 11)
    shown = [tr.name for tr in fig.data if tr.showlegend is not False]
    assert len(shown) <= 3  # direct, the later group, total


def test_page_eight_maps_are_stacked_full_width():
    fig = gfigs.influence_heatmaps({c: np.tril(np.ones((6, 6))) for c in ("Elman", "LSTM", "GRU")},
                                   [str(i) for i in range(6)])
    doms = [fig.layout[a].domain for a in ("xaxis", "xaxis2", "xaxis3")]
    assert all(d[1] - d[0] > 0.95 for d in doms)  # each map as wide as the chart, on a phone too
    ys = sorted(fig.layout[a].domain for a in ("yaxis", "yaxis2", "yaxis3"))
    assert all(a[1] <= b[0] for a, b in zip(ys, ys[1:]))  # one above the other, not overlapping


def test_page_six_log_axis_labels_decades_only():
    fig = loss_curve(list(range(1, 30)), list(np.linspace(4, 2, 29)), 5, vocab_size=50)
    ax = fig.layout.yaxis2
    assert ax.type == "log" and float(ax.dtick).is_integer() and ax.tickvals is None
