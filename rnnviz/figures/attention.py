"""Figures of page 9 (Attention: a short path back). Strings come in as arguments (English
defaults) so the page passes the learner's language; no number is made here."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.common import heatmap, log_axis, step_labels, style
from rnnviz.formatting import num

WEIGHTS_LABELS = {"title": "Attention weights α_{t,j}: row t (query) reads column j (key)",
                  "x": "key step j", "y": "query step t", "colorbar": "α", "hover": "α",
                  "blank": "blank: j > t (the causal mask: the future is not read)"}


def weights_heatmap(weights, tokens, labels: dict | None = None) -> go.Figure:
    """weights (T, T), NaN above the diagonal; tokens label both axes; the exact α on hover."""
    lab = WEIGHTS_LABELS | (labels or {})
    names = step_labels(tokens)
    fig = heatmap(weights, names, names, lab["title"], lab["x"], lab["y"], lab["colorbar"],
                  colorscale="Blues", zmid=None, hover_name=lab["hover"], blank_note=lab["blank"])
    fig.update_traces(zmin=0, zmax=1)
    return style(fig, height=max(360, min(900, 60 + 22 * len(tokens))), top=80)


ROW_LABELS = {"title": "Step {t}: the weights over steps 1..{t}", "x": "key step j", "y": "α_{t,j}"}


def row_bars(weights, tokens, t: int, labels: dict | None = None) -> go.Figure:
    """The weights of query step t (0-based) as bars over keys 1..t+1."""
    lab = ROW_LABELS | (labels or {})
    w = np.asarray(weights, float)
    x = step_labels(tokens)[:len(w)]
    fig = go.Figure(go.Bar(x=x, y=w, text=[num(v) for v in w], textposition="outside",
                           marker_color="#1f77b4", hovertemplate="%{x}<br>α = %{text}<extra></extra>"))
    fig.update_xaxes(type="category", title_text=lab["x"])
    fig.update_yaxes(range=[0, 1.15], title_text=lab["y"])
    return style(fig, lab["title"].format(t=t + 1), height=320)


LENGTH_LABELS = {"title": "‖∂L_T/∂h_1‖ over sentence length T", "x": "sentence length T",
                 "y": "gradient norm (log scale)", "recurrent": "recurrent path only",
                 "attention": "attention paths, all together",
                 "direct": "attention: the one-hop path h_1 → c_T", "total": "total with attention",
                 "page8": "page 8, long-range task, untrained ‖∂L/∂x_1‖: "}
SERIES_COLOURS = {"recurrent": "#636efa", "attention": "#ab63fa", "direct": "#ff7f0e", "total": "#2ca02c"}
PAGE8_COLOURS = {"elman": "#9aa0fb", "lstm": "#f5a08f", "gru": "#7fd3be"}


def length_figure(rows, page8: dict | None = None, labels: dict | None = None,
                  page8_names: dict | None = None) -> go.Figure:
    """rows [{T, recurrent_norm, attention_norm, direct_norm, total_norm}] as lines on a log y axis; page8
    {cell: [(distance, norm), ...]} (longrange.json's measurements) dotted beside them, named
    page8_names[cell] (default: labels["page8"] + cell).
    A norm of 0 (underflow) is left out of a log axis and listed in the hover of the others."""
    lab = LENGTH_LABELS | (labels or {})
    fig = go.Figure()
    Ts = [r["T"] for r in rows]
    shown = []
    for key, col in (("recurrent", "recurrent_norm"), ("attention", "attention_norm"),
                     ("direct", "direct_norm"), ("total", "total_norm")):
        y = [r[col] if r[col] > 0 else None for r in rows]
        shown += [v for v in y if v]
        fig.add_trace(go.Scatter(x=Ts, y=y, name=lab[key], mode="lines+markers",
                                 line={"color": SERIES_COLOURS[key], "width": 3,
                                       "dash": "dash" if key == "total" else "solid"},
                                 text=[num(r[col]) for r in rows],
                                 hovertemplate="T = %{x}<br>%{text}<extra>" + lab[key] + "</extra>"))
    for cell, points in (page8 or {}).items():
        pts = [(d, v) for d, v in points if v > 0]
        shown += [v for _, v in pts]
        name = (page8_names or {}).get(cell, lab["page8"] + cell)
        fig.add_trace(go.Scatter(x=[d for d, _ in pts], y=[v for _, v in pts], name=name,
                                 mode="lines+markers", line={"dash": "dot", "color": PAGE8_COLOURS.get(cell)},
                                 text=[num(v) for _, v in pts],
                                 hovertemplate="T = %{x}<br>%{text}<extra>" + name + "</extra>"))
    fig.update_xaxes(title_text=lab["x"], type="log", tickvals=Ts, ticktext=[str(T) for T in Ts])
    fig.update_yaxes(title_text=lab["y"])
    log_axis(fig, shown or [1.0])
    fig.update_layout(legend={"orientation": "h", "y": -0.25, "x": 0})
    return style(fig, lab["title"], height=520, bottom=10)
