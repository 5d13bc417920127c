"""The fifth tagger: note 004's FNN over the whole padded sentence. What flattening gains
(context on both sides) and loses (a fixed length, nothing shared across positions)."""

from __future__ import annotations

import streamlit as st

from rnnviz.engine import taggers
from rnnviz.errors import InputError
from rnnviz.explain import slots
from rnnviz.figures import slots as figs
from rnnviz.text.tokenize import prepare

from ... import cache
from ...charts import chart
from ...i18n import error_text, t
from ...widgets import handed
from .common import SENTENCE, SlotSetup, anchor, fmt_table, tagger_label, text
from .sentence import _axes


def flat_fnn(s: SlotSetup) -> None:
    """What the flattened FNN is and how many weights it has (its reach on the sentence, reach(),
    is a part of the page's sentence fragment; the shifted split, shifted(), is not)."""
    anchor("flat")
    text(
        "flat",
        L=s.flat_len,
        n_flat=taggers.param_count(s.flat),
        n_fnn=taggers.param_count(s.shipped["fnn"]),
        n_elman=taggers.param_count(s.shipped["elman"]),
    )


def reach(s: SlotSetup) -> None:
    """A part of the page's sentence fragment: the two FNNs' reach on the sentence handed on."""
    _reach(s, handed(SENTENCE)[0])


def _reach(s: SlotSetup, sentence: str) -> None:
    """||dz_t/dx_s|| for the per-word FNN and the flattened FNN on the sentence above."""
    ids = prepare(sentence, s.data.vocab).ids
    if len(ids) > s.flat_len:
        st.warning(t("slots.flat_too_long", T=len(ids), L=s.flat_len))
        sentence = s.presets["arrive"]
        ids = prepare(sentence, s.data.vocab).ids
    try:
        reach = {
            tagger_label(k): cache.context_reach(m, ids)
            for k, m in (("fnn", s.shipped["fnn"]), ("flat", s.flat))
        }
    except InputError as err:
        st.error(error_text(err))
        return
    tokens = prepare(sentence, s.data.vocab).tokens
    text("reach")
    chart(cache.figure(figs.reach_heatmaps, tokens, reach, t("slots.fig.reach"), labels=_axes()),
          width="stretch", key="slot_reach_chart")


def shifted(s: SlotSetup) -> None:
    """Held-out accuracy as written and with "please" (请) in front: every slot one place later."""
    moved = slots.shifted_heldout(s.data, s.shift)
    models = {**{tagger_label(k): m for k, m in s.shipped.items()}, tagger_label("flat"): s.flat}
    rows, acc, shifted_col = [], {}, t("slots.col.acc_shifted", prefix=s.sep.join(s.shift))
    for label, m in models.items():
        a, b = cache.heldout_scores(m, s.data)["accuracy"], cache.shifted_scores(m, moved)["accuracy"]
        acc[label] = (a, b)
        rows.append({t("slots.col.tagger"): label, t("slots.col.acc"): a, shifted_col: b})
    flat_a, flat_b = acc[tagger_label("flat")]
    el_a, el_b = acc[tagger_label("elman")]
    text(
        "shifted",
        flat_a=f"{flat_a:.3f}",
        flat_b=f"{flat_b:.3f}",
        elman_a=f"{el_a:.3f}",
        elman_b=f"{el_b:.3f}",
        prefix=s.sep.join(s.shift),
    )
    st.dataframe(fmt_table(rows, fixed=True), hide_index=True)
