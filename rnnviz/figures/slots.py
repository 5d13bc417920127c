"""Figures for the slot-filling page: the token x tagger grid, hidden states at one word,
the confusion matrix, Jordan's forced error, the retraining loss curve."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.conventions import TAGS
from rnnviz.figures.common import heatmap, step_labels, style, updated, validated_colorscale
from rnnviz.formatting import num

from .grid import cell_axes, grid_layout, plain_figure

TAG_COLOURS = {"other": "#d9d9d9", "destination": "#4c78a8", "departure": "#f58518",
               "date": "#54a24b", "time": "#b279a2"}


def _discrete_scale() -> list:
    """A colourscale that paints tag index k (0..K-1) in TAG_COLOURS[TAGS[k]]."""
    K, scale = len(TAGS), []
    for k, tag in enumerate(TAGS):
        scale += [[k / K, TAG_COLOURS[tag]], [(k + 1) / K, TAG_COLOURS[tag]]]
    return scale


AXES = {"tagger": "tagger", "step": "step t, word", "tag": "tag", "unit": "hidden unit", "h": "h value",
        "predicted": "predicted tag", "true": "true tag", "words": "words", "moved": "tags moved (0 to 1)",
        "opt_step": "optimizer step", "loss": "mean cross-entropy per word (nats)",
        "reach_x": "word s (the input)", "reach_y": "word t (the tag)", "reach_bar": "||dz_t/dx_s||"}


def _axes(labels: dict | None) -> dict:
    return {**AXES, **(labels or {})}


def _names(tag_names: dict | None) -> list[str]:
    """The tags as shown (tag_names: code -> the learner's word for it; the codes by default)."""
    return [(tag_names or {}).get(tag, tag) for tag in TAGS]


def tag_grid(tokens, probs_by_tagger: dict, title: str = "Tags by tagger",
             labels: dict | None = None, tag_names: dict | None = None) -> go.Figure:
    """Rows = words, columns = taggers; each cell shows the chosen tag, coloured by tag,
    with every tag's probability on hover. probs_by_tagger: label -> (T, K) array;
    tag_names: code -> the name shown (目的地 for destination), the codes by default.
    Built from plain dicts (grid.plain_figure): a new sentence on page 5 builds it anew."""
    A, names = _axes(labels), _names(tag_names)
    labels = list(probs_by_tagger)
    P = np.stack([np.asarray(probs_by_tagger[k]) for k in labels], axis=1)  # (T, n, K)
    best = P.argmax(-1)  # (T, n)
    text = [[f"{names[b]} ({P[t, j, b]:.2f})" for j, b in enumerate(row)] for t, row in enumerate(best)]
    hover = [["<br>".join(f"p({tag}) = {num(P[t, j, k], 3)}" for k, tag in enumerate(names))
              for j in range(len(labels))] for t in range(P.shape[0])]
    data = [{"colorscale": _discrete_scale(), "customdata": hover,
             "hovertemplate": "%{y} · %{x}<br>%{customdata}<extra></extra>", "showscale": False, "text": text,
             "texttemplate": "%{text}", "x": labels, "xgap": 2, "y": step_labels(tokens), "ygap": 2,
             "z": best + 0.5, "zmax": len(TAGS), "zmin": 0, "type": "heatmap"}]
    data += [{"marker": {"color": TAG_COLOURS[tag], "size": 12, "symbol": "square"}, "mode": "markers",
              "name": name, "x": [None], "y": [None], "type": "scatter"}  # a legend for the colours
             for tag, name in zip(TAGS, names)]
    layout = {"title": {"text": title},
              "xaxis": {"title": {"text": A["tagger"]}, "type": "category", "side": "top", "tickangle": 0},
              "yaxis": {"title": {"text": A["step"]}, "autorange": "reversed", "type": "category"},
              "height": 140 + 38 * len(tokens), "legend": {"title": {"text": A["tag"]}},
              "plot_bgcolor": "white"}
    return style(plain_figure(data, layout))


def hidden_pair(h_a, h_b, name_a: str, name_b: str, title: str, labels: dict | None = None) -> go.Figure:
    """Two hidden-state vectors unit by unit, side by side (grouped bars)."""
    A = _axes(labels)
    units = [f"u{j + 1}" for j in range(len(h_a))]
    fig = go.Figure()
    for h, name in ((h_a, name_a), (h_b, name_b)):
        fig.add_trace(go.Bar(x=units, y=np.asarray(h), name=name,
                             hovertemplate="%{x}: h = %{y:.4f}<extra>" + name + "</extra>"))
    fig.update_layout(title={"text": title}, xaxis_title=A["unit"], yaxis_title=A["h"],
                      barmode="group",
                      legend={"orientation": "h", "y": -0.25})
    return style(fig)


def confusion_figure(cm, title: str, labels: dict | None = None,
                     tag_names: dict | None = None) -> go.Figure:
    """Counts of (true tag, predicted tag) on held-out words; the diagonal is correct."""
    A, names = _axes(labels), _names(tag_names)
    fig = heatmap(np.asarray(cm, dtype=float), x=names, y=names, title=title,
                  x_title=A["predicted"], y_title=A["true"], colorbar=A["words"],
                  colorscale="Blues", zmid=None, hover_name=A["words"])
    counts = np.asarray(cm).astype(int).astype(str)
    return fig.update_traces(text=counts, texttemplate="%{text}")  # the count in every cell


def forced_change(tokens, changes: dict, t_forced: int, title: str, labels: dict | None = None) -> go.Figure:
    """How far each step's tag distribution moved (half the L1 distance, 0..1) after the
    output at step t_forced was forced to a wrong tag; one bar group per tagger. Built from plain
    dicts (grid.plain_figure): a new sentence or step on page 5 builds it anew."""
    A = _axes(labels)
    x = step_labels(tokens)
    data = [{"hovertemplate": "%{x}<br>" + A["moved"] + ": %{y:.3f}<extra>" + name + "</extra>", "name": name,
             "x": x, "y": np.asarray(ch), "type": "bar"} for name, ch in changes.items()]
    layout = {"shapes": [{"line": {"color": "red", "dash": "dot"}, "type": "line", "x0": t_forced,
                          "x1": t_forced, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}],
              "title": {"text": title}, "xaxis": {"title": {"text": A["step"]}, "type": "category"},
              "yaxis": {"title": {"text": A["moved"]}, "range": [0, 1.05]}, "barmode": "group",
              "legend": {"orientation": "h", "y": -0.3}}
    return style(plain_figure(data, layout))


def loss_curve(history, title: str = "Training loss", labels: dict | None = None) -> go.Figure:
    A = _axes(labels)
    steps = [r["step"] for r in history]
    hover = A["opt_step"] + " %{x}<br>" + A["loss"] + ": %{y:.4f}<extra></extra>"
    fig = go.Figure(go.Scatter(x=steps, y=[r["loss"] for r in history], mode="lines", name=A["loss"],
                               hovertemplate=hover))
    fig.update_layout(title={"text": title}, xaxis_title=A["opt_step"],
                      yaxis_title=A["loss"])
    return style(fig)


def reach_heatmaps(tokens, reach_by_tagger: dict, title: str, labels: dict | None = None) -> go.Figure:
    """One panel per tagger: R[t, s] = ||dz_t/dx_s|| (rows the tagged word, columns the input
    word), each panel on its own colour scale (a flattened FNN spreads a small reach over the
    whole square; on a per-word FNN's scale it would look blank), with its own colour bar.
    Built from plain dicts on the kept grid (grid.grid_layout): a new sentence builds it anew."""
    A = _axes(labels)
    names = list(reach_by_tagger)
    steps = step_labels(tokens)
    # room between the panels for the first colour bar AND the second panel's word labels
    layout = grid_layout(1, len(names), subplot_titles=names, horizontal_spacing=0.22)
    data = []
    for j, name in enumerate(names):
        R = np.asarray(reach_by_tagger[name], dtype=float)
        x_name, y_name = (f"{axis}axis{j + 1 if j else ''}" for axis in "xy")
        right = layout[x_name]["domain"][1]
        bar = {"len": 0.8, "thickness": 10, "title": {"side": "right", "text": A["reach_bar"]},
               "x": right + 0.005, "xanchor": "left"}
        data.append({"colorbar": bar,
                     "colorscale": validated_colorscale("Blues"),
                     "hovertemplate": A["reach_y"] + ": %{y}<br>" + A["reach_x"] + ": %{x}<br>"
                                      + "%{z:.4g}<extra>" + name + "</extra>",
                     "x": steps, "y": steps, "z": R, "zmax": float(np.nanmax(R)) or 1.0, "zmin": 0,
                     "type": "heatmap", **cell_axes(j + 1)})
        y_axis = {"autorange": "reversed", "type": "category"}
        if j == 0:
            y_axis["title"] = {"text": A["reach_y"]}
        x_axis = {"title": {"text": A["reach_x"]}, "type": "category"}
        layout = updated(layout, {x_name: x_axis, y_name: y_axis})
    layout = updated(layout, {"title": {"text": title}, "height": 200 + 30 * len(tokens)})
    return style(plain_figure(data, layout), top=70)
