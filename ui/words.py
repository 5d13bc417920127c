"""The sidebar's view of the sentence: which tokenizer ran and the tokens it made, and, when the
model does not know some of them, what to do (its searchable vocabulary, example sentences it
knows, another built-in model that reads the sentence, training one's own on page 6)."""
from __future__ import annotations

import streamlit as st

from rnnviz.errors import InputError
from rnnviz.safe_text import code_span
from rnnviz.store.catalog import BUILTINS, SUBWORD_FILES
from rnnviz.text.tokenize import Prepared, has_cjk, prepare

from . import cache, navigation, session
from .i18n import t
from .widgets import md_escape

MAX_SHOWN_TOKENS = 60  # tokens listed in the sidebar (the pages show them all)


def read(key: str, text: str) -> Prepared | None:
    """The sentence as model `key` reads it; None when it cannot (the page explains why)."""
    model, vocab, meta = session.get_model(key)
    try:
        return prepare(text, vocab, meta.get("level", "word"))
    except InputError:
        return None


def unknown_help(key: str, text: str) -> None:
    """Under the sentence box: the tokenizer and its tokens; help when some are unknown."""
    prep = read(key, text)
    if prep is None:  # nothing readable (the page says why): a model that reads it, if any
        _other_models(key, text)
        return
    toks = prep.tokens[:MAX_SHOWN_TOKENS]
    shown = " · ".join(code_span(tok) if tok.strip() else "`␣`" for tok in toks)  # the text, no escapes
    rest = len(prep.tokens) - len(toks)
    more = t("words.more", n=rest) if rest else ""
    st.caption(t("words.tokenizer", name=t(f"tokenizer.{prep.tokenizer}"), n=len(prep.tokens)))
    st.markdown(f"<small>{shown}{more}</small>", unsafe_allow_html=True)
    if not prep.unknown:
        _cjk_hint(key, text, prep)
        return
    unknown = list(dict.fromkeys(prep.unknown))
    st.warning(t("words.unknown", n=len(unknown), tokens=", ".join(md_escape(u) for u in unknown[:12])),
               icon=":material/help:")
    with st.expander(t("words.what_now"), icon=":material/lightbulb:"):
        _other_models(key, text)
        _examples(key)
        _vocabulary(key)
        if navigation.has_page("train"):
            st.page_link(str(navigation.APP_ROOT / "pages/train.py"), label=t("words.train"),
                         icon=":material/model_training:")


def readers(key: str, text: str, fewer_than: int | None = None) -> list[str]:
    """The other built-in models that read `text` with no unknown token (and, if given, in fewer
    than `fewer_than` tokens). Chinese text finds the Chinese model, whatever its key."""
    found = []
    for other in BUILTINS:
        if other == key or (other in SUBWORD_FILES and other != "subword" and "subword" in found):
            continue  # the subword LSTM / GRU read as the subword model does: offer it once
        prep = read(other, text)
        if prep is not None and not prep.unknown and (fewer_than is None or len(prep.tokens) < fewer_than):
            found.append(other)
    return found


def _cjk_hint(key: str, text: str, prep: Prepared) -> None:
    """Chinese on a model that reads it only as bytes or characters: point to a model that
    reads it in fewer tokens (a Chinese model, once one is built in)."""
    if not has_cjk(text):
        return
    better = readers(key, text, fewer_than=len(prep.tokens))
    if better:
        st.info(t("words.cjk_hint"), icon=":material/translate:")
        _other_models(key, text, better)


def _other_models(key: str, text: str, found: list[str] | None = None) -> None:
    for other in readers(key, text) if found is None else found:
        st.button(t("words.use_model", label=session.model_label(other)), key=f"words_use_{other}",
                  on_click=_use_builtin, args=(other, text), icon=":material/swap_horiz:")


def _use_builtin(key: str, text: str) -> None:
    st.session_state["model"] = key
    st.session_state["_shown_model"] = key  # keep the learner's sentence, not the model's own
    st.session_state["text"] = text


def _examples(key: str) -> None:
    model, vocab, meta = session.get_model(key)
    examples = cache.known_examples(model, vocab, meta.get("level"))
    if not examples:
        return
    st.caption(t("words.examples"))
    for i, sentence in enumerate(examples):
        st.button(md_escape(sentence), key=f"words_example_{i}", on_click=_set_text, args=(sentence,))


def _set_text(sentence: str) -> None:
    st.session_state["text"] = sentence


def _vocabulary(key: str) -> None:
    _, vocab, _ = session.get_model(key)
    query = st.text_input(t("words.search", V=len(vocab)), key="words_search",
                          placeholder=t("words.search_placeholder"))
    hits = vocab.search(query or "", limit=200)
    st.dataframe({t("words.col_id"): [i for i, _ in hits], t("words.col_token"): [tok for _, tok in hits]},
                 hide_index=True, height=200)
