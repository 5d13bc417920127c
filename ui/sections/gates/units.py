"""Page 8: the unit search and the clamp (ui/sections/probe.py) on the LSTM or GRU of the trio:
which units of a gated cell's h track something in the learner's sentence or a text."""

from __future__ import annotations

import streamlit as st

from ... import session
from ...i18n import t
from ...widgets import code_radio, md_escape
from .. import probe

GATED = ("lstm", "gru")


def unit_search(cur: session.Current, runs: dict) -> None:
    """The search of page 2 on a gated model of the trio (its h units; an LSTM's c is not read)."""
    def pick() -> probe.Subject:
        cell = code_radio(t("probe.gated_pick"), GATED, "gates_probe_cell", lambda c: t(f"gates.cell.{c}"))
        run = runs[cell][0]
        st.caption(t("probe.gated_model", model=md_escape(run.label), H=run.model.cfg.hidden_size))
        return probe.Subject(run.model, run.vocab, run.tokens, run.trace, run.ids, cur.lang)

    probe.unit_search(cur, "gates_probe", ("sentence", "text"), pick)
