"""Page 9: the attention weights over the sentence (query step x key step), one row chosen
(bound to the link) as bars, and that step's context vector beside h_t."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain import attention
from rnnviz.figures.attention import row_bars, weights_heatmap
from rnnviz.formatting import num, sub, vector_rows

from ...i18n import prose, t
from ...widgets import follow_part, md_escape, named_part, show_figure, step_slider
from .reader import PAGE, Run


def weights(run: Run) -> None:
    st.subheader(t("attention.weights_header"), anchor="weights")
    st.markdown(prose(PAGE, "weights"))
    tr = run.trace
    labels = {k: t(f"attention.fig.w_{k}") for k in ("title", "x", "y", "colorbar", "hover", "blank")}
    show_figure(weights_heatmap(attention.weights_matrix(tr), run.tokens, labels),
                t("attention.file.weights"), key="attention_weights")
    named_part(ROW_PART, _row, run)


ROW_PART = "attention_row_part"  # fragment key: the chosen row, redrawn alone (with an open share box)


def _row(run: Run) -> None:
    """One query step: its weights as bars and its context vector (redrawn alone)."""
    tr = run.trace
    t_ = step_slider(t("attention.row"), 1, tr.T, tr.T, key="attention_row", on_change=follow_part,
                     args=(ROW_PART,)) - 1
    w = attention.step_weights(tr, t_)
    top = attention.top_key(w["weights"])
    st.markdown(prose(PAGE, "row", t=t_ + 1, tok=md_escape(run.tokens[t_]), top=top + 1,
                      top_tok=md_escape(run.tokens[top]), w=num(w["weights"][top]), n=t_ + 1))
    labels = {"title": t("attention.fig.row_title", t=t_ + 1), "x": t("attention.fig.row_x"),
              "y": t("attention.fig.row_y")}
    show_figure(row_bars(w["weights"].numpy(), run.tokens, t_, labels), t("attention.file.row"),
                key="attention_row_bars")
    H = tr.h.shape[1]
    st.markdown(prose(PAGE, "context", t=t_ + 1, H=H))
    st.dataframe(pd.DataFrame(vector_rows([(f"h{sub(t_ + 1)}", w["h"]), (f"c{sub(t_ + 1)}", w["context"])],
                                          t("attention.col.vector"))), hide_index=True)
