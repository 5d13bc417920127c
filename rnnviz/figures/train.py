"""Figures for the training page: the loss and perplexity curves of a run."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.common import style

from .grid import subplots


def moving_average(values, window: int) -> np.ndarray:
    """Mean of the last `window` values at each step (fewer at the start): a readable trend."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return v
    c = np.cumsum(np.insert(v, 0, 0.0))
    idx = np.arange(1, v.size + 1)
    lo = np.maximum(0, idx - window)
    return (c[idx] - c[lo]) / (idx - lo)


CURVE_LABELS = {"loss_title": "Loss (cross-entropy per token)", "ppl_title": "Perplexity exp(loss)",
                "batch": "loss of each batch", "average": "average of last {window}",
                "ppl": "perplexity (of the average)", "uniform_lnV": "uniform guess: ln V = {lnV:.2f}",
                "uniform_V": "uniform guess: V = {V}", "step": "step", "loss": "loss",
                "average_loss": "average loss", "x": "training step", "y_loss": "loss (nats)",
                "y_ppl": "perplexity", "title": "Training curve"}


def loss_curve(steps, losses, window: int = 20, vocab_size: int | None = None,
               labels: dict | None = None) -> go.Figure:
    """Training loss per step (batch mean cross-entropy, nats) and perplexity exp(loss).

    The faint line is each step's batch; the bold one its moving average. A uniform guess
    over V tokens has loss ln V and perplexity V: drawn as a dotted line when V is given.
    `labels` (keys of CURVE_LABELS) gives the words in the learner's language."""
    lab = CURVE_LABELS | (labels or {})
    steps = list(steps)
    avg = moving_average(losses, window)
    with np.errstate(over="ignore"):
        ppl = np.exp(avg)
    fig = subplots(rows=1, cols=2, subplot_titles=(lab["loss_title"], lab["ppl_title"]))
    fig.add_trace(go.Scatter(x=steps, y=list(losses), name=lab["batch"], mode="lines",
                             line={"width": 1, "color": "rgba(31,119,180,0.35)"},
                             hovertemplate=f"{lab['step']} %{{x}}<br>{lab['loss']} %{{y:.4f}}"
                                           "<extra></extra>"),
                  1, 1)
    fig.add_trace(go.Scatter(x=steps, y=avg, name=lab["average"].format(window=window), mode="lines",
                             line={"width": 2.5, "color": "#1f77b4"},
                             hovertemplate=f"{lab['step']} %{{x}}<br>{lab['average_loss']} %{{y:.4f}}"
                                           "<extra></extra>"), 1, 1)
    fig.add_trace(go.Scatter(x=steps, y=ppl, name=lab["ppl"], mode="lines",
                             line={"width": 2.5, "color": "#d62728"},
                             hovertemplate=f"{lab['step']} %{{x}}<br>{lab['y_ppl']} %{{y:.2f}}"
                                           "<extra></extra>"),
                  1, 2)
    if vocab_size and steps:
        ends = [steps[0], steps[-1]]
        lnV = math.log(vocab_size)
        for col, y, label in ((1, lnV, lab["uniform_lnV"].format(lnV=lnV)),
                              (2, float(vocab_size), lab["uniform_V"].format(V=vocab_size))):
            fig.add_trace(go.Scatter(x=ends, y=[y, y], mode="lines", name=label, showlegend=True,
                                     line={"dash": "dot", "color": "gray", "width": 1.5},
                                     hovertemplate=label + "<extra></extra>"), 1, col)
    fig.update_xaxes(title_text=lab["x"])
    fig.update_yaxes(title_text=lab["y_loss"], row=1, col=1)
    fig.update_yaxes(title_text=lab["y_ppl"], type="log", row=1, col=2)
    fig.update_layout(height=360,
                      legend={"orientation": "h", "y": -0.25},
                      title={"text": lab["title"]})
    return style(fig, top=60)
