"""Page 8: the gates over the whole sentence and what the LSTM's cell keeps from step to step."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.engine import cells
from rnnviz.explain import gates
from rnnviz.figures.gates import gate_heatmaps, kept_figure
from rnnviz.formatting import num

from ... import cache
from ...i18n import prose, t
from ...page import figure_labels
from ...widgets import first_word_step, md_escape, show_figure
from .runs import PAGE, Run


def over_sentence(run: Run) -> None:
    """Every gate over the sentence as heatmaps, the sigmoid gates' saturation, and (LSTM) the
    units whose cell state survives from the first word to the last step."""
    st.subheader(t("gates.sentence_header"), anchor="sentence")
    cell, H = run.model.cfg.cell, run.model.cfg.hidden_size
    sat = gates.gate_saturation(run.trace, cell, H)
    st.markdown(prose(PAGE, "sentence_" + cell, **{f"sat_{g}": num(100 * v) for g, v in sat.items()}))
    values = {g: run.trace.gates[g][:, :H].numpy() for g in cells.GATE_NAMES[cell]}  # (T, H) each
    labels = figure_labels("gates.fig.gate_", "title", "x", "y", "gate_bar", "cand_bar", "hover")
    titles = {g: t(f"gates.gate.{g}") for g in values}
    # the same at every step: built once per (cell, sentence), a step move reads it back
    candidate = "g" if cell == "lstm" else "n"
    show_figure(cache.figure(gate_heatmaps, values, run.tokens, candidate, labels, titles),
                t("gates.file.gates"), key="gates_heat")
    st.dataframe(pd.DataFrame([{t("gates.col.gate"): titles[g], t("gates.col.saturated"): num(100 * v)}
                               for g, v in sat.items()]), hide_index=True)
    if cell == "lstm":
        _kept(run, H)
    else:
        st.markdown(prose(PAGE, "kept_gru"))


def _kept(run: Run, H: int) -> None:
    start = first_word_step(run.has_bos) - 1
    k = gates.kept_cells(run.trace, H, start=start, threshold=0.5)
    top = ", ".join(f"u{u + 1} ({num(k['kept'][u])})" for u in k["order"][:3])
    st.markdown(prose(PAGE, "kept_lstm", n=k["n_kept"], H=H, thr=num(k["threshold"]), top=top,
                      t0=start + 1, tok=md_escape(run.tokens[start]), T=run.trace.T))
    labels = figure_labels("gates.fig.kept_", "title", "x", "y", "line")
    show_figure(cache.figure(kept_figure, k["kept"].numpy(), k["order"], k["threshold"], labels),
                t("gates.file.kept"), key="gates_kept")
