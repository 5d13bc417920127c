"""The window sliding over the sidebar sentence and the (centre, context) pairs it makes: the centre
slider and its parts are page 7's step fragment (ui/widgets.StepParts)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.explain import origins
from rnnviz.explain import word2vec as w2v
from rnnviz.figures.word2vec import window_figure

from ... import cache, session
from ...i18n import prose, t
from ...page import figure_labels
from ...widgets import StepParts, follow_share, hand_on, handed, md_escape, show_figure, step_slider
from .intro import PAGE, header

BIND = {"bind": "query-params"}
CENTRE = "origins_c"  # the centre word (0-based) window_centre hands to the later parts


def window(cur: session.Current, steps: StepParts) -> tuple[int, list[str]]:
    """Pick a centre word and a radius r; the figure and the table show its pairs. The centre
    slider and what it drives are parts of the page's step fragment (`steps`): a move reruns
    them alone (window_centre, window_pairs, then pair.one_pair); r drives the whole page.
    Returns (r, the sentence's words)."""
    header("window")
    words = origins.sentence_words(cur.text)
    c1, c2 = st.columns(2)
    with c1:
        steps.here(window_centre, len(words))
    radius = c2.slider(t("origins.radius"), 1, limits.W2V_MAX_RADIUS, 2, key="origins_radius",
                       help=t("origins.radius_help"), **BIND)
    steps.here(window_pairs, words, radius)
    return radius, words


def window_centre(T: int) -> None:
    """The centre slider (1-based on screen), handed on as CENTRE (0-based)."""
    centre = step_slider(t("origins.centre"), 1, T, min(2, T), key="origins_centre", on_change=follow_share)
    hand_on(CENTRE, centre - 1)


def window_pairs(words: list[str], radius: int) -> None:
    """The window around the centre word: the prose, the figure and the table of its pairs."""
    centre = handed(CENTRE)
    span = w2v.window_span(len(words), centre, radius)
    every = w2v.window_pairs(words, radius)  # the whole sentence's pairs, made once
    pairs = [p for p in every if p.centre_pos == centre]
    st.markdown(prose(PAGE, "window", r=radius, word=md_escape(words[centre]), n=len(pairs),
                      total=len(every), T=len(words)))
    show_figure(cache.figure(window_figure, words, centre, span, t("origins.window_title", r=radius),
                             labels=_window_labels()), "word2vec window", key="origins_window")
    st.dataframe(pd.DataFrame({t("origins.col_centre"): [p.centre for p in pairs],
                               t("origins.col_context"): [p.context for p in pairs],
                               t("origins.col_offset"): [p.context_pos - p.centre_pos for p in pairs]}),
                 hide_index=True)


def _window_labels() -> dict:
    return figure_labels("origins.fig_", "centre", "context", "outside", x="origins.fig_window_x",
                         pair=("origins.fig_pair", {"c": "{c}", "o": "{o}"}))
