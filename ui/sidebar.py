"""The shared sidebar, drawn by app.py on every page: link notices, "Share this view" (at the
top, so it is seen), the language switch, the model, the sentence with the tokens it made (and
help when some are unknown), a .txt line picker and the glossary.

Order of a run: sidebar() (before the page; reads the link, applies queued models) -> the page
-> share_link(slots) (after the page, whose widgets have put their values in the URL by then).
"""
from __future__ import annotations

import streamlit as st

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.store.catalog import model_for_text, start_model
from rnnviz.text.tokenize import decode_upload, upload_lines

from . import links, navigation, session
from .i18n import LANG_NAMES, current_lang, error_text, first_visit_lang, languages, t
from .widgets import labels_of, md_escape
from .words import unknown_help


def _on_line_pick():
    line = st.session_state.get("upload_line")
    if line:
        st.session_state["text"] = line


def sidebar():
    """Draw the shared sidebar. Returns the (notices, share link) slots that share_link fills
    at the end of the run."""
    first_visit_lang()
    links.read_link(session.model_options())
    session.start_of_run()
    sb = st.sidebar
    notices_slot, link_slot = sb.empty(), sb.empty()
    links.show_notices(notices_slot, dismiss=False)  # redrawn with a Dismiss button by share_link
    chosen = _model_select(sb)
    _moved_notice()
    sb.text_area(t("sidebar.sentence"), value=session.default_sentence(chosen), key="text",
                 bind="query-params", height=90, max_chars=limits.MAX_TEXT_CHARS,  # a link sentence is cut
                 help=t("sidebar.sentence_help", max_tokens=limits.MAX_TOKENS), on_change=_on_text_change)
    with sb:
        unknown_help(chosen, st.session_state.get("text", ""))
    _line_picker(sb)
    _language_switch(sb)  # below the sentence: on a phone the sentence box comes first
    if navigation.has_page("glossary"):
        sb.page_link(str(navigation.APP_ROOT / "pages/glossary.py"), label=t("nav.glossary"),
                     icon=":material/translate:")
    return notices_slot, link_slot


def _model_select(sb) -> str:
    options = session.model_options()
    if st.session_state.get("model") not in options:
        # lost widget state (a fresh session, an own model of a lost one): the URL names the model
        asked = st.query_params.get("model")
        if asked not in options:  # no model in the link: the interface language's, or the link text's
            asked = start_model(current_lang())
            asked = model_for_text(asked, st.query_params.get("text") or "") or asked
        st.session_state["model"] = asked
    chosen = sb.selectbox(t("sidebar.model"), options, format_func=labels_of(options, session.model_label),
                          key="model", help=t("sidebar.model_help"))
    if st.session_state.get("_shown_model", chosen) != chosen:
        st.session_state["text"] = session.default_sentence(chosen)  # a new model starts on its own sentence
    st.session_state["_shown_model"] = chosen
    links.sync_model_param(chosen)
    return chosen


# ---- a sentence in the other script moves to the matching built-in model (with an undo) ---------

def _on_text_change() -> None:
    """The learner typed a sentence in the other script than the built-in model reads: move to the
    built-in that reads it, unless a link (or an undo) pinned the model. Runs before the script,
    so the model menu is drawn on the new model and the sentence is kept."""
    if st.session_state.get("_model_pinned"):
        return
    old = st.session_state.get("model")
    new = model_for_text(old, st.session_state.get("text", ""))
    if new and new in session.model_options():
        st.session_state["model"] = st.session_state["_shown_model"] = new
        st.session_state["_model_moved"] = (old, new, st.session_state.get("text", ""))


def _undo_move() -> None:
    old, _, _ = st.session_state.pop("_model_moved")
    st.session_state["model"] = st.session_state["_shown_model"] = old
    st.session_state["_model_pinned"] = True  # the learner chose it: no second move


def _moved_notice() -> None:
    """At the top of the page, while the moved-to model and the sentence that moved it stay: what
    happened, and a button that goes back."""
    moved = st.session_state.get("_model_moved")
    if not moved:
        return
    old, new, text = moved
    if st.session_state.get("model") != new or st.session_state.get("text") != text:
        st.session_state.pop("_model_moved")
        return
    box = st.container(border=True)
    box.info(t("sidebar.moved", new=md_escape(session.model_label(new)),
               old=md_escape(session.model_label(old))), icon=":material/swap_horiz:")
    box.button(t("sidebar.moved_undo", old=md_escape(session.model_label(old))), key="model_move_undo",
               on_click=_undo_move, icon=":material/undo:")


def _line_picker(sb) -> None:
    """'…or pick a line from a .txt file': the file's lines in a selectbox (bounded, checked)."""
    up = sb.file_uploader(t("sidebar.upload"), type=["txt"], key="upload",
                          max_upload_size=max(1, limits.MAX_UPLOAD_BYTES // 1_000_000),
                          help=t("sidebar.upload_help", max_bytes=f"{limits.MAX_UPLOAD_BYTES:,}"))
    if up is None:
        return
    try:
        lines, skipped = upload_lines(decode_upload(up.getvalue()))
    except InputError as err:
        sb.error(error_text(err))
        return
    if skipped:
        sb.warning(t("sidebar.lines_skipped", kept=f"{limits.MAX_UPLOAD_LINES:,}", skipped=f"{skipped:,}"))
    sb.selectbox(t("sidebar.line", n=f"{len(lines):,}"), lines, index=None,
                 placeholder=t("sidebar.line_placeholder"), key="upload_line", on_change=_on_line_pick)


def _language_switch(sb) -> None:
    """The interface language, kept in the link (?lang=zh); only languages with a catalogue.
    Its first value comes from the link or the browser (i18n.first_visit_lang)."""
    options = languages()
    if st.session_state.get("lang") not in (None, *options):
        st.session_state["lang"] = options[0]
    sb.radio(t("sidebar.language"), options, format_func=lambda k: LANG_NAMES.get(k, k), key="lang",
             disabled=len(options) == 1, horizontal=True, help=t("sidebar.language_help"))
    # Kept in the link by hand, as its code (?lang=zh): a bound radio would write its label
    # (?lang=中文), drop ?lang=zh as "invalid", and leave English links without a language.
    if st.query_params.get("lang") != st.session_state["lang"]:
        st.query_params["lang"] = st.session_state["lang"]


def share_link(slots) -> None:
    """End of run: link notices at the top of the sidebar, then the shareable link."""
    notices_slot, link_slot = slots
    links.check_link_once()
    links.show_notices(notices_slot, dismiss=True)
    with st.sidebar:  # the fragment's own (empty) container: at the sidebar's end
        links.share_view(link_slot)
