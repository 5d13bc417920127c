"""Figures of "ask the model directly": one step's whole vector with the chosen unit marked, and
a per-position change (a clamp's delta log p or delta tag probability) as bars."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.common import step_labels, style

from .grid import plain_figure

CHOSEN, OTHER = "#d62728", "#9bb7d4"


def step_vector(v, unit: int, labels: dict, split: int | None = None) -> go.Figure:
    """v (H,): h_t over the units, the chosen unit (0-based) in red. labels: title, x, y.
    split: a bidirectional model's forward units (names →u / ←u)."""
    v = np.asarray(v, dtype=float)
    H = len(v)
    names = [f"u{j + 1}" for j in range(H)] if split is None else (
        [f"→u{j + 1}" for j in range(split)] + [f"←u{j + 1}" for j in range(H - split)])
    data = [{"type": "bar", "hovertemplate": "%{x}: %{y:.4f}<extra></extra>",
             "marker": {"color": [CHOSEN if j == unit else OTHER for j in range(H)]}, "x": names, "y": v}]
    layout = {"xaxis": {"title": {"text": labels["x"]}, "type": "category"},
              "yaxis": {"title": {"text": labels["y"]}}}
    return style(plain_figure(data, layout), labels["title"], 300)


def change_bars(delta, tokens, labels: dict) -> go.Figure:
    """delta (n,): one change per position (the first n tokens label the bars). labels: title, y.
    Red below zero (the clamp made that token less likely), blue above."""
    d = np.asarray(delta, dtype=float)
    x = step_labels(tokens)[:len(d)]
    data = [{"type": "bar", "hovertemplate": "%{x}: %{y:+.4f}<extra></extra>",
             "marker": {"color": [CHOSEN if v < 0 else "#1f77b4" for v in d]}, "x": x, "y": d}]
    layout = {"yaxis": {"title": {"text": labels["y"]}}, "xaxis": {"type": "category"}}
    return style(plain_figure(data, layout), labels["title"], 320)
