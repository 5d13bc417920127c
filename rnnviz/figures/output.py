"""Figures for the output page: p_t and p_t - y_t, top-k per step, per-token loss,
a padded batch's loss and mask, and what one gradient step on W_o, b_o does.

Traces and axis settings are plain dicts (plotly's validated update_xaxes / update_yaxes cost
1-2 ms a call); each figure is held to the JSON the validated way gave (tests/core/figures)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.common import heatmap, log_ticks_of, native, style
from rnnviz.formatting import num

from .grid import plain_figure, subplots

TARGET_COLOR, OTHER_COLOR, AFTER_COLOR = "#d62728", "#1f77b4", "#ff7f0e"
MAX_TEXT_ROWS, MAX_TEXT_COLS = 50, 30  # beyond this, cell labels would overlap: hover instead


def _layout(fig: go.Figure, title: str, height: int = 380, layout: dict | None = None) -> go.Figure:
    """The page's style; layout: the figure's own settings, written in first (see style)."""
    return style(fig, title, height, top=60, layout=layout)


def _two_panels(x_title: str, y_titles: tuple[str, str], **axes) -> dict:
    """The layout settings of a 1 x 2 grid: both x axes category axes titled x_title, the y axis
    of panel i titled y_titles[i - 1] with the further settings axes[f"yaxis{i}"], no legend."""
    x = {"title": {"text": x_title}, "type": "category"}
    y = [{"title": {"text": t}, **axes.get(f"yaxis{i + 1}", {})} for i, t in enumerate(y_titles)]
    return {"xaxis": x, "xaxis2": x, "yaxis": y[0], "yaxis2": y[1], "showlegend": False}


def _label(labels: dict | None, name: str, default: str) -> str:
    """A figure string from the page (in the learner's language), English by default."""
    return (labels or {}).get(name, default)


def prob_and_grad_bars(labels, p, p_minus_y, target: int | None, title: str,
                       text: dict | None = None) -> go.Figure:
    """Two panels over the same outputs: p_t (target in red) and dL/dz_t = p_t - y_t.
    text: the page's strings (p_panel, grad_panel, x, p_axis, grad_axis)."""
    labels = list(labels)
    colors = [TARGET_COLOR if i == target else OTHER_COLOR for i in range(len(labels))]
    bars = [{"type": "bar", "x": labels, "y": list(map(float, vals)), "marker": {"color": colors},
             "name": name, "customdata": [num(float(v)) for v in vals], "row": 1, "col": col,
             "hovertemplate": f"%{{x}}<br>{what} = %{{customdata}}<extra></extra>"}
            for col, vals, name, what in ((1, p, "p_t", "p"), (2, p_minus_y, "p_t - y_t", "p - y"))]
    fig = subplots(rows=1, cols=2, data=bars, subplot_titles=(
        _label(text, "p_panel", "p_t = softmax(z_t)"), _label(text, "grad_panel", "dL_t/dz_t = p_t - y_t")))
    y_titles = (_label(text, "p_axis", "probability"), _label(text, "grad_axis", "gradient (per logit)"))
    layout = _two_panels(_label(text, "x", "next token (red: the target)"), y_titles,
                         yaxis1={"range": [0, 1]}, yaxis2={"range": [-1, 1]})
    return _layout(fig, title, layout=layout)


def topk_heatmap(top_labels, top_p, step_names, title: str, text: dict | None = None) -> go.Figure:
    """Steps x rank: colour is the probability, the cell text is the predicted token.

    The page passes at most output.MAX_HEATMAP_STEPS rows (a window for long sentences), so the
    text keeps a fixed readable size instead of shrinking away. text: x, y, colorbar, token."""
    top_p = np.asarray(top_p, dtype=float)
    k = top_p.shape[1]
    fig = heatmap(top_p, x=[f"#{r + 1}" for r in range(k)], y=step_names, title=title,
                  x_title=_label(text, "x", "rank of the prediction"),
                  y_title=_label(text, "y", "step t, input token"),
                  colorbar=_label(text, "colorbar", "probability"), colorscale="Blues", zmid=None,
                  hover_name="p")
    token = _label(text, "token", "token")
    fig.data[0].update(text=np.asarray(top_labels),
                       texttemplate="%{text}" if len(step_names) <= MAX_TEXT_ROWS else None,
                       textfont={"size": 12}, zmin=0, zmax=1,
                       hovertemplate=(f"%{{y}}<br>#%{{x}}<br>{token}: %{{text}}<br>p: %{{customdata}}"
                                      "<extra></extra>"))
    fig.update_layout(height=min(1400, max(300, 60 + 28 * len(step_names))))
    return fig


def loss_bars(step_names, loss_t, targets, valid, title: str, text: dict | None = None) -> go.Figure:
    """Per-token loss L_t = -ln p_t(target) in nats; steps without a target are left empty.
    text: x, y, target (hover)."""
    loss = np.where(np.asarray(valid, bool), np.asarray(loss_t, float), np.nan)  # (T,)
    target = _label(text, "target", "target")
    bar = {"type": "bar", "x": native(step_names), "y": loss, "marker": {"color": OTHER_COLOR},
           "customdata": np.stack([list(targets), [num(float(v)) for v in loss]], -1),  # (T, 2) str
           "hovertemplate": (f"%{{x}}<br>{target}: %{{customdata[0]}}<br>"
                             "Lₜ = %{customdata[1]} nats<extra></extra>")}
    layout = {"xaxis": {"title": {"text": _label(text, "x", "step t, input token")}, "type": "category"},
              "yaxis": {"title": {"text": _label(text, "y", "Lₜ (nats)")}, "rangemode": "tozero"}}
    return _layout(plain_figure([bar], layout), title, 340)


def batch_loss_heatmap(loss_t, mask, targets_valid, row_names, title: str,
                       text: dict | None = None) -> go.Figure:
    """Loss per (sentence, position); padding cells say 'pad' and carry 0.
    text: x, y, colorbar, no_target, pad."""
    loss = np.asarray(loss_t, dtype=float)
    T = loss.shape[1]
    fig = heatmap(loss, x=[str(t + 1) for t in range(T)], y=row_names, title=title,
                  x_title=_label(text, "x", "position t"), y_title=_label(text, "y", "sentence"),
                  colorbar=_label(text, "colorbar", "Lₜ (nats)"), colorscale="Reds", zmid=None,
                  hover_name="Lₜ")
    cells = np.where(np.asarray(mask, bool),
                     np.where(np.asarray(targets_valid, bool), np.vectorize(num)(loss),
                              _label(text, "no_target", "no target")),
                     _label(text, "pad", "pad"))
    fig.data[0].update(text=cells, texttemplate="%{text}" if T <= MAX_TEXT_COLS else None, zmin=0)
    fig.update_layout(height=120 + 50 * loss.shape[0])
    return fig


def before_after_bars(labels, before, after, target: int, title: str, text: dict | None = None) -> go.Figure:
    """p_t over the shown outputs before and after one gradient step.
    text: before, after, x (with a {target} placeholder), y."""
    labels = list(labels)
    bars = []
    for key, vals, color in (("before", before, OTHER_COLOR), ("after", after, AFTER_COLOR)):
        name = _label(text, key, key)
        bars.append({"type": "bar", "x": labels, "y": list(map(float, vals)), "name": name,
                     "marker": {"color": color}, "customdata": [num(float(v)) for v in vals],
                     "hovertemplate": f"{name}<br>%{{x}}<br>p = %{{customdata}}<extra></extra>"})
    shown = labels[target] if 0 <= target < len(labels) else "?"
    x = _label(text, "x", "next token (the target is {target})").format(target=shown)
    y = _label(text, "y", "probability")
    layout = {"barmode": "group", "xaxis": {"title": {"text": x}, "type": "category"},
              "yaxis": {"title": {"text": y}, "range": [0, 1]}}
    return _layout(plain_figure(bars, layout), title, 340)


def moved_bars(step_names, dp_target, moved, chosen: int, title: str, text: dict | None = None) -> go.Figure:
    """Per step: change of p_s(target_s) at the OTHER steps (the trained one would dwarf them)
    as bars, and how far each whole distribution moved (total variation) as points on a log
    axis (bars on a log axis would start at an arbitrary floor), so small moves show.
    text: dp_panel, moved_panel, x, dp_axis, moved_axis."""
    colors = [TARGET_COLOR if s == chosen else OTHER_COLOR for s in range(len(step_names))]
    dp_other = np.asarray(dp_target, float).copy()
    dp_other[chosen] = np.nan
    moved = np.asarray(moved, float)
    traces = [{"type": "bar", "x": list(step_names), "y": dp_other, "marker": {"color": colors},
               "customdata": [num(float(v)) for v in dp_target], "row": 1, "col": 1,
               "hovertemplate": "%{x}<br>Δp(target) = %{customdata}<extra></extra>"},
              {"type": "scatter", "x": list(step_names), "y": np.where(moved > 0, moved, np.nan),
               "mode": "markers", "marker": {"color": colors, "size": 10}, "row": 1, "col": 2,
               "customdata": [num(float(v)) for v in moved],
               "hovertemplate": "%{x}<br>½ Σ|Δp| = %{customdata}<extra></extra>"}]
    fig = subplots(rows=1, cols=2, data=traces, subplot_titles=(
        _label(text, "dp_panel", "change of pₛ(targetₛ), other steps"),
        _label(text, "moved_panel", "distribution moved: ½ Σ_k |Δp_s,k| (log)")))
    y_titles = (_label(text, "dp_axis", "Δ probability"), _label(text, "moved_axis", "total variation"))
    layout = _two_panels(_label(text, "x", "step s (red: the step trained on)"), y_titles,
                         yaxis2=log_ticks_of(moved))  # the log axis, spaced for the moves
    return _layout(fig, title, 360, layout=layout)


def empty_figure(title: str) -> go.Figure:
    """A chart with nothing to draw but its title (page 3's gradient step at a step with no
    target, beside the steps that have one), as tall as the bars it stands for."""
    return _layout(plain_figure([], {"xaxis": {"visible": False}, "yaxis": {"visible": False}}), title, 340)
