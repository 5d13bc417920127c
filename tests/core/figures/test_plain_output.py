"""The output page's figures, the shared heatmap, log_axis and the clickable copy of a heatmap are
built from plain dicts, without plotly's per-property validation. Each is held here to the very
JSON (same string: values and key order) the validated API gave: a reference built the old,
validated way in this file, under plotly's default template and under Streamlit's."""
from __future__ import annotations

import copy
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from rnnviz.figures import bptt, common, gates, grid, hidden, output, pick
from rnnviz.figures.common import MUTED_TEXT, heatmap, log_ticks, nonfinite_note, step_labels, style
from rnnviz.formatting import num
from tests.core.figures.test_grid import validated_subplots

LONG = "supercalifragilisticexpialidocious" * 3
TOKENS = ["我", "喜欢", "<unk>", "tea", LONG, "。", "a", "b"]
RNG = np.random.default_rng(3)


@pytest.fixture(params=["plotly", "streamlit"], autouse=True)
def template(request, monkeypatch):
    """Every test under plotly's default template and Streamlit's (the default once it is imported)."""
    import streamlit.elements.plotly_chart  # noqa: F401 - registers the "streamlit" template

    monkeypatch.setattr(pio.templates, "default", request.param)
    return request.param


def text(fig) -> str:
    return pio.to_json(fig, validate=False)


def spec(fig) -> dict:
    return json.loads(text(fig))


def revalidated(fig) -> go.Figure:
    return go.Figure(fig.to_plotly_json())


def weird(shape, dtype=float) -> np.ndarray:
    """Random values with NaN, inf, -inf and 0 in the first cells."""
    z = RNG.standard_normal(shape).astype(dtype)
    z.flat[:4] = [np.nan, np.inf, -np.inf, 0.0][:z.size]
    return z


# ---- the references: the validated code the plain builders replaced ------------------------------

def validated_heatmap(z, x, y, title, x_title, y_title, colorbar, colorscale="RdBu", zmid=0.0,
                      hover_name="value", blank_note=None):
    z = np.asarray(z, dtype=float)
    txt = np.vectorize(num)(z) if z.size else z.astype(str)
    fig = go.Figure(go.Heatmap(
        z=np.where(np.isfinite(z), z, np.nan), x=list(x), y=list(y), customdata=txt, colorscale=colorscale,
        zmid=zmid, colorbar={"title": {"text": colorbar, "font": {"color": common.AXIS_TEXT}},
                             "tickfont": {"color": common.AXIS_TEXT, "size": common.AXIS_FONT_PX}},
        hovertemplate=f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{hover_name}: %{{customdata}}<extra></extra>"))
    fig.update_layout(xaxis_title=x_title, yaxis_title=y_title)
    note = nonfinite_note(z) if blank_note is None else blank_note
    if note:
        fig.add_annotation(text=note, xref="paper", yref="paper", x=0, y=1.0, yanchor="bottom",
                           showarrow=False, font={"size": 12, "color": MUTED_TEXT})
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category")
    return style(fig, title)


def validated_log_axis(fig, values, axis="y", **where):
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    span = float(np.log10(v.max() / v.min())) if v.size else None
    (fig.update_xaxes if axis == "x" else fig.update_yaxes)(**log_ticks(span), **where)
    return fig


def validated_clickable(fig, chosen=None, panel=0):
    maps = [tr for tr in fig.data if tr.type == "heatmap"]
    grids = [np.asarray(hm.z, dtype=float) for hm in maps]
    out = copy.deepcopy(fig)
    if sum(z.size for z in grids) <= pick.MAX_POINTS:
        for i, (hm, z) in enumerate(zip(maps, grids)):
            rows, cols = z.shape
            x, y = list(hm.x), list(hm.y)
            r, c = np.divmod(np.arange(rows * cols), cols)
            ids = np.stack([r, c] if len(maps) == 1 else [r, c, np.full_like(r, i)], 1).tolist()
            txt = np.asarray(hm.customdata, dtype=object).reshape(-1).tolist() if hm.customdata is not None else None
            template = (hm.hovertemplate or "%{y} · %{x}<extra></extra>").replace(
                "%{customdata}", "%{text}").replace("%{z", "%{marker.color")
            out.add_scatter(x=[x[j] for j in c], y=[y[i] for i in r], mode="markers", xaxis=hm.xaxis,
                            yaxis=hm.yaxis, customdata=ids, text=txt,
                            marker={"symbol": "square", "size": 14, "opacity": 0, "color": z.reshape(-1).tolist()},
                            selected={"marker": {"opacity": 0}}, unselected={"marker": {"opacity": 0}},
                            hovertemplate=template, showlegend=False, name="")
    if chosen is not None and 0 <= panel < len(maps):
        hm, (rows, cols) = maps[panel], grids[panel].shape
        if 0 <= chosen[0] < rows and 0 <= chosen[1] < cols:
            for size, color in ((22, "white"), (17, "black")):
                out.add_scatter(x=[list(hm.x)[chosen[1]]], y=[list(hm.y)[chosen[0]]], mode="markers",
                                hoverinfo="skip", xaxis=hm.xaxis, yaxis=hm.yaxis,
                                marker={"symbol": "square-open", "size": size, "color": color,
                                        "line": {"width": 3, "color": color}}, showlegend=False, name="")
    out.update_layout(clickmode="event+select", dragmode=False, hovermode="closest")
    if chosen is not None and 0 <= panel < len(maps):
        hm, (rows, cols) = maps[panel], grids[panel].shape
        if 0 <= chosen[0] < rows and 0 <= chosen[1] < cols:
            for ref, n in ((hm.xaxis or "x", cols), (hm.yaxis or "y", rows)):  # the cells alone
                axis = out.layout[ref[0] + "axis" + ref[1:]]
                if axis.range is None:
                    flip = axis.autorange == "reversed"
                    axis.autorange = None
                    axis.range = [n - 0.5, -0.5] if flip else [-0.5, n - 0.5]
    return out


def validated_prob_and_grad_bars(labels, p, p_minus_y, target, title, text=None):
    lab = (text or {}).get
    labels = list(labels)
    colors = [output.TARGET_COLOR if i == target else output.OTHER_COLOR for i in range(len(labels))]
    bars = [{"type": "bar", "x": labels, "y": list(map(float, vals)), "marker": {"color": colors},
             "name": name, "customdata": [num(float(v)) for v in vals], "row": 1, "col": col,
             "hovertemplate": f"%{{x}}<br>{what} = %{{customdata}}<extra></extra>"}
            for col, vals, name, what in ((1, p, "p_t", "p"), (2, p_minus_y, "p_t - y_t", "p - y"))]
    fig = validated_subplots(rows=1, cols=2, data=bars, subplot_titles=(
        lab("p_panel", "p_t = softmax(z_t)"), lab("grad_panel", "dL_t/dz_t = p_t - y_t")))
    fig.update_xaxes(title_text=lab("x", "next token (red: the target)"), type="category")
    fig.update_yaxes(title_text=lab("p_axis", "probability"), range=[0, 1], row=1, col=1)
    fig.update_yaxes(title_text=lab("grad_axis", "gradient (per logit)"), range=[-1, 1], row=1, col=2)
    fig.update_layout(showlegend=False)
    return style(fig, title, 380, top=60)


def validated_moved_bars(step_names, dp_target, moved, chosen, title, text=None):
    lab = (text or {}).get
    colors = [output.TARGET_COLOR if s == chosen else output.OTHER_COLOR for s in range(len(step_names))]
    dp_other = np.asarray(dp_target, float).copy()
    dp_other[chosen] = np.nan
    moved = np.asarray(moved, float)
    fig = validated_subplots(rows=1, cols=2, subplot_titles=(
        lab("dp_panel", "change of pₛ(targetₛ), other steps"),
        lab("moved_panel", "distribution moved: ½ Σ_k |Δp_s,k| (log)")))
    fig.add_bar(x=list(step_names), y=dp_other, marker_color=colors, row=1, col=1,
                customdata=[num(float(v)) for v in dp_target],
                hovertemplate="%{x}<br>Δp(target) = %{customdata}<extra></extra>")
    fig.add_scatter(x=list(step_names), y=np.where(moved > 0, moved, np.nan), mode="markers",
                    marker={"color": colors, "size": 10}, row=1, col=2,
                    customdata=[num(float(v)) for v in moved],
                    hovertemplate="%{x}<br>½ Σ|Δp| = %{customdata}<extra></extra>")
    fig.update_xaxes(title_text=lab("x", "step s (red: the step trained on)"), type="category")
    fig.update_yaxes(title_text=lab("dp_axis", "Δ probability"), row=1, col=1)
    fig.update_yaxes(title_text=lab("moved_axis", "total variation"), row=1, col=2)
    validated_log_axis(fig, moved, row=1, col=2)
    fig.update_layout(showlegend=False)
    return style(fig, title, 360, top=60)


def validated_loss_bars(step_names, loss_t, targets, valid, title, text=None):
    lab = (text or {}).get
    loss = np.where(np.asarray(valid, bool), np.asarray(loss_t, float), np.nan)
    target = lab("target", "target")
    fig = go.Figure(go.Bar(x=list(step_names), y=loss, marker_color=output.OTHER_COLOR,
                           customdata=np.stack([list(targets), [num(float(v)) for v in loss]], -1),
                           hovertemplate=f"%{{x}}<br>{target}: %{{customdata[0]}}<br>"
                                         "Lₜ = %{customdata[1]} nats<extra></extra>"))
    fig.update_xaxes(title_text=lab("x", "step t, input token"), type="category")
    fig.update_yaxes(title_text=lab("y", "Lₜ (nats)"), rangemode="tozero")
    return style(fig, title, 340, top=60)


# ---- the cases -------------------------------------------------------------------------------------

NAMES = step_labels(TOKENS)
P = RNG.dirichlet(np.ones(5))
LABELS5 = ["我", "<unk>", LONG, "tea", "。"]
ZH = {"p_panel": "概率", "grad_panel": "梯度", "x": "下一个词", "p_axis": "p", "grad_axis": "g", "dp_panel": "Δp",
      "moved_panel": "移动", "dp_axis": "Δ", "moved_axis": "TV", "y": "损失", "target": "目标"}

HEATMAPS = {  # name: heatmap() arguments
    "f64_96x8": (RNG.standard_normal((96, 8)), NAMES, [f"u{j + 1}" for j in range(96)], "T", "x", "y", "c"),
    "f32_nonfinite": (weird((5, 8), np.float32), NAMES, [f"r{i}" for i in range(5)], "中文", "步", "单元", "值"),
    "blank_note": (weird((3, 3)), ["a", "b", "c"], ["a", "b", "c"], "T", "x", "y", "α", "Blues", None, "α", "j > t"),
    "no_note": (weird((3, 3)), ["a", "b", "c"], ["p", "q", "r"], "T", "x", "y", "c", "RdBu", 0.0, "v", ""),
    "one_step": ([[0.5]], step_labels(["<unk>"]), ["u1"], "one", "x", "y", "c"),
    "ints_numpy_axes": ([[1, 2, 3], [4, 5, 6]], np.arange(3, dtype=np.int64), np.array(["α", "β"]), "n", "x", "y",
                        "c", "Reds", 2.0),
    "float32_axis": (RNG.random((2, 2)), np.array([0.1, 0.2], np.float32), ["a", "b"], "f32", "x", "y", "c"),
    "all_nan": (np.full((2, 2), np.nan), ["a", "b"], ["c", "d"], "nan", "x", "y", "c"),
}

BUILDERS = {  # name: (plain builder, validated reference, arguments)
    "prob_and_grad_bars": (output.prob_and_grad_bars, validated_prob_and_grad_bars,
                           (LABELS5, P, P - np.eye(5)[2], 2, "step 3")),
    "prob_and_grad_bars_f32_zh": (output.prob_and_grad_bars, validated_prob_and_grad_bars,
                                  (LABELS5, P.astype(np.float32), P.astype(np.float32), None, "无", ZH)),
    "prob_and_grad_bars_one": (output.prob_and_grad_bars, validated_prob_and_grad_bars,
                               (["<unk>"], [1.0], [0.0], 0, "one")),
    "moved_bars": (output.moved_bars, validated_moved_bars,
                   (NAMES, RNG.standard_normal(8) * 1e-3, np.abs(RNG.standard_normal(8)) * 1e-4, 2, "m", ZH)),
    "moved_bars_f32_zeros": (output.moved_bars, validated_moved_bars,
                             (NAMES, np.zeros(8, np.float32), np.array([0, 1e-9, 0.3, 0, 1e-30, 2e-3, 0.5, 0],
                                                                       np.float32), 0, "zeros")),
    "moved_bars_one": (output.moved_bars, validated_moved_bars, (step_labels(["<unk>"]), [0.2], [0.1], 0, "one")),
    "moved_bars_none_moved": (output.moved_bars, validated_moved_bars, (NAMES[:3], [0.0] * 3, [0.0] * 3, 1, "0")),
    "loss_bars": (output.loss_bars, validated_loss_bars,
                  (NAMES, RNG.random(8) * 3, TOKENS[1:] + ["(none)"], np.arange(8) < 7, "loss", ZH)),
    "loss_bars_one_f32": (output.loss_bars, validated_loss_bars,
                          (step_labels(["<unk>"]), np.array([np.inf], np.float32), ["<unk>"], [True], "one")),
}

TOP = np.sort(RNG.dirichlet(np.ones(20), 60), 1)[:, ::-1][:, :5]  # (60, 5)
TOP_LABELS = [[f"w{i}.{j}" if j else "<unk>" for j in range(5)] for i in range(60)]
ON_HEATMAP = {  # output builders made of heatmap(): checked with the validated heatmap in its place
    "topk": lambda: output.topk_heatmap(TOP_LABELS[:8], TOP[:8], NAMES, "topk", {"token": "词"}),
    "topk_many_f32": lambda: output.topk_heatmap(TOP_LABELS, TOP.astype(np.float32),
                                                 step_labels([f"t{i}" for i in range(60)]), "topk"),
    "topk_one": lambda: output.topk_heatmap([["<unk>"]], [[1.0]], step_labels(["<unk>"]), "one"),
    "batch": lambda: output.batch_loss_heatmap(
        RNG.random((2, 8)) * 4, np.arange(8) < np.array([[8], [5]]), np.arange(8) != 3, ["s1", "句子 2"], "b",
        {"no_target": "无", "pad": "pad"}),
    "batch_long_f32": lambda: output.batch_loss_heatmap((RNG.random((2, 40)) * 4).astype(np.float32),
                                                        np.ones((2, 40), bool), np.ones((2, 40), bool), ["a", "b"], "l"),
}


def several_maps() -> go.Figure:
    """Three heatmaps stacked on one grid (page 8's influence maps)."""
    T = 6
    n = np.tril(RNG.random((T, T)) + 0.1)
    n[np.triu_indices(T, 1)] = np.nan
    return gates.influence_heatmaps({"LSTM": n, "GRU": n * 0.5, "Elman": n ** 3}, TOKENS[:T])


def norms_map(T: int = 8) -> go.Figure:
    N = np.tril(RNG.random((T, T)) * 10.0 ** -np.arange(T)[:, None])
    N[np.triu_indices(T, 1)] = np.nan
    return bptt.log_norm_heatmap(N, (TOKENS * 4)[:T], "norms", "log10", "‖J‖")


MAPS = {  # name: (heatmap figure, [(chosen, panel), ...])
    "heatmap_nonfinite": (lambda: heatmap(*HEATMAPS["f32_nonfinite"]), [((1, 2), 0), (None, 0), ((5, 0), 0)]),
    "hidden_96x8": (lambda: hidden.time_heatmap(RNG.standard_normal((8, 96)), TOKENS, 2),
                    [((0, 0), 0), ((95, 7), 0), ((96, 0), 0), ((-1, 2), 0), (None, 0)]),
    "norms": (norms_map, [((7, 0), 0), ((2, 5), 0), (None, 0)]),
    "norms_one_step": (lambda: norms_map(1), [((0, 0), 0)]),
    "several": (several_maps, [((5, 0), 0), ((5, 0), 1), ((3, 2), 2), ((0, 0), 3), ((6, 0), 1), (None, 0)]),
    "over_4096": (lambda: hidden.time_heatmap(RNG.standard_normal((50, 96)), [f"t{i}" for i in range(50)]),
                  [((0, 0), 0), ((95, 49), 0), (None, 0)]),
    "validated_f32_numpy_axes": (lambda: go.Figure(go.Heatmap(
        z=RNG.standard_normal((4, 3)).astype(np.float32), x=np.array([0.1, 0.2, 0.3], np.float32),
        y=["a", "b", "c", "d"])), [((3, 2), 0), (None, 0)]),
    "plain_lists": (lambda: grid.plain_figure(
        [{"type": "heatmap", "z": [[1.0, 2.0], [3.0, None]], "x": ["a", "b"], "y": ["c", "d"],
          "customdata": [["1", "2"], ["3", 4]], "hovertemplate": "%{y}<br>%{x}<br>%{customdata}<extra></extra>"}],
        {"yaxis": {"type": "category", "autorange": "reversed"}}), [((1, 1), 0)]),
}
CLICKS = [(name, i) for name, (_, picks) in MAPS.items() for i in range(len(picks))]


# ---- the tests -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(HEATMAPS))
def test_heatmap_is_what_the_validated_heatmap_was(name):
    fig = heatmap(*HEATMAPS[name])
    assert text(fig) == text(validated_heatmap(*HEATMAPS[name]))
    assert spec(revalidated(fig)) == spec(fig)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_an_output_figure_is_what_the_validated_one_was(name):
    build, reference, args = BUILDERS[name]
    fig = build(*args)
    assert text(fig) == text(reference(*args))
    assert spec(revalidated(fig)) == spec(fig)


@pytest.mark.parametrize("name", sorted(ON_HEATMAP))
def test_an_output_heatmap_is_what_it_was_on_the_validated_heatmap(name, monkeypatch):
    state = RNG.bit_generator.state
    fig = ON_HEATMAP[name]()
    RNG.bit_generator.state = state
    monkeypatch.setattr(output, "heatmap", validated_heatmap)
    assert text(fig) == text(ON_HEATMAP[name]())
    # a long map's "texttemplate": null (set to None on the styled figure, as before) is dropped by
    # validation; plotly.js reads null as not set
    assert spec(revalidated(fig)) == set_values(spec(fig))


def set_values(value):
    """The JSON without its null settings."""
    if isinstance(value, dict):
        return {k: set_values(v) for k, v in value.items() if v is not None}
    return [set_values(v) for v in value] if isinstance(value, list) else value


@pytest.mark.parametrize("name,i", CLICKS)
def test_a_clickable_copy_is_what_the_validated_copy_was(name, i):
    make, picks = MAPS[name]
    fig = make()
    chosen, panel = picks[i]
    before = text(fig)
    made = pick.clickable(fig, chosen, panel)
    assert text(fig) == before  # the input is left as it was
    assert text(made) == text(validated_clickable(fig, chosen, panel))
    assert spec(revalidated(made)) == spec(made)


def test_the_clickable_layer_is_there_or_left_out():
    """The cases above do cover a layer, several layers, rings, and a map over MAX_POINTS."""
    assert len(pick.clickable(MAPS["several"][0](), (5, 0), 1).data) == 3 + 3 + 2
    assert len(pick.clickable(MAPS["over_4096"][0](), (0, 0)).data) == 1 + 2


def scatter() -> go.Figure:
    return go.Figure(go.Scatter(x=[1, 2, 3], y=[1e-3, 1, 10]))


def titled() -> go.Figure:
    """A y axis with a title (its font set) and minor ticks already: log_axis merges into them."""
    fig = scatter()
    fig.update_yaxes(title_font_size=9, title_text="old", minor_ticks="outside", type="linear")
    return fig


def grid_figure(build) -> go.Figure:
    fig = build(rows=1, cols=2, data=[{"type": "scatter", "x": [1], "y": [2], "row": 1, "col": 2}])
    fig.update_yaxes(title_text="t", row=1, col=1)
    return fig


LOG_AXES = {  # name: (figure maker for the plain and the validated call, values, axis, where)
    "y": (scatter, [1e-3, 1.0, 10.0], "y", {}),
    "y_38_decades": (scatter, [1e-38, 1.0, 0.0, float("nan")], "y", {}),
    "x_no_values_titled": (scatter, [], "x", {"title_text": "x 轴"}),
    "y_titled_f32": (scatter, np.array([1e-5, 3.0], np.float32), "y", {"title_text": "y"}),
    "y_retitled": (titled, [1e-3, 2.0], "y", {"title_text": "new"}),
    "grid_cell": (lambda: grid_figure(grid.subplots), [1e-5, 3.0], "y", {"row": 1, "col": 2}),
    "grid_every_x": (lambda: grid_figure(grid.subplots), [1e-5, 3.0], "x", {"title_text": "all x"}),
    "validated_grid_cell": (lambda: grid_figure(validated_subplots), [1e-3, 1.0], "y", {"row": 1, "col": 1}),
}


@pytest.mark.parametrize("name", sorted(LOG_AXES))
def test_log_axis_writes_what_update_yaxes_wrote(name):
    make, values, axis, where = LOG_AXES[name]
    fig = make()
    assert common.log_axis(fig, values, axis, **where) is fig  # changed in place
    assert text(fig) == text(validated_log_axis(make(), values, axis, **where))
    assert text(style(fig)) == text(style(validated_log_axis(make(), values, axis, **where)))
    fig.update_yaxes(title_font_size=9)  # a validated figure stays one: later updates still validate
    with pytest.raises(ValueError):
        fig.update_yaxes(type="no such type")


UPDATES = [  # settings written into an axis that has {anchor, domain, title: {font}} (or into none)
    {"title_text": "t", "type": "log"},
    {"type": "log", "dtick": 1, "minor_showgrid": False, "title_text": "t", "exponentformat": "power"},
    {"tickfont_size": 3, "anchor": "x2", "title_font_color": "red", "minor_ticks": "outside"},
]


@pytest.mark.parametrize("existing", [True, False])
@pytest.mark.parametrize("i", range(len(UPDATES)))
def test_updated_writes_in_the_order_of_plotlys_update(i, existing):
    """common.updated: nested objects first, then the new values; keys already there stay put."""
    axis = {"anchor": "x", "domain": [0.0, 0.5], "title": {"font": {"size": 5}}} if existing else {}
    fig = go.Figure(layout={"yaxis": axis})
    fig.update_yaxes(**UPDATES[i])
    mine = common.updated(axis, common._nested(UPDATES[i]))
    assert json.dumps(mine) == json.dumps(fig.layout.yaxis.to_plotly_json())


def test_as_validated_orders_a_figures_json_as_a_validated_copy():
    fig = several_maps()
    fig.add_shape(type="rect", x0=0, x1=1, y0=0, y1=1, line={"width": 3, "color": "black"})
    given = fig.to_plotly_json()
    made = go.Figure({"data": [pick.as_validated(t, type(tr)) for t, tr in zip(given["data"], fig.data)],
                      "layout": pick.as_validated(given["layout"], go.Layout)}, _validate=False)
    assert text(made) == text(copy.deepcopy(fig))
    assert text(fig) != text(made)  # the builder's own order differs: the reordering is doing something


def test_a_ring_keeps_the_axes_on_the_cells():
    """A ring on an edge cell no longer pads the axes: page 2's 中文 heatmap, its chosen cell in the top
    row, had its plot area (and the step's box) 45 px above the cells. Units stay top down."""
    fig = hidden.time_heatmap(RNG.standard_normal((8, 96)), TOKENS, 2)  # 96 units x 8 steps
    ringed = pick.clickable(fig, (0, 7), layer=False).to_plotly_json()["layout"]
    assert ringed["yaxis"]["range"] == [95.5, -0.5] and "autorange" not in ringed["yaxis"]
    assert ringed["xaxis"]["range"] == [-0.5, 7.5]
    plain = pick.clickable(fig, None, layer=False).to_plotly_json()["layout"]  # no ring: as it was
    assert "range" not in plain["yaxis"] and plain["yaxis"]["autorange"] == "reversed"
