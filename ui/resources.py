"""Shared resources: what every session reads and nobody mutates, loaded once per process.

The built-in models, taggers and corpora (st.cache_resource: one object, handed out as it is,
never trained in place), the results of settings-only computations (no model, no sentence: the
explicit arguments are the key), and the one process-wide byte budget that ui/cache.py keeps
every per-sentence result in.
"""
from __future__ import annotations

import gc

import streamlit as st

from rnnviz import limits
from rnnviz.engine import gradcheck, taggers
from rnnviz.explain import longrange, origins, slots, word2vec
from rnnviz.explain.notes import errata
from rnnviz.explain.tied import shipped_tied_model
from rnnviz.serve.bytecache import Budget
from rnnviz.store import catalog, tagger_files
from rnnviz.text.bpe import BPE
from rnnviz.text.corpora import TaggingData

from .links import connected_session_ids, current_session_id, expire_closed_sessions


def reap_closed_sessions(manager=None) -> int:
    """Drop the closed tabs' sessions kept past server.disconnectedSessionTTL; returns how many.

    Streamlit keeps a closed tab's session (its models, its uploads) for a reconnect, but its
    store drops an expired one only when another session connects or disconnects: on a quiet
    server a hostile session's memory stayed until the next visitor. The sweeper calls this so
    it goes within the TTL + one sweep. Streamlit's internals are reached in ui.links (the one
    place); on another version without them it does nothing."""
    reaped = expire_closed_sessions(manager)
    if reaped:
        gc.collect()   # a session's objects form cycles: on a quiet server the collector may
    return reaped      # not run for a long time, and the session's models would stay


@st.cache_resource(show_spinner=False)
def budget() -> Budget:
    """Every cached per-sentence / per-model result of every session, in limits.CACHE_BYTES. A
    result stays while a session that used it has a tab connected (a learner reading one page
    finds the others' results when coming back, within CACHE_LIVE_TTL_SECONDS of using them);
    it goes CACHE_TTL_SECONDS after the last of them leaves or stops using it."""
    b = Budget(limits.CACHE_BYTES, ttl=limits.CACHE_TTL_SECONDS, user=current_session_id,
               alive=connected_session_ids, live_ttl=limits.CACHE_LIVE_TTL_SECONDS)
    b.start_sweeper(limits.CACHE_SWEEP_SECONDS, also=(reap_closed_sessions,))
    return b


# ---- built-in models, taggers and corpora ----------------------------------------------------

@st.cache_resource(show_spinner=False)
def builtin(key: str):
    """(model, vocab, meta) of a built-in model: shared by every session, never trained in place."""
    return catalog.load_builtin(key)


@st.cache_resource(show_spinner=False)
def builtin_vocab_size(key: str) -> int:
    """V of a built-in model, read from its report: naming a model does not load it."""
    return catalog.vocab_size(key)


def _shipped_tagger(kind: str):
    return tagger_files.load_tagger((tagger_files.TAGGERS_DIR / f"{kind}.pt").read_bytes())


@st.cache_resource(show_spinner=False)
def attention_twin(key: str):
    """(model, vocab, meta) of a built-in attention twin ("subword" or "zh"): shared read-only."""
    return catalog.attention_twin(key)


@st.cache_resource(show_spinner=False)
def pretrained_taggers() -> dict:
    """The four shipped taggers, shared read-only by every session (never trained in place)."""
    return {k: _shipped_tagger(k) for k in taggers.KINDS}


@st.cache_resource(show_spinner=False)
def flat_tagger():
    """Note 004's flattened FNN (the fifth tagger), shared read-only by every session."""
    return _shipped_tagger(taggers.FLAT)[0]


@st.cache_resource(show_spinner=False)
def tagging_data() -> TaggingData:
    return slots.tagging_data()


@st.cache_resource(show_spinner=False)
def zh_taggers() -> dict:
    """kind -> (tagger, vocab, meta): the four shipped Chinese taggers, shared read-only."""
    return catalog.zh_taggers()


@st.cache_resource(show_spinner=False)
def zh_tagging_data() -> TaggingData:
    """The Chinese travel corpus (one token per character) and its held-out split."""
    return catalog.zh_tagging_data()


@st.cache_resource(show_spinner=False)
def zh_flat_tagger():
    """The Chinese flattened FNN (note 004's fifth tagger), shared read-only."""
    return catalog.zh_flat_tagger()[0]


@st.cache_resource(show_spinner=False)
def subword_table(lang: str = "en") -> BPE:
    """The BPE section's merge table (read-only, shared): the subword model's in English, the
    one learned on the Chinese everyday corpus in 中文."""
    if lang == "zh":
        return origins.zh_subword_table()
    return BPE.from_dict(builtin("subword")[2]["bpe"])


@st.cache_resource(show_spinner=False)
def subword_corpus(lang: str = "en") -> tuple:
    """(training, held-out) sentences of the BPE section's corpus (read-only, shared)."""
    train, held = origins.subword_corpus(lang)
    return tuple(train), tuple(held)


@st.cache_resource(show_spinner=False)
def tied_model():
    """(model, vocab, report) of rnnviz.explain.tied's tied LM, read from rnnviz/pretrained/:
    shared read-only, never trained."""
    return shipped_tied_model()


@st.cache_resource(show_spinner=False)
def longrange_results() -> dict:
    """The shipped long-range measurements (rnnviz/pretrained/longrange.json), read-only."""
    return longrange.load_results()


# ---- settings-only computations (no model: the explicit arguments are the key) -------------

@st.cache_data(max_entries=4, show_spinner="Finite differences for every weight…")
def notes_check():
    params, x, y = gradcheck.notes_setting()
    return gradcheck.gradient_check(params, x[:, :4], y[:, :4]), gradcheck.input_weight_norms(params, x, y)


@st.cache_data(max_entries=32, show_spinner=False)
def clipping(scale: float, max_norm: float):
    params, x, y = gradcheck.exploding_setting(scale)
    g = gradcheck.autograd_grads(params, x, y)
    demo = gradcheck.clip_demo(g, max_norm)
    demo.pop("clipped")
    return demo, gradcheck.step_with_and_without_clipping(params, x, y, max_norm)


@st.cache_data(max_entries=2, show_spinner=False)
def note003_gradient_check() -> dict:
    """note 003's gradient-check block as printed and with the model in float64."""
    return {"printed": errata.note003_gradient_check(False), "fixed": errata.note003_gradient_check(True)}


@st.cache_data(max_entries=2, show_spinner=False)
def tokenizer_comparison(lang: str = "en") -> list:
    """compare_tokenizers on the BPE section's corpus of `lang`: fitted on its training split,
    run on its held-out split, with that section's table (no model: the language is the key)."""
    return origins.tokenizer_rows(lang, subword_table(lang))


@st.cache_data(max_entries=len(origins.CORPORA) * limits.W2V_MAX_RADIUS, show_spinner=False)
def w2v_builtin_pairs(code: str, radius: int, max_vocab: int):
    """The window pairs of a built-in corpus (the arguments are the key): room for every corpus
    at every radius (about 8 MB in all), so none that builtin_pairs_warmed made is dropped."""
    return word2vec.pair_corpus(origins.corpus_sentences(code), radius, max_vocab)


@st.cache_resource(show_spinner=False)
def builtin_pairs_warmed(radius: int, max_vocab: int) -> bool:
    """Once per process and window: every built-in corpus's pairs made (about 0.1 s in all), so
    that a learner switching corpus on page 7 never waits for one (issue 24: the first switch to
    the English corpus took 0.2 s)."""
    for code in origins.CORPORA:
        w2v_builtin_pairs(code, radius, max_vocab)
    return True
