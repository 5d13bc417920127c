"""Figures for the overview page."""
from __future__ import annotations

import plotly.graph_objects as go

from .hidden import time_heatmap


def hidden_heatmap(h, tokens, title: str = "Hidden states h_t (time left to right, one row per unit)",
                   labels: dict | None = None) -> go.Figure:
    """h (T, H) in the one orientation of every h_t heatmap (page 2's too): steps (tokens) on
    the x axis left to right, hidden units on the y axis. labels: x, y, colorbar."""
    return time_heatmap(h, tokens, None, "h", None, title=title, labels=labels)
