"""Page 9: what attention costs on this sentence, and one attention step by hand."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain import attention as ax
from rnnviz.formatting import vector

from ...i18n import prose, t
from ...widgets import exercise, exercise_number
from .reader import PAGE, Run


def cost(run: Run) -> None:
    st.subheader(t("attention.cost_header"), anchor="cost")
    T, H = run.trace.T, run.model.cfg.hidden_size
    c = ax.cost(T, H)
    c200 = ax.cost(200, H)
    st.markdown(prose(PAGE, "cost", T=T, H=H, n_scores=f"{c['n_scores']:,}",
                      rec=f"{c['recurrent_madds']:,}", keys=f"{c['keys_madds']:,}",
                      scores=f"{c['score_madds']:,}", ctx=f"{c['context_madds']:,}",
                      att=f"{c['attention_madds']:,}", cross=c["scores_exceed_recurrence_from"],
                      rec200=f"{c200['recurrent_madds']:,}", att200=f"{c200['attention_madds']:,}",
                      n200=f"{c200['n_scores']:,}"))


def hand_exercise() -> None:
    st.subheader(t("attention.ex_header"), anchor="exercise")
    ex = ax.make_exercise(exercise_number("attention_ex"))
    st.markdown(prose(PAGE, "exercise"))
    given = [("$h_1$", ex.h[0]), ("$h_2$", ex.h[1]), ("$h_3$", ex.h[2])]
    given += [("$W_a$ " + t("attention.ex_row", n=n + 1), row) for n, row in enumerate(ex.W_a)]
    st.table(pd.DataFrame([{t("attention.col.quantity"): k, t("attention.col.values"): vector(v)}
                           for k, v in given]))
    exercise("attention_ex", ask=_ask, check=lambda answer: ax.check_verdict(ex, answer))


def _ask() -> tuple:
    cols = st.columns(4)
    names = ("a1", "a2", "c1", "c2")
    return tuple(col.number_input(t(f"attention.ex_in.{n}"), value=None, format="%.4f",
                                  key=f"attention_ex_{n}") for col, n in zip(cols, names))
