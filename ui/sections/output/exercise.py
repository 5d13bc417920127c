"""Page 3: 7 the hand exercise: L and p - y from small numbers, checked by rnnviz."""

from __future__ import annotations

import streamlit as st

from rnnviz.explain import output as out

from ...i18n import prose, t
from ...widgets import exercise, exercise_number
from .common import PAGE, table


def _old_seed_link() -> None:
    """A link made before the shared exercise widget names the exercise by `out_ex_seed`
    (0-based): open the same exercise (number seed + 1)."""
    seed = st.query_params.get("out_ex_seed")
    if seed is not None and "out_ex_n" not in st.session_state and str(seed).isdigit():
        st.session_state["out_ex_n"] = int(seed) + 1


def by_hand() -> None:
    """L = -ln p(target) and p - y from small numbers, with the shared exercise widget."""
    st.header(t("output.h_byhand"), anchor="out-byhand")
    _old_seed_link()
    ex = out.make_exercise(exercise_number("out_ex") - 1)
    st.markdown(prose(PAGE, "exercise"))
    given = "p" if ex.kind == "probs" else t("output.z_logits")
    table(
        [
            {"word": w, given: v, "target": "◀ target" if i == ex.target else ""}
            for i, (w, v) in enumerate(zip(ex.labels, ex.given))
        ]
    )

    def ask():
        c1, c2 = st.columns([1, 2])
        loss = c1.text_input(t("output.your_L"), key="out_ex_loss", placeholder="0.92")
        grad = c2.text_input(
            t("output.your_grad", K=len(ex.labels)), key="out_ex_grad", placeholder="0.1, -0.6, 0.5"
        )
        return loss, grad

    exercise("out_ex", ask=ask, check=lambda a: out.check_both(ex, a[0], a[1]))
