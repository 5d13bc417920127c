"""Page 3: 6 one gradient step on L_t alone moves W_o and b_o, shared by every step: every
position's distribution moves."""

from __future__ import annotations

import streamlit as st

from rnnviz.explain import output as out
from rnnviz.figures import output as figs
from rnnviz.figures.common import step_labels
from rnnviz.formatting import num, plain_math

from ... import cache, session
from ...i18n import prose, t
from ...page import figure_labels
from ...widgets import md_escape, show_figure
from .common import BIND, PAGE


def gradient_step(cur: session.Current, t1: int, k: int) -> None:
    st.header(t("output.h_gradstep"), anchor="out-gradstep")
    _gradient_step(cur, t1, k)


@st.fragment
def _gradient_step(cur: session.Current, t1: int, k: int) -> None:
    """SGD on L_t alone moves W_o and b_o, shared by every step: every position moves."""
    tr, labels = cur.trace, cur.vocab.itos
    if not bool(tr.valid[t1 - 1]):
        st.info(t("output.no_target_step", t=t1))
        return
    lr = st.slider(
        t("output.lr"), 0.005, 2.0, 0.05, 0.005, key="out_lr", **BIND, format="%.3f", help=t("output.lr_help")
    )
    res = cache.output_layer_step(cur.model, tr, t1 - 1, float(lr))
    g = out.gradient_step_numbers(res, tr.targets)
    before, after, moved, dp, o = g["before"], g["after"], g["moved"], g["dp"], g["other"]
    targets = out.target_tokens(cur.vocab, tr.targets)
    st.markdown(
        prose(
            PAGE,
            "gradstep",
            t=t1,
            lr=f"{lr:g}",
            upstream=", ".join(plain_math(f"‖∂L_t/∂{n}‖ = {num(v)}") for n, v in res.upstream),
            target=md_escape(targets[t1 - 1]),
            before=num(before[t1 - 1]),
            after=num(after[t1 - 1]),
            loss_before=num(g["loss_before"]),
            loss_after=num(g["loss_after"]),
            other_t=o + 1,
            other_tok=md_escape(cur.tokens[o]),
            other_moved=num(moved[o]),
            other_dp=t("output.no_target_there") if g["other_dp"] is None else num(g["other_dp"]),
        )
    )
    shown = out.shown_outputs(out.step_view(tr, t1 - 1, labels), min(k, 10))
    title = t("output.fig_before_after", t=t1, lr=f"{lr:g}")
    text = figure_labels(
        before="output.before", after="output.after", x="output.ax_next_target", y="output.ax_prob"
    )
    show_figure(
        figs.before_after_bars(
            [labels[i] for i in shown],
            res.p_before[t1 - 1, shown],
            res.p_after[t1 - 1, shown],
            shown.index(int(tr.targets[t1 - 1])),
            title,
            text,
        ),
        title,
        key="out_fig_before_after",
    )
    title = t("output.fig_moved")
    text = figure_labels(
        "output.",
        "dp_panel",
        "moved_panel",
        x="output.ax_step_red",
        dp_axis="output.ax_dp",
        moved_axis="output.ax_moved",
    )
    show_figure(
        figs.moved_bars(step_labels(cur.tokens), dp, moved, t1 - 1, title, text), title, key="out_fig_moved"
    )
