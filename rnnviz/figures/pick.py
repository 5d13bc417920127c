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


def clickable(fig: go.Figure, chosen: tuple[int, int] | None = None) -> go.Figure:
    """A copy of a heatmap figure (its first trace a go.Heatmap with x, y category labels) with
    one invisible marker per cell (customdata [row, col], 0-based indices of z) and, when
    `chosen` = (row, col) lies inside, a ring on that cell. Too many cells: the copy has only the
    ring (see MAX_POINTS)."""
    hm = fig.data[0]  # read before copying (a copy holds its arrays base64-encoded)
    z = np.asarray(hm.z, dtype=float)  # (rows, cols)
    out = copy.deepcopy(fig)
    rows, cols = z.shape
    x, y = list(hm.x), list(hm.y)
    if rows * cols <= MAX_POINTS:
        r, c = np.divmod(np.arange(rows * cols), cols)  # row-major, (n,) each
        text = np.asarray(hm.customdata, dtype=object).reshape(-1) if hm.customdata is not None else None
        template = (hm.hovertemplate or "%{y} · %{x}<extra></extra>").replace(
            "%{customdata}", "%{text}").replace("%{z", "%{marker.color")
        out.add_scatter(
            x=[x[j] for j in c], y=[y[i] for i in r], mode="markers",
            customdata=np.stack([r, c], 1).tolist(), text=None if text is None else text.tolist(),
            marker={"symbol": "square", "size": 14, "opacity": 0, "color": z.reshape(-1).tolist(),
                    "colorscale": hm.colorscale, "showscale": False},
            selected={"marker": {"opacity": 0}}, unselected={"marker": {"opacity": 0}},
            hovertemplate=template, showlegend=False, name="",
        )
    if chosen is not None and 0 <= chosen[0] < rows and 0 <= chosen[1] < cols:
        for size, color in ((22, "white"), (17, "black")):  # white round black: seen on any colour
            out.add_scatter(x=[x[chosen[1]]], y=[y[chosen[0]]], mode="markers", hoverinfo="skip",
                            marker={"symbol": "square-open", "size": size, "color": color,
                                    "line": {"width": 3, "color": color}},
                            showlegend=False, name="")
    out.update_layout(clickmode="event+select", dragmode=False, hovermode="closest")
    return out


def picked(points) -> tuple[int, int] | None:
    """(row, col) of the first clicked marker in a Streamlit selection's points, else None."""
    for p in points or ():
        data = p.get("customdata") if hasattr(p, "get") else None
        if isinstance(data, (list, tuple)) and len(data) >= 2:
            return int(data[0]), int(data[1])
    return None
