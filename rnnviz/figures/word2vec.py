"""Figures for Word2Vec (note 004): the window sliding over a sentence, the SGNS loss curve,
and the learned vectors on a 2-D projection with word labels. Arrays in, go.Figure out."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import fmt

_MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}


def window_figure(tokens, centre: int, span: tuple[int, int], title: str) -> go.Figure:
    """The sentence as a row of words: the centre word dark, its context words (inside the
    window span [lo, hi), 0-based) light, the rest grey; hover names each word's role and pair."""
    tokens = list(tokens)
    lo, hi = span
    roles = ["centre" if t == centre else ("context" if lo <= t < hi else "outside the window")
             for t in range(len(tokens))]
    colors = {"centre": "#1f4e79", "context": "#7fb3d5", "outside the window": "#d5d8dc"}
    pair = [f"pair ({tokens[centre]}, {tok})" if r == "context" else "" for tok, r in zip(tokens, roles)]
    fig = go.Figure(go.Bar(
        x=[f"{t + 1} {tok}" for t, tok in enumerate(tokens)], y=[1] * len(tokens),
        marker_color=[colors[r] for r in roles], text=tokens, textposition="inside",
        customdata=[[r, p] for r, p in zip(roles, pair)],
        hovertemplate="%{x}<br>%{customdata[0]}<br>%{customdata[1]}<extra></extra>"))
    fig.add_shape(type="rect", x0=lo - 0.5, x1=hi - 0.5, y0=0, y1=1.08,
                  line={"color": "#c0392b", "width": 2})
    fig.update_layout(title={"text": title}, height=220, margin=_MARGIN, showlegend=False,
                      xaxis_title="position and word (the red box is the window)",
                      yaxis={"visible": False, "range": [0, 1.15]})
    fig.update_xaxes(type="category")
    return fig


def loss_curve(history, title: str, checkpoints=()) -> go.Figure:
    """The SGNS loss per step (a noisy batch mean) with dotted lines at the snapshot steps."""
    steps = [r["step"] for r in history]
    loss = [r["loss"] for r in history]
    fig = go.Figure(go.Scatter(
        x=steps, y=loss, mode="lines", name="batch loss", customdata=[fmt(v) for v in loss],
        hovertemplate="step %{x}<br>loss %{customdata}<extra></extra>"))
    for s in checkpoints:
        fig.add_vline(x=s, line={"dash": "dot", "color": "#9aa5b1", "width": 1})
    fig.update_layout(title={"text": title}, height=360, margin=_MARGIN, xaxis_title="step",
                      yaxis_title={"text": "loss −[log σ(u_o·v_c) + Σ log σ(−u_k·v_c)]",
                                   "font": {"size": 11}})
    return fig


def projection_figure(coords, labels, share, title: str, highlight=()) -> go.Figure:
    """Every word at its 2-D PCA position with its label; `highlight` words in colour."""
    coords = np.asarray(coords, dtype=float)
    hi = set(highlight)
    fig = go.Figure()
    for group, name, color in ((False, "words", "#9aa5b1"), (True, "chosen words", "#c0392b")):
        idx = [k for k, w in enumerate(labels) if (w in hi) == group]
        if not idx:
            continue
        fig.add_trace(go.Scatter(
            x=coords[idx, 0], y=coords[idx, 1], mode="markers+text", name=name,
            text=[labels[k] for k in idx], textposition="top center",
            marker={"color": color, "size": 9 if group else 6},
            hovertemplate="%{text}<br>axis 1 %{x:.3f}<br>axis 2 %{y:.3f}<extra></extra>"))
    fig.update_layout(title={"text": title}, height=480, margin=_MARGIN,
                      xaxis_title=f"axis 1 ({100 * float(share[0]):.0f}% of the variance)",
                      yaxis_title=f"axis 2 ({100 * float(share[1]):.0f}% of the variance)",
                      legend={"orientation": "h", "y": -0.15})
    return fig


def overlap_figure(per_word: dict, k: int, chance: float, title: str) -> go.Figure:
    """Per shared word, how many of its k neighbours Word2Vec and the RNN's E agree on,
    with the chance level as a dashed line."""
    words = list(per_word)
    vals = [per_word[w] for w in words]
    fig = go.Figure(go.Bar(x=words, y=vals,
                           hovertemplate="%{x}<br>%{y} of " + str(k) + " neighbours shared<extra></extra>"))
    fig.add_hline(y=chance, line={"dash": "dash", "color": "#c0392b"},
                  annotation_text=f"chance {chance:.2f}")
    fig.update_layout(title={"text": title}, height=340, margin=_MARGIN, xaxis_title="word",
                      yaxis_title=f"neighbours shared (of {k})", yaxis_range=[0, k + 0.2])
    fig.update_xaxes(type="category")
    return fig
