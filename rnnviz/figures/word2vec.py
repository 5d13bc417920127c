"""Figures for Word2Vec (note 004): the window sliding over a sentence, the SGNS loss curve,
and the learned vectors on a 2-D projection with word labels. Arrays in, go.Figure out."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.common import style
from rnnviz.formatting import num

from .grid import subplots

WINDOW_LABELS = {"centre": "centre", "context": "context", "outside": "outside the window",
                 "pair": "pair ({c}, {o})", "x": "position and word (the red box is the window)"}
LOSS_LABELS = {"step": "step", "batch": "batch loss", "loss": "loss",
               "y": "loss −[log σ(u_o·v_c) + Σ log σ(−u_k·v_c)]"}
MAP_LABELS = {"words": "words", "chosen": "chosen words", "axis": "axis {n}",
              "axis_title": "axis {n} ({pct:.0f}% of the variance)"}
OVERLAP_LABELS = {"word": "word", "chance": "chance {chance:.2f}", "y": "neighbours shared (of {k})",
                  "hover": "neighbours shared"}


def window_figure(tokens, centre: int, span: tuple[int, int], title: str,
                  labels: dict | None = None) -> go.Figure:
    """The sentence as a row of words: the centre word dark, its context words (inside the
    window span [lo, hi), 0-based) light, the rest grey; hover names each word's role and pair.
    labels: the words of the figure (WINDOW_LABELS keys), English by default."""
    lab = WINDOW_LABELS | (labels or {})
    tokens = list(tokens)
    lo, hi = span
    kinds = ["centre" if t == centre else ("context" if lo <= t < hi else "outside")
             for t in range(len(tokens))]
    roles = [lab[k] for k in kinds]
    colors = {"centre": "#1f4e79", "context": "#7fb3d5", "outside": "#d5d8dc"}
    pair = [lab["pair"].format(c=tokens[centre], o=tok) if k == "context" else ""
            for tok, k in zip(tokens, kinds)]
    fig = go.Figure(go.Bar(
        x=[f"{t + 1} {tok}" for t, tok in enumerate(tokens)], y=[1] * len(tokens),
        marker_color=[colors[k] for k in kinds], text=tokens, textposition="inside",
        customdata=[[r, p] for r, p in zip(roles, pair)],
        hovertemplate="%{x}<br>%{customdata[0]}<br>%{customdata[1]}<extra></extra>"))
    fig.add_shape(type="rect", x0=lo - 0.5, x1=hi - 0.5, y0=0, y1=1.08,
                  line={"color": "#c0392b", "width": 2})
    fig.update_layout(title={"text": title}, height=220, showlegend=False,
                      xaxis_title=lab["x"],
                      yaxis={"visible": False, "range": [0, 1.15]})
    fig.update_xaxes(type="category")
    return style(fig)


def loss_curve(history, title: str, checkpoints=(), labels: dict | None = None) -> go.Figure:
    """The SGNS loss per step (a noisy batch mean) with dotted lines at the snapshot steps."""
    lab = LOSS_LABELS | (labels or {})
    steps = [r["step"] for r in history]
    loss = [r["loss"] for r in history]
    fig = go.Figure(go.Scatter(
        x=steps, y=loss, mode="lines", name=lab["batch"], customdata=[num(v) for v in loss],
        hovertemplate=lab["step"] + " %{x}<br>" + lab["loss"] + " %{customdata}<extra></extra>"))
    for s in checkpoints:
        fig.add_vline(x=s, line={"dash": "dot", "color": "#9aa5b1", "width": 1})
    fig.update_layout(title={"text": title}, height=360, xaxis_title=lab["step"],
                      yaxis_title={"text": lab["y"],
                                   "font": {"size": 11}})
    return style(fig)


def projection_figure(coords, labels, share, title: str, highlight=(),
                      names: dict | None = None) -> go.Figure:
    """Every word at its 2-D PCA position with its label; `highlight` words in colour.
    names: the figure's own words (MAP_LABELS keys), English by default."""
    lab = MAP_LABELS | (names or {})
    coords = np.asarray(coords, dtype=float)
    hi = set(highlight)
    fig = go.Figure()
    for group, name, color in ((False, lab["words"], "#9aa5b1"), (True, lab["chosen"], "#c0392b")):
        idx = [k for k, w in enumerate(labels) if (w in hi) == group]
        if not idx:
            continue
        fig.add_trace(go.Scatter(
            x=coords[idx, 0], y=coords[idx, 1], mode="markers+text", name=name,
            text=[labels[k] for k in idx], textposition="top center",
            marker={"color": color, "size": 9 if group else 6},
            hovertemplate="%{text}<br>" + lab["axis"].format(n=1) + " %{x:.4g}<br>"
            + lab["axis"].format(n=2) + " %{y:.4g}<extra></extra>"))
    fig.update_layout(title={"text": title}, height=480,
                      xaxis_title=lab["axis_title"].format(n=1, pct=100 * float(share[0])),
                      yaxis_title=lab["axis_title"].format(n=2, pct=100 * float(share[1])),
                      legend={"orientation": "h", "y": -0.15})
    return style(fig)


def overlap_figure(per_word: dict, k: int, chance: float, title: str,
                   labels: dict | None = None) -> go.Figure:
    """Per shared word, how many of its k neighbours Word2Vec and the RNN's E agree on,
    with the chance level as a dashed line."""
    lab = OVERLAP_LABELS | (labels or {})
    words = list(per_word)
    vals = [per_word[w] for w in words]
    fig = go.Figure(go.Bar(x=words, y=vals,
                           hovertemplate="%{x}<br>%{y} / " + str(k) + " " + lab["hover"] + "<extra></extra>"))
    fig.add_hline(y=chance, line={"dash": "dash", "color": "#c0392b"}, annotation_position="top left",
                  annotation_text=lab["chance"].format(chance=chance))
    fig.update_layout(title={"text": title}, height=340, xaxis_title=lab["word"],
                      yaxis_title=lab["y"].format(k=k), yaxis_range=[0, k + 0.2])
    fig.update_xaxes(type="category")
    return style(fig)


TOKENIZER_LABELS = {"vocab_size": "vocabulary size", "oov_rate": "OOV rate (%)",
                    "mean_length": "units per sentence", "tokenizer": "tokenizer"}


def tokenizer_figure(rows, names: dict, title: str, labels: dict | None = None) -> go.Figure:
    """compare_tokenizers' rows as three small bar charts side by side (vocabulary size, OOV
    rate in %, mean sequence length), one bar per tokenizer; names maps a row's tokenizer to
    the label shown. Linear axes: every quantity is compared by its length."""
    lab = TOKENIZER_LABELS | (labels or {})
    cols = ("vocab_size", "oov_rate", "mean_length")
    fig = subplots(rows=1, cols=3, subplot_titles=[lab[c] for c in cols])
    x = [names.get(r["tokenizer"], r["tokenizer"]) for r in rows]
    for j, c in enumerate(cols, start=1):
        y = [100 * r[c] if c == "oov_rate" else r[c] for r in rows]
        fig.add_trace(go.Bar(x=x, y=y, name=lab[c], text=[num(v) for v in y], textposition="auto",
                             marker_color="#1f4e79", showlegend=False,
                             hovertemplate="%{x}<br>" + lab[c] + " %{text}<extra></extra>"), row=1, col=j)
    fig.update_layout(title={"text": title}, height=360)
    fig.update_xaxes(type="category")
    return style(fig, top=80)
