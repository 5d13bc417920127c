"""Figures for the hidden-state page: arrays in, go.Figure out (no streamlit, no model runs)."""
from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

from rnnviz.figures.common import AXIS_TEXT, heatmap, log_ticks, merged, step_labels, style
from rnnviz.formatting import num, plain_math

from .grid import plain_figure, subplots

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


def _titled(x: str | None = None, y: str | None = None, **layout) -> dict:
    """A layout dict with the axis titles x and y (None: no title) and the other settings given,
    nested as update_layout(xaxis_title=..., yaxis_title=...) writes them."""
    axes = {name: {"title": {"text": text}} for name, text in (("xaxis", x), ("yaxis", y))
            if text is not None}
    return merged(axes, layout)


def _category_x(layout: dict) -> dict:
    """The layout with a category x axis (update_xaxes(type="category") after its title)."""
    return merged(layout, {"xaxis": {"type": "category"}})


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
    # the shapes add_shape writes (keys in plotly's order), set as plain values after the style:
    # on a styled figure (built without validation) setting a layout property validates nothing
    shapes = []
    if step is not None:  # the step's column boxed
        shapes.append({"line": {"color": "black", "width": 3}, "type": "rect", "x0": step - 0.5,
                       "x1": step + 0.5, "xref": "x", "y0": 0, "y1": 1, "yref": "paper"})
    if split is not None:  # a line under the forward units
        shapes.append({"line": {"color": "black", "width": 2}, "type": "line", "x0": 0, "x1": 1,
                       "xref": "paper", "y0": split - 0.5, "y1": split - 0.5, "yref": "y"})
    if shapes:  # after any the heatmap drew (it draws none today)
        fig.layout["shapes"] = [s.to_plotly_json() for s in fig.layout.shapes] + shapes
    fig.layout["height"] = max(300, 40 + 14 * H)
    return fig


def step_terms_bar(terms: dict, name_rec: str = "W_h h_{t-1}", activation: str = "tanh",
                   labels: dict | None = None) -> go.Figure:
    """The three terms of a_t per unit, stacked, with a_t and h_t as markers; `activation`
    names the model's phi in the legend ("tanh", "ReLU", "identity").
    labels: title, x, y, a (the legend of a_t) in the page's language."""
    H = len(terms["a"])
    units = [f"u{j + 1}" for j in range(H)]
    data = []  # plain trace dicts, nested keys in plotly's order; each y (H,)
    for key, label, color in (("Wx_x", "W_x x_t", _COLORS[0]), ("Wh_h", name_rec, _COLORS[1]),
                              ("b", "b_h", _COLORS[2])):
        label = plain_math(label)
        data.append({"type": "bar", "hovertemplate": f"{label}<br>%{{x}}: %{{y:.4f}}<extra></extra>",
                     "marker": {"color": color}, "name": label, "x": units, "y": _finite(terms[key])})
    h_name = plain_math("h_t = a_t" if activation in ("identity", "linear") else f"h_t = {activation}(a_t)")
    data += [{"type": "scatter", "mode": "markers", "name": _label(labels, "a", "aₜ (sum)"), "x": units,
              "y": _finite(terms["a"]),
              "marker": {"color": "black", "line": {"width": 3}, "size": 18, "symbol": "line-ew-open"}},
             {"type": "scatter", "mode": "markers", "name": h_name, "x": units, "y": _finite(terms["h"]),
              "marker": {"color": _COLORS[4], "size": 10, "symbol": "diamond"}}]
    layout = _titled(_label(labels, "x", "hidden unit"), _label(labels, "y", "value"), barmode="relative",
                     legend={"orientation": "h", "y": -0.25})
    title = _label(labels, "title", "The three terms of a_t, per hidden unit")
    return style(plain_figure(data, layout), title, 380)


def unit_lines(values, tokens, units, name: str = "h", labels: dict | None = None) -> go.Figure:
    """One line per chosen unit (0-based indices) over the steps. labels: title, x, y."""
    v = np.asarray(values, dtype=float)  # (T, H)
    x = step_labels(tokens)
    data = [{"type": "scatter", "hovertemplate": f"u{j + 1}<br>%{{x}}<br>{name} = %{{y:.4f}}<extra></extra>",
             "line": {"color": color}, "marker": {"color": color}, "mode": "lines+markers",
             "name": f"u{j + 1}", "x": x, "y": _finite(v[:, j])}  # y (T,)
            for j, color in zip(units, unit_colors(len(units)))]
    layout = _category_x(_titled(_label(labels, "x", "step t, input token"),
                                 _label(labels, "y", f"{name} value")))
    title = _label(labels, "title", f"{name}_t of the chosen units over time")
    return style(plain_figure(data, layout), title, 360)


def pca_trajectory(paths, share, labels: dict | None = None) -> go.Figure:
    """paths: [(name, coords (T, 2), tokens)], each drawn from h_1 ... h_T with token labels.
    labels: title, final ("final state h_T"), x and y with a {share} placeholder."""
    data = []
    points = [np.asarray(xy, dtype=float).reshape(-1, 2) for _, xy, _ in paths]  # (T_i, 2) each
    names = [step_labels(tokens) for _, _, tokens in paths]
    shown = [i for i, p in enumerate(points) if len(p) <= LABELLED]  # a longer path: hover only
    places = label_places(np.concatenate([points[i] for i in shown]) if shown else np.zeros((0, 2)),
                          [n for i in shown for n in names[i]])
    for i, (name, _, _) in enumerate(paths):
        start = sum(len(points[j]) for j in shown if j < i)
        data += _trajectory(name, points[i], names[i], _COLORS[i % len(_COLORS)],
                            _label(labels, "final", "final state h_T"),
                            places[start:start + len(points[i])] if i in shown else None)
    x_title = _label(labels, "x", "PC1 ({share} of the variance)").format(share=f"{share[0]:.0%}")
    y_title = _label(labels, "y", "PC2 ({share} of the variance)").format(share=f"{share[1]:.0%}")
    layout = _titled(x_title, y_title, legend={"orientation": "h", "y": -0.2})
    return style(plain_figure(data, layout),
                 _label(labels, "title", "Trajectory of h_1 … h_T in 2-D (PCA); the star is h_T"), 460)


PLACES = ("top center", "bottom center", "middle right", "middle left")
LABELLED = 25  # a path of more points is drawn without its labels (hover only)
# a label's size as a share of the plot's extent (a ~700 x 330 px plot area, 12 px text): per
# character, its height, and its gap from the point
CHAR_W, TEXT_H, GAP = 0.011, 0.055, 0.02


def label_places(xy, texts=None) -> list[str]:
    """Where each point's text goes (plotly's textposition), xy (n, 2) in drawing order, texts its
    labels (their length sets a label's width; 6 characters each if None): above the point, unless
    that box would overlap a label already placed; then below, right or left, the first that
    overlaps none, nor any point's marker ("7 ▁the" and "4 ▁the" printed over each other as
    "74▁the", and two sentences' "1 <bos>" over "3 at"). When all four overlap, the one that
    overlaps least."""
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    texts = list(texts) if texts is not None else ["x" * 6] * len(xy)
    finite = xy[np.isfinite(xy).all(1)]  # (m, 2): the points that are drawn
    lo = finite.min(0) if len(finite) else np.zeros(2)
    span = np.ptp(finite, axis=0) if len(finite) else np.ones(2)
    span = np.where(span > 0, span, 1.0)
    unit = (xy - lo) / span  # (n, 2) in shares of the extent
    # (x0, x1, y0, y1) of what a label must not cover: every marker (GAP / 2 across), then each
    # label as it is placed
    g = GAP / 2
    drawn = unit[np.isfinite(unit).all(1)]
    boxes = np.column_stack([drawn[:, 0] - g, drawn[:, 0] + g, drawn[:, 1] - g, drawn[:, 1] + g])  # (k, 4)
    places: list[str] = []
    for (x, y), text in zip(unit, texts):
        if not (np.isfinite(x) and np.isfinite(y)):
            places.append(PLACES[0])
            continue
        w = CHAR_W * max(len(str(text)), 1)
        options = np.array([(x - w / 2, x + w / 2, y + GAP, y + GAP + TEXT_H),  # in PLACES' order
                            (x - w / 2, x + w / 2, y - GAP - TEXT_H, y - GAP),
                            (x + GAP, x + GAP + w, y - TEXT_H / 2, y + TEXT_H / 2),
                            (x - GAP - w, x - GAP, y - TEXT_H / 2, y + TEXT_H / 2)])  # (4, 4)
        cost = _overlap(options[:, None, :], boxes[None, :, :]).sum(1)  # (4,)
        best = min(range(len(PLACES)), key=lambda q: (cost[q] > 0, cost[q], q))
        places.append(PLACES[best])
        boxes = np.vstack([boxes, options[best]])
    return places


def _overlap(a, b):
    """The area (x0, x1, y0, y1) boxes share, along their last axis (broadcast)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    wide = np.minimum(a[..., 1], b[..., 1]) - np.maximum(a[..., 0], b[..., 0])
    high = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 2], b[..., 2])
    return np.clip(wide, 0, None) * np.clip(high, 0, None)


def _trajectory(name: str, xy: np.ndarray, names: list[str], color: str, final: str,
                places: list[str] | None = None) -> list[dict]:
    """One path's two plain traces: xy (T, 2) as a line through its steps, labelled by token
    (hover only when long; each label where label_places puts it), and a star on its last point."""
    mode = "lines+markers+text" if len(xy) <= LABELLED else "lines+markers"  # long: hover only
    hover = f"{name}<br>%{{text}}<br>PC1 %{{x:.3f}}, PC2 %{{y:.3f}}<extra></extra>"
    path = {"type": "scatter", "hovertemplate": hover,
            "line": {"color": color}, "marker": {"color": color, "size": 9}, "mode": mode, "name": name,
            "text": names, "textfont": {"color": AXIS_TEXT, "size": 12},
            "textposition": (places[0] if len(set(places)) == 1 else places) if places else "top center",
            "x": xy[:, 0], "y": xy[:, 1]}
    star = {"type": "scatter", "hovertemplate": f"{name}: {final}<extra></extra>",
            "marker": {"color": color, "size": 18, "symbol": "star"}, "mode": "markers", "showlegend": False,
            "x": [xy[-1, 0]], "y": [xy[-1, 1]]}
    return [path, star]


def growth_plot(series: dict, w: float, h0: float, labels: dict | None = None) -> go.Figure:
    """h_t = phi(w h_{t-1}) without and with tanh, side by side: each needs its own scale.
    labels: x ("step t")."""
    names = list(series)
    data, axes = [], {"showlegend": False}
    for i, name in enumerate(names):
        ys = series[name]
        hover = f"{name}<br>t = %{{x}}<br>h = %{{text}}<extra></extra>"
        data.append({"type": "scatter", "hovertemplate": hover,
                     "line": {"color": _COLORS[i]}, "mode": "lines+markers", "name": name,
                     "text": [num(y) for y in ys], "x": list(range(1, len(ys) + 1)), "y": _finite(ys),
                     "row": 1, "col": i + 1})
        n = "" if i == 0 else i + 1  # subplot i + 1: xaxis, xaxis2, ...
        axes |= {f"xaxis{n}": {"title": {"text": _label(labels, "x", "step t")}},
                 f"yaxis{n}": {"title": {"text": "h_t"}}}
    fig = subplots(rows=1, cols=len(names), subplot_titles=[f"φ = {n}" for n in names], data=data)
    return style(fig, plain_math(f"h_t = φ({w:g}·h_{{t-1}}), h_0 = {h0:g}"), 340, top=70, layout=axes)


def norms_plot(norms: dict, tokens, labels: dict | None = None) -> go.Figure:
    """||h_t|| per step for several versions of the model (same weights, another φ).
    labels: title, log (appended when the axis is logarithmic), x, y."""
    x = step_labels(tokens)
    data = [{"type": "scatter", "hovertemplate": f"{name}<br>%{{x}}<br>‖h_t‖ = %{{text}}<extra></extra>",
             "line": {"color": _COLORS[i]}, "mode": "lines+markers", "name": name,
             "text": [num(y) for y in ys], "x": x, "y": _finite(ys)}  # y (T,)
            for i, (name, ys) in enumerate(norms.items())]
    flat = np.concatenate([_finite(v) for v in norms.values()]) if norms else np.zeros(1)
    pos = flat[np.isfinite(flat) & (flat > 0)]
    log = pos.size > 0 and pos.max() > 50 * pos.min()  # a linear model can explode: log scale
    layout = {"yaxis": _log_y(pos)} if log else {}
    layout = _category_x(merged(layout, _titled(_label(labels, "x", "step t, input token"),
                                                _label(labels, "y", "‖h_t‖ (Euclidean norm)"))))
    title = _label(labels, "title", "Size of the hidden state ‖h_t‖ with the same weights")
    title += _label(labels, "log", " (log scale)") if log else ""
    return style(plain_figure(data, layout), title, 340)


def _log_y(pos: np.ndarray) -> dict:
    """A log y axis spaced for the positive finite values pos, as common.log_axis writes it:
    its nested `minor` first (plotly's update writes a nested setting before the plain ones)."""
    ticks = log_ticks(float(np.log10(pos.max() / pos.min())))
    return {"minor": ticks["minor"]} | {k: v for k, v in ticks.items() if k != "minor"}


def saturation_bar(per_step, tokens, threshold: float, labels: dict | None = None) -> go.Figure:
    """Share of hidden units with |h_t| > threshold at each step (or, with the page's labels,
    another per-step share such as ReLU's units that are off). labels: title, x, y, hover."""
    hover = _label(labels, "hover", "saturated share")
    data = [{"type": "bar", "hovertemplate": f"%{{x}}<br>{hover}: %{{y:.1%}}<extra></extra>",
             "x": step_labels(tokens), "y": _finite(per_step)}]  # y (T,)
    x_title, y_title = _label(labels, "x", "step t, input token"), _label(labels, "y", "share of units")
    layout = _category_x(_titled(x_title, y_title, yaxis={"range": [0, 1], "tickformat": ".0%"}))
    title = _label(labels, "title", f"Share of hidden units with |h_t| > {threshold:g} (saturated)")
    return style(plain_figure(data, layout), title, 300)


def params_vs_T(shared: int, T_max: int, T_now: int, labels: dict | None = None) -> go.Figure:
    """Parameter count against sentence length: flat when shared, a line when one set per step.
    labels: title, x, y, shared, per_step, now (with a {T} placeholder)."""
    Ts = list(range(1, T_max + 1))
    shared = shared.item() if isinstance(shared, np.generic) else shared  # as validation writes a list
    data = [{"type": "scatter", "mode": "lines", "name": _label(labels, "shared", "shared weights (RNN)"),
             "x": Ts, "y": [shared] * len(Ts)},
            {"type": "scatter", "mode": "lines", "name": _label(labels, "per_step", "one set per step"),
             "x": Ts, "y": [shared * t for t in Ts]}]
    # the dotted line at T_now and its label: the shape and annotation add_vline writes
    line = {"line": {"dash": "dot"}, "type": "line", "x0": T_now, "x1": T_now, "xref": "x", "y0": 0, "y1": 1,
            "yref": "y domain"}
    note = {"showarrow": False, "text": _label(labels, "now", "your sentence, T = {T}").format(T=T_now),
            "x": T_now, "xanchor": "left", "xref": "x", "y": 1, "yanchor": "top", "yref": "y domain"}
    layout = _titled(_label(labels, "x", "sentence length T (steps)"),
                     _label(labels, "y", "number of parameters"), shapes=[line], annotations=[note])
    return style(plain_figure(data, layout),
                 _label(labels, "title", "Parameters (cell + output) against sentence length T"), 340)


def unrolled(tokens, rec_label: str = "W_h", max_steps: int = 10, labels: dict | None = None) -> go.Figure:
    """The RNN unrolled as T layers: each layer uses the same W_x, W_h, b_h (tied weights).

    Only the first max_steps steps are drawn (a long sentence would not fit).
    """
    shown_all = len(tokens) <= max_steps
    tokens = [html.escape(str(t)) for t in tokens[:max_steps]]
    T = len(tokens)
    names = step_labels(tokens)
    xs = list(range(T + 1))
    circles = {"type": "scatter", "mode": "markers+text", "showlegend": False,
               "textposition": "middle center"}
    data = [circles | {"hoverinfo": "skip", "marker": {"color": "#ffd8a8", "size": 34},
                       "text": ["h_0"] + [f"h_{t}" for t in range(1, T + 1)], "x": xs, "y": [1] * (T + 1)},
            circles | {"hoverinfo": "text", "hovertext": names, "marker": {"color": "#c5e1f5", "size": 34},
                       "text": [f"x_{t}" for t in range(1, T + 1)], "x": xs[1:], "y": [0] * T}]
    notes = [note for t in range(1, T + 1) for note in _layer_notes(t, rec_label, tokens[t - 1])]
    more = "" if shown_all else _label(labels, "more", " (first {T} steps shown)").format(T=T)
    title = _label(labels, "title", "Unrolled: one layer per step, all with the same W_x, {rec}, b_h")
    layout = {"annotations": notes, "xaxis": {"visible": False, "range": [-0.5, T + 0.5]},
              "yaxis": {"visible": False, "range": [-0.6, 1.5]}}
    return style(plain_figure(data, layout), title.format(rec=rec_label) + more, 240)


def _layer_notes(t: int, rec_label: str, token: str) -> list[dict]:
    """Layer t's arrows (x_t up to h_t, h_{t-1} across to h_t) and labels (the recurrent
    weight, W_x, the token) as plain annotations, keys in plotly's order."""
    return [_arrow(t, 0.18, t, 0.82), _arrow(t - 0.78, 1, t - 0.22, 1),
            {"showarrow": False, "text": rec_label, "x": t - 0.5, "y": 1.18},
            {"showarrow": False, "text": "W_x", "x": t + 0.18, "y": 0.5},
            {"showarrow": False, "text": token, "x": t, "y": -0.3}]


def _arrow(ax, ay, x, y) -> dict:
    """An arrow from (ax, ay) to (x, y) in data coordinates, without text."""
    return {"arrowhead": 2, "ax": ax, "axref": "x", "ay": ay, "ayref": "y", "showarrow": True, "text": "",
            "x": x, "xref": "x", "y": y, "yref": "y"}
