"""Figures for the BPTT page: paths into dL/dh_t, J_t's parts, log-norm heatmaps that show
0 and inf as such, the chain behind a cell, norm against distance, float32 vs float64."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import fmt, step_labels


def _log10(v) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log10(np.abs(np.asarray(v, dtype=float)))


def paths_bar(parts, steps, t: int, tokens, H: int | None = None) -> go.Figure:
    """dL/dh_t per hidden unit, stacked by where it comes from: parts (n, H), one row per loss
    that exists, steps the 0-based step s of each row (s = t: the direct part from L_t;
    s > t: the part from L_s through J_{t+1} .. J_s). Steps without a target have no loss and
    no row, so no legend entry. H is needed only when there are no rows at all."""
    parts = np.asarray(parts, dtype=float)  # (n, H)
    H = parts.shape[1] if parts.ndim == 2 and parts.shape[0] else int(H or 0)
    parts = parts.reshape(len(steps), H)
    units = [f"u{j + 1}" for j in range(H)]
    fig = go.Figure()
    for s, row in zip(steps, parts):
        name = f"from L_{s + 1} (direct)" if s == t else f"from L_{s + 1} via J_{t + 2}..J_{s + 1}"
        fig.add_bar(x=units, y=row, name=name, customdata=np.vectorize(fmt)(row),
                    hovertemplate=f"{name}<br>unit %{{x}}: %{{customdata}}<extra></extra>")
    total = parts.sum(0) if parts.shape[0] else np.zeros(H)
    fig.add_scatter(x=units, y=total, mode="markers", name="total dL/dh_t",
                    marker={"symbol": "diamond", "color": "black", "size": 7})
    fig.update_layout(barmode="relative", title={"text": f"dL/dh_{t + 1} ({tokens[t]}) by source loss"},
                      xaxis_title="hidden unit", yaxis_title="gradient component",
                      legend_title_text="path", margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


# nonlinearity -> (name, its derivative as the Jacobian's diagonal; {t} is the 1-based step)
_SLOPE_NAMES = {"tanh": ("tanh", "1 - h_{t}^2"), "relu": ("ReLU", "1[a_{t} > 0]"),
                "linear": ("identity", "1")}


def jacobian_parts(slope, W_h, J, t: int, nonlinearity: str = "tanh") -> go.Figure:
    """J_t = diag(phi'(a_t)) W_h: the diagonal factor, W_h, and their product side by side.
    The titles name the model's own derivative (1 - h_t^2, 1[a_t > 0] or 1)."""
    H = len(slope)
    units = [f"u{j + 1}" for j in range(H)]
    act, deriv = _SLOPE_NAMES[nonlinearity]
    deriv = deriv.format(t=t + 1)
    diag = "" if nonlinearity == "linear" else f"diag({deriv}) "
    fig = make_subplots(1, 3, column_widths=[0.16, 0.42, 0.42], horizontal_spacing=0.11,
                        subplot_titles=(f"{deriv} ({act} slope)", "W_h (the same at every step)",
                                        f"J_{t + 1} = {diag}W_h (own scale)"))
    fig.add_bar(x=np.asarray(slope, float), y=units, orientation="h", row=1, col=1, showlegend=False,
                hovertemplate="unit %{y}: slope %{x:.4g}<extra></extra>", marker_color="#888")
    # Each matrix gets its own symmetric scale: the slopes can shrink J far below W_h, and
    # on W_h's scale J would be a blank square. Both colour bars stay so sizes can be compared.
    for col, M, name in ((2, W_h, "W_h"), (3, J, "J")):
        M = np.asarray(M, float)
        finite = np.abs(M[np.isfinite(M)])
        lim = float(max(finite.max() if finite.size else 0.0, 1e-12))
        right = fig.layout[f"xaxis{col}"].domain[1]
        fig.add_heatmap(z=M, x=units, y=units, colorscale="RdBu", zmid=0, zmin=-lim, zmax=lim,
                        row=1, col=col, showscale=True,
                        colorbar={"title": {"text": name, "side": "top"}, "x": right + 0.005,
                                  "xanchor": "left", "thickness": 10, "len": 0.8, "exponentformat": "power"},
                        hovertemplate=f"{name}[%{{y}}, %{{x}}] = %{{z:.4g}}<extra></extra>")
    fig.update_xaxes(range=[0, 1], title_text="slope", row=1, col=1)
    for col in (1, 2, 3):
        fig.update_yaxes(autorange="reversed", row=1, col=col)
    fig.update_xaxes(title_text="from unit of h_t-1", row=1, col=2)
    fig.update_xaxes(title_text="from unit of h_t-1", row=1, col=3)
    fig.update_yaxes(title_text="to unit of h_t", row=1, col=1)
    fig.update_yaxes(showticklabels=False, row=1, col=3)  # same rows as W_h; room for W_h's colour bar
    fig.update_layout(title={"text": f"The step Jacobian at step {t + 1}: {act} factor and W_h apart"},
                      margin={"l": 10, "r": 10, "t": 80, "b": 10}, height=420)
    return fig


def log_norm_heatmap(N, tokens, title: str, colorbar: str, hover: str) -> go.Figure:
    """log10 of an all-pairs norm matrix (rows s, columns t). NaN above the diagonal (no path);
    exact 0 and inf cells are left uncoloured and their hover says 0 / inf."""
    N = np.asarray(N, dtype=float)
    logs = _log10(N)
    shown = np.where(np.isfinite(logs), logs, np.nan)
    text = np.vectorize(lambda v: "no path (t > s)" if np.isnan(v) else fmt(v))(N)
    labels = step_labels(tokens)
    fig = go.Figure(go.Heatmap(
        z=shown, x=labels, y=labels, customdata=text, colorscale="Viridis",
        colorbar={"title": {"text": colorbar}},
        hovertemplate="s (row): %{y}<br>t (column): %{x}<br>" + hover
                      + ": %{customdata}<br>log10: %{z:.3f}<extra></extra>"))
    fig.update_layout(title={"text": title}, xaxis_title="t (earlier step)", yaxis_title="s (later step)",
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=520)
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category")
    return fig


def chain_plot(rows, s: int, t: int) -> go.Figure:
    """The product chain behind cell (s, t): each factor's ||J_k||_2 and the running product."""
    ks = [f"J_{r['k'] + 1}" for r in rows]
    fig = go.Figure()
    fig.add_bar(x=ks, y=[r["factor_norm_2"] for r in rows], name="||J_k||_2 (one factor)",
                marker_color="#aaa")
    fig.add_scatter(x=ks, y=[r["product_norm_2"] for r in rows], mode="lines+markers",
                    name="||J_k ... J_t+1||_2 (running product)")
    fig.add_scatter(x=ks, y=[r["product_norm_fro"] for r in rows], mode="lines+markers",
                    name="||J_k ... J_t+1||_F", line={"dash": "dot"})
    fig.update_yaxes(type="log", title_text="norm (log scale)", exponentformat="power")
    _log_ticks(fig, [r[key] for r in rows for key in ("factor_norm_2", "product_norm_2", "product_norm_fro")])
    title = f"dh_{s + 1}/dh_{t + 1} = J_{s + 1} ... J_{t + 2}, built factor by factor"
    fig.update_layout(title={"text": title},
                      xaxis_title="factor added", margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def _positive(v) -> np.ndarray:
    """For a log axis: 0 and inf cannot be drawn; they become gaps (the page says so)."""
    v = np.asarray(v, dtype=float)
    return np.where(np.isfinite(v) & (v > 0), v, np.nan)


def _log_ticks(fig, values) -> None:
    """Tick labels a learner can read on a log y axis: one per decade (10^-4, 10^-3, ...) when
    the values span a decade or more; else explicit ticks such as 0.1, 0.2, 0.5 written out
    (plotly's own labels inside a decade are lone digits 2 3 4 5, which read as whole numbers)."""
    v = _positive(np.ravel(np.asarray(values, dtype=float)))
    v = v[np.isfinite(v)]
    if not v.size:
        return
    lo, hi = float(v.min()), float(v.max())
    if np.log10(hi / lo) >= 1:
        fig.update_yaxes(dtick=1)
        return
    decades = range(int(np.floor(np.log10(lo))) - 1, int(np.ceil(np.log10(hi))) + 1)
    for mantissas in ((1, 2, 5), (1, 1.5, 2, 3, 4, 5, 6, 8)):
        ticks = [float(f"{m * 10.0 ** e:.12g}") for e in decades for m in mantissas]
        ticks = [x for x in ticks if lo / 1.15 <= x <= hi * 1.15]
        if len(ticks) >= 3:
            break
    fig.update_yaxes(tickvals=ticks, ticktext=[f"{x:g}" for x in ticks])


def _hline(fig, x0, x1, y: float, name: str, color: str = "gray", dash: str = "dot") -> None:
    """A horizontal reference line as a legend entry (add_hline's label is misplaced on log axes)."""
    fig.add_scatter(x=[x0, x1], y=[y, y], mode="lines", name=name, line={"dash": dash, "color": color},
                    hovertemplate=f"{name}<extra></extra>")


def distance_plot(dist: dict, floor: float) -> go.Figure:
    """||dh_s/dh_t|| against s - t (min, median, max over t) with the bound and rho^d."""
    d = dist["d"]
    fig = go.Figure()
    fig.add_scatter(x=d, y=_positive(dist["max"]), mode="lines", name="largest over t", line={"width": 0})
    fig.add_scatter(x=d, y=_positive(dist["min"]), mode="lines", name="smallest over t", fill="tonexty",
                    line={"width": 0}, fillcolor="rgba(31,119,180,0.2)")
    fig.add_scatter(x=d, y=_positive(dist["median"]), mode="lines+markers", name="median over t")
    fig.add_scatter(x=d, y=_positive(dist["bound"]), mode="lines", line={"dash": "dash", "color": "red"},
                    name=f"bound (max ||J_k||_2)^d = {fmt(dist['max_J'])}^d")
    if dist.get("rho_line") is not None:
        fig.add_scatter(x=d, y=_positive(dist["rho_line"]), mode="lines",
                        line={"dash": "dot", "color": "green"},
                        name=f"rho(W_h)^d = {fmt(dist['rho'])}^d")
    _hline(fig, 0, max(int(d[-1]), 1), floor, "~1e-7 float32 practical floor")
    fig.update_yaxes(type="log", title_text="||dh_s/dh_t||_2 (log scale)", exponentformat="power")
    _whole_number_axis(fig, int(d[-1]) if len(d) else 0)
    fig.update_layout(title={"text": "Vanishing or exploding: norm against distance s - t"},
                      xaxis_title="distance s - t (steps)", margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def precision_plot(chain: dict, w: float, tiny: float, big: float, floor: float) -> go.Figure:
    """|w^k| multiplied step by step in float32 and float64; where float32 breaks is marked."""
    k = chain["k"]
    fig = go.Figure()
    fig.add_scatter(x=k, y=_positive(np.abs(chain["float64"])), mode="lines", name="float64",
                    line={"width": 4})
    fig.add_scatter(x=k, y=_positive(np.abs(chain["float32"])), mode="lines", name="float32",
                    line={"dash": "dash"})
    for y, label, color in ((tiny, "float32 smallest normal ~1.2e-38", "purple"),
                            (big, "float32 largest ~3.4e38", "orange"),
                            (floor, "practical floor ~1e-7", "gray")):
        _hline(fig, 0, int(k[-1]), y, label, color)
    marks = {"subnormal": ("float32 leaves the normal range", "purple"),
             "zero": ("float32 = 0 (underflow)", "red"), "inf": ("float32 = inf (overflow)", "red")}
    for key, (label, color) in marks.items():
        if chain[key] is not None:
            fig.add_vline(x=chain[key], line={"color": color, "dash": "dash"})
            fig.add_scatter(x=[chain[key]], y=[chain["float64"][chain[key]]], mode="markers",
                            marker={"color": color, "size": 11, "symbol": "x"},
                            name=f"{label} at k = {chain[key]}")
    fig.update_yaxes(type="log", title_text=f"|{w:g}^k| (log scale)", exponentformat="power")
    _whole_number_axis(fig, int(k[-1]) if len(k) else 0)
    fig.update_layout(title={"text": f"The chain {w:g}^k in float32 and float64"},
                      xaxis_title="k (factors multiplied)", margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def _whole_number_axis(fig, largest: int) -> None:
    """An x axis of step counts: whole numbers only (no 0.5 steps), every step when few."""
    if largest <= 12:
        fig.update_xaxes(tick0=0, dtick=1)
    else:
        fig.update_xaxes(tickformat="d")


def scalar_chain_plot(products, w: float) -> go.Figure:
    """w^k for k = 0..n on a log axis, ticked at the products themselves so 0.5 reads 0.5
    (plotly's log ticks inside one decade would show only the leading digit)."""
    products = np.asarray(products, dtype=float)
    k = np.arange(len(products))
    fig = go.Figure(go.Scatter(x=k, y=products, mode="lines+markers+text", text=np.vectorize(fmt)(products),
                               textposition="top right", showlegend=False,
                               hovertemplate="after %{x} steps: %{text}<extra></extra>"))
    ticks = _positive(products)
    ticks = ticks[np.isfinite(ticks)]
    if len(ticks) > 8:  # keep the labels apart: every few steps, the last one always
        ticks = ticks[np.unique(np.r_[np.linspace(0, len(ticks) - 1, 6).round().astype(int)])]
    fig.update_yaxes(type="log", title_text="w^k (log scale)", tickvals=ticks,
                     ticktext=[fmt(v) for v in ticks])
    fig.update_layout(title={"text": f"dL/dh_0 = 1 x w^k with w = {w:g}"}, xaxis_title="steps k", height=360,
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    _whole_number_axis(fig, int(k[-1]) if len(k) else 0)
    return fig


def t_sweep_plot(rows) -> go.Figure:
    Ts = [r["T"] for r in rows]
    fig = go.Figure()
    for key in [k for k in rows[0] if k != "T"]:
        fig.add_scatter(x=Ts, y=[r[key] for r in rows], mode="lines+markers", name=key)
    fig.update_xaxes(type="log", tickvals=Ts, title_text="sequence length T")
    fig.update_yaxes(type="log", title_text="gradient norm (log scale)", exponentformat="power")
    _log_ticks(fig, [r[key] for r in rows for key in r if key != "T"])
    fig.update_layout(title={"text": "Gradient norm of the input weights against T"},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def clip_bar(before: float, after: float, max_norm: float) -> go.Figure:
    """The norm before and after clipping, with max_norm as a dashed line across both bars.
    The line spans the plot in paper x (not the category axis, which would gain fake
    categories) and has a legend entry of its own (shape legend)."""
    fig = go.Figure(go.Bar(x=["before (returned by clip_grad_norm_)", "after"], y=[before, after],
                           text=[fmt(before), fmt(after)], textposition="outside", name="gradient norm"))
    fig.add_shape(type="line", xref="paper", x0=0, x1=1, yref="y", y0=max_norm, y1=max_norm,
                  line={"color": "red", "dash": "dash"}, name=f"max_norm = {max_norm:g}", showlegend=True)
    fig.update_yaxes(type="log", title_text="global gradient norm (log scale)", exponentformat="power")
    _log_ticks(fig, [before, after, max_norm])
    fig.update_layout(title={"text": "clip_grad_norm_: the norm before and after"}, height=380,
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig
