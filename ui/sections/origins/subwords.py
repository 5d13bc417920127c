"""Subwords: BPE learned merge by merge (on the subword model's corpus; in 中文 on the Chinese
everyday corpus), a word the learner types split at merge k, four tokenizers compared on
held-out text, and which tokenizer made the sidebar sentence's tokens."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain import origins
from rnnviz.figures.word2vec import tokenizer_figure
from rnnviz.formatting import num

from ... import cache, resources, session
from ...i18n import current_lang, prose, t
from ...page import folded, whole_height
from ...widgets import download_csv, follow_part, guard, md_escape, named_part, show_figure
from .intro import PAGE, header

BIND = {"bind": "query-params"}
BPE_VIEW = "origins_bpe_view"  # fragment key: merge k and the typed word redraw the BPE sections alone
FOLLOW = {"on_change": follow_part, "args": (BPE_VIEW,), **BIND}
SHOWN = 12  # merges shown around merge k (the full table is in an expander)
NAMES = ("word", "letter trigrams", "BPE", "characters")
NAME_KEYS = {"word": "word", "letter trigrams": "trigrams", "BPE": "bpe", "characters": "char"}
EXAMPLE_WORD = {"en": "gardeners", "zh": "我们的老师"}  # the split box's first word


def _lang() -> str:
    """The BPE section's language: Chinese text and merges in 中文, English otherwise."""
    return "zh" if current_lang() == "zh" else "en"


def subword_table():
    """The section's merge table (shared, read-only): the subword model's, or in 中文 the one
    learned on the Chinese everyday corpus."""
    return resources.subword_table(_lang())


def merges_and_split(table) -> None:
    """BPE merge by merge, and a typed word split at merge k, as one fragment: the merge slider
    and the word redraw these two sections alone (nothing else on the page depends on them)."""
    named_part(BPE_VIEW, _merges_and_split, table)


def _merges_and_split(table) -> None:
    split(table, merges(table))


def merges(table) -> int:
    """The merge table with counts up to merge k (slider); returns k."""
    header("bpe")
    n = len(table.merges)
    k = st.slider(t("origins.merge_k"), 0, n, min(100, n), key="origins_merge",
                  help=t("origins.merge_help"), **FOLLOW)
    last = table.merges[k - 1] if k else None
    st.markdown(prose(PAGE, "bpe_zh" if _lang() == "zh" else "bpe", n=n, k=k, alphabet=len(table.alphabet),
                      vocab=len(table.first(k).symbols),
                      last=md_escape(f"{last.left} + {last.right} → {last.token}") if last else "—",
                      count=last.count if last else 0))
    near = _merge_frame(origins.merge_rows(table, max(0, k - SHOWN), k))
    st.dataframe(near, hide_index=True, **whole_height(len(near)))  # merge k, which the prose names, in view
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        df = _merge_frame(origins.merge_rows(table, 0, k))
        st.dataframe(df, hide_index=True)
        download_csv(df, t("origins.merges_file"), key="origins_merges")
    folded(t("origins.all_merges", k=k), "origins_all_merges", _folded)
    return k


def _merge_frame(rows: list[dict]) -> pd.DataFrame:
    cols = {"k": "col_k", "left": "col_left", "right": "col_right", "token": "col_token",
            "count": "col_count"}
    names = {c: t(f"origins.{v}") for c, v in cols.items()}
    return pd.DataFrame(rows, columns=list(cols)).rename(columns=names)


def split(table, k: int) -> None:
    """A word the learner types, split at merge k: the characters, each merge, the tokens."""
    header("split")
    word = st.text_input(t("origins.word"), EXAMPLE_WORD[_lang()], max_chars=origins.MAX_WORD_CHARS,
                         key="origins_word", help=t("origins.word_help"), **FOLLOW)
    with guard():
        pieces = origins.split_at(table, k, word)
        full = origins.split_at(table, len(table.merges), word)
        n_tok, n_full = sum(len(p["tokens"]) for p in pieces), sum(len(p["tokens"]) for p in full)
        st.markdown(prose(PAGE, "split", k=k, n=n_tok, n_full=n_full, total=len(table.merges),
                          tokens=md_escape(" | ".join(tok for p in pieces for tok in p["tokens"]))))
        for p in pieces:
            rows = [{t("origins.col_k"): "—", t("origins.col_pair"): "—",
                     t("origins.col_symbols"): " | ".join(p["start"])}]
            rows += [{t("origins.col_k"): str(r), t("origins.col_pair"): f"{a} + {b}",
                      t("origins.col_symbols"): " | ".join(sym)} for r, a, b, sym in p["steps"]]
            st.dataframe(pd.DataFrame(rows), hide_index=True)


def compare() -> None:
    """Word level, letter trigrams, BPE and characters on the same held-out text."""
    header("compare")
    lang = _lang()
    rows = resources.tokenizer_comparison(lang)
    by = {r["tokenizer"]: r for r in rows}
    train, held = resources.subword_corpus(lang)
    st.markdown(prose(PAGE, "compare_zh" if lang == "zh" else "compare", train=len(train), held=len(held),
                      word_oov=num(100 * by["word"]["oov_rate"]),
                      tri_oov=num(100 * by["letter trigrams"]["oov_rate"]),
                      bpe_len=num(by["BPE"]["mean_length"]), word_len=num(by["word"]["mean_length"]),
                      char_len=num(by["characters"]["mean_length"]), bytes=by["BPE"]["byte_fallback"],
                      char_oov=num(100 * by["characters"]["oov_rate"])))
    suffix = "_zh" if lang == "zh" else ""
    names = {n: t(f"origins.tk_{NAME_KEYS[n]}{suffix if n != 'BPE' else ''}") for n in NAMES}
    df = pd.DataFrame({t("origins.col_tokenizer"): [names[r["tokenizer"]] for r in rows],
                       t("origins.col_vocab"): [r["vocab_size"] for r in rows],
                       t("origins.col_oov"): [r["oov"] for r in rows],
                       t("origins.col_oov_rate"): [num(100 * r["oov_rate"]) for r in rows],
                       t("origins.col_units"): [r["units"] for r in rows],
                       t("origins.col_length"): [num(r["mean_length"]) for r in rows]})
    st.dataframe(df, hide_index=True)
    st.caption(t("origins.compare_units_note"))  # trigram units / sentences is not its length
    show_figure(cache.figure(tokenizer_figure, rows, names, t("origins.compare_title"), labels=_labels()),
                "tokenizers compared", key="origins_compare")


def _labels() -> dict:
    return {"vocab_size": t("origins.col_vocab"), "oov_rate": t("origins.col_oov_rate"),
            "mean_length": t("origins.col_length"), "tokenizer": t("origins.col_tokenizer")}


def current_tokenizer(cur: session.Current) -> None:
    """Which tokenizer made the sidebar sentence's tokens on the current model."""
    header("yours")
    level = cur.prepared.tokenizer
    st.markdown(prose(PAGE, "yours", label=md_escape(cur.label), tokenizer=t(f"origins.tok_{level}"),
                      n=len(cur.prepared.tokens), n_words=len(origins.sentence_words(cur.text)),
                      unknown=len(cur.prepared.unknown), why=t(f"origins.why_{level}")))
    st.dataframe(pd.DataFrame({t("origins.col_pos"): range(1, len(cur.prepared.tokens) + 1),
                               t("origins.col_tok"): list(cur.prepared.tokens)}), hide_index=True)
