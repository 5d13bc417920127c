"""Page 2: the hand exercise: two tanh steps on small numbers, checked by rnnviz."""

from __future__ import annotations

import streamlit as st

from rnnviz.explain import hidden as hd
from rnnviz.formatting import plain_math

from ...i18n import prose, t
from ...widgets import exercise, exercise_number
from .cells import _tex
from .common import PAGE

ANSWERS = ("h_1[1]", "h_1[2]", "h_2[1]", "h_2[2]")


def by_hand() -> None:
    """Two tanh steps by hand with the shared exercise widget (numbered, hint, solution). The
    matrices are typeset; the vectors are a small Markdown table (a phone shows every entry, where
    one KaTeX line put x_2 off-screen); the answer boxes
    start empty, and a form with an empty box is not graded."""
    st.header(t("hidden.h_byhand"), anchor="hid-byhand")
    ex = hd.make_exercise(exercise_number("hid_ex") - 1)
    st.markdown(prose(PAGE, "byhand", tol=hd.TOL))
    st.latex(rf"W_x={_tex(ex.W_x)},\quad W_h={_tex(ex.W_h)}")
    given = (("b_h", ex.b), ("x_1", ex.x1), ("x_2", ex.x2))
    rows = [f"| {plain_math(n)} | {v[0]:g} | {v[1]:g} |" for n, v in given]
    st.markdown("\n".join(["| | [1] | [2] |", "|:--|--:|--:|", *rows]))  # narrow: a phone shows x₂ whole

    def ask():
        cols = st.columns(4)
        return [
            cols[i].number_input(plain_math(lab), -10.0, 10.0, None, 0.01, format="%.3f", key=f"hid_ex_{i}",
                                 placeholder=t("hidden.answer_placeholder"))
            for i, lab in enumerate(ANSWERS)
        ]

    def check(v):
        verdict = hd.check_exercise_verdict(ex, v[:2], v[2:])
        if verdict.ok is None:
            st.warning(t(verdict.hint_key))
        return verdict

    exercise("hid_ex", ask=ask, check=check)
