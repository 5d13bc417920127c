"""Word2Vec figures carry the numbers they were given: roles in the window, the loss values,
coordinates with labels, overlap bars, titles and axis labels."""
from __future__ import annotations

import numpy as np

from rnnviz.explain import word2vec as w2v
from rnnviz.figures import word2vec as figs


def test_window_figure_marks_centre_context_and_outside():
    toks = "Arrive Taipei on November 2nd".split()
    span = w2v.window_span(len(toks), 1, 1)
    fig = figs.window_figure(toks, 1, span, "window")
    bar = fig.data[0]
    roles = [c[0] for c in bar.customdata]
    assert roles == ["context", "centre", "context", "outside the window", "outside the window"]
    assert bar.customdata[0][1] == "pair (Taipei, Arrive)" and bar.customdata[2][1] == "pair (Taipei, on)"
    assert list(bar.x) == ["1 Arrive", "2 Taipei", "3 on", "4 November", "5 2nd"]
    box = fig.layout.shapes[0]
    assert (box.x0, box.x1) == (-0.5, 2.5)
    assert fig.layout.title.text == "window" and fig.layout.xaxis.title.text
    # the pairs the figure names are exactly the window's pairs for that centre
    named = {c[1] for c in bar.customdata if c[1]}
    assert named == {f"pair ({p.centre}, {p.context})" for p in w2v.window_pairs(toks, 1) if p.centre_pos == 1}


def test_loss_curve_and_checkpoints():
    hist = [{"step": s, "loss": 4.0 / s} for s in range(1, 6)]
    fig = figs.loss_curve(hist, "loss", checkpoints=(2, 4))
    assert list(fig.data[0].x) == [1, 2, 3, 4, 5] and list(fig.data[0].y) == [4.0 / s for s in range(1, 6)]
    assert fig.data[0].customdata[1] == "2" and len(fig.layout.shapes) == 2
    assert fig.layout.xaxis.title.text == "step" and "log σ" in fig.layout.yaxis.title.text


def test_projection_and_overlap_figures():
    coords = np.array([[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]])
    fig = figs.projection_figure(coords, ["cats", "dogs", "fish"], np.array([0.6, 0.3]), "map",
                                 highlight=["dogs"])
    grey, red = fig.data
    assert list(grey.text) == ["cats", "fish"] and list(grey.x) == [0.0, 0.5]
    assert list(red.text) == ["dogs"] and list(red.y) == [-1.0]
    assert fig.layout.xaxis.title.text.startswith("axis 1 (60%")
    ov = figs.overlap_figure({"a": 2, "b": 0}, 3, 1.5, "overlap")
    assert list(ov.data[0].y) == [2, 0] and ov.layout.shapes[0].y0 == 1.5
    assert ov.layout.yaxis.title.text == "neighbours shared (of 3)"
