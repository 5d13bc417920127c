"""A heatmap made clickable: a layer of invisible markers, one per cell, each carrying its
(row, col) in customdata, and a ring on the chosen cell.

Why markers: Streamlit 1.67's st.plotly_chart(on_select=...) reports nothing for heatmap cells
(streamlit #8760, waiting on plotly.js #7920) but does report scatter points, with their
customdata. The markers repeat the heatmap's hover (its text and value), so the learner sees the
same label as before. Only ui/cellpick.py uses this: switching to native heatmap selection later
is one change there.
"""
from __future__ import annotations

import copy

import numpy as np
import plotly.graph_objects as go

MAX_POINTS = 4096  # above this many cells the layer is left out (the page's size budget); the
#                    number inputs still choose any cell


def clickable(fig: go.Figure, chosen: tuple[int, int] | None = None, panel: int = 0) -> go.Figure:
    """A copy of a heatmap figure with one invisible marker per cell (customdata [row, col] with
    0-based indices of z, and [row, col, panel] when the figure has several heatmaps side by side,
    panel = the heatmap's order among them) and, when `chosen` = (row, col) lies inside heatmap
    `panel`, a ring on that cell. Too many cells: the copy has only the ring (see MAX_POINTS)."""
    maps = [tr for tr in fig.data if tr.type == "heatmap"]  # read before copying (a copy holds
    grids = [np.asarray(hm.z, dtype=float) for hm in maps]  # its arrays base64-encoded)
    out = copy.deepcopy(fig)
    several = len(maps) > 1
    if sum(z.size for z in grids) <= MAX_POINTS:
        for i, (hm, z) in enumerate(zip(maps, grids)):
            _layer(out, hm, z, i if several else None)
    if chosen is not None and 0 <= panel < len(maps):
        hm, (rows, cols) = maps[panel], grids[panel].shape
        if 0 <= chosen[0] < rows and 0 <= chosen[1] < cols:
            for size, color in ((22, "white"), (17, "black")):  # white round black: seen on any colour
                out.add_scatter(x=[list(hm.x)[chosen[1]]], y=[list(hm.y)[chosen[0]]], mode="markers",
                                hoverinfo="skip", xaxis=hm.xaxis, yaxis=hm.yaxis,
                                marker={"symbol": "square-open", "size": size, "color": color,
                                        "line": {"width": 3, "color": color}},
                                showlegend=False, name="")
    out.update_layout(clickmode="event+select", dragmode=False, hovermode="closest")
    return out


def _layer(out: go.Figure, hm, z: np.ndarray, panel: int | None) -> None:
    """The invisible markers over one heatmap, on its own axes, repeating its hover."""
    rows, cols = z.shape
    x, y = list(hm.x), list(hm.y)
    r, c = np.divmod(np.arange(rows * cols), cols)  # row-major, (n,) each
    ids = np.stack([r, c] if panel is None else [r, c, np.full_like(r, panel)], 1).tolist()
    text = np.asarray(hm.customdata, dtype=object).reshape(-1).tolist() if hm.customdata is not None else None
    template = (hm.hovertemplate or "%{y} · %{x}<extra></extra>").replace(
        "%{customdata}", "%{text}").replace("%{z", "%{marker.color")
    out.add_scatter(
        x=[x[j] for j in c], y=[y[i] for i in r], mode="markers", xaxis=hm.xaxis, yaxis=hm.yaxis,
        customdata=ids, text=text,
        marker={"symbol": "square", "size": 14, "opacity": 0, "color": z.reshape(-1).tolist()},
        selected={"marker": {"opacity": 0}}, unselected={"marker": {"opacity": 0}},
        hovertemplate=template, showlegend=False, name="",
    )


def picked(points) -> tuple[int, ...] | None:
    """(row, col) of the first clicked marker in a Streamlit selection's points ((row, col, panel)
    on a figure of several heatmaps), else None."""
    for p in points or ():
        data = p.get("customdata") if hasattr(p, "get") else None
        if isinstance(data, (list, tuple)) and len(data) >= 2:
            return tuple(int(v) for v in data[:3])
    return None
