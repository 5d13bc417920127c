"""Glossary sections: every term of the course in English and Chinese, what it means (in the
learner's language), where the notes use it and which page of the app shows it."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from .. import navigation
from ..i18n import t

PAGE = "glossary"

# (key, English, 中文, notes that use it, app pages that show it). The two names are shown in
# both languages whatever the interface language: that is the point of a glossary.
TERMS = (
    ("embedding_lookup", "embedding lookup", "嵌入查表", ("000", "004"), ("embedding",)),
    ("word_vector", "word vector (embedding)", "词向量", ("000", "004"), ("embedding",)),
    ("one_hot", "one-hot vector", "独热向量（one-hot）", ("000", "004"), ("embedding",)),
    ("vocabulary", "vocabulary", "词表", ("000", "004"), ("overview", "embedding")),
    ("token", "token, tokenizer", "token，分词器", ("000", "004"), ("overview",)),
    ("subword", "subword, BPE (byte-pair encoding)", "子词，BPE（字节对编码）", ("004",),
     ("overview", "embedding", "origins")),
    ("word2vec", "Word2Vec", "Word2Vec", ("004",), ("origins",)),
    ("skip_gram", "skip-gram", "跳字模型（Skip-gram）", ("004",), ("origins",)),
    ("negative_sampling", "negative sampling", "负采样（Negative Sampling）", ("004",), ("origins",)),
    ("word_hashing", "word hashing", "词哈希", ("004",), ("embedding",)),
    ("hidden_state", "hidden state", "隐藏状态", ("002", "004"), ("overview", "hidden")),
    ("pre_activation", "pre-activation a_t", "预激活 a_t", ("000", "003"), ("hidden",)),
    ("nonlinearity", "nonlinearity (tanh, ReLU)", "非线性函数（tanh、ReLU）", ("000", "002", "003"),
     ("hidden",)),
    ("saturation", "saturation", "饱和", ("000",), ("hidden", "bptt")),
    ("elman_jordan", "Elman / Jordan network", "Elman / Jordan 网络", ("004",), ("hidden", "slots")),
    ("unrolling", "unrolling, parameter sharing", "展开，参数共享", ("000", "003"), ("hidden",)),
    ("forward", "forward propagation", "前向传播", ("002", "004"), ("hidden",)),
    ("softmax", "softmax", "softmax", ("000", "002"), ("output",)),
    ("cross_entropy", "cross-entropy", "交叉熵", ("000", "002", "003"), ("output",)),
    ("loss", "loss", "损失", ("002", "003"), ("output", "train")),
    ("perplexity", "perplexity", "困惑度", (), ("train",)),
    ("learning_rate", "learning rate", "学习率", ("003",), ("output", "train")),
    ("bptt", "backpropagation through time (BPTT)", "反向传播 / 时间反向传播（BPTT）",
     ("000", "002", "003"), ("bptt",)),
    ("jacobian", "Jacobian matrix", "雅可比矩阵", ("000", "003"), ("bptt",)),
    ("spectral_radius", "spectral radius", "谱半径", ("003",), ("bptt",)),
    ("vanishing", "vanishing gradient", "梯度消失", ("000", "002"), ("bptt",)),
    ("exploding", "exploding gradient", "梯度爆炸", ("000", "002"), ("bptt",)),
    ("gradient_check", "gradient check", "梯度检查", ("003",), ("bptt",)),
    ("clipping", "gradient clipping", "梯度裁剪", ("003",), ("bptt", "train")),
    ("slot_filling", "slot filling", "槽填充", ("004",), ("slots",)),
    ("bidirectional", "bidirectional RNN", "双向 RNN", ("004",), ("slots",)),
    ("gate", "gate (forget, input, output; update, reset)", "门（遗忘门、输入门、输出门；更新门、重置门）",
     ("003",), ("gates",)),
    ("lstm", "LSTM (long short-term memory)", "LSTM（长短期记忆网络）", (), ("gates",)),
    ("gru", "GRU (gated recurrent unit)", "GRU（门控循环单元）", (), ("gates",)),
    ("cell_state", "cell state c_t", "细胞状态 c_t（记忆单元）", (), ("gates",)),
    ("attention", "attention", "注意力（机制）", ("003",), ("attention",)),
    ("attention_weights", "attention weights α_{t,j}", "注意力权重 α_{t,j}", (), ("attention",)),
    ("context_vector", "context vector c_t", "上下文向量 c_t", (), ("attention",)),
    ("causal_mask", "causal mask", "因果掩码", (), ("attention",)),
)


def intro() -> None:
    st.title(t("nav.glossary"))
    st.markdown(t("glossary.intro"))


def table() -> None:
    """The terms as one searchable table (English, 中文, meaning, notes, page)."""
    query = st.text_input(t("glossary.search"), key="glossary_q", bind="query-params",
                          placeholder=t("glossary.search_placeholder"))
    rows = [_row(term) for term in TERMS]
    q = (query or "").strip().lower()
    if q:
        rows = [r for r in rows if any(q in str(v).lower() for v in r.values())]
    if not rows:
        st.info(t("glossary.none"))
        return
    st.table(pd.DataFrame(rows), hide_index=True, border="horizontal")  # wraps the long meanings


def _row(term) -> dict:
    key, en, zh, notes, pages = term
    titles = {url: title for _, title, url, _ in navigation.existing_pages()}
    return {
        "English": en,
        "中文": zh,
        t("glossary.col_meaning"): t(f"glossary.def.{key}"),
        t("glossary.col_notes"): ", ".join(notes) if notes else t("glossary.no_note"),
        t("glossary.col_pages"): " · ".join(titles[p] for p in pages if p in titles),
    }


def pages() -> None:
    """A link to every page the table names."""
    st.subheader(t("glossary.pages_header"))
    for path, title, url, icon in navigation.existing_pages():
        if url != PAGE:
            st.page_link(str(navigation.APP_ROOT / path), label=title, icon=icon)
