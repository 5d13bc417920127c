"""Shared figure pieces: labelled heatmaps that survive NaN and inf, axis labels for steps."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .. import limits
from ..formatting import num
from ..safe_text import short


def step_labels(tokens) -> list[str]:
    """'1 I', '2 like', ...: unique labels (a repeated token would merge on a category axis).
    A long token is shortened (the step number keeps the labels unique)."""
    return [f"{t + 1} {short(tok, limits.MAX_LABEL_CHARS)}" for t, tok in enumerate(tokens)]


fmt = num  # the one number formatter (rnnviz.formatting.num), under its old name


def nonfinite_note(z) -> str:
    """'2 cells are inf, 1 is NaN (blank in the map)' or '' when every value is finite."""
    z = np.asarray(z, dtype=float)
    parts = [f"{n} {'cell is' if n == 1 else 'cells are'} {name}"
             for name, n in (("inf", int(np.isposinf(z).sum())), ("-inf", int(np.isneginf(z).sum())),
                             ("NaN", int(np.isnan(z).sum()))) if n]
    return ", ".join(parts) + " (blank in the map; hover shows the value)" if parts else ""


def heatmap(z, x, y, title: str, x_title: str, y_title: str, colorbar: str,
            colorscale: str = "RdBu", zmid: float | None = 0.0, hover_name: str = "value",
            blank_note: str | None = None) -> go.Figure:
    """A heatmap with every cell's exact value on hover; NaN / inf cells are blank and say so.

    blank_note replaces the automatic legend for blank cells (e.g. "above the diagonal: no path").
    """
    z = np.asarray(z, dtype=float)
    text = np.vectorize(fmt)(z) if z.size else z.astype(str)
    shown = np.where(np.isfinite(z), z, np.nan)
    fig = go.Figure(go.Heatmap(
        z=shown, x=list(x), y=list(y), customdata=text, colorscale=colorscale, zmid=zmid,
        colorbar={"title": {"text": colorbar}},
        hovertemplate=(f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{hover_name}: %{{customdata}}"
                       "<extra></extra>"),
    ))
    fig.update_layout(title={"text": title}, xaxis_title=x_title, yaxis_title=y_title,
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    note = nonfinite_note(z) if blank_note is None else blank_note
    if note:
        fig.add_annotation(text=note, xref="paper", yref="paper", x=0, y=1.0, yanchor="bottom",
                           showarrow=False, font={"size": 11, "color": "#555"})
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category")
    return fig
