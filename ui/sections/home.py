"""Overview sections: the sentence as tokens and ids, the model's sizes, a first heatmap of h_t."""
from __future__ import annotations

import streamlit as st

from rnnviz.explain.home import hidden_peak, model_sizes, piece_words, token_table
from rnnviz.figures.overview import HEATMAP_LABELS, hidden_heatmap
from rnnviz.formatting import num_inside
from rnnviz.store.export import trace_frame

from .. import cache, navigation, session
from ..i18n import prose, t
from ..model_text import prose_values
from ..page import figure_labels, table
from ..widgets import download_csv, download_trace, md_escape
from . import probe

PAGE = "home"


def intro() -> None:
    st.title(t("home.title"))
    st.markdown(prose(PAGE, "intro"))


def guide(cur: session.Current) -> None:
    """What to look at first, with this sentence's numbers, and the page's table of contents."""
    peak = hidden_peak(cur.trace.h.numpy())  # (T, H) -> the largest |h|
    st.info(prose(PAGE, "look", T=cur.trace.T, H=cur.model.cfg.hidden_size,
                  hmax=num_inside(peak["value"], digits=3),
                  hmax_t=peak["t"] + 1, hmax_tok=md_escape(cur.tokens[peak["t"]])),
            icon=":material/visibility:")
    st.markdown(" · ".join(f"[{t(f'home.{key}_header')}](#{anchor})" for key, anchor in TOC))


TOC = (("tokens", "home-tokens"), ("model", "home-model"), ("heatmap", "home-heatmap"), ("next", "home-next"))


def tokens(cur: session.Current) -> None:
    """The sentence as the model reads it: tokens, ids, the rows of E they hit."""
    st.subheader(t("home.tokens_header"), anchor="home-tokens")
    st.markdown(prose(PAGE, "tokens", n_words=len(cur.prepared.tokens), T=cur.trace.T,
                      bos_note=t("home.bos_note") if cur.vocab.has_specials else ""))
    subword = (cur.vocab.tokenizer or cur.level) == "bpe"
    # subword pieces ("▁s", "at") are shown beside the word they came from ("sat (1/2)")
    typed = piece_words(cur.prepared.tokens, cur.text) if subword else cur.prepared.tokens
    rows = token_table(cur.model, cur.vocab, cur.input_ids, typed)
    table(rows, headers=_column_names())
    if subword:
        st.caption(t("home.subword_caption"))
    download_csv(lambda: trace_frame(cur.trace, cur.vocab, "tokens"), t("home.tokens_file"),
                 key="home_tokens")


def _column_names() -> dict[str, str]:
    """rnnviz.explain.home.token_table's column names -> the learner's language."""
    return {"step t": t("home.col_step"), "token": t("home.col_token"), "you typed": t("home.col_typed"),
            "id": t("home.col_id"), "row of E (1-based)": t("home.col_row")}


def sizes(cur: session.Current) -> None:
    """V, d, H, K and the parameter count of the current model."""
    st.subheader(t("home.model_header"), anchor="home-model")
    st.markdown(prose(PAGE, "sizes", **model_sizes(cur.model)))
    st.caption(md_escape(f"{cur.label}: {session.model_description(cur.key)}"))


def heatmap(cur: session.Current) -> None:
    """tokens x hidden units heatmap of h_t, with its largest |h| named in the prose."""
    st.subheader(t("home.heatmap_header"), anchor="home-heatmap")
    h = cur.trace.h.numpy()  # (T, H)
    peak = hidden_peak(h)
    st.markdown(prose(PAGE, "heatmap", **prose_values(cur.model.cfg),
                      hmax=num_inside(peak["value"], digits=3),
                      hmax_t=peak["t"] + 1,
                      hmax_tok=md_escape(cur.tokens[peak["t"]]), hmax_u=peak["unit"] + 1))
    labels = figure_labels("home.fig_", *HEATMAP_LABELS)
    probe.hidden_map(h, cur.tokens, cache.figure(hidden_heatmap, h, cur.tokens, labels=labels),
                     "home_heatmap", ("home_unit", "home_at"))
    download_csv(lambda: trace_frame(cur.trace, cur.vocab, "h"), t("home.h_file"), key="home_h")
    with st.expander(t("home.any_table"), icon=":material/download:"):
        download_trace(cur.trace, cur.vocab, key="home_trace")


def next_pages() -> None:
    st.subheader(t("home.next_header"), anchor="home-next")
    for path, title, _, icon in navigation.existing_pages()[1:]:
        st.page_link(str(navigation.APP_ROOT / path), label=title, icon=icon)
