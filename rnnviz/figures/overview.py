"""Figures for the overview page."""
from __future__ import annotations

import plotly.graph_objects as go

from rnnviz.figures.hidden import time_heatmap

HEATMAP_LABELS = {"title": "Hidden states h_t (time left to right, one row per unit)",
                  "x": "step t, input token", "y": "hidden unit", "colorbar": "h value"}

def hidden_heatmap(h, tokens, title: str | None = None, labels: dict | None = None) -> go.Figure:
    """h (T, H) in the one orientation of every h_t heatmap (page 2's too): steps (tokens) on
    the x axis left to right, hidden units on the y axis. `labels` (keys of HEATMAP_LABELS)
    gives the words in the learner's language; English by default."""
    lab = HEATMAP_LABELS | (labels or {})
    return time_heatmap(h, tokens, None, "h", None, title=title or lab["title"],
                        labels={k: lab[k] for k in ("x", "y", "colorbar")})
