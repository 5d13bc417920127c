"""The teacher view's figures: a numeric checkpoint's histogram counted against a brute-force
count, and a learner's word escaped in the bars' tick text (plotly reads tags there)."""
from __future__ import annotations

import numpy as np
import pytest

from rnnviz.figures.classroom import answer_bars, answer_histogram, histogram_counts, histogram_edges

LABELS = {"title": "t", "x": "x", "y": "y", "round": "Round {round}", "right": "right", "wrong": "wrong"}


def brute(values, right, edges):
    ok, bad = [0] * (len(edges) - 1), [0] * (len(edges) - 1)
    for v, r in zip(values, right):
        i = next(i for i in range(len(edges) - 1)
                 if edges[i] <= v < edges[i + 1] or (i == len(edges) - 2 and v == edges[-1]))
        (ok if r else bad)[i] += 1
    return ok, bad


@pytest.mark.parametrize("tol", [None, 0.5, 4.0])
def test_histogram_counts_every_answer_once_in_its_bin(tol):
    rng = np.random.default_rng(3)
    values = list(np.round(rng.normal(-3.0, 1.5, 57), 2)) + [-3.0, -3.0]
    right = [abs(v + 3.1) <= 0.5 for v in values]
    edges = histogram_edges(values, tol)
    assert edges[0] <= min(values) and edges[-1] >= max(values) - 1e-9 and len(edges) - 1 <= 24
    if tol:
        assert np.allclose(np.diff(edges), max(tol, (max(values) - min(values)) / 24))
    ok, bad = histogram_counts(values, right, edges)
    assert (ok, bad) == brute(values, right, edges)
    assert sum(ok) + sum(bad) == len(values)


def test_one_value_gets_one_bin_and_rounds_stack_right_under_wrong():
    assert list(histogram_edges([-2.0, -2.0], 0.5)) == [-2.5, -1.5]
    fig = answer_histogram({"1": [(-2.0, True), (-4.0, False)], "2": [(-2.0, True), (-2.1, True)]}, LABELS, 0.5)
    bars = {b.name: b for b in fig.data}
    assert set(bars) == {"Round 1 · right", "Round 1 · wrong", "Round 2 · right", "Round 2 · wrong"}
    assert sum(bars["Round 2 · right"].y) == 2 and sum(bars["Round 2 · wrong"].y) == 0
    assert sum(bars["Round 1 · right"].y) == 1 and sum(bars["Round 1 · wrong"].y) == 1
    assert list(bars["Round 1 · wrong"].base) == list(bars["Round 1 · right"].y)  # stacked on the right ones


def test_a_learners_word_is_escaped_in_the_bars():
    fig = answer_bars({"1": {"w3": 2, "w4": 1}}, {"w3": "<b>dog</b>", "w4": "cat & co"}, {"w3"}, LABELS)
    assert sorted(fig.data[0].x) == ["&lt;b&gt;dog&lt;/b&gt;", "cat &amp; co"]
    assert dict(zip(fig.data[0].x, fig.data[0].y)) == {"&lt;b&gt;dog&lt;/b&gt;": 2, "cat &amp; co": 1}
