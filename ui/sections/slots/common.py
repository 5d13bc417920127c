"""What every slot-filling section shares: the taggers and data (one function, switchable by
language), the preset sentences, URL binding and table formatting."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from rnnviz import tagging as tg
from rnnviz.formatting import num

from ... import cache
from ...i18n import prose, t

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


@dataclass(frozen=True)
class SlotSetup:
    """The page's own taggers and data: the sidebar's model plays no part here."""

    lang: str
    data: tg.TaggingData
    shipped: dict  # kind -> model (the pretrained taggers, read-only, shared)
    flat: object  # note 004's flattened FNN (the fifth tagger)
    presets: dict  # code -> sentence
    pair: tuple  # (text_a, text_b, word): the notes' pair
    right: tuple  # (text_a, text_b): decided by a later word


def setup(lang: str) -> SlotSetup:
    """The taggers, data and example sentences for a language. Only English taggers exist yet:
    the Chinese ones (being built) plug in here, and every section follows."""
    shipped = {k: m for k, (m, _, _) in cache.pretrained_taggers().items()}
    return SlotSetup(
        lang,
        cache.tagging_data(),
        shipped,
        cache.flat_tagger(),
        dict(PRESETS),
        (ARRIVE, LEAVE, "Taipei"),
        (RIGHT_A, RIGHT_B),
    )


def labelled(s: SlotSetup) -> dict:
    """label -> model: the four shipped taggers, plus this session's own one if trained."""
    out = {tagger_label(k): m for k, m in s.shipped.items()}
    own = st.session_state.get("slot_own")
    if own:
        out[own["label"]] = own["model"]
    return out


def tagger_label(kind: str) -> str:
    return t(f"slots.kind.{kind}")


def text(key: str, **values) -> None:
    st.markdown(prose(P, key, **values))


def anchor(name: str) -> None:
    st.subheader(t(f"slots.h.{name}"), anchor=f"slots-{name}")


def fmt_table(rows, fixed: bool = False) -> pd.DataFrame:
    """Floats as text: 4 significant digits, or 3 decimals (scores) with fixed=True."""
    return pd.DataFrame(rows).map(lambda v: (f"{v:.3f}" if fixed else num(v)) if isinstance(v, float) else v)


def coded(widget, label: str, codes, names, key: str, **kw):
    """A radio / selectbox bound to the URL whose options are the learner's labels (Streamlit
    writes the shown label into the link, and the link check compares it with the widget's
    value: so the value IS the label), mapped back to a short code for the code."""
    codes, names = list(codes), list(names)
    value = widget(label, names, key=key, bind="query-params", **kw)
    return codes[names.index(value)] if value in names else codes[0]
