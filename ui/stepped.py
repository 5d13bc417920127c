"""Parts of a page that follow its step slider in the browser, without waiting for a server run.

    steps = stepped.around("hid_step", t1, T)          # the window of steps a page run carries
    stepped.markdown(steps, "hid_look", text_of, box="info")   # text_of(t) -> markdown of step t
    stepped.table(steps, "hid_terms", table_of)                 # table_of(t) -> a DataFrame
    stepped.chart(steps, "hid_fig_terms", figure_of, name)     # figure_of(t) -> a cached figure

Why (issue 24): a step move reached the page only after the server's run and Streamlit's three
redraws of every element of the page (bench/results/browser_bound_s21.txt), which no step view
made of Streamlit elements got under 4x the speed of commit 6134da8. A stepped part carries every
step of a window around the current one (at most WINDOW steps), made by the same functions that
wrote the step before: the catalogue's markdown as HTML (markdown-it, learners' text escaped
before and raw HTML never passed), a table as HTML with 4 significant digits (as
ui.page.four_digits), a chart as the step's figure plus, per other step, what differs from it
(`patches`). In the browser (ui/stepped.js, served with the chart code) each part shows the step
Streamlit's slider shows from the moment its thumb moves; the slider's run still comes and keeps
the step in the session, the link and the other pages, and a move outside the window reruns the
page (`outside`), which brings a new window.

A page draws its stepped parts in its full run, outside its step fragment, so a move's run draws
only the slider. When the chart code is not served (static serving off), `around` says so (not
live) and the page draws the same parts inside its step fragment as Streamlit elements, as it
did before.
"""
from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np  # (np.floating: a cell's type)
import pandas as pd
import streamlit as st
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from rnnviz.figures.patches import patches
from rnnviz.figures.wire import compact

from . import charts
from .links import in_fragment_rerun, session_state_object
from .widgets import SHARED_STEP, download_figure

WINDOW = 12  # steps a page run carries: around the current one, the whole sentence if it is short
WINDOWS = "_stepped_window_"  # session key + slider key: (first, last) the page run carried
# Streamlit's own module that draws markdown's math (KaTeX 0.16, as its page's styles expect)
KATEX = next(iter(sorted((Path(st.__file__).parent / "static" / "static" / "js").glob("rehype-katex.*.js"))),
             None)


@dataclass(frozen=True)
class Steps:
    """The steps a page run's stepped parts carry: `first`..`last` (1-based), shown at `at`,
    following the slider `follow`. Not live: the parts are drawn at `at` as Streamlit elements."""

    follow: str
    at: int
    first: int
    last: int
    live: bool

    @property
    def window(self) -> range:
        return range(self.first, self.last + 1)


def span(follow: str, first: int, last: int) -> Steps:
    """The live Steps first..last, shown at first: for making a window's slides once for every
    session (a page's cache.kept slides; each step's slide is the same wherever it is shown)."""
    return Steps(follow, first, first, last, True)


def live() -> bool:
    """Can this run's parts follow the slider in the browser (the chart code served)?"""
    return charts._plotly_served()


def window(at: int, T: int, size: int = WINDOW) -> tuple[int, int]:
    """The `size` steps (1-based, inclusive) around `at` within 1..T: the whole sentence when it
    is short, else `at` with as many steps after it as before it, or one more after."""
    if T <= size:
        return 1, T
    first = min(max(1, at - (size - 1) // 2), T - size + 1)
    return first, first + size - 1


def around(follow: str, at: int, T: int, size: int = WINDOW) -> Steps:
    """A page run's Steps (live if it can be), noted for `outside`."""
    if not live():
        return still(follow, at)
    first, last = window(at, T, size)
    st.session_state[WINDOWS + follow] = (first, last)
    return Steps(follow, at, first, last, True)


def still(follow: str, at: int) -> Steps:
    """The parts drawn at `at` as Streamlit elements (a step fragment redraws them on each move)."""
    st.session_state.pop(WINDOWS + follow, None)
    return Steps(follow, at, at, at, False)


def carried(follow: str, at: int, T: int) -> Steps:
    """From a fragment of its own below the step view (page 2's sentence): the window the page's
    last run carried, if `at` lies in it (so the parts it draws follow the same steps), else a
    new one around `at`."""
    window_ = st.session_state.get(WINDOWS + follow)
    if live() and window_ is not None and window_[0] <= at <= window_[1]:
        return Steps(follow, at, window_[0], window_[1], True)
    return around(follow, at, T)


def followed(follow: str, t1: int, T: int) -> Steps:
    """From a fragment of its own below the step view (page 2's sentence, page 3's sentence and
    gradient step): its parts' Steps. Its own reruns come after moves, so they stand at the step
    the slider is at now (the shared step), in the window the page carried; a full run at t1.
    Not live: drawn at t1."""
    if not live():
        return still(follow, t1)
    kept = st.session_state.get(SHARED_STEP)
    if isinstance(kept, int) and in_fragment_rerun():
        t1 = min(max(kept, 1), T)
    return carried(follow, t1, T)


def outside(follow: str, at: int) -> bool:
    """From the step fragment: is `at` outside the window the page's last run carried? (Then the
    fragment reruns the page, which carries the window around it.)"""
    carried = st.session_state.get(WINDOWS + follow)
    return carried is not None and not carried[0] <= at <= carried[1]


# ---- markdown and tables as HTML ---------------------------------------------------------------

@functools.cache
def _markdown_it() -> MarkdownIt:
    """CommonMark with GitHub's tables and strikethrough, as st.markdown reads the catalogue, and
    $...$ math (drawn by KaTeX in the browser); raw HTML is written as text, never as HTML."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": False})
    return md.enable(["table", "strikethrough"]).use(dollarmath_plugin, allow_space=True, allow_digits=True,
                                                      double_inline=True)


@functools.lru_cache(maxsize=512)
def _inline(markdown: str) -> str:
    """The code's own inline markdown (a table's math symbols: the same few on every step) as HTML."""
    return _markdown_it().renderInline(markdown)


@functools.lru_cache(maxsize=2048)  # a page's revisit carries the same steps' words: parsed once
def markdown_html(text: str) -> str:
    """The catalogue's markdown as HTML (learners' text escaped by md_escape before, as for
    st.markdown; any HTML in it is written out as text)."""
    return _markdown_it().render(text)


def table_html(df: pd.DataFrame, index: bool = True, math: tuple[str, ...] = ()) -> str:
    """A table as HTML: the index as row headers (index=False: none), floats with at most 4
    significant digits (as ui.page.four_digits shows them in st.dataframe), every cell escaped;
    a missing cell (None, NaN) empty. math: columns whose cells are the code's own inline markdown
    ("$A_i$", drawn by KaTeX as st.table draws it), never a learner's text. Built column by
    column from plain Python values (a page run makes a table for each step it carries). df: a
    pandas frame, or an Arrow table (ui.page.arrow_rows; no index), read as it is."""
    if not isinstance(df, pd.DataFrame) and not index:  # Arrow: its columns as Python values, no pandas
        return _html(list(df.column_names), [c.to_pylist() for c in df.columns], [""] * df.num_rows,
                     False, math)
    df = df if isinstance(df, pd.DataFrame) else df.to_pandas()
    names = list(df.columns)
    columns = df.to_numpy(dtype=object).T.tolist() if names else []
    heads = [f"<th>{html.escape(str(i))}" for i in df.index.tolist()] if index else [""] * len(df)
    return _html(names, columns, heads, index, math)


def _html(names: list, columns: list[list], heads: list[str], index: bool, math: tuple[str, ...]) -> str:
    """table_html from its column names, columns (Python values) and row headings."""
    words = [all(isinstance(v, str) for v in values) for values in columns]  # a heading over words: left
    corner = "<th></th>" if index else ""
    head = "".join(f"<th{' class=s' if w else ''}>{html.escape(str(c))}</th>" for c, w in zip(names, words))
    cells = [_math_cells(values) if name in math else _cells(values) for name, values in zip(names, columns)]
    rows = "".join(  # a cell's and a row's end tags are optional in HTML: fewer bytes a step
        "<tr>" + h + "".join(r) for h, r in zip(heads, zip(*cells) if cells else [()] * len(heads)))
    return f'<table><thead><tr>{corner}{head}</tr></thead><tbody>{rows}</tbody></table>'


def _cells(values: list) -> list[str]:
    """A column's cells: words to the left, numbers to the right (as st.dataframe)."""
    out = []
    for v in values:
        if isinstance(v, str):
            out.append(f"<td class=s>{html.escape(v)}")
        elif isinstance(v, (float, np.floating)):
            out.append("<td>" if v != v else f"<td>{float(v):.4g}")
        else:
            out.append("<td>" if v is None else f"<td>{html.escape(str(v))}")
    return out


def _math_cells(values: list) -> list[str]:
    return [f"<td class=s>{_inline(v)}" for v in values]


def plain_text(markup: str) -> str:
    """A slide's words without its tags (what the element shows if its code cannot be loaded)."""
    return html.unescape(re.sub(r"<[^>]*>", "", markup)).strip()


@functools.cache
def _component():
    """The st.components.v2 component a stepped block of text is: the chart's loader, calling the
    served module's `stepped` (ui/stepped.js)."""
    return st.components.v2.component("rnnviz_stepped", js=charts.loader_js("stepped"), isolate_styles=False)


def _katex_address() -> str:
    return f"./static/js/{KATEX.name}" if KATEX is not None else ""


def _block(steps: Steps, key: str, slides: list[str], kind: str = "", **extra) -> None:
    at = slides[steps.at - steps.first]
    data = {"follow": steps.follow, "first": steps.first, "at": steps.at, "slides": slides, "kind": kind,
            "katex": _katex_address(), "failed": plain_text(at), **extra}
    _component()(data=json.dumps(data, ensure_ascii=False).encode(), key=key, width="stretch")


# ---- the parts ---------------------------------------------------------------------------------

def markdown(steps: Steps, key: str, text_of: Callable[[int], str], box: str | None = None,
             caption_of: Callable[[int], str | None] | None = None, slides: list[str] | None = None) -> None:
    """text_of(t): step t's markdown; box "info": in an info box (st.info's look, the visibility
    icon); caption_of(t): a caption under it, or None. slides: markdown_slides' of the window, made
    before (a page that keeps them for every session: ui/cache.kept), used where live."""
    if not steps.live:
        if box == "info":
            st.info(text_of(steps.at), icon=":material/visibility:")
        elif text_of(steps.at):
            st.markdown(text_of(steps.at))
        note = caption_of(steps.at) if caption_of else None
        if note:
            st.caption(note)
        return
    slides = slides if slides is not None else markdown_slides(steps, text_of, caption_of)
    _block(steps, key, slides, "info" if box == "info" else "", icon="visibility")


def markdown_slides(steps: Steps, text_of: Callable[[int], str],
                    caption_of: Callable[[int], str | None] | None = None) -> list[str]:
    """markdown()'s slides, one per step of the window (for a page that keeps them: `shown`)."""
    slides = []
    for s in steps.window:
        body = markdown_html(text_of(s))
        note = caption_of(s) if caption_of else None
        if note:
            body += f'<div class="rnnviz-stepped-caption">{markdown_html(note)}</div>'
        slides.append(body)
    return slides


def table_slides(steps: Steps, table_of: Callable[[int], pd.DataFrame], index: bool = True,
                 math: tuple[str, ...] = ()) -> list[str]:
    """table()'s slides, one per step of the window (for a page that keeps them: `shown`)."""
    return [table_html(table_of(s), index, math) for s in steps.window]


def shown(steps: Steps, key: str, slides: list[str], table: bool = False) -> None:
    """Slides made by markdown_slides or table_slides (and kept by the page), shown as markdown()
    or table() shows them. Live steps only."""
    _block(steps, key, slides, "table" if table else "", **({} if table else {"icon": "visibility"}))


def table(steps: Steps, key: str, table_of: Callable[[int], pd.DataFrame], height: int | None = None,
          index: bool = True, math: tuple[str, ...] = (), slides: list[str] | None = None) -> None:
    """table_of(t): step t's table, a DataFrame or an Arrow table (floats shown with 4 significant
    digits); height: its greatest
    height in px (None: every row); index: the row names shown as the first column; math: columns
    of the code's inline markdown (table_html); slides: table_slides' of the window, made before."""
    if not steps.live:
        from .page import four_digits, whole_height
        df = table_of(steps.at)
        df = df if isinstance(df, pd.DataFrame) else df.to_pandas()
        size = {"height": height} if height is not None else whole_height(len(df))
        st.dataframe(df, column_config=four_digits(df), width="stretch", hide_index=not index, **size)
        return
    slides = slides if slides is not None else table_slides(steps, table_of, index, math)
    _block(steps, key, slides, "table", height=height)


def chart(steps: Steps, key: str, figure_of: Callable[[int], object], name: str,
          figs: dict[int, dict] | None = None, data: dict | None = None) -> None:
    """figure_of(t): step t's figure (ui.cache.figure); the chart and its HTML download, which
    holds the step the slider is at when it is clicked. figs: plain_figures' of the window, made
    before (figure_of is then called for a download alone); data: steps_data(steps, figs), made
    before."""
    if not steps.live:
        fig = figure_of(steps.at)
        charts.chart(fig, width="stretch", key=f"{key}_chart")
        download_figure(fig, name, key)
        return
    figs = figs if figs is not None else plain_figures(steps, figure_of)
    charts.chart(figs[steps.at], width="stretch", key=f"{key}_chart",
                 steps=data if data is not None else steps_data(steps, figs))
    download_figure(shown_figure(steps, figure_of), name, key)


def plain_figures(steps: Steps, figure_of: Callable[[int], object]) -> dict[int, dict]:
    """chart()'s figures, {step: plain figure} over the window (for a page that keeps them)."""
    return {s: plain(figure_of(s)) for s in steps.window}


def shown_figure(steps: Steps, figure_of: Callable[[int], object]) -> Callable[[], object]:
    """For a stepped chart's "Download as HTML" (made on click, after the run): the figure of the
    step the slider is at then, read from the session's own state (st.session_state is not there
    outside a run), within the window carried; else the step the run drew."""
    state = session_state_object()
    return lambda: figure_of(_clamped(state, steps.follow, steps.at, steps))


def plain(fig) -> dict:
    """A figure's plain dict in Streamlit's look, as charts.chart sends it (a cached figure is
    in that look already)."""
    return (fig if isinstance(fig, charts.LookedFigure) else charts.looked(fig)).to_dict()


def steps_data(steps: Steps, figs: dict[int, dict]) -> dict:
    """A stepped chart's "steps" (ui/plotly_chart.js figureAt): figs {t: plain figure} -> each
    step's patch against the figure at steps.at."""
    base = figs[steps.at]
    return {"follow": steps.follow, "first": steps.first, "at": steps.at,
            "patches": [[[e[0], *map(compact, e[1:])] for e in patches(base, figs[s])] for s in steps.window]}


def _clamped(state, follow: str, at: int, steps: Steps) -> int:
    try:
        step = int(state[follow])
    except (KeyError, TypeError, ValueError):
        return at
    return step if steps.first <= step <= steps.last else at
