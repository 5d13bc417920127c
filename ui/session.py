"""This session's state: the current model, sentence and language, its own models, and the
training lifecycle. `current()` returns the frozen Current every page works on.

The built-in models are shared read-only (ui.cache.builtin); a model this session trains or
uploads lives in st.session_state["own_models"], invisible to every other session.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from rnnviz import limits
from rnnviz.engine.model import RNNModel
from rnnviz.engine.trace import Trace
from rnnviz.errors import InputError
from rnnviz.serve.bytecache import trim_to_budget
from rnnviz.serve.links import OWN_PREFIX
from rnnviz.store.catalog import BUILTINS, START_MODEL, ordered_for, start_model
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import Prepared, Vocab, prepare

from . import cache, links, resources, running
from .i18n import current_lang, error_text, has, t
from .widgets import md_escape

DEFAULT_MODEL = "default"  # the word-level model: what ?model=default opens (links made before)
DEFAULT_TEXT = BUILTINS[DEFAULT_MODEL].default_sentence
START_TEXT = BUILTINS[START_MODEL].default_sentence  # a fresh session with no model in its link
TRAIN_RUN = "train_run"  # session key of the training page's current TrainingRun
TRAIN_JOB = "train_job"  # session key of its job while it waits or trains (ui.running)


@dataclass(frozen=True)
class Current:
    """What every page works on: the chosen model and the sentence, traced once."""

    key: str
    label: str
    model: RNNModel
    vocab: Vocab
    meta: dict
    text: str
    prepared: Prepared
    input_ids: tuple       # (T,) what the model reads (with <bos> when the vocabulary has it)
    target_ids: tuple      # (T,) the next token at each step (IGNORE where none)
    trace: Trace
    lang: str = "en"

    @property
    def tokens(self) -> list[str]:
        """The input tokens as the model sees them (<bos>, <unk> included)."""
        return self.vocab.decode(self.input_ids)

    @property
    def level(self) -> str:
        return self.meta.get("level", "word")


# ---- models ----------------------------------------------------------------------------

def own_models() -> dict:
    """This session's own models (trained or uploaded): name -> (model, vocab, meta)."""
    return st.session_state.setdefault("own_models", {})


def model_options() -> list[str]:
    """The built-ins (those reading the interface language first), then this session's own."""
    return ordered_for(BUILTINS, current_lang()) + [OWN_PREFIX + name for name in own_models()]


def get_model(key: str) -> tuple[RNNModel, Vocab, dict]:
    if key in BUILTINS:
        return resources.builtin(key)
    return own_models()[key.removeprefix(OWN_PREFIX)]


def model_label(key: str) -> str:
    """The model's name in the learner's language (models.<key>.label; the catalogue's English
    label for a built-in the string files do not name yet)."""
    if key in BUILTINS:
        if has(f"models.{key}.label"):
            return t(f"models.{key}.label", V=resources.builtin_vocab_size(key))
        return BUILTINS[key].label
    return t("session.own_label", name=key.removeprefix(OWN_PREFIX))


def model_description(key: str) -> str:
    if key in BUILTINS:
        if has(f"models.{key}.description"):
            return t(f"models.{key}.description")
        return BUILTINS[key].description
    return get_model(key)[2].get("description", t("session.own_description"))


def default_sentence(key: str) -> str:
    if key in BUILTINS:
        return BUILTINS[key].default_sentence
    return get_model(key)[2].get("default_sentence", BUILTINS[start_model(current_lang())].default_sentence)


def selected_key() -> str:
    """The chosen model; the start model of the interface language (the subword English model,
    the Chinese model in 中文) when none is chosen or it is gone."""
    key = st.session_state.get("model")
    return key if key in model_options() else start_model(current_lang())


def model_has_effect(page: str) -> bool:
    """Whether the sidebar's model changes what `page` shows (page 5's taggers are its own)."""
    return page not in PAGES_WITHOUT_MODEL


PAGES_WITHOUT_MODEL = frozenset({"slots"})


def use_model(name: str, model: RNNModel, vocab: Vocab, meta: dict) -> str:
    """Add an own model to this session and make it the current one from the next run on.

    The sidebar's selectbox is already drawn in this run, so the switch is queued and done
    at the top of the next run (call st.rerun() after this)."""
    own_models().pop(name, None)  # the newest last: trimming drops the oldest first
    own_models()[name] = (model, vocab, dict(meta))
    key = OWN_PREFIX + name
    for gone in trim_to_budget(own_models(), limits.SESSION_STORE_BYTES, keep={name}):
        st.toast(t("session.model_dropped", name=md_escape(gone)))
    st.session_state["pending_model"] = key
    return key


def apply_pending_model() -> None:
    """Before the sidebar's model widget: switch to a model queued by use_model."""
    key = st.session_state.pop("pending_model", None)
    if key and key in model_options():
        st.session_state["model"] = key
        st.session_state["text"] = default_sentence(key)


# ---- training lifecycle -------------------------------------------------------------------

def keep_run(run) -> str:
    """Keep a training run's model (as trained so far) as an own model, current from the next run."""
    from rnnviz.explain.train import model_meta
    run.finish()
    return use_model(run.name, run.model, run.vocab, model_meta(run, run.name))


def finish_interrupted_training() -> None:
    """A training that has ended (done, stopped by its Stop button, its time cap or a missed
    heartbeat) keeps what it learned, once; a run left marked running by no job (one whose
    training was interrupted) too. Called at the top of every run, since the learner may have
    left the training page."""
    job = running.take(TRAIN_JOB)
    if job is not None and job.result is not None:
        job.result.stop_reason = "time" if job.reason == "time" else ""
        keep_run(job.result)
    run = st.session_state.get(TRAIN_RUN)
    if run is not None and run.status == "running" and running.active(TRAIN_JOB) is None:
        run.finish("stopped")
        keep_run(run)


def start_of_run() -> None:
    """What every run does before any widget: keep an interrupted training, switch to a queued
    model. Idempotent (the sidebar and current() both call it)."""
    finish_interrupted_training()
    apply_pending_model()


# ---- the current model and sentence -------------------------------------------------------

def start_page() -> None:
    """The first call of a page that needs no sentence yet (current() calls it too).

    A page that Streamlit runs alone (a deep link as a server's first request; AppTest after
    switch_page) gets the sidebar drawn here first (ui.links.page_runs_alone)."""
    if links.page_runs_alone():
        from .lesson import bar  # only here, as the sidebar: neither calls back
        from .sidebar import sidebar  # only here: the sidebar itself never calls back
        sidebar()
        bar(st.session_state.get("_page_url", ""))  # the lesson's Next / Back (set by its last move)
    start_of_run()


def current() -> Current:
    """The current model and sentence. A bad sentence is explained and the last good one stays."""
    start_page()
    key = selected_key()
    model, vocab, meta = get_model(key)
    level = meta.get("level", "word")
    text = st.session_state.get("text", default_sentence(key))
    good = st.session_state.setdefault("last_good", {})
    try:
        prepared = prepare(text, vocab, level)
        good[key] = text
    except InputError as err:
        st.error(error_text(err))
        text = good.get(key, default_sentence(key))
        prepared = prepare(text, vocab, level)
        st.info(t("session.last_good", text=md_escape(text)))
    for name, values in prepared.notice_items:
        st.warning(t(f"notices.{name}", **{k: md_escape(v) for k, v in values.items()}))
    input_ids, target_ids = lm_pair(list(prepared.ids), vocab)
    tr = cache.cached_trace(model, input_ids, target_ids)
    return Current(key, model_label(key), model, vocab, meta, text, prepared,
                   tuple(input_ids), tuple(target_ids), tr, current_lang())
