"""What every BPTT section shares: the page name, URL binding, prose, labels and tables."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.formatting import plain_subscripts

from ...i18n import t
from ...page import Page, figure_labels, four_digits, whole_height
from ...page import table as page_table

P = "bptt"
BIND = {"bind": "query-params"}
PAGE = Page(P, heading="bptt.h.", anchor="bptt-")
text, anchor = PAGE.text, PAGE.header


def labels(figure: str, *keys: str) -> dict:
    """A figure's strings from the catalogue (bptt.fig.<figure>.<key>)."""
    return figure_labels(f"bptt.fig.{figure}.", *keys)


def elman_1d(cur) -> bool:
    """The notes' recursion and J = diag(phi') W_h are for a one-directional Elman RNN (whose
    output reads h_t alone: with attention, page 9 splits the gradient)."""
    cfg = cur.model.cfg
    return cfg.cell == "elman" and not cfg.bidirectional and not cfg.attention


# English header of an rnnviz table -> its catalogue key (bptt.col.<key>)
HEADERS = {
    "parameter": "param",
    "shape": "shape",
    "entries": "entries",
    "||autograd||": "auto_norm",
    "max |numerical - autograd|": "max_num",
    "rel. error numerical": "rel_num",
    "rel. error hand BPTT": "rel_hand",
    "pass": "pass",
    "update": "update",
    "gradient norm used": "norm_used",
    "step size ||delta theta||": "step_size",
    "loss before": "loss_before",
    "loss after": "loss_after",
    "dtype": "dtype",
}


def headers(df: pd.DataFrame) -> pd.DataFrame:
    """The table with its headers in the learner's language (formula headers stay)."""
    return df.rename(columns={c: t(f"bptt.col.{HEADERS[c]}") for c in df.columns if c in HEADERS})


def table(rows, height=None) -> None:
    """A dataframe; small errors and norms in e-notation so 1e-10 is not shown as 0. height: the
    page's, else every row of a table of up to 20 (ui.page.whole_height), else Streamlit's."""
    df = pd.DataFrame(rows)
    if "parameter" in df:  # W_h -> Wₕ, as the prose writes it
        df["parameter"] = df["parameter"].map(lambda v: plain_subscripts(v) if isinstance(v, str) else v)
    sci = [
        c for c in df.columns if df[c].dtype.kind == "f" and (c.startswith("rel.") or c.startswith("max |"))
    ]
    df = headers(df)
    named = {c: t(f"bptt.col.{HEADERS[c]}") if c in HEADERS else c for c in sci}
    fmt = {**four_digits(df), **{named[c]: st.column_config.NumberColumn(format="%.3e") for c in sci}}
    page_table(df, column_config=fmt, **({"height": height} if height is not None else {}))


def frame(df: pd.DataFrame, **kw) -> None:
    """st.dataframe with four_digits (the page's tables that need no header translation), every row
    of a table of up to 20 unless the page gives a height."""
    st.dataframe(df, hide_index=True, column_config=four_digits(df), **(whole_height(len(df)) | kw))




def window_caption(win) -> None:
    """Under a number computed on a window of a long sentence: which steps (nothing when the
    window is the whole sentence)."""
    if not win.full:
        st.caption(t("bptt.window_short", first=win.first, last=win.last, n=win.size, T=win.T))


def window_note(win, S: int) -> None:
    """Next to the heatmap: why only the last steps are shown, with the numbers."""
    if not win.full:
        st.info(t("bptt.window", T=win.T, S=S, first=win.first, last=win.last, n=win.size))
