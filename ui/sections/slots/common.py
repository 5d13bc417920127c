"""What every slot-filling section shares: the taggers and data (one function, switchable by
language), the preset sentences, URL binding and table formatting."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from rnnviz.conventions import TAGS
from rnnviz.explain import slots
from rnnviz.formatting import num
from rnnviz.text.corpora import ZH_SLOT_PAIR, ZH_SLOT_WORD

from ... import resources
from ...i18n import t
from ...page import Page

P = "slots"
BIND = {"bind": "query-params"}
ARRIVE, LEAVE = "Arrive Taipei on November 2nd", "Leave Taipei on November 2nd"
RIGHT_A, RIGHT_B = "Tokyo is my destination", "Tokyo is my departure"
# code -> sentence; the option label (which also goes into the URL) comes from the catalogue
PRESETS = {
    "arrive": ARRIVE,
    "leave": LEAVE,
    "right_a": RIGHT_A,
    "right_b": RIGHT_B,
    "two_cities": "Leave Boston and arrive in Paris at 5 pm",
    "unknown": "Arrive Kaohsiung on November 2nd",
}
# The same codes in Chinese, one token per character, in the spirit of the corpus' templates
# ({date}到达{A}, {A}是我的目的地, ...): 拉萨 is a city the corpus does not have.
ZH_PRESETS = {
    "arrive": "十一月二日到达台北",
    "leave": "十一月二日离开台北",
    "right_a": "东京是我的目的地",
    "right_b": "东京是我的出发地",
    "two_cities": "从伦敦出发，晚上七点到巴黎",
    "unknown": "十一月二日到达拉萨",
}


@dataclass(frozen=True)
class SlotSetup:
    """The page's own taggers and data: the sidebar's model plays no part here."""

    lang: str
    data: slots.TaggingData
    shipped: dict  # kind -> model (the pretrained taggers, read-only, shared)
    flat: object  # note 004's flattened FNN (the fifth tagger)
    presets: dict  # code -> sentence
    pair: tuple  # (text_a, text_b, word): the notes' pair
    right: tuple  # (text_a, text_b, word): the word's slot decided by a later word
    own: str = "Arrive Seoul at 9 am"  # the typed sentence's starting value
    shift: tuple = ("please",)  # the prefix of the shifted held-out test
    sep: str = " "  # between the tokens of one slot value in the form
    start: str = "sidebar"  # the sentence source a fresh page opens on (zh: a notes' sentence)
    force: str = "date"  # the wrong tag Jordan's step 1 is forced to at first (zh: 十 is a date)
    when: str = "before"  # a date/time's city: looked for before it first (zh: after it)

    @property
    def flat_len(self) -> int:
        """The tokens the flattened FNN reads (12 English words, more Chinese characters)."""
        return self.flat.cfg.max_len


DATA_LANGS = ("zh", "en")  # in 中文, the page's choice of data: Chinese, or the notes' English example
DATA_LANG_KEY = "slot_lang"


def data_language(lang: str) -> str:
    """The language of the page's taggers and data: the interface's unless the learner picked the
    other one (the radio DATA_LANG_KEY that intro() draws, e.g. the notes' English example on
    the English taggers in 中文; in the link as its code, read here first, as the widget will be
    seeded from it)."""
    chosen = st.session_state.get(DATA_LANG_KEY, st.query_params.get(DATA_LANG_KEY))
    return chosen if chosen in DATA_LANGS else ("zh" if lang == "zh" else "en")


def setup(lang: str) -> SlotSetup:
    """The taggers, data and example sentences for a language: English, or Chinese (the taggers
    of scripts/build_zh.py, one token per character, and the notes' 到达台北 / 离开台北). In the
    中文 interface, data_language() may choose the English ones (then opened on the notes' Arrive
    sentence, since the sidebar's sentence is Chinese)."""
    data = data_language(lang)
    if data != lang:  # the other language's taggers: opened on its notes' sentence, not the sidebar's
        return replace(_setup(data), start="leave" if data == "zh" else "arrive")
    return _setup(lang)


def _setup(lang: str) -> SlotSetup:
    if lang == "zh":
        return SlotSetup(
            lang,
            data=resources.zh_tagging_data(),
            shipped={k: m for k, (m, _, _) in resources.zh_taggers().items()},
            flat=resources.zh_flat_tagger(),
            presets=dict(ZH_PRESETS),
            pair=(*ZH_SLOT_PAIR, ZH_SLOT_WORD),
            right=(ZH_PRESETS["right_a"], ZH_PRESETS["right_b"], "东京"),
            own="我要在早上八点到达首尔",
            shift=slots.ZH_SHIFT_PREFIX,
            sep="",
            # the sidebar's everyday sentence is no travel request for these taggers; the notes'
            # Leave sentence is where they disagree (the FNN and Jordan call 台北 a destination)
            start="leave",
            force="time",
            when="after",
        )
    return SlotSetup(
        lang,
        data=resources.tagging_data(),
        shipped={k: m for k, (m, _, _) in resources.pretrained_taggers().items()},
        flat=resources.flat_tagger(),
        presets=dict(PRESETS),
        pair=(ARRIVE, LEAVE, "Taipei"),
        right=(RIGHT_A, RIGHT_B, "Tokyo"),
    )


def labelled(s: SlotSetup) -> dict:
    """label -> model: the four shipped taggers, plus this session's own one if trained."""
    out = {tagger_label(k): m for k, m in s.shipped.items()}
    own = own_tagger(s)
    if own:
        out[own["label"]] = own["model"]
    return out


def own_tagger(s: SlotSetup) -> dict | None:
    """This session's own tagger if it was trained on this setup's data (its language)."""
    own = st.session_state.get("slot_own")
    return own if own and own.get("lang", s.lang) == s.lang else None


def tagger_label(kind: str) -> str:
    return t(f"slots.kind.{kind}")


def tag_name(tag: str) -> str:
    """A tag as the learner reads it (destination / 目的地); the code stays the tag's name inside."""
    return t(f"slots.tag.{tag}")


def tag_names() -> dict:
    """tag code -> its name in the learner's language, for the figures and tables."""
    return {tag: tag_name(tag) for tag in TAGS}


SENTENCE = "slot_sentence"  # handed on by the sentence's first part: (text, {label: Tagged})

PAGE = Page(P, heading="slots.h.", anchor="slots-", level="subheader")
text, anchor = PAGE.text, PAGE.header


def fmt_table(rows, fixed: bool = False) -> pd.DataFrame:
    """Floats as text: 4 significant digits, or 3 decimals (scores) with fixed=True."""
    return pd.DataFrame(rows).map(lambda v: (f"{v:.3f}" if fixed else num(v)) if isinstance(v, float) else v)
