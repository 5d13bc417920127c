"""Figures for the training page: the loss and perplexity curves of a run."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def moving_average(values, window: int) -> np.ndarray:
    """Mean of the last `window` values at each step (fewer at the start): a readable trend."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return v
    c = np.cumsum(np.insert(v, 0, 0.0))
    idx = np.arange(1, v.size + 1)
    lo = np.maximum(0, idx - window)
    return (c[idx] - c[lo]) / (idx - lo)


def loss_curve(steps, losses, window: int = 20, vocab_size: int | None = None) -> go.Figure:
    """Training loss per step (batch mean cross-entropy, nats) and perplexity exp(loss).

    The faint line is each step's batch; the bold one its moving average. A uniform guess
    over V tokens has loss ln V and perplexity V: drawn as a dotted line when V is given."""
    steps = list(steps)
    avg = moving_average(losses, window)
    with np.errstate(over="ignore"):
        ppl = np.exp(avg)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Loss (cross-entropy per token)",
                                                        "Perplexity exp(loss)"))
    fig.add_trace(go.Scatter(x=steps, y=list(losses), name="loss of each batch", mode="lines",
                             line={"width": 1, "color": "rgba(31,119,180,0.35)"},
                             hovertemplate="step %{x}<br>loss %{y:.4f}<extra></extra>"), 1, 1)
    fig.add_trace(go.Scatter(x=steps, y=avg, name=f"average of last {window}", mode="lines",
                             line={"width": 2.5, "color": "#1f77b4"},
                             hovertemplate="step %{x}<br>average loss %{y:.4f}<extra></extra>"), 1, 1)
    fig.add_trace(go.Scatter(x=steps, y=ppl, name="perplexity (of the average)", mode="lines",
                             line={"width": 2.5, "color": "#d62728"},
                             hovertemplate="step %{x}<br>perplexity %{y:.2f}<extra></extra>"), 1, 2)
    if vocab_size and steps:
        ends = [steps[0], steps[-1]]
        for col, y, label in ((1, math.log(vocab_size), f"uniform guess: ln V = {math.log(vocab_size):.2f}"),
                              (2, float(vocab_size), f"uniform guess: V = {vocab_size}")):
            fig.add_trace(go.Scatter(x=ends, y=[y, y], mode="lines", name=label, showlegend=True,
                                     line={"dash": "dot", "color": "gray", "width": 1.5},
                                     hovertemplate=label + "<extra></extra>"), 1, col)
    fig.update_xaxes(title_text="training step")
    fig.update_yaxes(title_text="loss (nats)", row=1, col=1)
    fig.update_yaxes(title_text="perplexity", type="log", row=1, col=2)
    fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 60, "b": 10},
                      legend={"orientation": "h", "y": -0.25},
                      title={"text": "Training curve"})
    return fig
