"""Page 3: 5 teacher forcing vs free generation from the first half of the sentence."""

from __future__ import annotations

import streamlit as st

from rnnviz.engine import generation as gen
from rnnviz.explain import output as out

from ... import cache, session
from ...i18n import prose, t
from ...widgets import labelled_choice
from .common import BIND, PAGE, table


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
    seed_note = t("output.greedy_seed") if off else t("output.sample_seed")  # greedy draws nothing at random
    st.markdown(prose(PAGE, "generation_how", how=desc, stop=stop, seed=seed_note))
    table(out.forcing_rows(cur.trace, vocab, n, steps))
    st.code(
        " ".join(vocab.decode(cur.input_ids[:n]) + [vocab.itos[s.chosen] for s in steps]),
        language=None,
        wrap_lines=True,
    )
