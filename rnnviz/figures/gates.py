"""Figures of page 8 (Gates: LSTM and GRU). Every builder takes its strings as arguments
(English defaults) so the page passes them in the learner's language; no number is made here
beyond log10 for a colour scale."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.common import MUTED_TEXT, log_axis, step_labels, style, validated_colorscale
from rnnviz.formatting import num

from .grid import subplots

CELL_COLOURS = {"elman": "#636efa", "lstm": "#ef553b", "gru": "#00a67e", "attention": "#ab63fa"}

INFLUENCE_LABELS = {"title": "log10 ||dh_s/dx_t||: how much input x_t moves the state h_s",
                    "x": "input step t", "y": "state step s", "colorbar": "log10 norm",
                    "hover": "||dh_s/dx_t||", "blank": "blank: t > s (no path from the future)"}


def influence_heatmaps(norms: dict, tokens, labels: dict | None = None, start: int = 0) -> go.Figure:
    """norms {panel title: (T, T) ||dh_s/dx_t|| (NaN above the diagonal)} side by side on ONE
    log10 colour scale (shared min and max), so the cells' decay compares at a glance.
    start: the norms cover steps start.. of the tokens (a window): the axes keep the true
    step numbers."""
    lab = INFLUENCE_LABELS | (labels or {})
    names = list(norms)
    logs = {k: np.log10(np.where(np.asarray(v, float) > 0, np.asarray(v, float), np.nan)) for k, v in
            norms.items()}  # (T, T) each; 0 (underflow) is blank like t > s
    finite = np.concatenate([z[np.isfinite(z)] for z in logs.values()] or [np.zeros(1)])
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    # stacked, one map per row across the full width: side by side they were 70 px wide on a phone
    n = max(len(names), 1)
    fig = subplots(rows=n, cols=1, subplot_titles=names, vertical_spacing=0.16 / n, shared_xaxes=True)
    w = next(iter(norms.values())).shape[0] if norms else len(tokens) - start
    ax = [str(t + 1) for t in range(start, start + w)]
    for j, k in enumerate(names, start=1):
        raw = np.asarray(norms[k], float)
        fig.add_trace(go.Heatmap(
            z=logs[k], x=ax, y=step_labels(tokens)[start:start + w], coloraxis="coloraxis",
            customdata=np.vectorize(num)(raw),
            hovertemplate=(f"{lab['y']}: %{{y}}<br>{lab['x']}: %{{x}}<br>{lab['hover']}: "
                           "%{customdata}<extra></extra>")), row=j, col=1)
        fig.update_xaxes(title_text=lab["x"] if j == n else None, type="category", row=j, col=1)
        fig.update_yaxes(autorange="reversed", type="category",
                         title_text=lab["y"] if j == (n + 1) // 2 else None, row=j, col=1)
    per_map = 150 + 12 * min(w, 20)  # px per map: a short sentence stays compact, a long one readable
    fig.update_layout(title={"text": lab["title"]}, height=110 + n * per_map, coloraxis={
        "colorscale": "Viridis", "cmin": lo, "cmax": hi,
        "colorbar": {"title": {"text": lab["colorbar"], "side": "top"}, "orientation": "h", "x": 0.5,
                     "xanchor": "center", "y": 1 + 30 / (n * per_map), "yanchor": "bottom", "len": 1.0,
                     "thickness": 10, "yref": "paper"}})
    fig.update_annotations(font={"size": 12})  # the panel titles (before the note below is added)
    fig.add_annotation(text=lab["blank"], xref="paper", yref="paper", x=0, y=-60 / (n * per_map),
                       showarrow=False, font={"size": 11, "color": MUTED_TEXT}, xanchor="left", yanchor="top")
    return style(fig, top=140, bottom=80)


GATE_LABELS = {"title": "Gate values over the sentence (time across, units down)",
               "x": "step t, input token", "y": "unit", "gate_bar": "gate (0..1)",
               "cand_bar": "candidate (-1..1)", "hover": "value"}


def gate_heatmaps(values: dict, tokens, candidate: str, labels: dict | None = None,
                  titles: dict | None = None) -> go.Figure:
    """values {gate: (T, H)} stacked as rows of heatmaps, time on x and units on y. The
    sigmoid gates share a 0..1 scale; the tanh candidate (`candidate`: 'g' or 'n') its own -1..1.
    Built from plain dicts (tests/core/figures/test_grid.py holds it to the validated JSON): it is
    most of page 8's LSTM/GRU switch."""
    lab = GATE_LABELS | (labels or {})
    names = list(values)
    x = step_labels(tokens)
    data, layout = [], {}
    for r, g in enumerate(names, start=1):
        z = np.asarray(values[g], float).T  # (H, T)
        data.append({"type": "heatmap", "z": z, "x": x, "y": [f"u{u + 1}" for u in range(z.shape[0])],
                     "coloraxis": "coloraxis2" if g == candidate else "coloraxis",
                     "customdata": np.vectorize(num)(z), "row": r, "col": 1,
                     "hovertemplate": f"{g}<br>%{{x}}, %{{y}}<br>{lab['hover']}: "
                                      "%{customdata}<extra></extra>"})
        layout[f"yaxis{r if r > 1 else ''}"] = {"autorange": "reversed", "type": "category",
                                                "showticklabels": False, "title": {"text": lab["y"]}}
    n = len(names)
    layout[f"xaxis{n if n > 1 else ''}"] = {"type": "category", "title": {"text": lab["x"]}}
    layout |= {"title": {"text": lab["title"]}, "height": 180 * n + 120,
               "coloraxis": {"colorscale": validated_colorscale("Viridis"), "cmin": 0, "cmax": 1,
                             "colorbar": {"title": {"text": lab["gate_bar"]}, "x": 1.02, "len": 0.45,
                                          "y": 0.75}},
               "coloraxis2": {"colorscale": validated_colorscale("RdBu"), "cmin": -1, "cmax": 1,
                              "colorbar": {"title": {"text": lab["cand_bar"]}, "x": 1.02, "len": 0.45,
                                           "y": 0.22}}}
    fig = subplots(rows=n, cols=1, shared_xaxes=True, vertical_spacing=0.04, data=data,
                   subplot_titles=[(titles or {}).get(g, g) for g in names])
    return style(fig, top=70, layout=layout)


KEPT_LABELS = {"title": "Share of each unit's cell state kept to the last step",
               "x": "unit (sorted)", "y": "f product (log scale)", "line": "threshold"}


def kept_figure(kept, order, threshold: float, labels: dict | None = None) -> go.Figure:
    """kept (H,) products of forget gates, units sorted by `order`, as markers on a log y axis
    (no bars on a log axis), with the threshold as a dashed line."""
    lab = KEPT_LABELS | (labels or {})
    k = np.asarray(kept, float)
    y = [max(k[u], 1e-300) for u in order]
    fig = go.Figure(go.Scatter(x=[f"u{u + 1}" for u in order], y=y, mode="markers",
                               customdata=[num(k[u]) for u in order], marker={"size": 9},
                               hovertemplate="%{x}: %{customdata}<extra></extra>", showlegend=False))
    fig.add_hline(y=threshold, line_dash="dash", line_color="#888",
                  annotation_text=f"{lab['line']} {num(threshold)}")
    log_axis(fig, y + [threshold], "y", title_text=lab["y"])
    fig.update_xaxes(type="category", title_text=lab["x"])
    fig.update_layout(title={"text": lab["title"]}, height=340)
    return style(fig)


LONG_LABELS = {"acc_title": "Accuracy at the training distance (fixed schedule)",
               "grad_title": "||dL/dx_1|| at initialisation: the signal that reaches the label",
               "x": "distance (noise tokens after the label)", "acc": "accuracy", "grad": "||dL/dx_1||",
               "chance": "chance", "zero": "underflow to 0 (not drawn)"}


def longrange_figures(rows: list[dict], cell_names: dict, labels: dict | None = None) -> tuple:
    """(accuracy figure, gradient figure) from longrange.result_rows of the 'fixed' experiment
    (plus 'lstm_forget_bias_3' rows as their own dashed series). Log x for distances; the
    gradient on a log y axis (markers + lines, zeros left out and counted in a note)."""
    lab = LONG_LABELS | (labels or {})
    acc, grad = go.Figure(), go.Figure()
    zeros = 0
    for exp, dash in (("fixed", "solid"), ("lstm_forget_bias_3", "dash")):
        for cell, name in cell_names.items():
            rs = sorted((r for r in rows if r["experiment"] == exp and r["cell"] == cell),
                        key=lambda r: r["distance"])
            if not rs:
                continue
            label = name if exp == "fixed" else cell_names.get("bias3", name)
            look = {"mode": "lines+markers", "name": label, "legendgroup": label,
                     "line": {"color": CELL_COLOURS.get(cell), "dash": dash}}
            d = [r["distance"] for r in rs]
            acc.add_trace(go.Scatter(x=d, y=[r["accuracy"] for r in rs], **look,
                                     hovertemplate="d = %{x}: %{y:.3f}<extra>" + label + "</extra>"))
            g = [r["grad_first_before"] for r in rs]
            zeros += sum(v <= 0 for v in g)
            grad.add_trace(go.Scatter(x=d, y=[v if v > 0 else None for v in g], **look,
                                      customdata=[num(v) for v in g],
                                      hovertemplate="d = %{x}: %{customdata}<extra>" + label + "</extra>"))
    for fig, title, y in ((acc, lab["acc_title"], lab["acc"]), (grad, lab["grad_title"], lab["grad"])):
        fig.update_xaxes(type="log", title_text=lab["x"], tickvals=sorted({r["distance"] for r in rows}))
        fig.update_layout(title={"text": title}, yaxis_title=y, height=380)
    acc.add_hline(y=0.5, line_dash="dot", line_color="#888", annotation_text=lab["chance"],
                  annotation_position="bottom left")
    acc.update_yaxes(range=[0.4, 1.05])
    log_axis(grad, [r["grad_first_before"] for r in rows], "y")  # every k-th decade when they are many
    if zeros:
        grad.add_annotation(text=f"{zeros} × {lab['zero']}", xref="paper", yref="paper", x=0, y=-0.3,
                            showarrow=False, xanchor="left", yanchor="top",
                            font={"size": 11, "color": "#555"})
    return style(acc, bottom=100), style(grad, bottom=100)
