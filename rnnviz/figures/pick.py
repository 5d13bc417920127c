"""A heatmap made clickable: a layer of invisible markers, one per cell, each carrying its
(row, col) in customdata, and a ring on the chosen cell.

Why markers: Streamlit 1.67's st.plotly_chart(on_select=...) reports nothing for heatmap cells
(streamlit #8760, waiting on plotly.js #7920) but does report scatter points, with their
customdata. The markers repeat the heatmap's hover (its text and value), so the learner sees the
same label as before. Only ui/cellpick.py uses this. The app's own chart (ui/plotly_chart.js)
reports a click on a heatmap cell itself: there the copy has the ring only (layer=False).

The copy is built from plain dicts without plotly's validation (a copy of the figure and 768
validated markers cost 20-25 ms a map); its JSON is what the validated way gave (a deep copy,
add_scatter, update_layout: tests/core/figures/test_plain_output.py).
"""
from __future__ import annotations

import copy

import numpy as np
import plotly.graph_objects as go

from .common import native
from .grid import as_validated, trace_class

MAX_POINTS = 4096  # above this many cells the layer is left out (the page's size budget); the
#                    number inputs still choose any cell


def clickable(fig: go.Figure, chosen: tuple[int, int] | None = None, panel: int = 0,
              layer: bool = True) -> go.Figure:
    """A copy of a heatmap figure with one invisible marker per cell (customdata [row, col] with
    0-based indices of z, and [row, col, panel] when the figure has several heatmaps side by side,
    panel = the heatmap's order among them) and, when `chosen` = (row, col) lies inside heatmap
    `panel`, a ring on that cell. Too many cells, or layer=False (a chart that reports clicks on
    heatmap cells itself: ui/plotly_chart.js): the copy has only the ring (see MAX_POINTS).
    `fig` is left as it was."""
    maps = [tr for tr in fig.data if tr.type == "heatmap"]
    grids = [np.asarray(hm.z, dtype=float) for hm in maps]  # (rows, cols) each
    spec = fig.to_plotly_json()  # a copy, arrays base64-encoded (as a deep copy of the figure holds them)
    added = []
    several = len(maps) > 1
    if layer and sum(z.size for z in grids) <= MAX_POINTS:
        added += [_layer(hm, z, i if several else None) for i, (hm, z) in enumerate(zip(maps, grids))]
    ringed = None
    if chosen is not None and 0 <= panel < len(maps):
        hm, (rows, cols) = maps[panel], grids[panel].shape
        if 0 <= chosen[0] < rows and 0 <= chosen[1] < cols:
            added += _rings(hm, chosen)
            ringed = hm, rows, cols
    out = _copy(fig, {**spec, "data": [*spec["data"], *added]})
    if ringed:
        _cells_only(out, *ringed)
    return out


def _cells_only(fig: go.Figure, hm, rows: int, cols: int) -> None:
    """Heatmap hm's axes of fig ranging over its cells alone: Plotly pads an axis's autorange for
    a marker's size, so a ring on an edge cell pushed the plot area 40-50 px past the heatmap
    (and a step's box, drawn over the whole plot height, with it). A reversed axis (units top
    down) keeps its direction; a range the figure sets is kept."""
    for ref, n in ((hm.xaxis or "x", cols), (hm.yaxis or "y", rows)):
        axis = fig.layout[ref[0] + "axis" + ref[1:]]
        if axis.range is None:
            flip = axis.autorange == "reversed"
            axis.autorange = None
            axis.range = [n - 0.5, -0.5] if flip else [-0.5, n - 0.5]


def heatmap_cells(spec: dict) -> int:
    """How many cells the heatmaps of a figure's plain dict (`to_plotly_json()`) hold: z is a
    base64 array with its shape ("7, 5") or nested lists."""
    n = 0
    for tr in spec.get("data", ()):
        z = tr.get("z") if tr.get("type") == "heatmap" else None
        if isinstance(z, dict):
            n += int(np.prod([int(k) for k in str(z.get("shape", "0")).split(",")]))
        elif z is not None and len(z):
            n += len(z) * len(z[0])
    return n


def _copy(fig: go.Figure, spec: dict) -> go.Figure:
    """A figure of fig's grid from its JSON `spec` (plus traces), keys in the order a validated deep
    copy has them, built without validation, with click selection and no drag."""
    data = [as_validated(tr, trace_class(tr.get("type", "scatter"))) for tr in spec["data"]]
    out = go.Figure({"data": data, "layout": as_validated(spec["layout"], go.Layout),
                     "_grid_ref": copy.deepcopy(fig._grid_ref), "_grid_str": fig._grid_str}, _validate=False)
    out.update_layout(clickmode="event+select", dragmode=False, hovermode="closest")  # raw: appended last
    return out


def _layer(hm, z: np.ndarray, panel: int | None) -> dict:
    """The invisible markers over one heatmap (z: (rows, cols)), on its own axes, repeating its
    hover: a plain scatter trace dict."""
    rows, cols = z.shape
    x, y = native(hm.x), native(hm.y)
    r, c = np.divmod(np.arange(rows * cols), cols)  # row-major, (n,) each
    ids = np.stack([r, c] if panel is None else [r, c, np.full_like(r, panel)], 1).tolist()  # (n, 2|3)
    template = (hm.hovertemplate or "%{y} · %{x}<extra></extra>").replace(
        "%{customdata}", "%{text}").replace("%{z", "%{marker.color")
    trace = {"type": "scatter", "x": [x[j] for j in c], "y": [y[i] for i in r], "mode": "markers",
             "customdata": ids,
             "marker": {"symbol": "square", "size": 14, "opacity": 0, "color": z.reshape(-1).tolist()},
             "selected": {"marker": {"opacity": 0}}, "unselected": {"marker": {"opacity": 0}},
             "hovertemplate": template, "showlegend": False, "name": ""}
    if hm.customdata is not None:  # as text: the validated string array would write each as str
        trace["text"] = [v if v is None or isinstance(v, str) else str(v)
                         for v in native(np.asarray(hm.customdata, dtype=object).reshape(-1))]
    return _on_axes(trace, hm)


def _rings(hm, chosen: tuple[int, int]) -> list[dict]:
    """A white square round a black one on the chosen cell: seen on any colour."""
    x, y = native(hm.x)[chosen[1]], native(hm.y)[chosen[0]]
    return [_on_axes({"type": "scatter", "x": [x], "y": [y], "mode": "markers", "hoverinfo": "skip",
                      "marker": {"symbol": "square-open", "size": size, "color": color,
                                 "line": {"width": 3, "color": color}},
                      "showlegend": False, "name": ""}, hm)
            for size, color in ((22, "white"), (17, "black"))]


def _on_axes(trace: dict, hm) -> dict:
    """The trace on the heatmap's own axes (a figure of several: x2, y2 ...)."""
    return {**trace, **{k: v for k, v in (("xaxis", hm.xaxis), ("yaxis", hm.yaxis)) if v is not None}}


def picked(points) -> tuple[int, ...] | None:
    """(row, col) of the first clicked marker in a Streamlit selection's points ((row, col, panel)
    on a figure of several heatmaps), else None."""
    for p in points or ():
        data = p.get("customdata") if hasattr(p, "get") else None
        if isinstance(data, (list, tuple)) and len(data) >= 2:
            return tuple(int(v) for v in data[:3])
    return None
