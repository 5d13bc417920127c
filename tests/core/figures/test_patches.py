"""rnnviz.figures.patches: the edits that turn one plain figure into another (a stepped chart's
other steps, ui/stepped.py), checked on random nested figures (hypothesis) and on a moved box."""
from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnviz.figures.patches import apply, patches

leaf = st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, width=32), st.text(max_size=3), st.none(),
                 st.lists(st.floats(-3, 3, width=32), max_size=4).map(np.asarray))
tree = st.recursive(leaf, lambda kids: st.one_of(
    st.dictionaries(st.sampled_from("abcdef"), kids, max_size=4),
    st.lists(st.dictionaries(st.sampled_from("xyz"), kids, max_size=3), max_size=3)), max_leaves=20)


def _equal(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdef"), tree, max_size=5),
       st.dictionaries(st.sampled_from("abcdef"), tree, max_size=5))
def test_apply_of_patches_gives_the_other_figure(a, b):
    before = json.dumps(a, default=lambda v: v.tolist())
    assert _equal(apply(a, patches(a, b)), b)
    assert json.dumps(a, default=lambda v: v.tolist()) == before  # a is left as it was


def test_a_moved_box_is_one_small_patch():
    a = {"data": [{"z": np.arange(6.0)}], "layout": {"shapes": [{"x0": 0.5, "x1": 1.5, "type": "rect"}]}}
    b = {"data": [{"z": np.arange(6.0)}], "layout": {"shapes": [{"x0": 2.5, "x1": 3.5, "type": "rect"}]}}
    assert patches(a, b) == [[["layout", "shapes", 0, "x0"], 2.5], [["layout", "shapes", 0, "x1"], 3.5]]
    assert patches(a, a) == []


@given(st.lists(st.floats(-1e6, 1e6, width=32), min_size=0, max_size=40))
def test_compact_sends_float32_numbers_as_base64_and_back(values):
    from rnnviz.figures.wire import compact, decoded
    out = compact(values)
    if len(values) < 8:
        assert out is values
    else:
        assert out["dtype"] == "f4" and np.array_equal(decoded(out).astype(np.float64), np.asarray(values))


def test_compact_leaves_what_float32_would_round():
    from rnnviz.figures.wire import compact
    values = [0.1] * 8  # 0.1 is not a float32
    assert compact(values) is values and compact("abcdefghij") == "abcdefghij"
