"""Figures for the embedding page: E with the looked-up rows boxed, the gradient, which rows an
update moved, the PCA map of the vocabulary, and a padded batch. Arrays in, go.Figure out."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.common import heatmap, style
from rnnviz.formatting import num

from .grid import subplots


def _box_rows(fig: go.Figure, rows, n_cols: int, color: str = "black") -> go.Figure:
    """Outline whole rows of a category heatmap (row positions are 0, 1, ... in data units)."""
    for r in sorted(set(int(r) for r in rows)):
        fig.add_shape(type="rect", x0=-0.5, x1=n_cols - 0.5, y0=r - 0.5, y1=r + 0.5,
                      line={"color": color, "width": 3})
    return fig


def matrix_figure(M, row_labels, title: str, boxed=(), colorbar: str = "value",
                  hover_name: str = "value", y_title: str = "id, token",
                  x_title: str = "embedding dimension", dim: str = "dim {j}") -> go.Figure:
    """A V x d (or T x d) matrix as a heatmap, columns 'dim 1..d', with the `boxed` rows outlined.
    Every label is an argument (English defaults) so the page can pass the learner's language."""
    M = np.asarray(M, dtype=float)
    d = M.shape[1]
    fig = heatmap(M, x=[dim.format(j=j + 1) for j in range(d)], y=list(row_labels), title=title,
                  x_title=x_title, y_title=y_title, colorbar=colorbar,
                  hover_name=hover_name)
    fig.update_layout(height=max(260, min(1400, 60 + 18 * M.shape[0])))
    return _box_rows(fig, boxed, d)


ROW_CHANGE_LABELS = {"looked": "looked up", "not_looked": "not looked up", "row": "row",
                     "change": "change", "x": "row of E (id, token)",
                     "y": "size of the change ||ΔE[k]||"}


def row_change_figure(labels, change, looked_up, title: str, text: dict | None = None) -> go.Figure:
    """||E_new[k] - E[k]|| for every row: dark bars for rows the sentence looked up.
    text: the figure's words (ROW_CHANGE_LABELS' keys), English by default."""
    w = {**ROW_CHANGE_LABELS, **(text or {})}
    change = np.asarray(change, dtype=float)
    looked = set(int(i) for i in looked_up)
    colors = ["#1f4e79" if k in looked else "#e6862c" for k in range(len(change))]
    fig = go.Figure(go.Bar(
        x=list(labels), y=change, marker_color=colors,
        customdata=[[num(v), w["looked"] if k in looked else w["not_looked"]]
                    for k, v in enumerate(change)],
        hovertemplate=(f"{w['row']} %{{x}}<br>{w['change']}: %{{customdata[0]}}<br>%{{customdata[1]}}"
                       "<extra></extra>")))
    fig.update_layout(title={"text": title}, xaxis_title=w["x"],
                      yaxis_title=w["y"], height=360)
    fig.update_xaxes(type="category")
    return style(fig)


PCA_LABELS = {"other": "other words", "in": "in the sentence", "axis": "PC{k} ({pct}% of the variance)"}


def pca_figure(coords, labels, highlight, share, title: str, text: dict | None = None) -> go.Figure:
    """Every word of the vocabulary on its 2 main directions; the sentence's words in colour.
    text: the legend and axis words (PCA_LABELS' keys), English by default."""
    w = {**PCA_LABELS, **(text or {})}
    coords = np.asarray(coords, dtype=float)
    hi = set(int(i) for i in highlight)
    fig = go.Figure()
    for group, name, color in ((False, w["other"], "#9aa5b1"), (True, w["in"], "#c0392b")):
        idx = [k for k in range(len(labels)) if (k in hi) == group]
        fig.add_trace(go.Scatter(
            x=coords[idx, 0], y=coords[idx, 1], mode="markers+text", name=name,
            text=[labels[k] for k in idx], textposition="top center",
            marker={"color": color, "size": 9 if group else 6},
            hovertemplate="%{text}<br>PC1 %{x:.3f}<br>PC2 %{y:.3f}<extra></extra>"))
    fig.update_layout(title={"text": title}, height=480,
                      xaxis_title=w["axis"].format(k=1, pct=f"{100 * float(share[0]):.0f}"),
                      yaxis_title=w["axis"].format(k=2, pct=f"{100 * float(share[1]):.0f}"),
                      legend={"orientation": "h", "y": -0.15})
    return style(fig)


BATCH_LABELS = {"sentence": "sentence {b} (T x d = {T} x {d})", "pad": "pad", "dim": "dim {j}",
                "value": "x value", "step": "step", "x": "embedding dimension"}


def batch_figure(X, mask, token_rows, title: str, text: dict | None = None) -> go.Figure:
    """B x T x d as B stacked T x d heatmaps; padded positions are labelled 'pad' and are zero.
    text: the figure's words (BATCH_LABELS' keys), English by default."""
    w = {**BATCH_LABELS, **(text or {})}
    X, mask = np.asarray(X, dtype=float), np.asarray(mask, dtype=bool)
    B, T, d = X.shape
    fig = subplots(rows=B, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                   subplot_titles=[w["sentence"].format(b=b + 1, T=T, d=d) for b in range(B)])
    lim = float(np.nanmax(np.abs(X))) if np.isfinite(X).any() and X.size else 1.0
    for b in range(B):
        y = [f"t={t + 1} {token_rows[b][t] if mask[b, t] else w['pad']}" for t in range(T)]
        fig.add_trace(go.Heatmap(
            z=X[b], x=[w["dim"].format(j=j + 1) for j in range(d)], y=y, colorscale="RdBu", zmid=0,
            zmin=-lim, zmax=lim, showscale=(b == 0), colorbar={"title": {"text": w["value"]}},
            customdata=np.vectorize(num)(X[b]),
            hovertemplate=f"%{{y}}<br>%{{x}}<br>{w['value']}: %{{customdata}}<extra></extra>"),
            row=b + 1, col=1)
        fig.update_yaxes(autorange="reversed", type="category", title_text=w["step"], row=b + 1, col=1)
    fig.update_xaxes(title_text=w["x"], row=B, col=1)
    fig.update_layout(title={"text": title}, height=140 + B * (40 + 22 * T))
    return style(fig, top=70)
