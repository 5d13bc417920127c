"""Page 8: the title and contents, what to look at, and how far back an input still moves the
state for Elman, LSTM and GRU side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.figures.gates import influence_heatmaps
from rnnviz.formatting import num

from ...i18n import prose, t
from ...page import figure_labels
from ...widgets import md_escape, show_figure
from .runs import PAGE, TRIO, readers, window_note

SECTIONS = ("compare", "step", "sentence", "task", "exercise")  # anchors of the table of contents


def intro() -> None:
    st.title(t("gates.title"))
    st.markdown(prose(PAGE, "intro"))


def look_here(runs: dict) -> None:
    """'What to look at' with this sentence's horizons, and the page's table of contents."""
    hz = {c: runs[c][2] for c in TRIO}
    T = runs["lstm"][0].trace.T
    st.markdown(prose(PAGE, "look", T=T, **{f"h_{c}": hz[c]["horizon"] for c in TRIO},
                      **{f"r_{c}": num(hz[c]["reach"]) for c in TRIO}))
    st.markdown("\n".join(f"- [{t(f'gates.toc.{s}')}](#{s})" for s in SECTIONS))


def compare(runs: dict) -> None:
    """||dh_s/dx_t|| of the three cells on one log colour scale, and their memory horizons."""
    st.subheader(t("gates.compare_header"), anchor="compare")
    readers(runs)
    names = {c: t(f"gates.cell.{c}") for c in TRIO}
    for c in TRIO:
        run = runs[c][0]
        if run.own_sentence:
            st.info(t("gates.own_sentence", model=md_escape(run.label)))
    st.markdown(prose(PAGE, "compare", **{f"h_{c}": runs[c][2]["horizon"] for c in TRIO},
                      **{f"r_{c}": num(runs[c][2]["reach"]) for c in TRIO}, T=runs["lstm"][0].trace.T))
    rows = [{t("gates.col.cell"): names[c], t("gates.col.model"): runs[c][0].label,
             t("gates.col.horizon"): runs[c][2]["horizon"], t("gates.col.median"): runs[c][2]["median"],
             t("gates.col.reach"): num(runs[c][2]["reach"])} for c in TRIO]
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    window_note(runs)
    if any(runs[c][2]["reached_start"] for c in TRIO) and runs["lstm"][2]["window"].full:
        st.caption(t("gates.horizon_all"))
    labels = figure_labels("gates.fig.infl_", "title", "x", "y", "colorbar", "hover", "blank")
    fig = influence_heatmaps({names[c]: runs[c][1].numpy() for c in TRIO}, runs["lstm"][0].tokens,
                             labels, start=runs["lstm"][2]["window"].start)  # true step numbers
    show_figure(fig, t("gates.file.influence"), key="gates_influence")
    with st.expander(t("gates.compare_more")):
        st.markdown(prose(PAGE, "compare_more"))
