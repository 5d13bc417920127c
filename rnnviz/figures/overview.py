"""Figures for the overview page."""
from __future__ import annotations

import plotly.graph_objects as go

from .common import heatmap, step_labels

HEATMAP_LABELS = {"title": "Hidden states h_t (tokens x hidden units)", "x": "hidden unit",
                  "y": "step t, input token", "colorbar": "h value"}


def hidden_heatmap(h, tokens, title: str | None = None, labels: dict | None = None) -> go.Figure:
    """h (T, H) as a tokens x units heatmap, values in (-1, 1) for tanh. `labels` (keys of
    HEATMAP_LABELS) gives the words in the learner's language; English by default."""
    lab = HEATMAP_LABELS | (labels or {})
    H = h.shape[1]
    return heatmap(h, x=[f"u{j + 1}" for j in range(H)], y=step_labels(tokens), title=title or lab["title"],
                   x_title=lab["x"], y_title=lab["y"], colorbar=lab["colorbar"], hover_name="h")
