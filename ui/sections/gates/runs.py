"""Page 8: the learner's sentence read by Elman, LSTM and GRU (the word-level built-ins, or the
subword family once a word is unknown), with ||dh_s/dx_t|| and the horizons; the gated run the
later sections show. Every number comes from rnnviz; nothing is computed here."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from rnnviz.engine import cells, jacobians, jacwindow
from rnnviz.errors import InputError
from rnnviz.explain import gates
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare

from ... import cache, resources, session
from ...i18n import t
from ...widgets import first_word_step, md_escape

PAGE = "gates"
TRIO = ("elman", "lstm", "gru")
BUILTIN_OF = {"elman": "default", "lstm": "lstm", "gru": "gru"}  # word-level: 79 words
SUBWORD_OF = {"elman": "subword", "lstm": "subword_lstm", "gru": "subword_gru"}  # one BPE table


@dataclass(frozen=True)
class Run:
    """One model read on the learner's sentence (or the model's own sentence if none is known)."""

    cell: str
    label: str
    model: object
    tokens: list
    trace: object
    has_bos: bool
    own_sentence: bool  # True: the learner's words could not be read, its default sentence is used
    tokenizer: str = "word"  # what cut the text: "word", "bpe", ... (rnnviz.text.tokenize.Prepared.tokenizer)
    vocab: object = None  # the model's vocabulary (the unit search reads a text with it)
    ids: tuple = ()  # what the model reads (with <bos> when the vocabulary has it)


def builtin_of(cur: session.Current) -> dict:
    """The trio's built-ins, following the current model's tokenizer: a model that reads BPE
    subwords (the start model) gets the subword Elman, LSTM and GRU, which share its merge
    table, so the learner's English sentence reads without <unk>; any other, the word-level ones."""
    return SUBWORD_OF if cur.level == "bpe" else BUILTIN_OF


def _read(cell: str, cur: session.Current) -> Run:
    """The current model if it is this cell (gated, or a subword Elman), else the built-in of
    the current model's tokenizer family; the learner's text."""
    if cur.model.cfg.cell == cell and (cell != "elman" or cur.level == "bpe"):
        key, model, vocab, level, label = cur.key, cur.model, cur.vocab, cur.level, cur.label
    else:
        key = builtin_of(cur)[cell]
        model, vocab, meta = resources.builtin(key)
        level, label = meta.get("level", "word"), session.model_label(key)
    text, own = cur.text, False
    try:
        prep = prepare(text, vocab, level)
    except InputError:
        text, own = session.default_sentence(key), True
        prep = prepare(text, vocab, level)
    ids, targets = lm_pair(list(prep.ids), vocab)
    return Run(cell, label, model, vocab.decode(ids), cache.cached_trace(model, ids, targets),
               vocab.has_specials, own, prep.tokenizer, vocab, tuple(ids))


def trio(cur: session.Current) -> dict:
    """{cell: (Run, norms (w, w), horizon dict with 'reach' and 'window')} for Elman, LSTM and
    GRU, once. A long sentence with a large state is shown on its last w steps, the same w for
    the three maps (one figure, one axis): the smallest window of the three within
    limits.MAX_JACOBIAN_WORK. The reach on the last state is exact over the whole sentence."""
    runs = [_read(cell, cur) for cell in TRIO]
    w = min(cache.jacobian_window(r.model, r.trace, k=r.model.cfg.embed_dim).size for r in runs)
    out = {}
    for run in runs:
        win = jacwindow.last_steps(run.trace.T, w)
        norms = cache.input_jacobian_norms(run.model, run.trace, win.start)  # (w, w)
        horizon = jacobians.memory_horizon(norms)
        row = cache.last_state_input_norms(run.model, run.trace)  # (T,)
        horizon["reach"] = gates.first_word_reach_row(row, first_word_step(run.has_bos) - 1)
        horizon["window"] = win
        out[run.cell] = (run, norms, horizon)
    return out


def window_note(runs: dict) -> None:
    """Next to the maps of a long sentence: which steps they show, and why."""
    win = runs["lstm"][2]["window"]
    if not win.full:
        st.info(t("gates.window", T=win.T, first=win.first, last=win.last, n=win.size, n1=win.size - 1))


def readers(runs: dict) -> None:
    """One line naming the tokenizer the three models read the sentence with, and (folded) the
    tokens each one read, so a learner sees the three compare the same tokens."""
    kinds = list(dict.fromkeys(runs[c][0].tokenizer for c in TRIO))
    if len(kinds) == 1:
        st.caption(t("gates.reads_one", tokenizer=t(f"tokenizer.{kinds[0]}")))
    else:
        st.caption(t("gates.reads_mixed", which=", ".join(
            f"{t(f'gates.cell.{c}')}: {t(f'tokenizer.{runs[c][0].tokenizer}')}" for c in TRIO)))
    with st.expander(t("gates.tokens_header")):
        st.dataframe(pd.DataFrame([{t("gates.col.model"): runs[c][0].label,
                                    t("gates.col.tokenizer"): t(f"tokenizer.{runs[c][0].tokenizer}"),
                                    t("gates.col.tokens"): " · ".join(runs[c][0].tokens)} for c in TRIO]),
                     hide_index=True)


def gated_run(cur: session.Current, runs: dict) -> Run:
    """The model of the step and gate views: the current one if gated, else the built-in LSTM
    or GRU chosen here (bound to the URL: gates_cell=lstm|gru)."""
    if cur.model.cfg.cell in cells.GATED:
        st.caption(t("gates.using_current", model=md_escape(cur.label)))
        return runs[cur.model.cfg.cell][0]
    cell = st.radio(t("gates.pick_cell"), ["lstm", "gru"],  # no format_func: the URL keeps the code
                    key="gates_cell", horizontal=True, bind="query-params",
                    help=t("gates.pick_cell_help"))
    return runs[cell][0]
