"""What differs between two plain figures (dicts of Plotly's JSON, numpy arrays inside), as a
list of small edits: ui/stepped.py sends a chart's figure for one step and, for every other step
of a window, only what differs (a heatmap's moved box is two numbers), which the browser applies
(ui/plotly_chart.js figureAt) the way `apply` does here."""
from __future__ import annotations

import numpy as np


def patches(a, b, path: tuple = ()) -> list[list]:
    """What turns plain figure `a` into `b`: [path, value] to set, [path] to delete; lists of the
    same length that hold dicts or lists (traces, shapes, a heatmap's rows) are compared item by
    item, any other value (a number, a string, an array) whole. apply(a, patches(a, b)) == b."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [[list(path + (k,))] for k in a if k not in b]
        for k, v in b.items():
            out += patches(a[k], v, path + (k,)) if k in a else [[list(path + (k,)), v]]
        return out
    if _nested(a) and _nested(b) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b)) for p in patches(x, y, path + (i,))]
    return [] if _same(a, b) else [[list(path), b]]


def _nested(v) -> bool:
    return isinstance(v, (list, tuple)) and any(isinstance(x, (dict, list, tuple)) for x in v)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):  # an array and a list: b as it is
            return False
        x, y = a, b
        if x.shape != y.shape or x.dtype.kind != y.dtype.kind:
            return False
        return bool(np.array_equal(x, y, equal_nan=x.dtype.kind == "f"))
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        return False
    try:
        return bool(a == b) or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)
    except (TypeError, ValueError):
        return False


def apply(fig: dict, patch: list[list]) -> dict:
    """fig with `patch` applied, copied along the patched paths only (as ui/plotly_chart.js's
    figureAt does in the browser)."""
    out = dict(fig)
    for entry in patch:
        path, value = entry[0], entry[1:]
        node = out
        for k in path[:-1]:
            node[k] = list(node[k]) if isinstance(node[k], (list, tuple)) else dict(node[k])
            node = node[k]
        if value:
            node[path[-1]] = value[0]
        else:
            del node[path[-1]]
    return out
