"""The page's title, what to look at (with the current sentence's numbers) and its contents."""
from __future__ import annotations

import streamlit as st

from rnnviz.explain import origins
from rnnviz.explain import word2vec as w2v

from ... import session
from ...i18n import prose, t
from ...page import Page
from ...widgets import md_escape

PAGE = "origins"
ANCHORS = ("window", "settings", "pair", "exercise", "train", "learned", "beside", "bpe", "split",
           "compare", "yours")


def intro() -> None:
    st.title(t("origins.title"))
    st.markdown(prose(PAGE, "intro"))


def look_here(cur: session.Current) -> None:
    """The sentence's own numbers: words, window pairs at radius 2, the model's tokens."""
    words = origins.sentence_words(cur.text)
    level = cur.prepared.tokenizer
    st.info(prose(PAGE, "look", n_words=len(words), n_pairs=len(w2v.window_pairs(words, 2)),
                  tokenizer=t(f"origins.tok_{level}"), n_tokens=len(cur.prepared.tokens),
                  label=md_escape(cur.label)), icon=":material/visibility:")


def toc() -> None:
    """An in-page table of contents: markdown links to the section anchors."""
    links = [f"[{t(f'origins.h_{a}')}](#origins-{a})" for a in ANCHORS]
    st.markdown(t("origins.toc") + " " + " · ".join(links))


header = Page("origins", heading="origins.h_", anchor="origins-", level="subheader").header
