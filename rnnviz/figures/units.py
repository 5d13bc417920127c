"""Figures of "ask the model directly": one step's whole vector with the chosen unit marked, and
a per-position change (a clamp's delta log p or delta tag probability) as bars."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.common import step_labels, style

CHOSEN, OTHER = "#d62728", "#9bb7d4"


def step_vector(v, unit: int, labels: dict, split: int | None = None) -> go.Figure:
    """v (H,): h_t over the units, the chosen unit (0-based) in red. labels: title, x, y.
    split: a bidirectional model's forward units (names →u / ←u)."""
    v = np.asarray(v, dtype=float)
    H = len(v)
    names = [f"u{j + 1}" for j in range(H)] if split is None else (
        [f"→u{j + 1}" for j in range(split)] + [f"←u{j + 1}" for j in range(H - split)])
    fig = go.Figure(go.Bar(x=names, y=v, marker_color=[CHOSEN if j == unit else OTHER for j in range(H)],
                           hovertemplate="%{x}: %{y:.4f}<extra></extra>"))
    fig.update_layout(xaxis_title=labels["x"], yaxis_title=labels["y"])
    fig.update_xaxes(type="category")
    return style(fig, labels["title"], 300)


def change_bars(delta, tokens, labels: dict) -> go.Figure:
    """delta (n,): one change per position (the first n tokens label the bars). labels: title, y.
    Red below zero (the clamp made that token less likely), blue above."""
    d = np.asarray(delta, dtype=float)
    x = step_labels(tokens)[:len(d)]
    fig = go.Figure(go.Bar(x=x, y=d, marker_color=[CHOSEN if v < 0 else "#1f77b4" for v in d],
                           hovertemplate="%{x}: %{y:+.4f}<extra></extra>"))
    fig.update_layout(yaxis_title=labels["y"])
    fig.update_xaxes(type="category")
    return style(fig, labels["title"], 320)
