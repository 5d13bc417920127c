"""Figures made without plotly validating them again.

Subplot grids made once: plotly's make_subplots validates the whole layout it writes (10-20 ms
for a 1 x 3 grid on this machine, the largest single cost of a two-panel figure).
`subplots(...)` takes the same arguments, makes each distinct grid once per process and hands
out a new figure holding a copy of its layout, built without validation (the layout came from
a validated figure). Traces added to it are validated as before; the figure's JSON is the one
make_subplots would give (tests/core/figures/test_grid.py). `plain_figure` builds a figure from
plain trace dicts."""
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


@functools.lru_cache(maxsize=256)  # a page draws a few dozen distinct grids
def _grid(args: tuple, kw: tuple) -> tuple[dict, object, object]:
    fig = make_subplots(*(_thawed(a) for a in args), **{k: _thawed(v) for k, v in kw})
    # no empty annotations; no template: a new figure gets the default one anyway (copying it
    # was most of the copy of a grid)
    layout = {k: v for k, v in fig.layout.to_plotly_json().items() if v != () and k != "template"}
    return layout, fig._grid_ref, fig._grid_str


def subplots(*args, data: list[dict] | None = None, **kw) -> go.Figure:
    """make_subplots(*args, **kw) without validating its layout again: a new figure each call.
    Subplot titles (often a step's numbers) are not part of the kept grid: it is made with
    stand-ins, and each title written into its own annotation (make_subplots places a title by
    the grid alone and leaves out an empty one). data: plain trace dicts (as plain_figure's),
    each with its "row" and "col" (1-based, default 1), put on their subplot's axes as
    add_trace(trace, row, col) would, without validation."""
    titles = [str(t) if t else "" for t in kw.pop("subplot_titles", None) or ()]
    if titles:
        kw["subplot_titles"] = [f"{_STAND_IN}{i}" if t else "" for i, t in enumerate(titles)]
    key = tuple(sorted((k, _frozen(v)) for k, v in kw.items()))
    layout, ref, grid = _grid(tuple(_frozen(a) for a in args), key)
    layout = copy.deepcopy(layout)
    for note in layout.get("annotations") or ():
        text = note.get("text")
        if isinstance(text, str) and text.startswith(_STAND_IN):
            note["text"] = titles[int(text[len(_STAND_IN):])]
    traces = []
    for trace in data or ():
        trace = dict(trace)
        cell = ref[trace.pop("row", 1) - 1][trace.pop("col", 1) - 1][0]
        traces.append({**trace, **cell.trace_kwargs})
    return go.Figure({"data": traces, "layout": layout, "_grid_ref": copy.deepcopy(ref), "_grid_str": grid},
                     _validate=False)


_STAND_IN = "\x00subplot title "  # a kept grid's title, replaced by the caller's


def grid_layout(*args, **kw) -> dict:
    """The layout of subplots(*args, **kw) (make_subplots' grid, kept once per process) as a
    plain dict to write a builder's settings into (no template: a new figure gets the default)."""
    return {k: v for k, v in subplots(*args, **kw).layout.to_plotly_json().items() if k != "template"}


def cell_axes(n: int) -> dict:
    """The x and y axis of subplot n (1-based) of a one-row or one-column grid, as
    add_trace(row, col) names them on a trace."""
    return {"xaxis": f"x{n if n > 1 else ''}", "yaxis": f"y{n if n > 1 else ''}"}


def plain_figure(data: list[dict], layout: dict | None = None) -> go.Figure:
    """A figure from plain trace dicts (each names its "type"; nested dicts, no magic
    underscores) and a layout dict, built without plotly's per-property validation: a bar
    trace validated as it is added cost 2-3 ms, a page-4 figure of nine of them 24 ms. The
    builder that uses it is held to the JSON the validated way gave (tests/core/figures)."""
    return go.Figure({"data": data, "layout": layout or {}}, _validate=False)
