"""The window sliding over the sidebar sentence and the (centre, context) pairs it makes."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.explain import origins
from rnnviz.explain import word2vec as w2v
from rnnviz.figures.word2vec import window_figure

from ... import session
from ...i18n import prose, t
from ...page import figure_labels
from ...widgets import md_escape, show_figure, step_slider
from .intro import PAGE, header

BIND = {"bind": "query-params"}


def window(cur: session.Current) -> tuple[int, int, list[str]]:
    """Pick a centre word and a radius r; the figure and the table show its pairs.
    Returns (centre position 0-based, r, the sentence's words)."""
    header("window")
    words = origins.sentence_words(cur.text)
    c1, c2 = st.columns(2)
    with c1:
        centre = step_slider(t("origins.centre"), 1, len(words), min(2, len(words)), key="origins_centre")
    radius = c2.slider(t("origins.radius"), 1, limits.W2V_MAX_RADIUS, 2, key="origins_radius",
                       help=t("origins.radius_help"), **BIND)
    span = w2v.window_span(len(words), centre - 1, radius)
    pairs = [p for p in w2v.window_pairs(words, radius) if p.centre_pos == centre - 1]
    st.markdown(prose(PAGE, "window", r=radius, word=md_escape(words[centre - 1]), n=len(pairs),
                      total=len(w2v.window_pairs(words, radius)), T=len(words)))
    show_figure(window_figure(words, centre - 1, span, t("origins.window_title", r=radius),
                              labels=_window_labels()), "word2vec window", key="origins_window")
    st.dataframe(pd.DataFrame({t("origins.col_centre"): [p.centre for p in pairs],
                               t("origins.col_context"): [p.context for p in pairs],
                               t("origins.col_offset"): [p.context_pos - p.centre_pos for p in pairs]}),
                 hide_index=True)
    return centre - 1, radius, words


def _window_labels() -> dict:
    return figure_labels("origins.fig_", "centre", "context", "outside", x="origins.fig_window_x",
                         pair=("origins.fig_pair", {"c": "{c}", "o": "{o}"}))
