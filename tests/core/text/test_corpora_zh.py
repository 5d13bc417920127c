"""The built-in Chinese corpora: sizes, well-formed slot tags, coverage of the common
characters, and how much everyday Chinese outside the corpus the language model can read."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import jieba
import pytest

from rnnviz.store.catalog import zh_model
from rnnviz.text.corpora import (
    TAGS,
    ZH_DEFAULT_SENTENCE,
    ZH_ORDER_PRESETS,
    corpus_lines,
    zh_everyday_corpus,
    zh_everyday_lines,
    zh_lm_corpus,
    zh_order_presets,
    zh_travel_corpus,
    zh_travel_parts,
)
from rnnviz.text.tokenize import Vocab, tokenize, unknown_rate
from rnnviz.text.zh import has_chinese

HELDOUT = Path(__file__).resolve().parents[2] / "data" / "zh_heldout_everyday.txt"


def heldout_lines() -> list[str]:
    return [ln.strip() for ln in HELDOUT.read_text(encoding="utf-8").splitlines()
            if ln.strip() and not ln.startswith("#")]


def common_characters(n: int) -> list[str]:
    """Oracle for "the n most common characters": jieba's dictionary (about 350,000 words with
    corpus frequencies), each word's frequency credited to each of its Han characters."""
    counts: Counter = Counter()
    with jieba.get_dict_file() as f:
        for line in f.read().decode("utf-8").splitlines():
            word, freq = line.split()[:2]
            for ch in word:
                if "\u4e00" <= ch <= "\u9fff":
                    counts[ch] += int(freq)
    return [ch for ch, _ in counts.most_common(n)]


def test_corpus_sizes():
    everyday = zh_everyday_lines()
    assert len(everyday) >= 1000 and len(set(everyday)) == len(everyday)  # no line twice
    parts = zh_travel_parts()
    assert len(parts["template"]) >= 50 and len(parts["city"]) >= 20
    travel = zh_travel_corpus()
    assert len(travel) == 1200 and len({"".join(t) for t, _ in travel}) >= 800
    assert zh_travel_corpus() == travel  # fixed seed: the same corpus every time


def test_travel_sentences_are_tagged_per_token():
    parts = zh_travel_parts()
    for tokens, tags in zh_travel_corpus():
        assert len(tokens) == len(tags) and set(tags) <= set(TAGS)
        assert tokenize("".join(tokens)) == tokens  # the sentence re-tokenizes to the same tokens
        for tag in ("destination", "departure"):
            city = "".join(t for t, g in zip(tokens, tags) if g == tag)
            assert city == "" or city in parts["city"]


def test_the_notes_pair_has_its_templates():
    """到达台北 / 离开台北 come from the templates 到达{A} / 离开{D}; the pair's city is filled in."""
    templates = zh_travel_parts()["template"]
    assert "到达{A}" in templates and "离开{D}" in templates and "台北" in zh_travel_parts()["city"]
    seen = {"".join(t): g for t, g in zh_travel_corpus()}
    arrive = [g for s, g in seen.items() if s.startswith("到达") and len(s) == 4]
    leave = [g for s, g in seen.items() if s.startswith("离开") and len(s) == 4]
    assert arrive and all(g == ["other", "other", "destination", "destination"] for g in arrive)
    assert leave and all(g == ["other", "other", "departure", "departure"] for g in leave)


def test_corpus_covers_the_most_common_characters():
    chars = {t for toks in zh_lm_corpus() for t in toks if has_chinese(t)}
    top = common_characters(1500)
    covered = sum(ch in chars for ch in top)
    assert covered / len(top) >= 0.97, covered
    assert len(chars) >= 1500


def test_heldout_sentences_are_apart_from_the_corpus():
    lines = heldout_lines()
    assert len(lines) == 100 and len(set(lines)) == 100
    corpus = set(zh_everyday_lines()) | set(corpus_lines("zh_travel.tsv"))
    assert not corpus & set(lines)
    assert all(has_chinese(ln) for ln in lines)


def test_the_language_model_reads_everyday_chinese_outside_its_corpus():
    _, vocab, _ = zh_model()
    rate, unknown, total = unknown_rate(heldout_lines(), vocab)
    assert total > 1000
    assert rate <= 0.05, f"{unknown} of {total} characters unknown"
    direct = [t for ln in heldout_lines() for t in tokenize(ln) if has_chinese(t)]
    assert (unknown, total) == (sum(vocab.id_of(t) is None for t in direct), len(direct))


def test_default_sentence_and_presets_are_known():
    _, vocab, _ = zh_model()
    assert all(vocab.id_of(t) is not None for t in tokenize(ZH_DEFAULT_SENTENCE))
    assert zh_order_presets(vocab) == list(ZH_ORDER_PRESETS)
    assert zh_order_presets(Vocab.build([["狗", "咬"]])) == []


@pytest.mark.parametrize("level", ["word", "zh_word"])
def test_everyday_corpus_tokens(level):
    corpus = zh_everyday_corpus(level)
    assert len(corpus) == len(zh_everyday_lines())
    assert all("".join(toks) == "".join(line.split())
               for toks, line in zip(corpus, zh_everyday_lines()))
