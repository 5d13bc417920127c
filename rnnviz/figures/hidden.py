"""Figures for the hidden-state page: arrays in, go.Figure out (no streamlit, no model runs)."""
from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from .common import fmt, heatmap, step_labels

_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def unit_colors(n: int) -> list[str]:
    """n distinct line colours (a qualitative palette; Streamlit's own theme would pair
    blue with light blue and red with light red)."""
    palette = qualitative.D3 if n <= len(qualitative.D3) else qualitative.Dark24
    return [palette[i % len(palette)] for i in range(n)]


def _finite(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return np.where(np.isfinite(v), v, np.nan)


def time_heatmap(values, tokens, step: int | None = None, name: str = "h",
                 split: int | None = None, title: str | None = None) -> go.Figure:
    """values (T, H) as units (rows) x steps (columns); the column of 0-based `step` is boxed.

    split: for a bidirectional model, the number of forward units (a line is drawn under them).
    """
    v = np.asarray(values, dtype=float)
    H = v.shape[1]
    units = [f"u{j + 1}" for j in range(H)] if split is None else (
        [f"→u{j + 1}" for j in range(split)] + [f"←u{j + 1}" for j in range(H - split)])
    x = step_labels(tokens)
    title = title or f"{name}_t for every step (columns) and hidden unit (rows)"
    fig = heatmap(v.T, x=x, y=units, title=title,
                  x_title="step t, input token", y_title="hidden unit", colorbar=f"{name} value",
                  hover_name=name)
    if step is not None:
        fig.add_shape(type="rect", xref="x", yref="paper", x0=step - 0.5, x1=step + 0.5,
                      y0=0, y1=1, line={"color": "black", "width": 3})
    if split is not None:
        fig.add_shape(type="line", xref="paper", yref="y", x0=0, x1=1, y0=split - 0.5,
                      y1=split - 0.5, line={"color": "black", "width": 2})
    fig.update_layout(height=max(300, 40 + 14 * H))
    return fig


def step_terms_bar(terms: dict, name_rec: str = "W_h h_{t-1}", activation: str = "tanh") -> go.Figure:
    """The three terms of a_t per unit, stacked, with a_t and h_t as markers; `activation`
    names the model's phi in the legend ("tanh", "ReLU", "identity")."""
    H = len(terms["a"])
    units = [f"u{j + 1}" for j in range(H)]
    fig = go.Figure()
    for key, label, color in (("Wx_x", "W_x x_t", _COLORS[0]), ("Wh_h", name_rec, _COLORS[1]),
                              ("b", "b_h", _COLORS[2])):
        fig.add_bar(x=units, y=_finite(terms[key]), name=label, marker_color=color,
                    hovertemplate=f"{label}<br>%{{x}}: %{{y:.4f}}<extra></extra>")
    fig.add_scatter(x=units, y=_finite(terms["a"]), mode="markers", name="a_t (sum)",
                    marker={"symbol": "line-ew-open", "size": 18, "color": "black",
                            "line": {"width": 3}})
    h_name = "h_t = a_t" if activation in ("identity", "linear") else f"h_t = {activation}(a_t)"
    fig.add_scatter(x=units, y=_finite(terms["h"]), mode="markers", name=h_name,
                    marker={"symbol": "diamond", "size": 10, "color": _COLORS[4]})
    fig.update_layout(barmode="relative", title={"text": "The three terms of a_t, per hidden unit"},
                      xaxis_title="hidden unit", yaxis_title="value", legend={"orientation": "h", "y": -0.25},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=380)
    return fig


def unit_lines(values, tokens, units, name: str = "h") -> go.Figure:
    """One line per chosen unit (0-based indices) over the steps."""
    v = np.asarray(values, dtype=float)
    x = step_labels(tokens)
    fig = go.Figure()
    for j, color in zip(units, unit_colors(len(units))):
        fig.add_scatter(x=x, y=_finite(v[:, j]), mode="lines+markers", name=f"u{j + 1}",
                        line={"color": color}, marker={"color": color},
                        hovertemplate=f"u{j + 1}<br>%{{x}}<br>{name} = %{{y:.4f}}<extra></extra>")
    fig.update_layout(title={"text": f"{name}_t of the chosen units over time"},
                      xaxis_title="step t, input token", yaxis_title=f"{name} value",
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=360)
    fig.update_xaxes(type="category")
    return fig


def pca_trajectory(paths, share) -> go.Figure:
    """paths: [(name, coords (T, 2), tokens)], each drawn from h_0 ... h_T with token labels."""
    fig = go.Figure()
    for i, (name, xy, tokens) in enumerate(paths):
        xy = np.asarray(xy, dtype=float)
        color = _COLORS[i % len(_COLORS)]
        labels = step_labels(tokens)
        mode = "lines+markers+text" if len(xy) <= 25 else "lines+markers"  # long: hover only
        fig.add_scatter(x=xy[:, 0], y=xy[:, 1], mode=mode, name=name,
                        text=labels, textposition="top center", line={"color": color},
                        marker={"size": 9, "color": color},
                        hovertemplate=f"{name}<br>%{{text}}<br>PC1 %{{x:.3f}}, PC2 %{{y:.3f}}<extra></extra>")
        fig.add_scatter(x=[xy[-1, 0]], y=[xy[-1, 1]], mode="markers", showlegend=False,
                        marker={"size": 18, "color": color, "symbol": "star"},
                        hovertemplate=f"{name}: final state h_T<extra></extra>")
    fig.update_layout(title={"text": "Trajectory of h_1 … h_T in 2-D (PCA); the star is h_T"},
                      xaxis_title=f"PC1 ({share[0]:.0%} of the variance)",
                      yaxis_title=f"PC2 ({share[1]:.0%} of the variance)",
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=460,
                      legend={"orientation": "h", "y": -0.2})
    return fig


def growth_plot(series: dict, w: float, h0: float) -> go.Figure:
    """h_t = phi(w h_{t-1}) without and with tanh, side by side: each needs its own scale."""
    names = list(series)
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=[f"φ = {n}" for n in names])
    for i, name in enumerate(names):
        ys = series[name]
        t = list(range(1, len(ys) + 1))
        fig.add_scatter(x=t, y=_finite(ys), mode="lines+markers", name=name, row=1, col=i + 1,
                        text=[fmt(y) for y in ys], line={"color": _COLORS[i]},
                        hovertemplate=f"{name}<br>t = %{{x}}<br>h = %{{text}}<extra></extra>")
        fig.update_xaxes(title_text="step t", row=1, col=i + 1)
        fig.update_yaxes(title_text="h_t", row=1, col=i + 1)
    fig.update_layout(title={"text": f"h_t = φ({w:g}·h_(t-1)), h_0 = {h0:g}"}, showlegend=False,
                      margin={"l": 10, "r": 10, "t": 70, "b": 10}, height=340)
    return fig


def norms_plot(norms: dict, tokens) -> go.Figure:
    """||h_t|| per step for several versions of the model (same weights, another φ)."""
    fig = go.Figure()
    x = step_labels(tokens)
    for i, (name, ys) in enumerate(norms.items()):
        fig.add_scatter(x=x, y=_finite(ys), mode="lines+markers", name=name,
                        text=[fmt(y) for y in ys], line={"color": _COLORS[i]},
                        hovertemplate=f"{name}<br>%{{x}}<br>‖h_t‖ = %{{text}}<extra></extra>")
    flat = np.concatenate([_finite(v) for v in norms.values()]) if norms else np.zeros(1)
    pos = flat[np.isfinite(flat) & (flat > 0)]
    log = pos.size > 0 and pos.max() > 50 * pos.min()  # a linear model can explode: log scale
    fig.update_yaxes(type="log" if log else "linear")
    fig.update_layout(title={"text": "Size of the hidden state ‖h_t‖ with the same weights"
                                     + (" (log scale)" if log else "")},
                      xaxis_title="step t, input token", yaxis_title="‖h_t‖ (Euclidean norm)",
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=340)
    fig.update_xaxes(type="category")
    return fig


def saturation_bar(per_step, tokens, threshold: float) -> go.Figure:
    """Share of hidden units with |h_t| > threshold at each step."""
    fig = go.Figure(go.Bar(x=step_labels(tokens), y=_finite(per_step),
                           hovertemplate="%{x}<br>saturated share: %{y:.1%}<extra></extra>"))
    fig.update_layout(title={"text": f"Share of hidden units with |h_t| > {threshold:g} (saturated)"},
                      xaxis_title="step t, input token", yaxis_title="share of units",
                      yaxis={"range": [0, 1], "tickformat": ".0%"},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=300)
    fig.update_xaxes(type="category")
    return fig


def params_vs_T(shared: int, T_max: int, T_now: int) -> go.Figure:
    """Parameter count against sentence length: flat when shared, a line when one set per step."""
    Ts = list(range(1, T_max + 1))
    fig = go.Figure()
    fig.add_scatter(x=Ts, y=[shared] * len(Ts), mode="lines", name="shared weights (RNN)")
    fig.add_scatter(x=Ts, y=[shared * t for t in Ts], mode="lines", name="one set per step")
    fig.add_vline(x=T_now, line_dash="dot", annotation_text=f"your sentence, T = {T_now}")
    fig.update_layout(title={"text": "Parameters (cell + output) against sentence length T"},
                      xaxis_title="sentence length T (steps)", yaxis_title="number of parameters",
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=340)
    return fig


def unrolled(tokens, rec_label: str = "W_h", max_steps: int = 10) -> go.Figure:
    """The RNN unrolled as T layers: each layer uses the same W_x, W_h, b_h (tied weights).

    Only the first max_steps steps are drawn (a long sentence would not fit).
    """
    shown_all = len(tokens) <= max_steps
    tokens = [html.escape(str(t)) for t in tokens[:max_steps]]
    T = len(tokens)
    labels = step_labels(tokens)
    fig = go.Figure()
    xs = list(range(T + 1))
    fig.add_scatter(x=xs, y=[1] * (T + 1), mode="markers+text", marker={"size": 34, "color": "#ffd8a8"},
                    text=["h_0"] + [f"h_{t}" for t in range(1, T + 1)], textposition="middle center",
                    hoverinfo="skip", showlegend=False)
    fig.add_scatter(x=xs[1:], y=[0] * T, mode="markers+text", marker={"size": 34, "color": "#c5e1f5"},
                    text=[f"x_{t}" for t in range(1, T + 1)], textposition="middle center",
                    hovertext=labels, hoverinfo="text", showlegend=False)
    for t in range(1, T + 1):
        fig.add_annotation(x=t, y=0.82, ax=t, ay=0.18, xref="x", yref="y", axref="x", ayref="y",
                           showarrow=True, arrowhead=2, text="")
        fig.add_annotation(x=t - 0.22, y=1, ax=t - 0.78, ay=1, xref="x", yref="y", axref="x",
                           ayref="y", showarrow=True, arrowhead=2, text="")
        fig.add_annotation(x=t - 0.5, y=1.18, text=rec_label, showarrow=False)
        fig.add_annotation(x=t + 0.18, y=0.5, text="W_x", showarrow=False)
        fig.add_annotation(x=t, y=-0.3, text=tokens[t - 1], showarrow=False)
    more = "" if shown_all else f" (first {T} steps shown)"
    title = f"Unrolled: one layer per step, all with the same W_x, {rec_label}, b_h{more}"
    fig.update_layout(title={"text": title},
                      xaxis={"visible": False, "range": [-0.5, T + 0.5]},
                      yaxis={"visible": False, "range": [-0.6, 1.5]},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=240)
    return fig
