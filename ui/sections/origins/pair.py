"""One (centre, context) pair through one SGD step, every number written out, and the
"try it by hand" on dL/dv_c."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.errors import InputError
from rnnviz.explain import origins
from rnnviz.explain import word2vec as w2v
from rnnviz.formatting import num, vector

from ...i18n import prose, t
from ...widgets import exercise, exercise_number, guard, handed, md_escape
from ..vectors import beside
from .intro import PAGE, header
from .window import CENTRE

SHOWN = 4  # entries of each vector shown in the gradient table
LOSS_TEX = (r"L = -\Big[\log\sigma(u_o^\top v_c) + \sum_{k=1}^{K}\log\sigma(-u_k^\top v_c)\Big]")
GRAD_TEX = (r"\frac{\partial L}{\partial v_c} = (\sigma(u_o^\top v_c)-1)\,u_o"
            r" + \sum_k \sigma(u_k^\top v_c)\,u_k,"
            r"\quad \frac{\partial L}{\partial u_o} = (\sigma(u_o^\top v_c)-1)\,v_c,"
            r"\quad \frac{\partial L}{\partial u_k} = \sigma(u_k^\top v_c)\,v_c")


def one_pair(words: list[str], radius: int, pc, cfg, run: dict | None) -> None:
    """The pair (centre word, a context word) with the run's vectors (or the start ones): the last
    part of page 7's step fragment (the centre word is handed on by window.window_centre)."""
    header("pair")
    centre = handed(CENTRE)
    if pc is None or cfg is None:
        st.info(t("origins.no_corpus"))
        return
    if len(words) < 2:
        st.info(t("origins.no_pairs"))
        return
    pos, contexts = origins.known_pair(words, centre, radius, pc.vocab)
    if pos is None:  # no two words of the sentence the corpus knows: one of the corpus's own pairs
        c_word, o_word = origins.corpus_pair(pc)
        st.info(t("origins.pair_none", c=md_escape(c_word), o=md_escape(o_word),
                  examples=t("origins.list_sep").join(md_escape(w) for w in pc.vocab.itos[:8])))
        contexts = [o_word]
    else:
        c_word = words[pos]
        if pos != centre:
            st.info(t("origins.pair_moved", word=md_escape(words[centre]), c=md_escape(c_word)))
    trained = run is not None and run["pc"].vocab.itos == pc.vocab.itos and run["pc"].radius == pc.radius
    start = (run["result"].V, run["result"].U) if trained else None
    V, U = start or w2v.init_vectors(len(pc.vocab), cfg.dim, cfg.seed)
    o = st.selectbox(t("origins.context_pick"), sorted(set(contexts)), key="origins_context")
    with guard():
        ex = w2v.pair_example(V, U, pc.vocab, pc.counts, c_word, o, k=cfg.negatives, lr=cfg.lr,
                              seed=cfg.seed)
        which = t("origins.vectors_trained" if trained else "origins.vectors_start")
        st.markdown(prose(PAGE, "pair", c=md_escape(c_word), o=md_escape(o), K=cfg.negatives,
                          d=V.shape[1], which=which, loss=num(ex["loss"])))
        st.latex(LOSS_TEX)
        st.dataframe(_terms_frame(ex, o), hide_index=True)
        st.latex(GRAD_TEX)
        st.dataframe(_grads_frame(ex, words[centre], o, SHOWN), hide_index=True)
        st.markdown(prose(PAGE, "pair_after" if ex["loss_change"] < 0 else "pair_after_up",
                          before=num(ex["loss"], 7), after=num(ex["loss_after"], 7),
                          delta=num(ex["loss_change"]), lr=num(cfg.lr)))


def _terms_frame(ex: dict, o: str) -> pd.DataFrame:
    """One row for the true context, one per negative: the score s, sigma and its log term."""
    words = [o] + ex["negative_words"]
    s = [float(ex["s_o"])] + [float(v) for v in ex["s_neg"]]
    logs = [float(ex["log_pos"])] + [float(v) for v in ex["log_neg"]]
    K = len(ex["s_neg"])
    return pd.DataFrame({t("origins.col_word"): words,
                         t("origins.col_role"): [t("origins.role_context")]
                         + [t("origins.role_negative")] * K,
                         t("origins.col_score"): [num(v) for v in s],
                         t("origins.col_term"): [t("origins.term_pos")] + [t("origins.term_neg")] * K,
                         t("origins.col_value"): [num(v) for v in logs]})


def _grads_frame(ex: dict, c: str, o: str, shown: int) -> pd.DataFrame:
    """The rows that move (v_c, u_o, each u_k): gradient, and the row after the step (a word
    drawn twice, or equal to o, has both pushes in its row after the step). The first `shown`
    entries of each vector (the column header says how many of d)."""
    d = len(ex["grad_v_c"])
    rows = [("v_c", c, ex["grad_v_c"], ex["V_new"][ex["c"]]),
            ("u_o", o, ex["grad_u_o"], ex["U_new"][ex["o"]])]
    rows += [(f"u_{i + 1}", w, g, ex["U_new"][j])
             for i, (w, j, g) in enumerate(zip(ex["negative_words"], ex["negatives"], ex["grad_u_neg"]))]
    return pd.DataFrame({t("origins.col_vector"): [r[0] for r in rows],
                         t("origins.col_word"): [r[1] for r in rows],
                         t("origins.col_grad", n=min(shown, d), d=d): [vector(r[2][:shown]) for r in rows],
                         t("origins.col_after", n=min(shown, d), d=d): [vector(r[3][:shown]) for r in rows]})


def pair_exercise() -> None:
    """dL/dv_c by hand for d = 2 and one negative, checked with its hint and its solution."""
    header("exercise")
    ex = w2v.pair_exercise(exercise_number("origins_ex"))
    beside(prose(PAGE, "exercise"), [("v_c", ex.v_c), ("u_o", ex.u_o), ("u_k", ex.u_k)])

    def ask():
        c1, c2 = st.columns(2)
        return (c1.number_input(t("origins.ex_g1"), value=None, format="%.4f", key="origins_ex_g1"),
                c2.number_input(t("origins.ex_g2"), value=None, format="%.4f", key="origins_ex_g2"))

    def check(answer):
        if any(a is None for a in answer):
            raise InputError(t("origins.ex_missing"))
        return origins.pair_verdict(ex, answer)

    exercise("origins_ex", ask=ask, check=check,
             solution=lambda: origins.pair_verdict(ex, ex.answer()).solution)
