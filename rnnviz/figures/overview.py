"""Figures for the overview page."""
from __future__ import annotations

import plotly.graph_objects as go

from .common import heatmap, step_labels


def hidden_heatmap(h, tokens, title: str = "Hidden states h_t (tokens x hidden units)") -> go.Figure:
    """h (T, H) as a tokens x units heatmap, values in (-1, 1) for tanh."""
    H = h.shape[1]
    return heatmap(h, x=[f"u{j + 1}" for j in range(H)], y=step_labels(tokens), title=title,
                   x_title="hidden unit", y_title="step t, input token", colorbar="h value",
                   hover_name="h")
