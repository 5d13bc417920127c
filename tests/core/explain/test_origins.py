"""Page 7's core pieces: the subword corpus gives back the shipped merge table and report, the
merge rows and splits follow the table, the exercise's verdict names its hint key, the map
labels stay bounded, and the tokenizer comparison figure carries compare_tokenizers' numbers."""
from __future__ import annotations

import numpy as np
import pytest

from rnnviz.errors import InputError
from rnnviz.explain import origins
from rnnviz.explain import word2vec as w2v
from rnnviz.figures.word2vec import tokenizer_figure
from rnnviz.store.catalog import load_builtin, subword_report
from rnnviz.text.bpe import BPE, compare_tokenizers, decode, learn_bpe


@pytest.fixture(scope="module")
def table() -> BPE:
    return BPE.from_dict(load_builtin("subword")[2]["bpe"])


@pytest.fixture(scope="module")
def corpus():
    return origins.subword_corpus()


def test_subword_corpus_gives_back_the_shipped_table_and_report(table, corpus):
    train, held = corpus
    rep = subword_report()
    assert (len(train), len(held)) == (rep["train_sentences"], rep["heldout_sentences"])
    assert learn_bpe(train, len(table.merges)) == table  # the oracle: the table the model ships with
    assert len(origins.corpus_sentences("english")) == len(train)
    assert origins.corpus_sentences("travel") == w2v.builtin_sentences()
    with pytest.raises(InputError):
        origins.corpus_sentences("nope")


def test_merge_rows_and_split_at_follow_the_table(table):
    rows = origins.merge_rows(table, 0, 3)
    assert [r["k"] for r in rows] == [1, 2, 3]
    assert all(r["token"] == r["left"] + r["right"] for r in rows)
    assert [r["count"] for r in rows] == [m.count for m in table.merges[:3]]
    assert rows[0]["count"] >= rows[1]["count"] >= rows[2]["count"]  # most frequent pair first
    # at k = 0 a word is its characters; at the end it is what the full table says
    start = origins.split_at(table, 0, "unhappiness")
    assert start[0]["tokens"] == ["▁", *"unhappiness"] and start[0]["steps"] == []
    full = origins.split_at(table, len(table.merges), "unhappiness")
    assert full[0]["tokens"] == table.tokenize("unhappiness")
    assert decode(full[0]["tokens"]) == "unhappiness"
    # every step applies a merge of number <= k, and the last step's symbols are the tokens
    mid = origins.split_at(table, 50, "walked")[0]
    assert all(n <= 50 for n, *_ in mid["steps"]) and mid["steps"][-1][3] == mid["tokens"]
    with pytest.raises(InputError):
        origins.split_at(table, 5, "   ")
    with pytest.raises(InputError):
        origins.split_at(table, 5, "x" * 61)


def test_pair_verdict_names_the_hint_of_each_mistake():
    ex = w2v.pair_exercise(3)
    right = origins.pair_verdict(ex, ex.answer())
    assert right.ok and right.hint_key == "origins.hint_right"
    t = ex.terms()
    so = float(t["sigma_o"])
    assert origins.pair_verdict(ex, (so - 1) * ex.u_o).hint_key == "origins.hint_no_negative"
    assert origins.pair_verdict(ex, -ex.answer()).hint_key == "origins.hint_sign"
    wrong = origins.pair_verdict(ex, ex.answer() + 1.0)
    assert wrong.ok is False and wrong.hint_key == "origins.hint_not_yet"
    # the solution's numbers are the hand formula, computed here again from scratch
    sig = lambda x: 1 / (1 + np.exp(-x))
    g = (sig(ex.u_o @ ex.v_c) - 1) * ex.u_o + sig(ex.u_k @ ex.v_c) * ex.u_k
    assert float(right.values["g1"]) == pytest.approx(g[0], abs=1e-3)
    assert float(right.values["g2"]) == pytest.approx(g[1], abs=1e-3)


def test_shown_ids_and_known_words():
    itos = [f"w{i}" for i in range(100)]
    ids = origins.shown_ids(itos, ["w3", "w80", "zzz"], n=10)
    assert ids == list(range(10)) + [80]
    vocab = w2v.pair_corpus(w2v.builtin_sentences()).vocab
    assert origins.known_words(["Taipei", "zzz", "Taipei", "on"], vocab) == ["Taipei", "on"]
    assert origins.tokenizer_of({"level": "bpe"}) == "bpe" and origins.tokenizer_of({}) == "word"


def test_tokenizer_figure_carries_the_comparison(table):
    rows = compare_tokenizers(["low lower newest"], ["lowest low new"], table)
    fig = tokenizer_figure(rows, {"word": "W"}, "compare")
    assert [list(d.y) for d in fig.data] == [[r["vocab_size"] for r in rows],
                                            [100 * r["oov_rate"] for r in rows],
                                            [r["mean_length"] for r in rows]]
    assert list(fig.data[0].x)[0] == "W" and fig.layout.title.text == "compare"


def test_sentences_of_a_page6_corpus_are_words_at_either_level():
    from rnnviz.explain.train import read_corpus
    text = "the cat sat\nthe dog ran"
    word, char = read_corpus(text, "word"), read_corpus(text, "char")
    assert origins.sentences_of(word.sequences, "word") == [["the", "cat", "sat"], ["the", "dog", "ran"]]
    assert origins.sentences_of(char.sequences, "char") == origins.sentences_of(word.sequences, "word")
