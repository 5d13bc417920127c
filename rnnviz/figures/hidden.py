"""Figures for the hidden-state page: arrays in, go.Figure out (no streamlit, no model runs)."""
from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

from rnnviz.figures.common import AXIS_TEXT, heatmap, log_axis, step_labels, style
from rnnviz.formatting import num, plain_math

from .grid import subplots

_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def unit_colors(n: int) -> list[str]:
    """n distinct line colours (a qualitative palette; Streamlit's own theme would pair
    blue with light blue and red with light red)."""
    palette = qualitative.D3 if n <= len(qualitative.D3) else qualitative.Dark24
    return [palette[i % len(palette)] for i in range(n)]


def _label(labels: dict | None, name: str, default: str) -> str:
    """A figure string from the page (in the learner's language), English by default."""
    return (labels or {}).get(name, default)


def _finite(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return np.where(np.isfinite(v), v, np.nan)


def time_heatmap(values, tokens, step: int | None = None, name: str = "h",
                 split: int | None = None, title: str | None = None,
                 labels: dict | None = None) -> go.Figure:
    """values (T, H) as units (rows) x steps (columns, time left to right: the one orientation
    of every h_t heatmap); the column of 0-based `step` is boxed.

    split: for a bidirectional model, the number of forward units (a line is drawn under them).
    labels: x, y, colorbar (the page's language); title overrides the default title.
    """
    v = np.asarray(values, dtype=float)
    H = v.shape[1]
    units = [f"u{j + 1}" for j in range(H)] if split is None else (
        [f"→u{j + 1}" for j in range(split)] + [f"←u{j + 1}" for j in range(H - split)])
    x = step_labels(tokens)
    title = title or f"{name}_t for every step (columns) and hidden unit (rows)"
    fig = heatmap(v.T, x=x, y=units, title=title,
                  x_title=_label(labels, "x", "step t, input token"),
                  y_title=_label(labels, "y", "hidden unit"),
                  colorbar=_label(labels, "colorbar", f"{name} value"), hover_name=name)
    if step is not None:
        fig.add_shape(type="rect", xref="x", yref="paper", x0=step - 0.5, x1=step + 0.5,
                      y0=0, y1=1, line={"color": "black", "width": 3})
    if split is not None:
        fig.add_shape(type="line", xref="paper", yref="y", x0=0, x1=1, y0=split - 0.5,
                      y1=split - 0.5, line={"color": "black", "width": 2})
    fig.update_layout(height=max(300, 40 + 14 * H))
    return fig


def step_terms_bar(terms: dict, name_rec: str = "W_h h_{t-1}", activation: str = "tanh",
                   labels: dict | None = None) -> go.Figure:
    """The three terms of a_t per unit, stacked, with a_t and h_t as markers; `activation`
    names the model's phi in the legend ("tanh", "ReLU", "identity").
    labels: title, x, y, a (the legend of a_t) in the page's language."""
    H = len(terms["a"])
    units = [f"u{j + 1}" for j in range(H)]
    fig = go.Figure()
    for key, label, color in (("Wx_x", "W_x x_t", _COLORS[0]), ("Wh_h", name_rec, _COLORS[1]),
                              ("b", "b_h", _COLORS[2])):
        label = plain_math(label)
        fig.add_bar(x=units, y=_finite(terms[key]), name=label, marker_color=color,
                    hovertemplate=f"{label}<br>%{{x}}: %{{y:.4f}}<extra></extra>")
    fig.add_scatter(x=units, y=_finite(terms["a"]), mode="markers", name=_label(labels, "a", "aₜ (sum)"),
                    marker={"symbol": "line-ew-open", "size": 18, "color": "black",
                            "line": {"width": 3}})
    h_name = plain_math("h_t = a_t" if activation in ("identity", "linear") else f"h_t = {activation}(a_t)")
    fig.add_scatter(x=units, y=_finite(terms["h"]), mode="markers", name=h_name,
                    marker={"symbol": "diamond", "size": 10, "color": _COLORS[4]})
    fig.update_layout(barmode="relative", xaxis_title=_label(labels, "x", "hidden unit"),
                      yaxis_title=_label(labels, "y", "value"), legend={"orientation": "h", "y": -0.25})
    return style(fig, _label(labels, "title", "The three terms of a_t, per hidden unit"), 380)


def unit_lines(values, tokens, units, name: str = "h", labels: dict | None = None) -> go.Figure:
    """One line per chosen unit (0-based indices) over the steps. labels: title, x, y."""
    v = np.asarray(values, dtype=float)
    x = step_labels(tokens)
    fig = go.Figure()
    for j, color in zip(units, unit_colors(len(units))):
        fig.add_scatter(x=x, y=_finite(v[:, j]), mode="lines+markers", name=f"u{j + 1}",
                        line={"color": color}, marker={"color": color},
                        hovertemplate=f"u{j + 1}<br>%{{x}}<br>{name} = %{{y:.4f}}<extra></extra>")
    fig.update_layout(xaxis_title=_label(labels, "x", "step t, input token"),
                      yaxis_title=_label(labels, "y", f"{name} value"))
    fig.update_xaxes(type="category")
    return style(fig, _label(labels, "title", f"{name}_t of the chosen units over time"), 360)


def pca_trajectory(paths, share, labels: dict | None = None) -> go.Figure:
    """paths: [(name, coords (T, 2), tokens)], each drawn from h_1 ... h_T with token labels.
    labels: title, final ("final state h_T"), x and y with a {share} placeholder."""
    fig = go.Figure()
    for i, (name, xy, tokens) in enumerate(paths):
        xy = np.asarray(xy, dtype=float)
        color = _COLORS[i % len(_COLORS)]
        names = step_labels(tokens)
        mode = "lines+markers+text" if len(xy) <= 25 else "lines+markers"  # long: hover only
        fig.add_scatter(x=xy[:, 0], y=xy[:, 1], mode=mode, name=name,
                        text=names, textposition="top center", line={"color": color},
                        textfont={"color": AXIS_TEXT, "size": 12},
                        marker={"size": 9, "color": color},
                        hovertemplate=f"{name}<br>%{{text}}<br>PC1 %{{x:.3f}}, PC2 %{{y:.3f}}<extra></extra>")
        fig.add_scatter(x=[xy[-1, 0]], y=[xy[-1, 1]], mode="markers", showlegend=False,
                        marker={"size": 18, "color": color, "symbol": "star"},
                        hovertemplate=f"{name}: {_label(labels, 'final', 'final state h_T')}<extra></extra>")
    x_title = _label(labels, "x", "PC1 ({share} of the variance)").format(share=f"{share[0]:.0%}")
    y_title = _label(labels, "y", "PC2 ({share} of the variance)").format(share=f"{share[1]:.0%}")
    fig.update_layout(xaxis_title=x_title, yaxis_title=y_title, legend={"orientation": "h", "y": -0.2})
    return style(fig, _label(labels, "title", "Trajectory of h_1 … h_T in 2-D (PCA); the star is h_T"), 460)


def growth_plot(series: dict, w: float, h0: float, labels: dict | None = None) -> go.Figure:
    """h_t = phi(w h_{t-1}) without and with tanh, side by side: each needs its own scale.
    labels: x ("step t")."""
    names = list(series)
    fig = subplots(rows=1, cols=len(names), subplot_titles=[f"φ = {n}" for n in names])
    for i, name in enumerate(names):
        ys = series[name]
        t = list(range(1, len(ys) + 1))
        fig.add_scatter(x=t, y=_finite(ys), mode="lines+markers", name=name, row=1, col=i + 1,
                        text=[num(y) for y in ys], line={"color": _COLORS[i]},
                        hovertemplate=f"{name}<br>t = %{{x}}<br>h = %{{text}}<extra></extra>")
        fig.update_xaxes(title_text=_label(labels, "x", "step t"), row=1, col=i + 1)
        fig.update_yaxes(title_text="h_t", row=1, col=i + 1)
    fig.update_layout(showlegend=False)
    return style(fig, plain_math(f"h_t = φ({w:g}·h_{{t-1}}), h_0 = {h0:g}"), 340, top=70)


def norms_plot(norms: dict, tokens, labels: dict | None = None) -> go.Figure:
    """||h_t|| per step for several versions of the model (same weights, another φ).
    labels: title, log (appended when the axis is logarithmic), x, y."""
    fig = go.Figure()
    x = step_labels(tokens)
    for i, (name, ys) in enumerate(norms.items()):
        fig.add_scatter(x=x, y=_finite(ys), mode="lines+markers", name=name,
                        text=[num(y) for y in ys], line={"color": _COLORS[i]},
                        hovertemplate=f"{name}<br>%{{x}}<br>‖h_t‖ = %{{text}}<extra></extra>")
    flat = np.concatenate([_finite(v) for v in norms.values()]) if norms else np.zeros(1)
    pos = flat[np.isfinite(flat) & (flat > 0)]
    log = pos.size > 0 and pos.max() > 50 * pos.min()  # a linear model can explode: log scale
    if log:
        log_axis(fig, pos)
    fig.update_layout(xaxis_title=_label(labels, "x", "step t, input token"),
                      yaxis_title=_label(labels, "y", "‖h_t‖ (Euclidean norm)"))
    fig.update_xaxes(type="category")
    title = _label(labels, "title", "Size of the hidden state ‖h_t‖ with the same weights")
    return style(fig, title + (_label(labels, "log", " (log scale)") if log else ""), 340)


def saturation_bar(per_step, tokens, threshold: float, labels: dict | None = None) -> go.Figure:
    """Share of hidden units with |h_t| > threshold at each step (or, with the page's labels,
    another per-step share such as ReLU's units that are off). labels: title, x, y, hover."""
    hover = _label(labels, "hover", "saturated share")
    fig = go.Figure(go.Bar(x=step_labels(tokens), y=_finite(per_step),
                           hovertemplate=f"%{{x}}<br>{hover}: %{{y:.1%}}<extra></extra>"))
    fig.update_layout(xaxis_title=_label(labels, "x", "step t, input token"),
                      yaxis_title=_label(labels, "y", "share of units"),
                      yaxis={"range": [0, 1], "tickformat": ".0%"})
    fig.update_xaxes(type="category")
    title = _label(labels, "title", f"Share of hidden units with |h_t| > {threshold:g} (saturated)")
    return style(fig, title, 300)


def params_vs_T(shared: int, T_max: int, T_now: int, labels: dict | None = None) -> go.Figure:
    """Parameter count against sentence length: flat when shared, a line when one set per step.
    labels: title, x, y, shared, per_step, now (with a {T} placeholder)."""
    Ts = list(range(1, T_max + 1))
    fig = go.Figure()
    fig.add_scatter(x=Ts, y=[shared] * len(Ts), mode="lines",
                    name=_label(labels, "shared", "shared weights (RNN)"))
    fig.add_scatter(x=Ts, y=[shared * t for t in Ts], mode="lines",
                    name=_label(labels, "per_step", "one set per step"))
    fig.add_vline(x=T_now, line_dash="dot",
                  annotation_text=_label(labels, "now", "your sentence, T = {T}").format(T=T_now))
    fig.update_layout(xaxis_title=_label(labels, "x", "sentence length T (steps)"),
                      yaxis_title=_label(labels, "y", "number of parameters"))
    return style(fig, _label(labels, "title", "Parameters (cell + output) against sentence length T"), 340)


def unrolled(tokens, rec_label: str = "W_h", max_steps: int = 10, labels: dict | None = None) -> go.Figure:
    """The RNN unrolled as T layers: each layer uses the same W_x, W_h, b_h (tied weights).

    Only the first max_steps steps are drawn (a long sentence would not fit).
    """
    shown_all = len(tokens) <= max_steps
    tokens = [html.escape(str(t)) for t in tokens[:max_steps]]
    T = len(tokens)
    names = step_labels(tokens)
    fig = go.Figure()
    xs = list(range(T + 1))
    fig.add_scatter(x=xs, y=[1] * (T + 1), mode="markers+text", marker={"size": 34, "color": "#ffd8a8"},
                    text=["h_0"] + [f"h_{t}" for t in range(1, T + 1)], textposition="middle center",
                    hoverinfo="skip", showlegend=False)
    fig.add_scatter(x=xs[1:], y=[0] * T, mode="markers+text", marker={"size": 34, "color": "#c5e1f5"},
                    text=[f"x_{t}" for t in range(1, T + 1)], textposition="middle center",
                    hovertext=names, hoverinfo="text", showlegend=False)
    notes = []  # set once: add_annotation re-validates every earlier note on each call (quadratic)
    for t in range(1, T + 1):
        notes += [{"x": t, "y": 0.82, "ax": t, "ay": 0.18, "xref": "x", "yref": "y", "axref": "x",
                   "ayref": "y", "showarrow": True, "arrowhead": 2, "text": ""},
                  {"x": t - 0.22, "y": 1, "ax": t - 0.78, "ay": 1, "xref": "x", "yref": "y", "axref": "x",
                   "ayref": "y", "showarrow": True, "arrowhead": 2, "text": ""},
                  {"x": t - 0.5, "y": 1.18, "text": rec_label, "showarrow": False},
                  {"x": t + 0.18, "y": 0.5, "text": "W_x", "showarrow": False},
                  {"x": t, "y": -0.3, "text": tokens[t - 1], "showarrow": False}]
    fig.update_layout(annotations=notes)
    more = "" if shown_all else _label(labels, "more", " (first {T} steps shown)").format(T=T)
    title = _label(labels, "title", "Unrolled: one layer per step, all with the same W_x, {rec}, b_h")
    fig.update_layout(xaxis={"visible": False, "range": [-0.5, T + 0.5]},
                      yaxis={"visible": False, "range": [-0.6, 1.5]})
    return style(fig, title.format(rec=rec_label) + more, 240)
