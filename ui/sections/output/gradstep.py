"""Page 3: 6 one gradient step on L_t alone moves W_o and b_o, shared by every step: every
position's distribution moves."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import streamlit as st

from rnnviz.explain import output as out
from rnnviz.figures import output as figs
from rnnviz.figures.common import step_labels
from rnnviz.formatting import num, plain_math

from ... import cache, session, stepped
from ...i18n import current_lang, prose, t
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
    tokens = tuple(cur.tokens)
    parts = _parts(cur.model, tr, cur.vocab, tokens, k, float(lr))
    kept = _slides(cur.model, tr, cur.vocab, tokens, k, float(lr), current_lang(), steps.first, steps.last) \
        if live else {}
    stepped.markdown(steps, "out_grad_text", parts.text, slides=kept.get("text"))
    stepped.chart(steps, "out_fig_before_after", parts.bars,
                  t("output.fig_before_after", t=steps.at, lr=f"{lr:g}"), figs=kept.get("bars"))
    stepped.chart(steps, "out_fig_moved", parts.shifts, t("output.fig_moved"), figs=kept.get("shifts"))


@cache.kept_steps("output_gradstep_slides", holds_figures=True)
def _slides(model, tr, vocab, tokens: tuple, k: int, lr: float, lang: str, first: int, last: int) -> dict:
    """The gradient step's slides and figures for steps first..last (lang: the catalogue's, read
    by prose and t): shared by every session, never edited."""
    steps = stepped.span("out_step", first, last)
    parts = _parts(model, tr, vocab, tokens, k, lr)
    return {"text": stepped.markdown_slides(steps, parts.text),
            "bars": stepped.plain_figures(steps, parts.bars),
            "shifts": stepped.plain_figures(steps, parts.shifts)}


def _parts(model, tr, vocab, tokens: tuple, k: int, lr: float) -> SimpleNamespace:
    """Step s's parts (s in 1..T), each a function of s: text, bars (before and after) and shifts
    (every position moved). One gradient step on L_s is made once, when a part first asks for it;
    a step without a target has none (its text says so, its charts are empty, titled so)."""
    step = functools.cache(lambda s: cache.output_layer_step(model, tr, s - 1, lr) if bool(tr.valid[s - 1])
                           else None)
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
        if step(s) is None:  # no target at s: its chart is empty, titled so
            return cache.figure(figs.empty_figure, t("output.no_target_step", t=s))
        shown, res = out.shown_outputs(out.step_view(tr, s - 1, vocab.itos), min(k, 10)), step(s)
        labels = vocab.itos
        return cache.figure(figs.before_after_bars, [labels[i] for i in shown], res.p_before[s - 1, shown],
                            res.p_after[s - 1, shown], shown.index(int(tr.targets[s - 1])),
                            t("output.fig_before_after", t=s, lr=f"{lr:g}"), before_after)

    def shifts(s: int):
        if step(s) is None:
            return cache.figure(figs.empty_figure, t("output.no_target_step", t=s))
        g = out.gradient_step_numbers(step(s), tr.targets)
        return cache.figure(figs.moved_bars, step_labels(list(tokens)), g["dp"], g["moved"], s - 1,
                            t("output.fig_moved"), moved)

    return SimpleNamespace(text=lambda s: _text(vocab, tokens, tr, s, step(s), lr), bars=bars, shifts=shifts)


def _text(vocab, tokens: tuple, tr, s: int, res, lr: float) -> str:
    """The gradient step at s (res: its cache.output_layer_step, None without a target) in
    words, with its numbers (markdown)."""
    if res is None:
        return t("output.no_target_step", t=s)
    g = out.gradient_step_numbers(res, tr.targets)
    before, after, moved, o = g["before"], g["after"], g["moved"], g["other"]
    targets = out.target_tokens(vocab, tr.targets)
    return prose(
        PAGE,
        "gradstep",
        t=s,
        lr=f"{lr:g}",
        upstream=", ".join(plain_math(f"‖∂L_t/∂{n}‖ = {num(v)}") for n, v in res.upstream),
        target=md_escape(targets[s - 1]),
        before=num(before[s - 1]),
        after=num(after[s - 1]),
        loss_before=num(g["loss_before"]),
        loss_after=num(g["loss_after"]),
        other_t=o + 1,
        other_tok=md_escape(tokens[o]),
        other_moved=num(moved[o]),
        other_dp=t("output.no_target_there") if g["other_dp"] is None else num(g["other_dp"]),
    )
