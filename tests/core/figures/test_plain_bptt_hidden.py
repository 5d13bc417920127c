"""Page 4's (bptt) and page 2's (hidden) figure builders, and the probe's (units), write plain
trace and layout dicts built without plotly's validation. Each is held to what validation makes
of it (plotly's own Figure(dict) changes nothing), and the ones with subplot grids, log axes,
shapes and annotations to a reference built with plotly's validated API, as the builders did
before: the same JSON, byte for byte (key order included)."""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from rnnviz.explain import bptt as chains
from rnnviz.figures import bptt, common, hidden, overview, units
from rnnviz.figures.common import heatmap, log_axis, step_labels, style
from rnnviz.figures.grid import subplots
from rnnviz.formatting import num, plain_math, sub

RNG = np.random.default_rng(3)
H, T = 4, 5
TOKENS = ["我", "<unk>", "tea", "supercalifragilisticexpialidocious" * 2, "."]
SLOPE = RNG.random(H).astype(np.float32)
W = RNG.standard_normal((H, H)).astype(np.float32)
N = np.tril(RNG.random((T, T)) * 10.0 ** RNG.integers(-6, 2, (T, T))).astype(np.float32)
N[np.triu_indices(T, 1)], N[3, 0], N[4, 1] = np.nan, 0.0, np.inf
STATES = RNG.standard_normal((T, H)).astype(np.float32)
STATES[1, 2], STATES[2, 0] = np.nan, np.inf
STRIP = [{"k": k, "factor": np.float32(0.5 + k), "slope": 0.3, "log10": -0.2 * k} for k in range(3)]
CHAIN = [{"k": k, "factor_norm_2": 0.5 + k, "product_norm_2": 0.3 ** k, "product_norm_fro": np.float32(0.4 ** k)}
         for k in range(3, 6)]
SWEEP = [{"T": t, "mean": 1.0 / t, "sum": np.float32(1.0), "long_range": 0.9 ** t} for t in (2, 4, 8)]
TERMS = {k: RNG.standard_normal(H).astype(np.float32) for k in ("Wx_x", "Wh_h", "b", "a", "h")}
DIST = {"d": np.arange(4), "min": np.array([1.0, 0.0, 1e-3, np.nan]), "median": np.array([1.0, 0.5, 0.1, 0.01]),
        "max": np.array([1.0, 2.0, np.inf, 10.0]), "max_J": 2.0, "bound": 2.0 ** np.arange(4), "rho": 0.5,
        "rho_line": 0.5 ** np.arange(4)}

BUILDERS = {  # name: a call of a converted builder
    "jacobian_parts": lambda: bptt.jacobian_parts(SLOPE, W, SLOPE[:, None] * W, 2),
    "jacobian_parts_linear": lambda: bptt.jacobian_parts(SLOPE, W, np.zeros((H, H)), 0, "linear"),
    "log_norm_heatmap": lambda: bptt.log_norm_heatmap(N, TOKENS, "‖∂h‖", "log10", "‖∂h_s/∂h_t‖"),
    "chain_plot": lambda: bptt.chain_plot(CHAIN, 5, 2),
    "distance_plot": lambda: bptt.distance_plot(DIST, 1e-7),
    "precision_plot": lambda: bptt.precision_plot(chains.precision_chain(4.0, 80), 4.0, 1.2e-38, 3.4e38, 1e-7),
    "scalar_chain_plot": lambda: bptt.scalar_chain_plot(chains.scalar_chain(0.5, 10), 0.5),
    "scalar_chain_plot_bound": lambda: bptt.scalar_chain_plot(**_tanh_chain(1.5, 20)),
    "t_sweep_plot": lambda: bptt.t_sweep_plot(SWEEP, names={"mean": "平均"}),
    "clip_bar": lambda: bptt.clip_bar(np.float32(12.5), np.float32(1.0), 1.0),
    "factor_strip": lambda: bptt.factor_strip(STRIP, 3, 0, 1, 0.0, STRIP),
    "time_heatmap": lambda: hidden.time_heatmap(STATES, TOKENS, 1, "h", 2, title="双向"),
    "step_terms_bar": lambda: hidden.step_terms_bar(TERMS, activation="ReLU"),
    "unit_lines": lambda: hidden.unit_lines(STATES, TOKENS, [0, 2]),
    "pca_trajectory": lambda: hidden.pca_trajectory([("<unk> 句子", RNG.standard_normal((T, 2)), TOKENS)],
                                                    [0.7, np.float32(0.2)]),
    "growth_plot": lambda: hidden.growth_plot({"linear": [1.0, np.inf], "tanh": [0.5, 0.6]}, 2.0, 0.5),
    "norms_plot": lambda: hidden.norms_plot({"linear": [1.0, 1e3, 1e9, np.inf, 0.0], "tanh": [1.0] * T}, TOKENS),
    "norms_plot_flat": lambda: hidden.norms_plot({"tanh": [1.0, 1.1, 1.2, 1.3, 1.4]}, TOKENS),
    "saturation_bar": lambda: hidden.saturation_bar([0.0, 0.5, 1.0, np.nan, 0.25], TOKENS, 0.9),
    "params_vs_T": lambda: hidden.params_vs_T(np.int64(120), 12, 5),
    "unrolled": lambda: hidden.unrolled(TOKENS, "W_y", 3),
    "hidden_heatmap": lambda: overview.hidden_heatmap(STATES, TOKENS),
    "step_vector": lambda: units.step_vector(STATES[0], 1, {"title": "h₁", "x": "单元", "y": "h"}, 2),
    "change_bars": lambda: units.change_bars([np.nan, -0.5, 0.25], TOKENS, {"title": "Δ", "y": "Δ log p"}),
}


def _tanh_chain(w: float, n: int) -> dict:
    tanh = chains.scalar_tanh_products(w, n)
    return {"products": tanh["products"], "w": w, "bound": tanh["bound"]}


def spec(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


@pytest.fixture(params=["plotly", "streamlit"])
def template(request, monkeypatch):
    """Each test under plotly's default template and under Streamlit's (the default once
    Streamlit is imported, as in the app)."""
    import streamlit.elements.plotly_chart  # noqa: F401 - registers the "streamlit" template

    monkeypatch.setattr(pio.templates, "default", request.param)
    return request.param


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_plain_figure_is_what_validation_makes_of_it(name, template):
    """Validating the figure again (plotly's own Figure(dict)) neither raises nor changes a thing:
    no named colour scale left unexpanded, no numpy scalar where validation writes a number."""
    fig = BUILDERS[name]()
    assert spec(go.Figure(fig.to_plotly_json())) == spec(fig)


# ---- references: the same figures built with plotly's validated API, as the builders did ------
# (grids from grid.subplots, as they were: on make_subplots' own validated layout add_hline(row,
# col) writes the same shape with its keys in another order)

def ref_jacobian_parts(slope, W_h, J, t: int) -> go.Figure:
    units_ = [f"u{j + 1}" for j in range(len(slope))]
    fig = subplots(1, 3, column_widths=[0.16, 0.42, 0.42], horizontal_spacing=0.06,
                   subplot_titles=(plain_math(f"1 - h_{t + 1}^2"), plain_math("W_h"),
                                   plain_math(f"J_{t + 1} (own scale)")))
    fig.add_bar(x=np.asarray(slope, float), y=units_, orientation="h", row=1, col=1, showlegend=False,
                hovertemplate="%{y}: slope %{x:.4g}<extra></extra>", marker_color="#888")
    for col, M, name in ((2, W_h, "W_h"), (3, J, "J")):
        M = np.asarray(M, float)
        lim = float(max(np.abs(M[np.isfinite(M)]).max(), 1e-12))
        left, right = fig.layout[f"xaxis{col}"].domain
        fig.add_heatmap(z=M.astype(np.float32), x=units_, y=units_, colorscale="RdBu", zmid=0, zmin=-lim,
                        zmax=lim, row=1, col=col, showscale=True,
                        colorbar={"title": {"text": plain_math(name), "side": "top"}, "orientation": "h",
                                  "x": (left + right) / 2, "xanchor": "center", "len": right - left,
                                  "lenmode": "fraction", "y": -0.3, "yanchor": "top", "thickness": 10,
                                  "exponentformat": "e", "nticks": 4,
                                  "tickvals": [-bptt.round_down(lim), 0, bptt.round_down(lim)]},
                        hovertemplate=f"{plain_math(name)}[%{{y}}, %{{x}}] = %{{z:.4g}}<extra></extra>")
    fig.update_xaxes(range=[0, 1], title_text="slope", row=1, col=1)
    for col in (1, 2, 3):
        fig.update_yaxes(autorange="reversed", row=1, col=col)
    fig.update_xaxes(title_text=plain_math("from unit of h_{t-1}"), row=1, col=2)
    fig.update_yaxes(title_text=plain_math("to unit of h_t"), row=1, col=1)
    fig.update_yaxes(showticklabels=False, row=1, col=2)
    fig.update_yaxes(showticklabels=False, row=1, col=3)
    fig.update_layout(title={"text": plain_math(f"Step Jacobian J_{t + 1}: tanh slopes and W_h")}, height=500)
    return style(fig, top=80, bottom=110)


def ref_factor_strip(rows, s: int, t: int, drop: int, start: float, what_if) -> go.Figure:
    L = {k: plain_math(v) for k, v in bptt.STRIP_LABELS.items()}
    ks = [f"J{sub(r['k'] + 1)}" for r in rows]
    fig = subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.06, row_heights=[0.28, 0.22, 0.5])
    fig.add_scatter(x=ks, y=np.log10([float(r["factor"]) for r in rows]), mode="markers", name=L["factor"],
                    marker={"color": "#555", "symbol": "square", "size": 8}, row=1, col=1)
    fig.add_scatter(x=ks, y=[r["slope"] for r in rows], mode="markers", name=L["slope"],
                    marker={"color": "#2ca02c", "size": 8}, row=2, col=1)
    fig.add_scatter(x=ks, y=[r["log10"] for r in rows], mode="lines+markers", name=L["running"],
                    line={"color": "#1f77b4"}, row=3, col=1)
    fig.add_scatter(x=ks, y=[r["log10"] for r in what_if], mode="lines", name=L["what_if"],
                    line={"color": "#ff7f0e", "dash": "dash"}, row=3, col=1)
    fig.add_hline(y=start, line={"color": "#999", "dash": "dot"}, row=3, col=1)
    fig.add_scatter(x=[ks[drop]], y=[rows[drop]["log10"]], mode="markers", name=L["drop"],
                    marker={"color": "#d62728", "size": 14, "symbol": "x"}, row=3, col=1)
    fig.update_yaxes(title_text="log10", row=1, col=1)
    fig.update_yaxes(title_text=L["slope"], rangemode="tozero", row=2, col=1)
    fig.update_yaxes(title_text="log10", row=3, col=1)
    fig.update_xaxes(type="category", title_text=L["x"], row=3, col=1)
    fig.update_layout(title={"text": L["title"].format(s=s + 1, t=t + 1, n=len(rows))}, height=520,
                      legend=bptt.LEGEND_BELOW, margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return style(fig)


def ref_precision_plot(chain: dict, w: float, tiny: float, big: float, floor: float) -> go.Figure:
    """Log y axis (one tick every few decades), reference lines, a vline where float32 breaks."""
    L, k = bptt.PRECISION_LABELS, chain["k"]
    fig = go.Figure()
    fig.add_scatter(x=k, y=bptt._positive(np.abs(chain["float64"])), mode="lines", name="float64",
                    line={"width": 4})
    fig.add_scatter(x=k, y=bptt._positive(np.abs(chain["float32"])), mode="lines", name="float32",
                    line={"dash": "dash"})
    for y, label, color in ((tiny, L["smallest"], "purple"), (big, L["largest"], "orange"),
                            (floor, L["floor"], "gray")):
        fig.add_scatter(x=[0, int(k[-1])], y=[y, y], mode="lines", name=label, line={"dash": "dot", "color": color},
                        hovertemplate=f"{label}<extra></extra>")
    for key, color in {"subnormal": "purple", "zero": "red", "inf": "red"}.items():
        if chain[key] is not None:
            fig.add_vline(x=chain[key], line={"color": color, "dash": "dash"})
            fig.add_scatter(x=[chain[key]], y=[chain["float64"][chain[key]]], mode="markers",
                            marker={"color": color, "size": 11, "symbol": "x"},
                            name=L["at"].format(label=L[key], k=chain[key]))
    fig.update_yaxes(type="log", title_text=L["y"].format(w=f"{w:g}"), exponentformat="power")
    v = np.r_[np.abs(chain["float64"]), np.abs(chain["float32"]), tiny, big, floor]
    v = v[np.isfinite(v) & (v > 0)]
    decades = np.log10(v.max() / v.min())
    fig.update_yaxes(dtick=1 if decades <= 12 else int(np.ceil(decades / 8)))
    fig.update_xaxes(tickformat="d")  # more than 12 steps
    fig.update_layout(title={"text": L["title"].format(w=f"{w:g}")}, xaxis_title=L["x"], legend=bptt.LEGEND_BELOW)
    return style(fig)


def ref_clip_bar(before, after, max_norm: float, ticks: list[float]) -> go.Figure:
    """A shape across the plot at max_norm; a log axis ticked inside one decade."""
    L = bptt.CLIP_LABELS
    fig = go.Figure(go.Scatter(x=[L["before"], L["after"]], y=[before, after], mode="markers+text",
                               text=[num(before), num(after)], textposition="middle right",
                               marker={"size": 14, "color": "#4c78a8"}, name=L["norm"]))
    fig.add_shape(type="line", xref="paper", x0=0, x1=1, yref="y", y0=max_norm, y1=max_norm,
                  line={"color": "red", "dash": "dash"}, name=L["max_norm"].format(v=f"{max_norm:g}"),
                  showlegend=True)
    fig.update_yaxes(type="log", title_text=L["y"], exponentformat="power")
    fig.update_yaxes(tickvals=ticks, ticktext=[f"{x:g}" for x in ticks])
    fig.update_xaxes(range=[-0.5, 1.5])
    fig.update_layout(title={"text": L["title"]}, height=380, legend=bptt.LEGEND_BELOW)
    return style(fig)


def ref_params_vs_T(shared: int, T_max: int, T_now: int) -> go.Figure:
    """add_vline with its annotation."""
    Ts = list(range(1, T_max + 1))
    fig = go.Figure()
    fig.add_scatter(x=Ts, y=[shared] * len(Ts), mode="lines", name="shared weights (RNN)")
    fig.add_scatter(x=Ts, y=[shared * t for t in Ts], mode="lines", name="one set per step")
    fig.add_vline(x=T_now, line_dash="dot", annotation_text=f"your sentence, T = {T_now}")
    fig.update_layout(xaxis_title="sentence length T (steps)", yaxis_title="number of parameters")
    return style(fig, "Parameters (cell + output) against sentence length T", 340)


def ref_time_heatmap(values, tokens, step: int, split: int, title: str) -> go.Figure:
    """Shapes added to the styled heatmap, after it."""
    v = np.asarray(values, dtype=float)
    H_ = v.shape[1]
    names = [f"→u{j + 1}" for j in range(split)] + [f"←u{j + 1}" for j in range(H_ - split)]
    fig = heatmap(v.T, x=step_labels(tokens), y=names, title=title, x_title="step t, input token",
                  y_title="hidden unit", colorbar="h value", hover_name="h")
    fig.add_shape(type="rect", xref="x", yref="paper", x0=step - 0.5, x1=step + 0.5, y0=0, y1=1,
                  line={"color": "black", "width": 3})
    fig.add_shape(type="line", xref="paper", yref="y", x0=0, x1=1, y0=split - 0.5, y1=split - 0.5,
                  line={"color": "black", "width": 2})
    fig.update_layout(height=max(300, 40 + 14 * H_))
    return fig


def ref_norms_plot(norms: dict, tokens) -> go.Figure:
    """common.log_axis on the y axis."""
    fig = go.Figure()
    x = step_labels(tokens)
    for i, (name, ys) in enumerate(norms.items()):
        fig.add_scatter(x=x, y=hidden._finite(ys), mode="lines+markers", name=name, text=[num(y) for y in ys],
                        line={"color": hidden._COLORS[i]},
                        hovertemplate=f"{name}<br>%{{x}}<br>‖h_t‖ = %{{text}}<extra></extra>")
    flat = np.concatenate([hidden._finite(v) for v in norms.values()])
    log_axis(fig, flat[np.isfinite(flat) & (flat > 0)])
    fig.update_layout(xaxis_title="step t, input token", yaxis_title="‖h_t‖ (Euclidean norm)")
    fig.update_xaxes(type="category")
    return style(fig, "Size of the hidden state ‖h_t‖ with the same weights (log scale)", 340)


PRECISION = chains.precision_chain(4.0, 80)
NORMS = {"linear": [1.0, 1e3, 1e9, np.inf, 0.0], "tanh": [1.0] * T}
ORACLES = {  # name: (the builder's figure, the reference's)
    "jacobian_parts": (BUILDERS["jacobian_parts"], lambda: ref_jacobian_parts(SLOPE, W, SLOPE[:, None] * W, 2)),
    "factor_strip": (BUILDERS["factor_strip"], lambda: ref_factor_strip(STRIP, 3, 0, 1, 0.0, STRIP)),
    "precision_plot": (lambda: bptt.precision_plot(PRECISION, 4.0, 1.2e-38, 3.4e38, 1e-7),
                       lambda: ref_precision_plot(PRECISION, 4.0, 1.2e-38, 3.4e38, 1e-7)),
    "clip_bar": (lambda: bptt.clip_bar(np.float32(0.4), np.float32(0.3), 0.5),
                 lambda: ref_clip_bar(np.float32(0.4), np.float32(0.3), 0.5, [0.3, 0.4, 0.5])),
    "params_vs_T": (lambda: hidden.params_vs_T(120, 12, 5), lambda: ref_params_vs_T(120, 12, 5)),
    "time_heatmap": (BUILDERS["time_heatmap"], lambda: ref_time_heatmap(STATES, TOKENS, 1, 2, "双向")),
    "norms_plot": (lambda: hidden.norms_plot(NORMS, TOKENS), lambda: ref_norms_plot(NORMS, TOKENS)),
}


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_a_plain_figure_is_the_one_the_validated_api_built(name, template):
    """Subplot grids (axes named per cell, a colour bar under each panel), log axes and their
    ticks, shapes from add_shape / add_hline(row, col) / add_vline (with its annotation): the plain
    dicts give the very JSON the validated calls gave, key order included (the wire bytes)."""
    made, reference = ORACLES[name]
    fig, ref = made(), reference()
    assert spec(fig) == spec(ref)
    assert pio.to_json(fig, validate=False) == pio.to_json(ref, validate=False)


def test_a_named_colour_scale_is_written_out_as_validation_writes_it():
    """RdBu's 11 stops at i / 10 exactly as plotly's validator computes them (0.3, not
    plotly.colors.make_colorscale's 0.30000000000000004), and a fresh list each time."""
    scale = common.validated_colorscale("RdBu")
    assert scale == [list(p) for p in go.Heatmap(colorscale="RdBu").colorscale] and scale[3][0] == 0.3
    scale[0][1] = "changed"
    assert common.validated_colorscale("RdBu")[0][1] == "rgb(103,0,31)"


def test_distance_plot_red_is_the_bound_alone():
    """The prose names the lines by colour ("the red dashed line is the bound", "the green dotted
    line"): the median had no colour of its own and took Streamlit's red from the colourway."""
    fig = bptt.distance_plot(DIST, 1e-7).to_dict()
    colours = {tr["name"]: ((tr.get("line") or {}).get("color"), (tr.get("line") or {}).get("dash"))
               for tr in fig["data"]}
    red = [name for name, (colour, _) in colours.items() if colour == "red"]
    assert len(red) == 1 and red[0].startswith("bound") and colours[red[0]][1] == "dash", colours
    assert colours["median over t"][0] not in (None, "red")
    assert all(colours[n][0] for n in ("largest over t", "smallest over t"))  # a legend symbol each
    green = [c for c in colours.values() if c[0] == "green"]
    assert green == [("green", "dot")]



def test_a_colour_bar_keeps_ticks_inside_its_scale():
    """J's colour bar read only "0": nticks chose ±0.5 on a scale of ±0.43. The outer ticks are now
    the scale's limit to one digit, rounded down, so they lie on the bar."""
    from hypothesis import given
    from hypothesis import strategies as st

    assert [bptt.round_down(v) for v in (0.4337, 0.97, 3e-05, 12.0, 1.0)] == [0.4, 0.9, 3e-05, 10.0, 1.0]

    @given(st.floats(1e-12, 1e12))
    def inside(v):
        r = bptt.round_down(v)
        assert v / 10 < r <= v * (1 + 1e-12) and len(f"{r:e}".split("e")[0].rstrip("0").rstrip(".")) == 1

    inside()
    J = np.full((3, 3), 0.01)
    J[0, 0] = -0.4337
    bar = bptt._jacobian_map(J, ["u1", "u2", "u3"], "J", (0, 1))["colorbar"]
    assert bar["tickvals"] == [-0.4, 0, 0.4]


def test_trajectory_labels_of_near_points_go_to_different_sides():
    """Page 2's trajectory printed "7 ▁the" over "4 ▁the" ("74▁the"), and two sentences' "1 <bos>"
    over "3 at": a label whose box would overlap one already placed goes below, right or left."""
    same = np.zeros((4, 2))
    assert hidden.label_places(same) == ["top center", "bottom center", "middle right", "middle left"]
    assert hidden.label_places(np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0]])) == ["top center"] * 3
    assert hidden.label_places(np.zeros((0, 2))) == []
    assert hidden.label_places(np.array([[np.nan, 0.0], [np.nan, 0.0]])) == ["top center"] * 2
    # the English page's case: both sentences start at the same <bos> point, and the second's
    # third step lies just above it
    xy = np.array([[0.0, 0.0], [1.0, 0.2], [0.4, 1.0], [0.0, 0.0], [0.05, 0.1], [0.6, 0.5]])
    texts = ["1 <bos>", "2 ▁the", "3 ▁cat", "1 <bos>", "3 at", "4 ▁on"]
    places = hidden.label_places(xy, texts)
    boxes = [_label_box(p, t, q) for p, t, q in zip(xy, texts, places)]
    assert not [(i, j) for i in range(len(boxes)) for j in range(i) if hidden._overlap(boxes[i], boxes[j]) > 0]
    g = hidden.GAP / 2  # nor does a label cover a point's marker
    markers = [(x - g, x + g, y - g, y + g) for x, y in xy]
    assert not [(i, j) for i, b in enumerate(boxes) for j, m in enumerate(markers) if hidden._overlap(b, m) > 0]
    assert places[0] != places[3]  # the same point: two sides
    paths = [("a", np.array([[0.0, 0.0], [1.0, 1.0]]), ["x", "y"]), ("b", np.array([[0.0, 0.0], [1.0, 1.0]]), ["z", "w"])]
    data = hidden.pca_trajectory(paths, (0.6, 0.3)).to_dict()["data"]
    lines = [tr for tr in data if "text" in tr]
    shown = [[tr["textposition"]] * 2 if isinstance(tr["textposition"], str) else list(tr["textposition"])
             for tr in lines]
    assert shown == [["top center", "top center"], ["bottom center", "bottom center"]]


def _label_box(p, text, place):
    """The box label_places reckons for a label (the points above span 0..1 on both axes)."""
    x, y = p
    w, h, g = hidden.CHAR_W * len(text), hidden.TEXT_H, hidden.GAP
    return {"top center": (x - w / 2, x + w / 2, y + g, y + g + h),
            "bottom center": (x - w / 2, x + w / 2, y - g - h, y - g),
            "middle right": (x + g, x + g + w, y - h / 2, y + h / 2),
            "middle left": (x - g - w, x - g, y - h / 2, y + h / 2)}[place]
