"""Figures for the embedding page: E with the looked-up rows boxed, the gradient, which rows an
update moved, the PCA map of the vocabulary, and a padded batch. Arrays in, go.Figure out."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import fmt, heatmap


def _box_rows(fig: go.Figure, rows, n_cols: int, color: str = "black") -> go.Figure:
    """Outline whole rows of a category heatmap (row positions are 0, 1, ... in data units)."""
    for r in sorted(set(int(r) for r in rows)):
        fig.add_shape(type="rect", x0=-0.5, x1=n_cols - 0.5, y0=r - 0.5, y1=r + 0.5,
                      line={"color": color, "width": 3})
    return fig


def matrix_figure(M, row_labels, title: str, boxed=(), colorbar: str = "value",
                  hover_name: str = "value", y_title: str = "id, token") -> go.Figure:
    """A V x d (or T x d) matrix as a heatmap, columns 'dim 1..d', with the `boxed` rows outlined."""
    M = np.asarray(M, dtype=float)
    d = M.shape[1]
    fig = heatmap(M, x=[f"dim {j + 1}" for j in range(d)], y=list(row_labels), title=title,
                  x_title="embedding dimension", y_title=y_title, colorbar=colorbar,
                  hover_name=hover_name)
    fig.update_layout(height=max(260, min(1400, 60 + 18 * M.shape[0])))
    return _box_rows(fig, boxed, d)


def row_change_figure(labels, change, looked_up, title: str) -> go.Figure:
    """||E_new[k] - E[k]|| for every row: dark bars for rows the sentence looked up."""
    change = np.asarray(change, dtype=float)
    looked = set(int(i) for i in looked_up)
    colors = ["#1f4e79" if k in looked else "#e6862c" for k in range(len(change))]
    fig = go.Figure(go.Bar(
        x=list(labels), y=change, marker_color=colors,
        customdata=[[fmt(v), "looked up" if k in looked else "not looked up"]
                    for k, v in enumerate(change)],
        hovertemplate="row %{x}<br>change: %{customdata[0]}<br>%{customdata[1]}<extra></extra>"))
    fig.update_layout(title={"text": title}, xaxis_title="row of E (id, token)",
                      yaxis_title="size of the change ||ΔE[k]||", height=360,
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    fig.update_xaxes(type="category")
    return fig


def pca_figure(coords, labels, highlight, share, title: str) -> go.Figure:
    """Every word of the vocabulary on its 2 main directions; the sentence's words in colour."""
    coords = np.asarray(coords, dtype=float)
    hi = set(int(i) for i in highlight)
    fig = go.Figure()
    for group, name, color in ((False, "other words", "#9aa5b1"), (True, "in the sentence", "#c0392b")):
        idx = [k for k in range(len(labels)) if (k in hi) == group]
        fig.add_trace(go.Scatter(
            x=coords[idx, 0], y=coords[idx, 1], mode="markers+text", name=name,
            text=[labels[k] for k in idx], textposition="top center",
            marker={"color": color, "size": 9 if group else 6},
            hovertemplate="%{text}<br>PC1 %{x:.3f}<br>PC2 %{y:.3f}<extra></extra>"))
    fig.update_layout(title={"text": title}, height=480, margin={"l": 10, "r": 10, "t": 50, "b": 10},
                      xaxis_title=f"PC1 ({100 * float(share[0]):.0f}% of the variance)",
                      yaxis_title=f"PC2 ({100 * float(share[1]):.0f}% of the variance)",
                      legend={"orientation": "h", "y": -0.15})
    return fig


def batch_figure(X, mask, token_rows, title: str) -> go.Figure:
    """B x T x d as B stacked T x d heatmaps; padded positions are labelled 'pad' and are zero."""
    X, mask = np.asarray(X, dtype=float), np.asarray(mask, dtype=bool)
    B, T, d = X.shape
    fig = make_subplots(rows=B, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=[f"sentence {b + 1} (T x d = {T} x {d})" for b in range(B)])
    lim = float(np.nanmax(np.abs(X))) if np.isfinite(X).any() and X.size else 1.0
    for b in range(B):
        y = [f"t={t + 1} {token_rows[b][t]}" if mask[b, t] else f"t={t + 1} pad" for t in range(T)]
        fig.add_trace(go.Heatmap(
            z=X[b], x=[f"dim {j + 1}" for j in range(d)], y=y, colorscale="RdBu", zmid=0,
            zmin=-lim, zmax=lim, showscale=(b == 0), colorbar={"title": {"text": "x value"}},
            customdata=np.vectorize(fmt)(X[b]),
            hovertemplate="%{y}<br>%{x}<br>value: %{customdata}<extra></extra>"), row=b + 1, col=1)
        fig.update_yaxes(autorange="reversed", type="category", title_text="step", row=b + 1, col=1)
    fig.update_xaxes(title_text="embedding dimension", row=B, col=1)
    fig.update_layout(title={"text": title}, height=140 + B * (40 + 22 * T),
                      margin={"l": 10, "r": 10, "t": 70, "b": 10})
    return fig
