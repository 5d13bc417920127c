"""Page 2: the hand exercise: two tanh steps on small numbers, checked by rnnviz."""

from __future__ import annotations

import streamlit as st

from rnnviz.explain import hidden as hd

from ...i18n import prose, t
from ...widgets import exercise, exercise_number
from .cells import _tex
from .common import PAGE


def by_hand() -> None:
    """Two tanh steps by hand with the shared exercise widget (numbered, hint, solution)."""
    st.header(t("hidden.h_byhand"), anchor="hid-byhand")
    ex = hd.make_exercise(exercise_number("hid_ex") - 1)
    st.markdown(prose(PAGE, "byhand", tol=hd.TOL))
    st.latex(rf"W_x={_tex(ex.W_x)},\quad W_h={_tex(ex.W_h)}")
    st.latex(rf"b_h={_tex([ex.b])}^\top,\quad x_1={_tex([ex.x1])}^\top,\quad x_2={_tex([ex.x2])}^\top")

    def ask():
        cols = st.columns(4)
        return [
            cols[i].number_input(lab, -10.0, 10.0, 0.0, 0.01, format="%.3f", key=f"hid_ex_{i}")
            for i, lab in enumerate(["h_1[1]", "h_1[2]", "h_2[1]", "h_2[2]"])
        ]

    exercise("hid_ex", ask=ask, check=lambda v: hd.check_exercise_verdict(ex, v[:2], v[2:]))
