"""The shared heatmap: exact hover values, NaN / inf shown as such with a legend."""
import math

import numpy as np

from rnnviz.figures.common import fmt, heatmap, nonfinite_note, step_labels


def test_fmt_spells_out_non_finite():
    assert [fmt(v) for v in (math.inf, -math.inf, math.nan, 0.12345)] == ["inf", "-inf", "NaN", "0.1235"]


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
