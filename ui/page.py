"""The one page helper every section uses: its prose paragraphs, its headers with the anchors
the in-page contents link to, its tables and its figures' labels, all in the learner's language.

    P = Page("bptt", heading="bptt.h.", anchor="bptt-")
    P.text("paths", t=3)                   # prose/<lang>/bptt.md, section <!-- paths -->
    P.header("paths")                      # st.header(t("bptt.h.paths"), anchor="bptt-paths")
    figure_labels("bptt.fig.paths.", "title", "x")        # {"title": t(...), "x": t(...)}
    figure_labels(title="hidden.fig_pca", x=("hidden.ax_pc", {"pc": "PC1"}))
    folded(t("bptt.cost_header"), "bptt_cost", cost, cur)  # cost(cur) runs only while it is open
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import pandas as pd
import pyarrow as pa
import streamlit as st

from rnnviz.formatting import plain_subscripts

from .i18n import counted, counted_frame, current_lang, prose, t


def figure_labels(prefix: str = "", *names: str, **keys) -> dict:
    """A figure's words from the catalogue: name -> t(prefix + name) for each name, and
    name -> t(key) (or t(key, **values) for a (key, values) pair) for each keyword."""
    out = {n: t(f"{prefix}{n}") for n in names}
    for n, key in keys.items():
        out[n] = t(key) if isinstance(key, str) else t(key[0], **key[1])
    return out


def table(rows, headers: dict | None = None, **kw) -> None:
    """Rows (or a dataframe) as a table without its index, headers renamed (English -> the
    learner's language, subscripts as they read: p_k - y_k -> pₖ - yₖ) and string cells counted
    in the learner's language. column_config may name a column by either spelling."""
    if kw.get("column_config"):
        kw["column_config"] = {header_text(k): v for k, v in kw["column_config"].items()}
    if not isinstance(rows, pd.DataFrame):
        shown = arrow_rows(rows, headers)
        st.dataframe(shown, hide_index=True, **(whole_height(len(shown)) | kw))
        return
    df = rows.rename(columns=headers) if headers else rows
    shown = counted_frame(df.rename(columns=header_text))
    st.dataframe(shown, hide_index=True, **(whole_height(len(shown)) | kw))


WHOLE_ROWS = 20  # a table of up to this many rows shows them all; a longer one scrolls inside


def whole_height(n_rows: int) -> dict:
    """st.dataframe's height for a table that shows all its n_rows rows (Streamlit's own height
    shows 10 and scrolls the rest inside: a 中文 sentence's <eos> row, which the prose names,
    was behind that scroll), as {"height": px}; {} for a longer table. 35 px a row and the
    header, 3 px of border."""
    return {"height": 35 * (n_rows + 1) + 3} if 10 < n_rows <= WHOLE_ROWS else {}


@functools.lru_cache(maxsize=4096)
def header_text(name):
    """A column's header as a table shows it: its subscripts written out (rnnviz.formatting.
    plain_subscripts), once per distinct header; a header that is not text as it is."""
    return plain_subscripts(name) if isinstance(name, str) else name


def arrow_rows(rows, headers: dict[str, str] | None = None, lang: str | None = None):
    """Rows (a list or iterable of dicts of plain values) as st.dataframe shows them, without
    pandas: an Arrow table whose columns are every key in order of first appearance (a missing
    cell, and a NaN, is empty), headers renamed by `headers`, string cells counted in the
    learner's language. Streamlit sends an Arrow table as it is; a pandas frame it must build
    and convert first (pandas 16 % and the conversion 17 % of a page-1 step move in 中文,
    bench/results/tables_s14.txt). What Arrow cannot show as pandas did goes as the pandas
    frame, as before: a row that is not a dict, a key that is not a string, two headers renamed
    alike, a column of mixed kinds or with no value at all."""
    rows, headers, lang = list(rows), headers or {}, lang or current_lang()
    arrow = _arrow_table(rows, headers, lang)
    if arrow is not None:
        return arrow
    return counted_frame(pd.DataFrame(rows).rename(columns=headers).rename(columns=header_text), lang)


def _arrow_table(rows: list, headers: dict[str, str], lang: str):
    """arrow_rows' Arrow table, or None where it would not show what the pandas frame shows."""
    if not all(isinstance(r, dict) for r in rows):
        return None
    names = list(dict.fromkeys(k for r in rows for k in r))
    shown = [header_text(headers.get(name, name)) for name in names]
    if not all(isinstance(name, str) for name in shown) or len(set(shown)) < len(shown):
        return None
    try:
        columns = [pa.array([counted(r.get(name), lang) for r in rows], from_pandas=True) for name in names]
    except (pa.ArrowException, TypeError, ValueError, OverflowError):  # mixed kinds, huge ints
        return None
    if any(pa.types.is_null(column.type) for column in columns):
        return None
    return pa.Table.from_arrays(columns, names=shown)


def four_digits(df: pd.DataFrame) -> dict:
    """column_config showing every float column with at most 4 significant digits (55.74, not
    55.7442; 1.2e-07, not 0.0000), as rnnviz.formatting.num writes numbers in the prose. The
    browser formats the cells: no pandas Styler on the server (~50 ms a table, issue 24)."""
    return {c: st.column_config.NumberColumn(format="%.4g") for c in df.columns if df[c].dtype.kind == "f"}


@dataclass(frozen=True)
class Page:
    """One page's prose file, its header keys and anchors, and its header level."""

    name: str             # prose/<lang>/<name>.md
    heading: str = ""     # catalogue prefix of its section titles ("bptt.h.")
    anchor: str = ""      # anchor prefix ("bptt-")
    level: str = "header"  # or "subheader"

    def text(self, key: str, **values) -> None:
        st.markdown(prose(self.name, key, **values))

    def header(self, name: str) -> None:
        """A section header with a fixed anchor (the in-page table of contents links to it)."""
        getattr(st, self.level)(t(f"{self.heading}{name}"), anchor=f"{self.anchor}{name}")


def folded(label: str, key: str, content: Callable[..., object], *args, icon: str | None = None,
           opens_for: tuple[str, ...] = (), follow: Callable[[], None] | None = None, **kwargs):
    """An expander that computes nothing while it is closed: `content(*args, **kwargs)` runs (and
    its result is returned) only when the learner has opened it; closed, None. Opening or closing
    it reruns the page, and its open state is in the link (`key=true`), so a shared link opens it.
    `key` must be unique on the page and stable (links hold it). `opens_for`: the keys of the
    widgets inside it; a link that names one of them opens it (the widget then reads the link).
    `follow`: inside a fragment, the callback that reruns an open share box with it (widgets.FOLLOW)."""
    if key not in st.session_state and any(k in st.query_params for k in opens_for):
        st.session_state[key] = True
    with st.expander(label, key=key, icon=icon, on_change=follow or "rerun", bind="query-params") as box:
        if box.open:
            return content(*args, **kwargs)
    return None
