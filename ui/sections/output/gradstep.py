"""Page 3: 6 one gradient step on L_t alone moves W_o and b_o, shared by every step: every
position's distribution moves."""

from __future__ import annotations

import streamlit as st

from rnnviz.explain import output as out
from rnnviz.figures import output as figs
from rnnviz.figures.common import step_labels
from rnnviz.formatting import num, plain_math

from ... import cache, session, stepped
from ...i18n import prose, t
from ...page import figure_labels
from ...widgets import md_escape
from .common import BIND, PAGE


def gradient_step(cur: session.Current, t1: int, k: int) -> None:
    st.header(t("output.h_gradstep"), anchor="out-gradstep")
    _gradient_step(cur, t1, k)


@st.fragment
def _gradient_step(cur: session.Current, t1: int, k: int) -> None:
    """SGD on L_t alone moves W_o and b_o, shared by every step: every position moves. Where the
    step's parts follow the slider (ui/stepped.py), for each step of the window (the learning
    rate reruns this section alone, at the step the slider is at now)."""
    tr = cur.trace
    steps = stepped.followed("out_step", t1, tr.T)
    t1, live = steps.at, steps.live
    if not live and not bool(tr.valid[t1 - 1]):
        st.info(t("output.no_target_step", t=t1))
        return
    lr = st.slider(
        t("output.lr"), 0.005, 2.0, 0.05, 0.005, key="out_lr", **BIND, format="%.3f", help=t("output.lr_help")
    )
    if live and not any(bool(tr.valid[s - 1]) for s in steps.window):
        st.info(t("output.no_target_step", t=t1))
        return
    res = {s: cache.output_layer_step(cur.model, tr, s - 1, float(lr)) for s in steps.window
           if bool(tr.valid[s - 1])}
    stepped.markdown(steps, "out_grad_text", lambda s: _text(cur, s, res, lr))
    before_after = figure_labels(
        before="output.before", after="output.after", x="output.ax_next_target", y="output.ax_prob"
    )
    moved = figure_labels(
        "output.",
        "dp_panel",
        "moved_panel",
        x="output.ax_step_red",
        dp_axis="output.ax_dp",
        moved_axis="output.ax_moved",
    )

    def bars(s: int):
        if s not in res:  # no target at s: its chart is empty, titled so
            return cache.figure(figs.empty_figure, t("output.no_target_step", t=s))
        shown = out.shown_outputs(out.step_view(tr, s - 1, cur.vocab.itos), min(k, 10))
        labels = cur.vocab.itos
        return cache.figure(figs.before_after_bars, [labels[i] for i in shown], res[s].p_before[s - 1, shown],
                            res[s].p_after[s - 1, shown], shown.index(int(tr.targets[s - 1])),
                            t("output.fig_before_after", t=s, lr=f"{lr:g}"), before_after)

    def shifts(s: int):
        if s not in res:
            return cache.figure(figs.empty_figure, t("output.no_target_step", t=s))
        g = out.gradient_step_numbers(res[s], tr.targets)
        return cache.figure(figs.moved_bars, step_labels(cur.tokens), g["dp"], g["moved"], s - 1,
                            t("output.fig_moved"), moved)

    stepped.chart(steps, "out_fig_before_after", bars, t("output.fig_before_after", t=steps.at, lr=f"{lr:g}"))
    stepped.chart(steps, "out_fig_moved", shifts, t("output.fig_moved"))


def _text(cur: session.Current, s: int, res: dict, lr: float) -> str:
    """The gradient step at s in words, with its numbers (markdown)."""
    if s not in res:
        return t("output.no_target_step", t=s)
    tr = cur.trace
    g = out.gradient_step_numbers(res[s], tr.targets)
    before, after, moved, o = g["before"], g["after"], g["moved"], g["other"]
    targets = out.target_tokens(cur.vocab, tr.targets)
    return prose(
        PAGE,
        "gradstep",
        t=s,
        lr=f"{lr:g}",
        upstream=", ".join(plain_math(f"‖∂L_t/∂{n}‖ = {num(v)}") for n, v in res[s].upstream),
        target=md_escape(targets[s - 1]),
        before=num(before[s - 1]),
        after=num(after[s - 1]),
        loss_before=num(g["loss_before"]),
        loss_after=num(g["loss_after"]),
        other_t=o + 1,
        other_tok=md_escape(cur.tokens[o]),
        other_moved=num(moved[o]),
        other_dp=t("output.no_target_there") if g["other_dp"] is None else num(g["other_dp"]),
    )
