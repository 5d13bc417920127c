"""Shared figure pieces: labelled heatmaps that survive NaN and inf, axis labels for steps."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go


def step_labels(tokens) -> list[str]:
    """'1 I', '2 like', ...: unique labels (a repeated token would merge on a category axis)."""
    return [f"{t + 1} {tok}" for t, tok in enumerate(tokens)]


def fmt(v: float, digits: int = 4) -> str:
    """A number for a hover or a table: 'inf', '-inf' and 'NaN' spelled out."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.{digits}g}"


def heatmap(z, x, y, title: str, x_title: str, y_title: str, colorbar: str,
            colorscale: str = "RdBu", zmid: float | None = 0.0, hover_name: str = "value") -> go.Figure:
    """A heatmap with every cell's exact value on hover; NaN / inf cells are blank and say so."""
    z = np.asarray(z, dtype=float)
    text = np.vectorize(fmt)(z) if z.size else z.astype(str)
    shown = np.where(np.isfinite(z), z, np.nan)
    fig = go.Figure(go.Heatmap(
        z=shown, x=list(x), y=list(y), customdata=text, colorscale=colorscale, zmid=zmid,
        colorbar={"title": {"text": colorbar}},
        hovertemplate=f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{hover_name}: %{{customdata}}<extra></extra>",
    ))
    fig.update_layout(title={"text": title}, xaxis_title=x_title, yaxis_title=y_title,
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category")
    return fig
