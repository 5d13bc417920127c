"""rnnviz.figures.grid.subplots: every builder that draws a subplot grid gives, through the
grid kept once per process, the very JSON plotly's make_subplots would have given it."""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from plotly.subplots import make_subplots

from rnnviz.figures import bptt, embedding, gates, grid, hidden, output, slots, train, word2vec

RNG = np.random.default_rng(0)
T, H = 4, 3
TOKENS = ["我", "like", "<unk>", "tea"]
STRIP = [{"k": k, "factor": 0.5 + k, "slope": 0.3, "log10": -0.2 * k} for k in range(3)]

BUILDERS = {  # name: (module, builder, arguments): one call per grid the app draws
    "jacobian_parts": (bptt, bptt.jacobian_parts, (RNG.random(H), RNG.standard_normal((H, H)),
                                                   RNG.standard_normal((H, H)), 2)),
    "factor_strip": (bptt, bptt.factor_strip, (STRIP, 3, 0, 1, 0.0, STRIP)),
    "batch_figure": (embedding, embedding.batch_figure, (RNG.standard_normal((2, T, H)),
                                                         np.array([[1, 1, 1, 1], [1, 1, 0, 0]], bool),
                                                         [TOKENS, TOKENS], "batch")),
    "influence_heatmaps": (gates, gates.influence_heatmaps, ({"x": RNG.random((T, T)), "h": RNG.random((T, T))},
                                                             TOKENS)),
    "gate_heatmaps": (gates, gates.gate_heatmaps, ({"i": RNG.random((T, H)), "g": RNG.random((T, H))},
                                                   TOKENS, "g")),
    "growth_plot": (hidden, hidden.growth_plot, ({"linear": [1.0, 2.0, 4.0], "tanh": [0.5, 0.6, 0.62]},
                                                 2.0, 0.5)),
    "prob_and_grad_bars": (output, output.prob_and_grad_bars, (["a", "b"], [0.3, 0.7], [0.3, -0.3], 1, "p")),
    "moved_bars": (output, output.moved_bars, (["1 a", "2 b", "3 c"], [0.1, 0.2, -0.1], [0.01, 0.2, 0.0],
                                               1, "moved")),
    "reach_heatmaps": (slots, slots.reach_heatmaps, (TOKENS, {"rnn": RNG.random((T, T)),
                                                              "fnn": RNG.random((T, T))}, "reach")),
    "loss_curve": (train, train.loss_curve, (range(30), list(np.linspace(3, 1, 30)), 5, 40)),
    "tokenizer_figure": (word2vec, word2vec.tokenizer_figure,
                         ([{"tokenizer": "word", "vocab_size": 40, "oov_rate": 0.1, "mean_length": 7.0},
                           {"tokenizer": "char", "vocab_size": 30, "oov_rate": 0.0, "mean_length": 20.0}],
                          {"word": "words"}, "tokenizers")),
}


def validated_subplots(*args, data=None, **kw):
    """What grid.subplots stands for: make_subplots, then add_trace(trace, row, col), validated."""
    fig = make_subplots(*args, **kw)
    for trace in data or ():
        trace = dict(trace)
        fig.add_trace(trace, row=trace.pop("row", 1), col=trace.pop("col", 1))
    return fig


def spec(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_kept_grid_gives_make_subplots_own_figure(name, monkeypatch):
    module, build, args = BUILDERS[name]
    kept = spec(build(*args))
    again = spec(build(*args))  # the second call reads the kept grid
    monkeypatch.setattr(module, "subplots", validated_subplots, raising=False)  # its own import
    monkeypatch.setattr(grid, "subplots", validated_subplots)  # and grid.grid_layout's
    assert kept == again == spec(build(*args))


def test_each_figure_gets_its_own_layout():
    a = grid.subplots(rows=1, cols=2, subplot_titles=("p", "q"))
    a.update_layout(title={"text": "changed"}, height=123)
    a.layout.annotations[0].text = "changed too"
    b = grid.subplots(rows=1, cols=2, subplot_titles=("p", "q"))
    assert b.layout.title.text is None and b.layout.height is None and b.layout.annotations[0].text == "p"
    assert spec(b) == spec(make_subplots(rows=1, cols=2, subplot_titles=("p", "q")))


def test_titles_are_written_into_one_kept_grid():
    """A step's numbers in the titles do not make a new grid; an empty title stays left out."""
    grid._grid.cache_clear()
    for titles in (("p₁", "", "J₁"), ("p₂", "", "J₂"), ("1 - h₃²", "", "J₃ (own scale)")):
        kw = {"column_widths": [0.16, 0.42, 0.42], "horizontal_spacing": 0.06, "subplot_titles": titles}
        assert spec(grid.subplots(1, 3, **kw)) == spec(make_subplots(1, 3, **kw))
    assert grid._grid.cache_info().misses == 1


PLAIN = {  # builders that write plain trace dicts (grid.plain_figure, subplots(data=...))
    "paths_bar": lambda: bptt.paths_bar(RNG.standard_normal((3, H)), [1, 2, 3], 1, TOKENS),
    "paths_bar_grouped": lambda: bptt.paths_bar(RNG.standard_normal((9, H)), list(range(1, 10)), 1,
                                                [f"w{i}" for i in range(10)]),
    "jacobian_parts": BUILDERS["jacobian_parts"][1:],
    "prob_and_grad_bars": BUILDERS["prob_and_grad_bars"][1:],
    "before_after_bars": lambda: output.before_after_bars(["a", "b"], [0.4, 0.6], [0.3, 0.7], 1, "step"),
    "moved_bars": BUILDERS["moved_bars"][1:],
}


@pytest.mark.parametrize("template", ["plotly", "streamlit"])
@pytest.mark.parametrize("name", sorted(PLAIN))
def test_a_figure_built_without_validation_is_what_validation_makes_of_it(name, template, monkeypatch):
    """Validating the figure again (plotly's own Figure(dict)) neither raises nor changes a thing,
    under plotly's default template and under Streamlit's (the default once Streamlit is imported:
    it has no bar defaults, so a bar figure's template keeps none)."""
    import streamlit.elements.plotly_chart  # noqa: F401 - registers the "streamlit" template

    monkeypatch.setattr(pio.templates, "default", template)
    made = PLAIN[name]
    fig = made() if callable(made) else made[0](*made[1])
    assert spec(go.Figure(fig.to_plotly_json())) == spec(fig)


# ---- PlainFigure: a go.Figure held as its dicts until its objects are asked for -----------------

PLAIN_CASES = {
    "bars on a grid": lambda: grid.subplots(rows=1, cols=2, subplot_titles=("a", "b"), data=[
        {"type": "bar", "x": ["p", "q"], "y": [0.25, 0.75], "row": 1, "col": 1},
        {"type": "bar", "x": ["p", "q"], "y": np.array([-0.5, 0.5]), "row": 1, "col": 2}]),
    "a heatmap, no template given": lambda: grid.plain_figure(
        [{"type": "heatmap", "z": np.arange(6.0).reshape(3, 2), "x": ["a", "b"], "y": ["c", "d", "e"]}],
        {"yaxis": {"type": "category", "autorange": "reversed"}, "margin": {"l": 1, "r": 2, "t": 3, "b": 4}}),
    "numbered axes": lambda: grid.plain_figure(
        [{"type": "scatter", "y": [1, 2]}], {"xaxis2": {"title": {"text": "s", "font": {"size": 3}}, "anchor": "y2"},
                                             "template": {"layout": {"font": {"size": 9}}}}),
    "styled": lambda: output.prob_and_grad_bars(["a", "b", "c"], [0.2, 0.3, 0.5], [0.2, -0.7, 0.5], 1, "t"),
}


@pytest.mark.parametrize("template", ["plotly", "streamlit"])
@pytest.mark.parametrize("name", sorted(PLAIN_CASES))
def test_a_plain_figures_json_is_the_figure_plotly_builds_from_its_dicts(name, template, monkeypatch):
    if template not in pio.templates:
        pytest.skip("Streamlit's template is registered when streamlit is imported")
    monkeypatch.setattr(pio.templates, "default", template)
    fig = PLAIN_CASES[name]()
    assert grid.is_plain(fig) and isinstance(fig, go.Figure)
    made = fig.to_plotly_json()
    assert grid.is_plain(fig)  # its JSON built nothing
    built = PLAIN_CASES[name]()
    built.data  # noqa: B018 - asking for a plotly object builds them all, once
    assert not grid.is_plain(built)
    # the very text plotly writes for the figure it builds from the dicts (key order included)
    assert json.dumps(made, sort_keys=False) == json.dumps(built.to_plotly_json(), sort_keys=False)


def test_a_plain_figure_works_as_the_go_figure_it_stands_for():
    fig = PLAIN_CASES["bars on a grid"]()
    fig.update_layout(height=333)  # plotly's own methods build the objects first
    fig.add_trace(go.Scatter(y=[1, 2]), row=1, col=2)  # the grid is still there
    assert fig.layout.height == 333 and fig.data[2].xaxis == "x2"
    copied = __import__("copy").deepcopy(PLAIN_CASES["bars on a grid"]())
    assert type(copied) is go.Figure and copied.to_plotly_json() == PLAIN_CASES["bars on a grid"]().to_plotly_json()


def test_plain_dicts_are_a_copy_for_a_built_figure_and_the_figures_own_otherwise():
    plain = PLAIN_CASES["a heatmap, no template given"]()
    data, layout = grid.plain_dicts(plain)
    assert data is plain.__dict__["_plain"]["data"] and "template" in layout
    built = go.Figure(plain.to_plotly_json())
    data, _ = grid.plain_dicts(built)
    data[0]["x"] = ["changed"]
    assert list(built.data[0].x) == ["a", "b"]


# ---- PlainFigure.to_dict's one-walk copy: deepcopy then convert_to_base64, as plotly does ------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402

_ARRAYS = hs.one_of(arrays(np.float64, hs.integers(0, 4), elements=hs.floats(-1e6, 1e6)),
                    arrays(np.int64, hs.integers(0, 4), elements=hs.integers(-2**40, 2**40)),
                    arrays(np.float32, hs.tuples(hs.integers(1, 3), hs.integers(1, 3)),
                           elements=hs.floats(-1, 1, width=32)))
_LEAVES = hs.one_of(hs.none(), hs.booleans(), hs.integers(), hs.floats(allow_nan=False), hs.text(max_size=5),
                    _ARRAYS)
_KEYS = hs.one_of(hs.sampled_from(["x", "y", "z", "range", "layer", "marker", "text"]), hs.text(max_size=4))
_JSONISH = hs.recursive(_LEAVES, lambda inner: hs.one_of(hs.lists(inner, max_size=4),
                                                         hs.tuples(inner, inner),
                                                         hs.dictionaries(_KEYS, inner, max_size=4)),
                        max_leaves=20)


def _plotly_way(value):
    import copy

    from _plotly_utils.utils import convert_to_base64
    out = copy.deepcopy(value)
    convert_to_base64(out)
    return out


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _containers(value, out=None) -> list:
    out = [] if out is None else out
    if isinstance(value, (dict, list, np.ndarray)):
        out.append(value)
    for v in value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ():
        _containers(v, out)
    return out


@settings(max_examples=300, deadline=None)
@given(_JSONISH)
def test_the_one_walk_copy_is_deepcopy_then_plotlys_base64(value):
    got = grid._json_copy(value)
    assert _same(got, _plotly_way(value))
    mine = {id(c) for c in _containers(value)}
    assert not mine & {id(c) for c in _containers(got)}  # nothing the caller could edit is shared


def test_a_plain_figures_dict_is_its_own():
    fig = grid.plain_figure([{"type": "bar", "x": ["a", "b"], "y": np.array([1.0, 2.0]), "marker": {"color": "red"}}],
                            {"title": {"text": "t"}})
    first = fig.to_dict()
    first["data"][0]["marker"]["color"] = "blue"
    first["layout"]["template"]["layout"]["font"] = {"size": 99}
    again = fig.to_dict()
    assert again["data"][0]["marker"]["color"] == "red"
    assert again["layout"]["template"]["layout"].get("font") != {"size": 99}
    assert again["data"][0]["y"] == {"dtype": "f8", "bdata": "AAAAAAAA8D8AAAAAAAAAQA=="}
