"""Page 8: the learner's sentence read by Elman, LSTM and GRU (the built-in trio of the current
model's tokenizer: word-level, subword or Chinese; with an own model, that model and its
twins trained on page 6), with ||dh_s/dx_t|| and the horizons; the gated run the
later sections show. Every number comes from rnnviz; nothing is computed here."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from rnnviz.engine import cells, jacobians, jacwindow
from rnnviz.errors import InputError
from rnnviz.explain import gates
from rnnviz.store import catalog
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare

from ... import cache, session
from ...i18n import t
from ...widgets import first_word_step, md_escape

PAGE = "gates"
TRIO = ("elman", "lstm", "gru")


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
    key: str = ""  # the model's key (a built-in's, or OWN_PREFIX + an own model's name)
    vocab: object = None  # the model's vocabulary (the unit search reads a text with it)
    ids: tuple = ()  # what the model reads (with <bos> when the vocabulary has it)


def family(cur: session.Current) -> str:
    """The tokenizer family of the current model (a catalog.CELL_FAMILIES key): a built-in's
    own; an own model's from the tokenizer that read the sentence (Chinese characters, BPE
    subwords, else English words)."""
    return catalog.family_of(cur.key) or catalog.family_for_tokenizer(cur.prepared.tokenizer)


def _same_reader(vocab_a, vocab_b) -> bool:
    return vocab_a.itos == vocab_b.itos and vocab_a.tokenizer == vocab_b.tokenizer


def trio_keys(cur: session.Current) -> dict:
    """{cell: model key} of the three models page 8 compares: a built-in's family (the
    word-level, subword or Chinese trio); with an own model, that model for its cell and, for
    the two others, an own model of that cell with the same vocabulary (page 6 trains them),
    else the built-in of the same tokenizer family."""
    fam = catalog.CELL_FAMILIES[family(cur)]
    if cur.key in catalog.BUILTINS:
        return dict(fam)
    out = {}
    for cell in TRIO:
        if cur.model.cfg.cell == cell:
            out[cell] = cur.key
            continue
        twins = [session.OWN_PREFIX + name for name, (m, v, _) in session.own_models().items()
                 if m.cfg.cell == cell and not m.cfg.bidirectional and _same_reader(v, cur.vocab)]
        out[cell] = twins[-1] if twins else fam[cell]  # the newest twin
    return out


def _read(cell: str, key: str, cur: session.Current) -> Run:
    """Model `key` (the current one, an own twin or a built-in) on the learner's text."""
    model, vocab, meta = (cur.model, cur.vocab, cur.meta) if key == cur.key else session.get_model(key)
    level = meta.get("level", "word")
    label = cur.label if key == cur.key else session.model_label(key)
    text, own = cur.text, False
    try:
        prep = prepare(text, vocab, level)
    except InputError:
        text, own = session.default_sentence(key), True
        prep = prepare(text, vocab, level)
    ids, targets = lm_pair(list(prep.ids), vocab)
    return Run(cell, label, model, vocab.decode(ids), cache.cached_trace(model, ids, targets),
               vocab.has_specials, own, prep.tokenizer, key, vocab, tuple(ids))


def trio(cur: session.Current) -> dict:
    """{cell: (Run, norms (w, w), horizon dict with 'reach' and 'window')} for Elman, LSTM and
    GRU, once. A long sentence with a large state is shown on its last w steps, the same w for
    the three maps (one figure, one axis): the smallest window of the three within
    limits.MAX_JACOBIAN_WORK. The reach on the last state is exact over the whole sentence."""
    runs = [_read(cell, key, cur) for cell, key in trio_keys(cur).items()]
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
        st.caption(t("gates.reads_mixed", which=t("gates.list_sep").join(
            f"{t(f'gates.cell.{c}')}: {t(f'tokenizer.{runs[c][0].tokenizer}')}" for c in TRIO)))
    keys = [runs[c][0].key for c in TRIO]
    built = [runs[c][0].label for c in TRIO if runs[c][0].key in catalog.BUILTINS]
    if built and len(built) < len(keys):  # an own model beside built-ins of its tokenizer
        st.caption(t("gates.own_builtins", which=t("gates.list_sep").join(built)))
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
