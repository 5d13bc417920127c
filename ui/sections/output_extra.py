"""Page 3 sections, last part: teacher forcing vs free generation, one gradient step on the
output layer, and the hand exercise (L and p - y)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from rnnviz.engine import generation as gen
from rnnviz.explain import output as out
from rnnviz.figures import output as figs
from rnnviz.figures.common import step_labels
from rnnviz.formatting import num

from .. import cache, session
from ..i18n import prose, t
from ..widgets import exercise, exercise_number, labelled_choice, md_escape, show_figure
from .output import table

PAGE = "output"
BIND = {"bind": "query-params"}


def generation(cur: session.Current) -> None:
    st.header(t("output.h_generation"), anchor="out-generation")
    _generation(cur)


@st.fragment
def _generation(cur: session.Current) -> None:
    """Teacher forcing (the true tokens) beside the model feeding back its own choices."""
    T, K, vocab = cur.trace.T, cur.model.cfg.K, cur.vocab
    n = (
        st.slider(t("output.prefix"), 1, T, 1 if vocab.has_specials else min(2, T), key="out_prefix", **BIND)
        if T > 1
        else 1
    )
    c = st.columns(4)
    strategies = ("greedy", "sample")
    strategy = labelled_choice(c[0].radio, t("output.choose_by"), strategies,
                               [t(f"output.strategy_{s}") for s in strategies], "out_strategy",
                               help=t("output.choose_help"))
    off = strategy == "greedy"
    temp = c[1].slider(
        t("output.temperature"),
        0.1,
        3.0,
        1.0,
        0.1,
        key="out_temp",
        **BIND,
        disabled=off,
        help=t("output.temperature_help"),
    )
    topk = c[2].number_input(t("output.gen_topk"), 0, K, 0, key="out_gen_topk", **BIND, disabled=off)
    seed = c[3].number_input(t("output.seed"), 0, 2**31 - 1, 0, key="out_seed", **BIND, disabled=off)
    max_new = st.slider(t("output.max_new"), 1, gen.MAX_NEW_TOKENS, 12, key="out_max_new", **BIND)
    how = gen.Sampling(strategy, float(temp), int(topk), int(seed), int(max_new))
    steps = cache.generate(cur.model, cur.input_ids[:n], how, vocab.stoi.get("<eos>"))
    st.markdown(prose(PAGE, "generation", n=n))
    desc = (
        t("output.how_greedy")
        if off
        else (
            t("output.how_sample_topk", temp=f"{temp:g}", k=topk)
            if topk
            else t("output.how_sample", temp=f"{temp:g}")
        )
    )
    stop = prose(PAGE, "stop_eos" if vocab.has_specials else "stop_limit", max_new=max_new)
    st.markdown(prose(PAGE, "generation_how", how=desc, stop=stop))
    table(out.forcing_rows(cur.trace, vocab, n, steps))
    st.code(
        " ".join(vocab.decode(cur.input_ids[:n]) + [vocab.itos[s.chosen] for s in steps]),
        language=None,
        wrap_lines=True,
    )


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
    before, after = res.target_probs(tr.targets)
    moved, dp = res.moved, after - before
    o = out.most_moved_other(moved, t1 - 1)
    targets = out.target_tokens(cur.vocab, tr.targets)
    st.markdown(
        prose(
            PAGE,
            "gradstep",
            t=t1,
            lr=f"{lr:g}",
            target=md_escape(targets[t1 - 1]),
            before=num(before[t1 - 1]),
            after=num(after[t1 - 1]),
            loss_before=num(-np.log(before[t1 - 1])),
            loss_after=num(-np.log(after[t1 - 1])),
            other_t=o + 1,
            other_tok=md_escape(cur.tokens[o]),
            other_moved=num(moved[o]),
            other_dp=num(dp[o]) if np.isfinite(dp[o]) else t("output.no_target_there"),
        )
    )
    shown = out.shown_outputs(out.step_view(tr, t1 - 1, labels), min(k, 10))
    title = t("output.fig_before_after", t=t1, lr=f"{lr:g}")
    text = {
        "before": t("output.before"),
        "after": t("output.after"),
        "x": t("output.ax_next_target"),
        "y": t("output.ax_prob"),
    }
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
    text = {
        "dp_panel": t("output.dp_panel"),
        "moved_panel": t("output.moved_panel"),
        "x": t("output.ax_step_red"),
        "dp_axis": t("output.ax_dp"),
        "moved_axis": t("output.ax_moved"),
    }
    show_figure(
        figs.moved_bars(step_labels(cur.tokens), dp, moved, t1 - 1, title, text), title, key="out_fig_moved"
    )


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
