"""Figures made without plotly validating them again.

Subplot grids made once: plotly's make_subplots validates the whole layout it writes (10-20 ms
for a 1 x 3 grid on this machine, the largest single cost of a two-panel figure).
`subplots(...)` takes the same arguments, makes each distinct grid once per process and hands
out a new figure holding a copy of its layout, built without validation (the layout came from
a validated figure). Traces added to it are validated as before; the figure's JSON is the one
make_subplots would give (tests/core/figures/test_grid.py). `plain_figure` builds a figure from
plain trace dicts.

Both give a `PlainFigure`: a go.Figure held as its plain dicts until something asks for its
plotly objects (then built once, without validation). Building those objects and copying them
back out was most of a figure's cost (about 2 of 4 ms for page 3's two-panel bars, and page 3
builds up to 48 of them on a visit with a new sentence: issue 24's load bench). `style` and
`ui/cache` read the dicts as they are (`plain_dicts`); every other use of the figure is the
go.Figure it was."""
from __future__ import annotations

import copy
import functools
import inspect
import re

import plotly.graph_objects as go
import plotly.io as pio
from _plotly_utils.utils import convert_to_base64, is_homogeneous_array, to_typed_array_spec
from plotly.graph_objs import Layout  # (not go.Layout: graph_objects finds it by a __getattr__ call)
from plotly.subplots import make_subplots
from plotly.validator_cache import ValidatorCache


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
    return PlainFigure({"data": traces, "layout": layout, "_grid_ref": ref, "_grid_str": grid})


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
    return PlainFigure({"data": list(data), "layout": layout or {}})


class PlainFigure(go.Figure):
    """A go.Figure held as plain dicts: {"data": [trace dicts, each naming its "type"],
    "layout": {...}} (and a grid's "_grid_ref", "_grid_str"). Its JSON (to_dict, to_plotly_json)
    is made from the dicts, as go.Figure(plain, _validate=False) would give it: the default
    template written in, arrays as base64. The first use of anything else (fig.data,
    update_layout, add_trace, ...) builds the plotly objects from the dicts, once, and from then
    on it is that go.Figure. The dicts are the figure's own: a builder hands over new ones."""

    def __init__(self, plain: dict):  # not go.Figure.__init__: that builds the objects
        object.__setattr__(self, "_plain", plain)

    def __getattr__(self, name):  # only for attributes not set: plotly's own, before they are built
        plain = self.__dict__.pop("_plain", None)
        if plain is None:
            raise AttributeError(name)
        go.Figure.__init__(self, {**plain, "_grid_ref": copy.deepcopy(plain.get("_grid_ref"))}
                           if plain.get("_grid_ref") is not None else plain, _validate=False)
        return getattr(self, name)

    def to_dict(self) -> dict:
        if "_plain" not in self.__dict__:
            return super().to_dict()
        plain = self.__dict__["_plain"]
        data, layout = plain_dicts(self)
        layout = _ordered(layout, Layout, template_last=plain["layout"].get("template") is None)
        data = [_ordered({"type": "scatter", **tr}, trace_class(tr.get("type", "scatter"))) for tr in data]
        return {"data": _json_copy(data), "layout": _json_copy(layout)}

    to_plotly_json = to_dict

    def __reduce__(self):  # a copy or a pickle is a go.Figure, made as go.Figure's own are
        _, (props,) = super().__reduce__()
        return go.Figure, (props,)


def _ordered(value: dict, cls, template_last: bool = False) -> dict:
    """value's keys in the order go.Figure(plain, _validate=False) writes a `cls` object's: its
    constructor's order, then the rest (a trace's type, a layout's xaxis2 ...) in their own; the
    values as they are, but a layout's numbered axes (xaxis2 ...), which plotly builds as objects:
    their keys at every depth in their classes' order (as_validated). template_last: the layout's
    template goes last (go.Figure writes a default template after the layout it is given)."""
    rank = _order(cls)
    keys = sorted((k for k in value if k in rank and not (template_last and k == "template")),
                  key=rank.__getitem__) + [k for k in value if k not in rank]
    if template_last and "template" in value:
        keys.append("template")
    out = {}
    for key in keys:
        v, numbered = value[key], _NUMBERED.match(key) if cls is Layout else None
        sub = _child(cls, numbered.group(1)) if numbered and numbered.group(1) in rank else None
        out[key] = as_validated(v, sub) if sub is not None and isinstance(v, dict) else v
    return out


_PLAIN = (str, int, float, bool, type(None))
_UNCONVERTED = ("geojson", "layer", "layers", "range")  # plotly's is_skipped_key: never base64


def _json_copy(value):
    """copy.deepcopy(value) then plotly's convert_to_base64 of it, in one walk: new dicts and
    lists, a dict's arrays (numpy, pandas) as plotly.js typed-array specs, plain values shared
    (they cannot change). What PlainFigure.to_dict hands out: the caller's own."""
    kind = type(value)
    if kind is dict:
        out = {}
        for key, v in value.items():
            if type(v) in _PLAIN:
                out[key] = v
            elif key in _UNCONVERTED:
                out[key] = copy.deepcopy(v)
            elif type(v) in (dict, list):
                out[key] = _json_copy(v)
            elif is_homogeneous_array(v):
                out[key] = to_typed_array_spec(copy.deepcopy(v))
            else:
                out[key] = _json_copy(v)
        return out
    if kind is list:
        return [v if type(v) in _PLAIN else _json_copy(v) for v in value]
    if kind is tuple:
        return tuple(v if type(v) in _PLAIN else _json_copy(v) for v in value)
    if kind in _PLAIN:
        return value
    return _as_converted(copy.deepcopy(value))


def _as_converted(value):
    """convert_to_base64 of a value of another kind (a dict or list subclass: converted in place)."""
    convert_to_base64(value)
    return value


_NUMBERED = re.compile(r"^([a-z]+?)([2-9]|[1-9]\d+)$")  # xaxis2, yaxis10, coloraxis3 ...


def is_plain(fig) -> bool:
    """Is fig a PlainFigure whose plotly objects are not built yet?"""
    return isinstance(fig, PlainFigure) and "_plain" in fig.__dict__


def plain_dicts(fig) -> tuple[list[dict], dict]:
    """(data, layout) of a figure as plain dicts, the default template written into the layout as
    go.Figure writes it. A PlainFigure's own dicts (read, never edit them); a copy for any other."""
    plain = fig.__dict__.get("_plain") if isinstance(fig, PlainFigure) else None
    if plain is None:  # plotly's own dicts, copied as to_dict copies them (arrays left as they are)
        return copy.deepcopy(fig._data), copy.deepcopy(fig._layout)
    layout = plain["layout"]
    if layout.get("template") is None and pio.templates.default is not None:
        layout = {**layout, "template": default_template()}
    return plain["data"], layout


def default_template() -> dict:
    """The default template's JSON (pio.templates.default, as go.Figure writes it into a
    layout), made once per template: read it, never edit it."""
    default = pio.templates.default
    return _template_json(default) if isinstance(default, str) else default.to_plotly_json()


@functools.lru_cache(maxsize=8)
def _template_json(name: str) -> dict:
    return pio.templates[name].to_plotly_json()


# ---- what plotly's validation makes of a figure's JSON: the same values, keys in its order -------

def as_validated(value: dict, cls) -> dict:
    """A plotly JSON dict of a `cls` object (go.Layout, go.Heatmap ...) with its keys, at every
    depth, in the order plotly's validation writes them (its constructor's order; a trace's type
    and a layout's xaxis2, yaxis2 ... after them, in their own order). Values are kept: a figure's
    JSON is already validated or held to what validation makes of it (tests/core/figures)."""
    rank = _order(cls)
    keys = sorted((k for k in value if k in rank), key=rank.__getitem__) + [k for k in value if k not in rank]
    out = {}
    for key in keys:
        v, sub = value[key], _child(cls, key)
        if sub is not None and isinstance(v, dict):
            v = as_validated(v, sub)
        elif sub is not None and isinstance(v, (list, tuple)):  # annotations, shapes, a template's traces
            v = [as_validated(e, sub) if isinstance(e, dict) else e for e in v]
        out[key] = v
    return out


@functools.lru_cache(maxsize=None)
def _order(cls) -> dict[str, int]:
    """Property name -> its place among cls's constructor arguments (the order it writes them)."""
    names = [p for p in inspect.signature(cls.__init__).parameters if p not in ("self", "arg", "kwargs")]
    return {name: i for i, name in enumerate(names)}


@functools.lru_cache(maxsize=None)
def _child(cls, name: str):
    """The class of cls's compound property `name` (or of each element of a compound array), else None."""
    try:
        validator = ValidatorCache.get_validator(cls._path_str, name)
    except (KeyError, TypeError):  # not a property (a typed array's dtype, say)
        return None
    return getattr(validator, "data_class", None)


@functools.lru_cache(maxsize=None)
def trace_class(kind: str):
    return ValidatorCache.get_validator("", "data").get_trace_class(kind)
