"""Page 8: the title and contents, what to look at, and how far back an input still moves the
state for Elman, LSTM and GRU side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.engine import cellpath
from rnnviz.figures.bptt import STRIP_LABELS, factor_strip
from rnnviz.figures.gates import influence_heatmaps
from rnnviz.formatting import num, plain_math

from ... import cache
from ...cellpick import pick_cell
from ...i18n import prose, t
from ...page import figure_labels
from ...widgets import code_radio, md_escape, show_figure
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
    st.container(key="phone_only_gates_table_cue").caption(t("gates.scroll_cue"))  # a phone cuts the table
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    window_note(runs)
    if any(runs[c][2]["reached_start"] for c in TRIO) and runs["lstm"][2]["window"].full:
        st.caption(t("gates.horizon_all"))
    labels = figure_labels("gates.fig.infl_", "title", "x", "y", "colorbar", "hover", "blank")
    win = runs["lstm"][2]["window"]
    fig = cache.figure(influence_heatmaps, {names[c]: runs[c][1].numpy() for c in TRIO},
                       runs["lstm"][0].tokens, labels, start=win.start)  # true step numbers
    cell = code_radio(t("gates.open_map"), TRIO, "gates_map", names.__getitem__)
    T = runs[cell][0].trace.T
    s, t_ = pick_cell(fig, t("gates.file.influence"), "gates_influence", ("gates_cell_s", "gates_cell_t"),
                      (t("bptt.cell_s_row"), t("bptt.cell_t_col")), ((1, T), (1, T)), (T, win.first),
                      (win.first, win.first), ("gates_map", list(TRIO), TRIO.index(cell)))
    influence_strip(runs, cell, s - 1, t_ - 1, names[cell])
    with st.expander(t("gates.compare_more")):
        st.markdown(prose(PAGE, "compare_more"))


def influence_strip(runs: dict, cell: str, s: int, t_: int, name: str) -> None:
    """The clicked cell of one map opened: the state chain J_s ... J_(t+1) behind dh_s/dx_t, with
    the mean forget (LSTM) / update (GRU) gate or phi' (Elman) of every step."""
    run, norms, horizon = runs[cell]
    if t_ > s:
        st.caption(t("bptt.swapped"))
        s, t_ = t_, s
    if s == t_:
        st.caption(t("gates.strip_same", name=name, t=s + 1))
        return
    win = horizon["window"]
    strip = cache.cell_strip(run.model, run.trace, s, t_, "fwd", 2)
    inside = t_ >= win.start
    value = num(float(norms[s - win.start, t_ - win.start])) if inside else t("gates.strip_outside")
    gate = t(f"bptt.fig.strip.slope_{cellpath.slope_name(run.model.cfg.cell)}")
    st.markdown(t("gates.strip_text", name=name, s=s + 1, t=t_ + 1, value=value, chain=num(strip["value"]),
                  gate=plain_math(gate), n=len(strip["rows"])))  # mean φ'(aₖ), as under the strip
    show_figure(factor_strip(strip["rows"], s, t_, strip["largest_drop"], strip["start"],
                             labels={k: t(f"bptt.fig.strip.{k}") for k in STRIP_LABELS} | {"slope": gate}),
                "gates-strip", key="gates_strip")
