"""Intro, the sentence to tag, the grid of tags by tagger, and the filled-in form."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.explain import slots
from rnnviz.figures import slots as figs
from rnnviz.text.tokenize import prepare

from ... import cache, session
from ...charts import chart
from ...i18n import current_lang, error_text, t
from ...page import figure_labels
from ...widgets import follow_share, hand_on, md_escape
from ...widgets import labelled_choice as coded
from .common import (
    BIND,
    DATA_LANG_KEY,
    DATA_LANGS,
    SENTENCE,
    SlotSetup,
    anchor,
    labelled,
    tag_names,
    tagger_label,
    text,
)

SECTIONS = ("grid", "pair", "heldout", "right", "flat", "jordan", "retrain", "byhand")
SOURCES = ("sidebar", "arrive", "leave", "right_a", "right_b", "two_cities", "unknown", "own")


def intro(s: SlotSetup) -> None:
    st.title(t("slots.title"))
    ui_lang = "zh" if current_lang() == "zh" else "en"  # in 中文: the notes' English example, or Chinese
    coded(st.radio, t("slots.data_lang"), DATA_LANGS, [t(f"slots.data_lang.{c}") for c in DATA_LANGS],
          DATA_LANG_KEY, index=DATA_LANGS.index(ui_lang), horizontal=True, help=t("slots.data_lang_help"))
    text("intro", n_train=len(s.data.train), n_heldout=len(s.data.heldout))
    st.info(t(f"slots.own_taggers_{s.lang}" if s.lang != ui_lang else "slots.own_taggers"))


def toc() -> None:
    links = " · ".join(f"[{t(f'slots.h.{k}')}](#slots-{k})" for k in SECTIONS)
    st.markdown(f"**{t('slots.toc')}** {links}")


def sentence_parts(cur: session.Current, s: SlotSetup, acc: dict) -> None:
    """The page's sentence fragment, first part (ui/widgets.StepParts): the sentence chosen and
    what the taggers make of it (what to look at, the grid, the forms). Choosing another sentence
    reruns this fragment's parts alone; (sentence, tagged) is handed on to the later parts."""
    sentence, tagged = choose(cur, s)
    hand_on(SENTENCE, (sentence, tagged))
    look(tagged, (acc["fnn"], acc["bi"]))
    grid(tagged)
    form(tagged, s)


def choose(cur: session.Current, s: SlotSetup):
    """(text, {label: Tagged}): the sentence to tag (a preset, the sidebar's, or typed) and every
    tagger's tags; an unusable sentence is explained and the notes' sentence shown instead."""
    source = coded(st.selectbox, t("slots.source"), SOURCES, [t(f"slots.source.{k}") for k in SOURCES],
                   "slot_source", help=t("slots.source_help"), index=SOURCES.index(s.start),
                   on_change=follow_share)
    if source == "own":
        sentence = st.text_input(
            t("slots.your_sentence"),
            s.own,
            key="slot_text",
            **BIND,
            max_chars=limits.MAX_TEXT_CHARS,
            on_change=follow_share,
        )
    else:
        sentence = cur.text if source == "sidebar" else s.presets[source]
    models = labelled(s)
    try:
        tagged = {label: cache.tagged_sentence(m, s.data.vocab, sentence) for label, m in models.items()}
    except InputError as err:
        st.error(md_escape(error_text(err)))
        st.info(t("slots.fallback"))
        sentence = s.presets["arrive"]
        tagged = {label: cache.tagged_sentence(m, s.data.vocab, sentence) for label, m in models.items()}
    st.code(sentence[:2000], language=None, wrap_lines=True)
    _notices(sentence, s)
    return sentence, tagged


def _notices(sentence: str, s: SlotSetup) -> None:
    """Text or tokens cut by the limits, in the learner's language (unknown words are named by
    the grid's own text)."""
    for name, values in prepare(sentence, s.data.vocab).notice_items:
        if name != "unknown":
            st.warning(t(f"notices.{name}", **{k: md_escape(v) for k, v in values.items()}))


def look(tagged: dict, acc_gap: tuple) -> None:
    """'What to look at' with this sentence's numbers: where the taggers disagree, and the
    held-out gap between the word-alone FNN and the bidirectional RNN."""
    first = next(iter(tagged.values()))
    with st.container(border=True):
        st.markdown(t("slots.look_header"))
        text(
            "look",
            n_disagree=slots.disagreements(tagged),
            T=len(first.tokens),
            acc_fnn=acc_gap[0],
            acc_bi=acc_gap[1],
        )


def grid(tagged: dict) -> None:
    anchor("grid")
    first = next(iter(tagged.values()))
    text("grid", n_disagree=slots.disagreements(tagged), T=len(first.tokens))
    unknown = [tok for tok, w in zip(first.tokens, first.words) if w == "<unk>"]
    if unknown:
        text("unknown", unknown=md_escape(t("slots.list_sep").join(dict.fromkeys(unknown))))
    chart(
        cache.figure(
            figs.tag_grid,
            first.tokens,
            {k: v.probs for k, v in tagged.items()},
            title=t("slots.fig.grid"),
            labels=_axes(),
            tag_names=tag_names(),
        ),
        width="stretch",
        key="slot_grid_chart",
    )


def form(tagged: dict, s: SlotSetup) -> None:
    """Each tagger's filled-in form (a slot's tokens joined by s.sep: nothing between Chinese
    characters; a date's city looked for on the s.when side first)."""
    text("form")
    forms = {label: slots.extract_slots(v.tokens, v.tags, s.sep, s.when) for label, v in tagged.items()}
    names = {name: t(f"slots.slot.{key}") for key, name in slots.SLOTS.items()}
    names[slots.WHEN_OF] = t("slots.slot.when")
    city = {c: t(f"slots.when.{c}") for c in ("arrival", "departure")}
    df = pd.DataFrame(forms).map(lambda v: city.get(v, v)).rename(index=names)
    st.dataframe(df.rename_axis(t("slots.slot_header")))


def _axes() -> dict:
    return figure_labels("slots.axis.", *figs.AXES)


__all__ = ["tagger_label"]
