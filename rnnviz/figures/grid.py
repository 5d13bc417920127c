"""Subplot grids made once: plotly's make_subplots validates the whole layout it writes
(10-20 ms for a 1 x 3 grid on this machine, the largest single cost of a two-panel figure).
`subplots(...)` takes the same arguments, makes each distinct grid once per process and hands
out a new figure holding a copy of its layout, built without validation (the layout came from
a validated figure). Traces added to it are validated as before; the figure's JSON is the one
make_subplots would give (tests/core/figures/test_grid.py)."""
from __future__ import annotations

import copy
import functools

import plotly.graph_objects as go
from plotly.subplots import make_subplots


def _frozen(value):
    """A hashable stand-in for an argument (lists and dicts of plain values)."""
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(_frozen(v) for v in value))
    if isinstance(value, dict):
        return ("map", tuple(sorted((k, _frozen(v)) for k, v in value.items())))
    return value


def _thawed(value):
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "seq":
        return [_thawed(v) for v in value[1]]
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "map":
        return {k: _thawed(v) for k, v in value[1]}
    return value


@functools.lru_cache(maxsize=512)  # grids differ by their titles (a learner's words): bounded
def _grid(args: tuple, kw: tuple) -> tuple[dict, object, object]:
    fig = make_subplots(*(_thawed(a) for a in args), **{k: _thawed(v) for k, v in kw})
    layout = {k: v for k, v in fig.layout.to_plotly_json().items() if v != ()}  # no empty annotations
    return layout, fig._grid_ref, fig._grid_str


def subplots(*args, **kw) -> go.Figure:
    """make_subplots(*args, **kw) without validating its layout again: a new figure each call."""
    key = tuple(sorted((k, _frozen(v)) for k, v in kw.items()))
    layout, ref, grid = _grid(tuple(_frozen(a) for a in args), key)
    return go.Figure({"layout": copy.deepcopy(layout), "_grid_ref": copy.deepcopy(ref), "_grid_str": grid},
                     _validate=False)
