"""Shared pieces of the embedding page's sections: the page's strings, tables with translated
headers, figure words, and old links (their values were shown labels; now they are codes)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.explain import embedding as emb
from rnnviz.figures.embedding import matrix_figure

from ... import cache, session
from ...i18n import prose, t
from ...page import table as page_table
from ...widgets import download_csv, show_figure

PAGE = "embedding"
RADIUS = 3  # rows shown either side of the looked-up row in the term-by-term tables

# Column names of rnnviz.embedding's table rows -> catalogue keys (symbols stay as they are).
COLUMNS = {"row (counting from 1)": "col_row1", "token": "col_token", "used at": "col_used",
           "steps": "col_steps", "contributions g_t": "col_contrib", "row of dL/dE (the sum)": "col_sum",
           "before": "col_before", "after": "col_after", "dL/dE row": "col_grad_row",
           "g now": "col_g_now", "word a": "col_word_a", "word b": "col_word_b",
           "one-hot distance": "col_onehot_dist", "embedding distance": "col_emb_dist",
           "embedding cosine": "col_emb_cos", "word": "col_word", "trigrams": "col_trigrams",
           "buckets": "col_buckets", "non-zero entries": "col_nonzero",
           "in the model's vocabulary": "col_in_vocab", "one-hot (length V)": "col_onehot_len"}


def say(key: str, **values) -> None:
    st.markdown(prose(PAGE, key, **values))


def tr(key: str, **values) -> str:
    return t(f"{PAGE}.{key}", **values)


def table(rows, **kw) -> None:
    """Rows of plain values with their headers in the learner's language."""
    rows = list(rows)
    page_table(rows, headers=headers_for(dict.fromkeys(k for r in rows for k in r)), **kw)


def named_frame(rows) -> pd.DataFrame:
    """Rows of plain values as a dataframe with its headers in the learner's language (a CSV)."""
    df = pd.DataFrame(rows)
    return df.rename(columns=headers_for(df.columns))


def headers_for(names) -> dict[str, str]:
    """The page's column names among `names`, each with its header in the learner's language."""
    return {c: tr(COLUMNS[c]) for c in names if c in COLUMNS}


def header(key: str) -> None:
    """A section header with a fixed anchor (the in-page table of contents links to it)."""
    st.header(tr(f"toc_{key}"), anchor=f"emb-{key}")


def row_labels(cur: session.Current) -> list[str]:
    return emb.vocab_labels(cur.vocab.itos)


def step_labels(tokens) -> list[str]:
    return [f"t={s + 1} {tok}" for s, tok in enumerate(tokens)]


VIEW_ROWS = limits.MAX_SHOWN_ROWS  # rows of a V-row view a visit sends (every row: its CSV download)


def view_rows(cur: session.Current, V: int, width: int = 1) -> list[int]:
    """The rows of a V-row view (table, heatmap, bars) the page sends: every row of a vocabulary
    up to VIEW_ROWS words, else the sentence's rows, then the lowest ids
    (rnnviz.explain.embedding.shown_rows), VIEW_ROWS in all. A page visit stays small (issue 24:
    under 400 KB), and the rows do not depend on the step, so a step move sends the view again
    as a small reference; the whole view is a CSV download (rows_note)."""
    return emb.shown_rows(V, cur.input_ids, width=width, bound=VIEW_ROWS, whole=VIEW_ROWS)


def matrix_view(cur: session.Current, M, shown, title: str, name: str, key: str, **fig_kw) -> None:
    """A V x d matrix (E, dL/dE) as a heatmap of the `shown` rows (view_rows), the sentence's
    rows boxed; the whole matrix is a CSV download when rows are left out."""
    labels, V = row_labels(cur), M.shape[0]
    show_figure(cache.figure(matrix_figure, M[shown].numpy(), [labels[k] for k in shown], title,
                             boxed=emb.positions(shown, cur.input_ids), **fig_kw, **matrix_words()),
                name, key=key)
    rows_note(shown, V, matrix_frame(M, labels) if len(shown) < V else None, name, key)


def matrix_frame(M, labels) -> pd.DataFrame:
    """A V x d matrix as a table: its row label (id, token), then one column per dimension."""
    df = pd.DataFrame(M.numpy(), columns=[tr("fig_dim", j=j + 1) for j in range(M.shape[1])])
    df.insert(0, tr("fig_id_token"), list(labels))
    return df


def matrix_words() -> dict:
    """matrix_figure's axis words in the learner's language."""
    return {"x_title": tr("fig_dim_axis"), "dim": tr("fig_dim")}


def rows_note(shown, V: int, whole=None, name: str = "", key: str = "") -> None:
    """A caption when a V-row view draws only some rows (view_rows), and the whole view (`whole`,
    a dataframe with every row) as a CSV download."""
    if len(shown) < V:
        st.caption(tr("rows_shown", n=len(shown), V=V, whole=f"{VIEW_ROWS:,}"))
        if whole is not None:
            download_csv(whole, name, key=key)
