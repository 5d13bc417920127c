"""Issue 25: page 2's order demo reverses tokens, for every tokenizer (oracle: the second
sentence, read by the same tokenizer, is the first one's tokens in reverse order)."""
from __future__ import annotations

import pytest

from rnnviz.explain import hidden as hd
from rnnviz.store.catalog import load_builtin
from rnnviz.text.tokenize import BOS, Vocab, prepare, tokenize


@pytest.mark.parametrize("text", ["我喜欢猫，也喜欢狗。", "我爱 you!", "the cat sat."])
@pytest.mark.parametrize("level", ["char", "word", "zh_word"])
def test_raw_tokens_reverse(text, level):
    rev = hd.reversed_text(text, level)
    assert tokenize(rev, level) == tokenize(text, level)[::-1]


def test_chinese_model_reverses_characters_without_spaces():
    _, vocab, meta = load_builtin("zh")
    text = "我喜欢猫，也喜欢狗。"
    rev, note = hd.default_overlay([], vocab, meta.get("level", "word"), text=text)
    assert rev == "。狗欢喜也，猫欢喜我" and note == ""
    a, b = prepare(text, vocab), prepare(rev, vocab)
    assert list(b.ids) == list(a.ids)[::-1] and not b.unknown


def test_own_character_model_never_gets_spaces_as_unknown():
    text = "猫看我。"
    vocab = Vocab.build([list(text)])
    rev, note = hd.default_overlay([], vocab, "char", text=text)
    assert rev == "。我看猫" and note == ""
    assert not prepare(rev, vocab, "char").unknown


def test_subword_model_reverses_words():
    _, vocab, _ = load_builtin("subword")
    rev, _ = hd.default_overlay([BOS], vocab, "bpe", text="the cat sat on the mat")
    assert rev == "mat the on sat cat the"
