"""Page 9: the title, and which attention model reads the learner's sentence (the current model
if it has attention, else the built-in twin of its tokenizer or of the learner's language)."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from rnnviz.errors import InputError
from rnnviz.explain import attention
from rnnviz.formatting import num
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare

from ... import cache, resources, session
from ...i18n import prose, t
from ...widgets import first_word_step, md_escape

PAGE = "attention"
SECTIONS = ("weights", "paths", "lengths", "task", "cost", "exercise")  # the table of contents


@dataclass(frozen=True)
class Run:
    """The attention model on the learner's sentence (or on its own sentence if the learner's
    cannot be read)."""

    label: str
    model: object
    vocab: object
    tokens: list
    trace: object
    own_sentence: bool
    matched: bool  # False: the current model has no twin; the language's twin is used
    source: int = 0  # 0-based step of the first real word (1 after a <bos>): the h_s of the paths


def intro() -> None:
    st.title(t("attention.title"))
    st.markdown(prose(PAGE, "intro"))


def read(cur: session.Current) -> Run:
    choice = attention.twin_choice(cur.key, cur.model.cfg.attention, cur.lang)
    if choice["use"] == "current":
        model, vocab, level, label = cur.model, cur.vocab, cur.level, cur.label
        default = cur.text
    else:
        model, vocab, meta = resources.attention_twin(choice["twin"])
        level, label = meta.get("level", "word"), t(f"attention.twin.{choice['twin']}")
        default = session.default_sentence(choice["twin"])
    text, own = cur.text, False
    try:
        prep = prepare(text, vocab, level)
    except InputError:
        text, own = default, True
        prep = prepare(text, vocab, level)
    ids, targets = lm_pair(list(prep.ids), vocab)
    source = min(first_word_step(vocab.has_specials) - 1, len(ids) - 1)
    run = Run(label, model, vocab, vocab.decode(ids), cache.cached_trace(model, ids, targets), own,
              choice["matched"], source)
    _say_which(cur, run)
    return run


def _say_which(cur: session.Current, run: Run) -> None:
    if run.model is cur.model:
        st.info(t("attention.reader_current", model=md_escape(run.label)))
    elif run.matched:
        st.info(t("attention.reader_twin", model=md_escape(run.label), current=md_escape(cur.label)))
    else:
        st.warning(t("attention.reader_no_twin", model=md_escape(run.label), current=md_escape(cur.label)))
    if run.own_sentence:
        st.warning(t("attention.own_sentence", model=md_escape(run.label)))


def look_here(run: Run, split: dict) -> None:
    """What to look at, with this sentence's numbers, and the table of contents."""
    if split is not None:
        s = split["source"]
        st.markdown(prose(PAGE, "look", T=split["T"], s=s + 1, tok=md_escape(run.tokens[s]),
                          rec=num(split["recurrent_norm"]), att=num(split["attention_norm"]),
                          total=num(split["total_norm"]), k=split["top_k"] + 1,
                          n=split["top_jacobians"], w=num(split["top_weight"])))
    st.markdown("\n".join(f"- [{t(f'attention.toc.{s}')}](#{s})" for s in SECTIONS))
