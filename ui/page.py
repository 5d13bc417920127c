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

from dataclasses import dataclass
from typing import Callable

import pandas as pd
import pyarrow as pa
import streamlit as st

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
    learner's language) and string cells counted in the learner's language."""
    if not isinstance(rows, pd.DataFrame):
        st.dataframe(arrow_rows(rows, headers), hide_index=True, **kw)
        return
    df = rows.rename(columns=headers) if headers else rows
    st.dataframe(counted_frame(df), hide_index=True, **kw)


def arrow_rows(rows, headers: dict | None = None, lang: str | None = None):
    """Rows (dicts of plain values) as st.dataframe shows them, without pandas: an Arrow table
    whose columns are every key in order of first appearance (a missing cell is empty), headers
    renamed by `headers`, string cells counted in the learner's language. Streamlit sends an
    Arrow table as it is; a pandas frame it must build and convert first (pandas 16 % and the
    conversion 17 % of a page-1 step move in 中文, bench/results/tables_s14.txt). A column Arrow
    cannot type (cells of mixed kinds) goes as a pandas frame, as before."""
    rows = list(rows)
    lang = lang or current_lang()
    names = list(dict.fromkeys(k for r in rows for k in r))
    columns = {}
    for name in names:
        cells = [r.get(name) for r in rows]
        columns[headers.get(name, name) if headers else name] = [counted(v, lang) for v in cells]
    if len(columns) < len(names):  # two headers renamed alike: pandas keeps both
        return counted_frame(pd.DataFrame(rows).rename(columns=headers or {}), lang)
    try:
        arrow = pa.table(columns)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        arrow = None
    if arrow is None or any(pa.types.is_null(field.type) for field in arrow.schema):
        return counted_frame(pd.DataFrame(rows).rename(columns=headers or {}), lang)
    return arrow


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
           opens_for: tuple[str, ...] = (), **kwargs):
    """An expander that computes nothing while it is closed: `content(*args, **kwargs)` runs (and
    its result is returned) only when the learner has opened it; closed, None. Opening or closing
    it reruns the page, and its open state is in the link (`key=true`), so a shared link opens it.
    `key` must be unique on the page and stable (links hold it). `opens_for`: the keys of the
    widgets inside it; a link that names one of them opens it (the widget then reads the link)."""
    if key not in st.session_state and any(k in st.query_params for k in opens_for):
        st.session_state[key] = True
    with st.expander(label, key=key, icon=icon, on_change="rerun", bind="query-params") as box:
        if box.open:
            return content(*args, **kwargs)
    return None
