"""Issue 25, page 7's BPE in 中文: merges learned on the Chinese everyday corpus, checked against
a brute-force pair count, Chinese text split and decoded back, and the four tokenizers compared
with jieba's words on Chinese held-out text (counts re-done by hand)."""
from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest

from rnnviz.explain import origins
from rnnviz.text.bpe import MARK, byte_value, decode, pretokenize
from rnnviz.text.corpora import zh_everyday_lines
from rnnviz.text.tokenize import tokenize
from rnnviz.text.zh import has_chinese


@pytest.fixture(scope="module")
def table():
    return origins.zh_subword_table()


def test_the_corpus_is_the_chinese_everyday_one_split_by_its_text():
    train, held = origins.subword_corpus("zh")
    assert set(train) | set(held) == set(zh_everyday_lines()) and not set(train) & set(held)
    assert len(held) > 0.1 * len(train)


def test_the_first_merge_is_the_most_frequent_pair_by_brute_force(table):
    train, _ = origins.subword_corpus("zh")
    counts: Counter = Counter()
    for text in train:
        for piece in pretokenize(text):
            counts.update(pairwise(table.base_symbols(piece)))  # every piece as characters
    (left, right), n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    first = table.merges[0]
    assert (first.left, first.right, first.count) == (left, right, n)
    assert len(table.merges) == origins.ZH_BPE_MERGES
    chinese = [m for m in table.merges if has_chinese(m.token)]
    assert len(chinese) > 0.9 * len(table.merges)  # what the page shows is Chinese text
    assert all(a.count >= b.count for a, b in pairwise(table.merges))


def test_chinese_text_splits_into_learned_pieces_and_decodes_back(table):
    word = "我们的老师"
    pieces = origins.split_at(table, len(table.merges), word)
    tokens = [tok for p in pieces for tok in p["tokens"]]
    assert decode(tokens) == word and len(tokens) < len(word) + 1  # merged: fewer than ▁ + 5 characters
    assert all(byte_value(tok) is None for tok in tokens) and tokens[0].startswith(MARK)
    start = origins.split_at(table, 0, word)[0]
    assert start["tokens"] == [MARK, *word] and start["steps"] == []


def test_the_comparison_counts_chinese_words_characters_and_bytes(table):
    train, held = origins.subword_corpus("zh")
    rows = {r["tokenizer"]: r for r in origins.tokenizer_rows("zh", table)}
    seen = {w for s in train for w in tokenize(s, "zh_word")}
    held_words = [w for s in held for w in tokenize(s, "zh_word")]
    assert rows["word"]["oov"] == sum(w not in seen for w in held_words)
    assert rows["word"]["units"] == len(held_words) and rows["word"]["vocab_size"] == len(seen)
    chars = {c for s in train for c in tokenize(s, "char")}
    unseen = [c for s in held for c in tokenize(s, "char") if c not in chars]
    assert rows["characters"]["oov"] == len(unseen) > 0  # Chinese text brings new characters
    bpe = [tok for s in held for tok in table.tokenize(s)]
    assert rows["BPE"]["oov"] == 0 and rows["BPE"]["units"] == len(bpe)
    outside = [c for s in held for c in s if c not in table.alphabet and c != " "]
    assert rows["BPE"]["byte_fallback"] == sum(len(c.encode("utf-8")) for c in outside)
    assert rows["BPE"]["byte_fallback"] == 3 * len(outside)  # the prose: three per character
