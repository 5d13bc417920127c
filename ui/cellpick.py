"""Click a heatmap cell, or type its two numbers: the one helper behind every clickable map.

A click writes the cell into two number inputs, which are the keyboard path; the chosen cell
travels in the share link as one parameter (cell=s,t on a Jacobian map, unit=k,t on a hidden map;
an old link's two parameters still open it). The chart is ui.charts.chart with on_select. Drawn
in place (Plotly.js served), it reports a click on a heatmap cell itself, as its "select" event
(ui/plotly_chart.js); else st.plotly_chart, which reports clicks on scatter points only, so the
figure then gets rnnviz.figures.pick's invisible marker layer. charts.selected_points reads
either. Everything else about how a click is caught is here.
"""
from __future__ import annotations

import streamlit as st

from rnnviz.figures.pick import MAX_POINTS, heatmap_cells, picked
from rnnviz.serve.links import parse_cell

from . import cache, charts, links
from .i18n import t
from .links import in_fragment_rerun
from .widgets import clamp_kept, download_figure, md_escape


def _take(chart: str, keys: tuple[str, str], first: tuple[int, int], bounds, panels=None) -> None:
    """on_select: the clicked marker's (row, col) -> the two number inputs (1-based numbers)."""
    cell = picked(charts.selected_points(st.session_state.get(chart)))
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


LINK_SEEN = "_cellpick_link_seen"  # (ignored parameters, the address without them)


def _address(ignore: tuple[str, ...]) -> dict:
    return {k: st.query_params.get_all(k) for k in st.query_params if k not in ignore}


def follow_link(ignore: tuple[str, ...] = ()) -> None:
    """At the end of a fragment: a fragment's own rerun that changed the address (a bound widget
    inside it) reruns the whole app once, so the sidebar's share link shows the change; a full
    run only notes the address (and link_settled notes it again at the run's end). ignore:
    parameters a timer moves (Play's step)."""
    now = _address(ignore)
    seen = st.session_state.get(LINK_SEEN)
    st.session_state[LINK_SEEN] = (ignore, now)
    if seen is not None and now != seen[1] and in_fragment_rerun():
        st.rerun(scope="app")


def link_settled() -> None:
    """At the end of a full run (app.py): the address as the whole run left it is what the next
    fragment rerun compares with. A bound widget below the fragment may have changed it after
    follow_link (page 2's second sentence after a new sentence); noted there only, the first step
    move afterwards reran the whole page once."""
    seen = st.session_state.get(LINK_SEEN)
    if seen is not None and not in_fragment_rerun():
        st.session_state[LINK_SEEN] = (seen[0], _address(seen[0]))


def numbers(keys: tuple[str, str], labels: tuple[str, str], bounds,
            default: tuple[int, int]) -> tuple[int, int]:
    """The keyboard path: two number inputs (1-based; the link holds them as one parameter, see
    read_link_cell). Returns their values."""
    c1, c2 = st.columns(2)
    out = []
    for col, key, label, (lo, hi), d in zip((c1, c2), keys, labels, bounds, default):
        clamp_kept(key, lo, hi)
        out.append(int(col.number_input(label, lo, hi, min(max(d, lo), hi), step=1, key=key,
                                        on_change=_ask_full_run)))
    return out[0], out[1]


def _url_key(name: str, keys) -> str:
    return f"_cellpick_url_{name}_{keys[0]}"


def read_link_cell(name: str, keys: tuple[str, str], bounds, least: int = 2) -> None:
    """Before the number inputs: a new `name=s,t` in the address (a link, or the learner's own
    edit) sets them. An old link's two parameters (the inputs' keys: bptt_cell_s=6&bptt_cell_t=2)
    open the same cell and are dropped from the address. A bad value: a link notice saying what
    was expected; the inputs keep their values (or take the clamped ones)."""
    links.claim(name)
    old = [st.query_params.get(k) for k in keys]
    if name not in st.query_params and old[0] is not None:  # an old link: the same cell
        st.query_params[name] = ",".join(v for v in old if v is not None)
    for k in keys:
        if k in st.query_params:
            del st.query_params[k]
    raw = st.query_params.get(name)
    if raw is None or raw == st.session_state.get(_url_key(name, keys)):
        return
    st.session_state[_url_key(name, keys)] = raw
    values, problem = parse_cell(raw, bounds, least)
    if problem:
        hint = t(f"cellpick.want_{name}")
        key = "cellpick.bad_format" if problem["kind"] == "format" else "cellpick.bad_range"
        links.notices().append(t(key, name=name, value=md_escape(problem["value"]), want=hint,
                                 fixed=problem.get("fixed", "")))
    for k, v in zip(keys, values or ()):
        st.session_state[k] = v


def write_link_cell(name: str, keys: tuple[str, str], value: tuple[int, int],
                    default: tuple[int, int]) -> None:
    """After the inputs: the chosen cell into the address as one parameter (none for the default)."""
    text = f"{value[0]},{value[1]}"
    if tuple(value) == tuple(default):
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get(name) != text:
        st.query_params[name] = text
    st.session_state[_url_key(name, keys)] = st.query_params.get(name)


def pick_cell(fig: cache.CachedFigure, name: str, key: str, keys: tuple[str, str], labels: tuple[str, str],
              bounds, default: tuple[int, int], first: tuple[int, int] = (1, 1),
              panels: tuple[str, list, int] | None = None, link: str = "cell",
              steps: dict | None = None, download=None) -> tuple[int, int]:
    """Draw a clickable heatmap and its two number inputs below it; returns the chosen (row, col)
    as the screen numbers them (1-based). fig: the heatmap from ui/cache.figure (its clickable
    copy is cached per chosen cell).

    keys: the number inputs' widget keys (their URL names); labels: their labels. bounds:
    ((lo, hi), (lo, hi)) each input's range (it may reach beyond the map, e.g. a windowed
    Jacobian map). first: the numbers of the map's first row and column (z[0, 0]).
    panels: a figure of several heatmaps side by side: (the widget key that says which one, its
    values in the heatmaps' order, the one chosen now); a click on a map sets that key too.
    link: the cell's parameter in the address: "cell" (cell=s,t) or "unit" (unit=k,t: a hidden
    map's unit and step; unit=k alone keeps the step). steps: the chart follows the step slider
    (ui/stepped.steps_data: its patches apply to the clickable copy, whose ring is added data);
    download: what "Download as HTML" holds, made on click (ui/stepped.shown_figure), else fig."""
    chart = f"{key}_chart"
    slot = st.container()  # the chart goes above the numbers, drawn once the numbers are known
    n, itself = heatmap_cells(fig.to_dict()), charts.clicks_in_place()  # itself: no marker layer
    st.caption(t("cellpick.how") if itself or n <= MAX_POINTS else t("cellpick.too_many", n=n))
    lo_hi = [(max(lo, 1), hi) for lo, hi in bounds]
    read_link_cell(link, keys, lo_hi, 1 if link == "unit" else 2)
    value = numbers(keys, labels, bounds, default)
    write_link_cell(link, keys, value, tuple(min(max(d, lo), hi) for d, (lo, hi) in zip(default, bounds)))
    _full_run_if_asked()
    chosen = (value[0] - first[0], value[1] - first[1])
    with slot:
        shown = cache.clickable(fig, chosen, panels[2] if panels else 0, layer=not itself)
        follow = {} if steps is None else {"steps": steps}
        charts.chart(shown, width="stretch", key=chart, selection_mode="points",
                     on_select=_callback(chart, keys, first, bounds, panels), **follow)
    download_figure(fig if download is None else download, name, key)
    return value


def _callback(chart, keys, first, bounds, panels=None):
    def on_select():
        _take(chart, keys, first, bounds, panels)
    return on_select
