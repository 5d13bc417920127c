"""Page 5's tag grid, forced-change bars and reach heatmaps are built from plain dicts (rnnviz/figures/slots.py),
without plotly's per-property validation. Each is held here to the very JSON (same string: values
and key order) the validated API gave: a reference built the old, validated way in this file,
under plotly's default template and under Streamlit's."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from rnnviz.conventions import TAGS
from rnnviz.figures import slots
from rnnviz.figures.common import step_labels, style
from rnnviz.formatting import num
from tests.core.figures.test_grid import validated_subplots
from tests.core.figures.test_plain_output import template, text  # noqa: F401 - template: autouse fixture

RNG = np.random.default_rng(5)
ZH = {"tagger": "标注器", "step": "第 t 步，字", "tag": "标签", "moved": "标签变化（0 到 1）"}
ZH_TAGS = {"other": "其他", "destination": "目的地", "departure": "出发地", "date": "日期", "time": "时间"}


# ---- the references: the validated code the plain builders replaced ------------------------------

def validated_tag_grid(tokens, probs_by_tagger, title="Tags by tagger", labels=None, tag_names=None):
    A, names = slots._axes(labels), slots._names(tag_names)
    labels = list(probs_by_tagger)
    P = np.stack([np.asarray(probs_by_tagger[k]) for k in labels], axis=1)
    best = P.argmax(-1)
    text_ = [[f"{names[b]} ({P[t, j, b]:.2f})" for j, b in enumerate(row)] for t, row in enumerate(best)]
    hover = [["<br>".join(f"p({tag}) = {num(P[t, j, k], 3)}" for k, tag in enumerate(names))
              for j in range(len(labels))] for t in range(P.shape[0])]
    fig = go.Figure(go.Heatmap(
        z=best + 0.5, x=labels, y=step_labels(tokens), zmin=0, zmax=len(TAGS),
        colorscale=slots._discrete_scale(), showscale=False, text=text_, texttemplate="%{text}",
        customdata=hover, xgap=2, ygap=2,
        hovertemplate="%{y} · %{x}<br>%{customdata}<extra></extra>"))
    for tag, name in zip(TAGS, names):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 marker={"size": 12, "color": slots.TAG_COLOURS[tag], "symbol": "square"}))
    fig.update_layout(title={"text": title}, xaxis_title=A["tagger"], yaxis_title=A["step"],
                      height=140 + 38 * len(tokens),
                      legend={"title": {"text": A["tag"]}}, plot_bgcolor="white")
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", side="top", tickangle=0)
    return style(fig)


def validated_forced_change(tokens, changes, t_forced, title, labels=None):
    A = slots._axes(labels)
    x = step_labels(tokens)
    fig = go.Figure()
    for name, ch in changes.items():
        fig.add_trace(go.Bar(x=x, y=np.asarray(ch), name=name,
                             hovertemplate="%{x}<br>" + A["moved"] + ": %{y:.3f}<extra>" + name + "</extra>"))
    fig.add_vline(x=t_forced, line_dash="dot", line_color="red")
    fig.update_layout(title={"text": title}, xaxis_title=A["step"],
                      yaxis_title=A["moved"], yaxis_range=[0, 1.05],
                      barmode="group",
                      legend={"orientation": "h", "y": -0.3})
    fig.update_xaxes(type="category")
    return style(fig)


def validated_reach_heatmaps(tokens, reach_by_tagger, title, labels=None):
    A = slots._axes(labels)
    names = list(reach_by_tagger)
    steps = step_labels(tokens)
    fig = validated_subplots(1, len(names), subplot_titles=names, horizontal_spacing=0.22)
    for j, name in enumerate(names):
        R = np.asarray(reach_by_tagger[name], dtype=float)
        right = fig.layout[f"xaxis{j + 1 if j else ''}"].domain[1]
        fig.add_heatmap(z=R, x=steps, y=steps, zmin=0, zmax=float(np.nanmax(R)) or 1.0,
                        colorscale="Blues", row=1, col=j + 1,
                        colorbar={"title": {"text": A["reach_bar"], "side": "right"}, "x": right + 0.005,
                                  "xanchor": "left", "thickness": 10, "len": 0.8},
                        hovertemplate=A["reach_y"] + ": %{y}<br>" + A["reach_x"] + ": %{x}<br>"
                                      + "%{z:.4g}<extra>" + name + "</extra>")
        fig.update_xaxes(title_text=A["reach_x"], type="category", row=1, col=j + 1)
        fig.update_yaxes(autorange="reversed", type="category", row=1, col=j + 1,
                         title_text=A["reach_y"] if j == 0 else None)
    fig.update_layout(title={"text": title}, height=200 + 30 * len(tokens))
    return style(fig, top=70)


def probs(T: int, n: int, dtype=float) -> dict:
    return {f"tagger {j}": RNG.dirichlet(np.ones(len(TAGS)), T).astype(dtype) for j in range(n)}


CASES = {  # name: (plain builder, validated reference, arguments)
    "grid": (slots.tag_grid, validated_tag_grid, (["Arrive", "Taipei", "on", "<unk>"], probs(4, 4))),
    "grid_zh_f32": (slots.tag_grid, validated_tag_grid,
                    (list("十一月二日离开台北"), probs(9, 5, np.float32), "标注", ZH, ZH_TAGS)),
    "grid_one_word": (slots.tag_grid, validated_tag_grid, (["x" * 80], probs(1, 1), "one")),
    "forced": (slots.forced_change, validated_forced_change,
               (["a", "b", "c"], {"Jordan": RNG.random(3), "Elman": np.zeros(3)}, 1, "forced")),
    "forced_zh_f32_last": (slots.forced_change, validated_forced_change,
                           (list("离开台北"), {"Jordan": RNG.random(4).astype(np.float32)}, 3, "强制", ZH)),
    "forced_one_word": (slots.forced_change, validated_forced_change, (["<unk>"], {"J": [0.0]}, 0, "one")),
    "reach": (slots.reach_heatmaps, validated_reach_heatmaps,
              (["Arrive", "Taipei", "on", "<unk>"], {"FNN": np.diag(RNG.random(4)), "flat": RNG.random((4, 4))},
               "reach")),
    "reach_zh_one_zero": (slots.reach_heatmaps, validated_reach_heatmaps,
                          (list("离开台北"), {"单字 FNN": np.zeros((4, 4), np.float32)}, "可及", {"reach_x": "字 s"})),
    "reach_one_word": (slots.reach_heatmaps, validated_reach_heatmaps,
                       (["x" * 80], {"a": [[0.5]], "b": [[2.0]], "c": [[0.0]]}, "one")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_slot_figure_is_what_the_validated_one_was(name):
    plain, validated, args = CASES[name]
    assert text(plain(*args)) == text(validated(*args))
