"""Page 8's gate heatmaps (rnnviz.figures.gates.gate_heatmaps) are built from plain dicts, without
plotly's per-property validation: held here to the very JSON (same string: values and key order)
the validated API gave, a reference built the old way in this file, under plotly's default
template and under Streamlit's."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from rnnviz.figures import gates
from rnnviz.figures.common import step_labels, style
from rnnviz.formatting import num
from tests.core.figures.test_grid import validated_subplots
from tests.core.figures.test_plain_output import template, text  # noqa: F401 - template: autouse fixture

RNG = np.random.default_rng(8)


def validated_gate_heatmaps(values, tokens, candidate, labels=None, titles=None):
    lab = gates.GATE_LABELS | (labels or {})
    names = list(values)
    fig = validated_subplots(rows=len(names), cols=1, shared_xaxes=True, vertical_spacing=0.04,
                             subplot_titles=[(titles or {}).get(g, g) for g in names])
    x = step_labels(tokens)
    for r, g in enumerate(names, start=1):
        z = np.asarray(values[g], float).T
        fig.add_trace(go.Heatmap(
            z=z, x=x, y=[f"u{u + 1}" for u in range(z.shape[0])],
            coloraxis="coloraxis2" if g == candidate else "coloraxis", customdata=np.vectorize(num)(z),
            hovertemplate=f"{g}<br>%{{x}}, %{{y}}<br>{lab['hover']}: %{{customdata}}<extra></extra>"),
            row=r, col=1)
        fig.update_yaxes(autorange="reversed", type="category", showticklabels=False,
                         title_text=lab["y"], row=r, col=1)
    fig.update_xaxes(type="category", title_text=lab["x"], row=len(names), col=1)
    fig.update_layout(title={"text": lab["title"]}, height=180 * len(names) + 120,
                      coloraxis={"colorscale": "Viridis", "cmin": 0, "cmax": 1,
                                 "colorbar": {"title": {"text": lab["gate_bar"]}, "x": 1.02, "len": 0.45,
                                              "y": 0.75}},
                      coloraxis2={"colorscale": "RdBu", "cmin": -1, "cmax": 1,
                                  "colorbar": {"title": {"text": lab["cand_bar"]}, "x": 1.02,
                                               "len": 0.45, "y": 0.22}})
    return style(fig, top=70)


def gate_values(names: str, T: int, H: int, candidate: str, dtype=float) -> dict:
    return {g: (RNG.random((T, H)) * (2 if g == candidate else 1) - (g == candidate)).astype(dtype)
            for g in names}


CASES = {  # name: (arguments)
    "lstm": (gate_values("ifgo", 5, 4, "g"), ["Arrive", "in", "<unk>", "on", "."], "g"),
    "gru_zh_f32": (gate_values("rzn", 9, 32, "n", np.float32), list("十一月二日离开台北"), "n",
                   {"title": "门的取值", "x": "第 t 步，字", "y": "单元"}, {"r": "重置门 r", "z": "更新门 z"}),
    "one_word": (gate_values("ifgo", 1, 3, "g"), ["x" * 80], "g"),
    "one_gate": (gate_values("f", 3, 2, "g"), ["a", "b", "c"], "g"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gate_heatmaps_are_what_the_validated_figure_was(name):
    args = CASES[name]
    assert text(gates.gate_heatmaps(*args)) == text(validated_gate_heatmaps(*args))
