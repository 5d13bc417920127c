"""Click a heatmap cell, or type its two numbers: the one helper behind every clickable map.

The figure gets rnnviz.figures.pick's invisible marker layer (Streamlit reports clicks on scatter
points, not on heatmap cells); a click writes the cell into two number inputs, which are the
keyboard path and are bound to the URL, so the chosen cell travels in the share link. Everything
about how a click is caught is here: when Streamlit reports heatmap cells, only this file changes.
"""
from __future__ import annotations

import streamlit as st

from rnnviz.figures.pick import MAX_POINTS, clickable, picked

from .i18n import t
from .links import in_fragment_rerun
from .widgets import clamp_kept, download_figure


def _take(chart: str, keys: tuple[str, str], first: tuple[int, int], bounds, panels=None) -> None:
    """on_select: the clicked marker's (row, col) -> the two number inputs (1-based numbers)."""
    event = st.session_state.get(chart)
    points = getattr(getattr(event, "selection", None), "points", None)
    if points is None and isinstance(event, dict):
        points = event.get("selection", {}).get("points")
    cell = picked(points)
    if cell is None:
        return
    for key, index, start, (lo, hi) in zip(keys, cell[:2], first, bounds):
        st.session_state[key] = min(max(start + index, lo), hi)
    if panels is not None and len(cell) > 2 and 0 <= cell[2] < len(panels[1]):
        st.session_state[panels[0]] = panels[1][cell[2]]  # which map of several was clicked
    _ask_full_run()


FULL_RUN = "_cellpick_full_run"


def _ask_full_run() -> None:
    """A new cell must reach the share link, which the app draws outside any fragment."""
    st.session_state[FULL_RUN] = True


def _full_run_if_asked() -> None:
    """Inside a fragment's own rerun (page 2's Play fragment), a changed cell reruns the whole app
    once, so the sidebar's share link carries it (a fragment rerun leaves the link as it was)."""
    if not st.session_state.pop(FULL_RUN, False):
        return
    if in_fragment_rerun():
        st.rerun(scope="app")


def numbers(keys: tuple[str, str], labels: tuple[str, str], bounds,
            default: tuple[int, int]) -> tuple[int, int]:
    """The keyboard path: two number inputs (1-based, bound to the URL). Returns their values."""
    c1, c2 = st.columns(2)
    out = []
    for col, key, label, (lo, hi), d in zip((c1, c2), keys, labels, bounds, default):
        clamp_kept(key, lo, hi)
        out.append(int(col.number_input(label, lo, hi, min(max(d, lo), hi), step=1, key=key,
                                        bind="query-params", on_change=_ask_full_run)))
    return out[0], out[1]


def pick_cell(fig, name: str, key: str, keys: tuple[str, str], labels: tuple[str, str],
              bounds, default: tuple[int, int], first: tuple[int, int] = (1, 1),
              panels: tuple[str, list, int] | None = None) -> tuple[int, int]:
    """Draw a clickable heatmap and its two number inputs below it; returns the chosen (row, col)
    as the screen numbers them (1-based).

    keys: the number inputs' widget keys (their URL names); labels: their labels. bounds:
    ((lo, hi), (lo, hi)) each input's range (it may reach beyond the map, e.g. a windowed
    Jacobian map). first: the numbers of the map's first row and column (z[0, 0]).
    panels: a figure of several heatmaps side by side: (the widget key that says which one, its
    values in the heatmaps' order, the one chosen now); a click on a map sets that key too."""
    chart = f"{key}_chart"
    slot = st.container()  # the chart goes above the numbers, drawn once the numbers are known
    n = sum(len(tr.z) * (len(tr.z[0]) if len(tr.z) else 0) for tr in fig.data if tr.type == "heatmap")
    st.caption(t("cellpick.how") if n <= MAX_POINTS else t("cellpick.too_many", n=n))
    value = numbers(keys, labels, bounds, default)
    _full_run_if_asked()
    chosen = (value[0] - first[0], value[1] - first[1])
    with slot:
        st.plotly_chart(clickable(fig, chosen, panels[2] if panels else 0), width="stretch", key=chart,
                        on_select=_callback(chart, keys, first, bounds, panels), selection_mode="points")
    download_figure(fig, name, key)
    return value


def _callback(chart, keys, first, bounds, panels=None):
    def on_select():
        _take(chart, keys, first, bounds, panels)
    return on_select
