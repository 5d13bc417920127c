"""Shared pieces of the embedding page's sections: the page's strings, tables with translated
headers, figure words, and old links (their values were shown labels; now they are codes)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.explain import embedding as emb
from rnnviz.figures.embedding import matrix_figure

from ... import cache, session
from ...i18n import counted_frame, prose, t
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
    df = pd.DataFrame(rows)
    df = df.rename(columns=lambda c: tr(COLUMNS[c]) if c in COLUMNS else c)
    st.dataframe(counted_frame(df), hide_index=True, **kw)


def header(key: str) -> None:
    """A section header with a fixed anchor (the in-page table of contents links to it)."""
    st.header(tr(f"toc_{key}"), anchor=f"emb-{key}")


def row_labels(cur: session.Current) -> list[str]:
    return emb.vocab_labels(cur.vocab.itos)


def step_labels(tokens) -> list[str]:
    return [f"t={s + 1} {tok}" for s, tok in enumerate(tokens)]


def matrix_view(cur: session.Current, M, title: str, name: str, key: str, **fig_kw) -> None:
    """A V x d matrix (E, dL/dE) as a heatmap of the rows the view needs: the sentence's rows
    (boxed) and their neighbours, at most limits.MATRIX_ROWS_SHOWN; the whole matrix is a CSV."""
    ids, labels, V = list(cur.input_ids), row_labels(cur), M.shape[0]
    rows = emb.shown_rows(ids, V, RADIUS, limits.MATRIX_ROWS_SHOWN)
    at = {k: n for n, k in enumerate(rows)}
    boxed = [at[i] for i in ids if i in at]
    show_figure(cache.figure(matrix_figure, M[rows], [labels[k] for k in rows], title, boxed=boxed, **fig_kw,
                              **matrix_words()), name, key=key)
    if len(rows) < V:
        st.caption(tr("rows_shown", n=len(rows), V=V, n_ids=len(set(ids))))
        dims = [tr("fig_dim", j=j + 1) for j in range(M.shape[1])]
        download_csv(pd.DataFrame(M, index=labels, columns=dims), name, key=key)


def matrix_words() -> dict:
    """matrix_figure's axis words in the learner's language."""
    return {"x_title": tr("fig_dim_axis"), "dim": tr("fig_dim")}


def rows_note(shown, V: int) -> None:
    """A caption when a V-row view draws only some rows (rnnviz.explain.embedding.shown_rows)."""
    if len(shown) < V:
        st.caption(tr("rows_shown", n=len(shown), V=V, whole=f"{limits.MAX_WHOLE_VOCAB:,}"))
