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
import streamlit as st

from .i18n import counted_frame, prose, t


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
    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    if headers:
        df = df.rename(columns=headers)
    st.dataframe(counted_frame(df), hide_index=True, **kw)


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
