"""hidden.order_presets (pages 1 and 2): the notes' Chinese pairs first on the Chinese model,
the English list unchanged on the English ones."""
from __future__ import annotations

import pytest

from rnnviz.explain import hidden as hd
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import ZH_ORDER_PAIR, ZH_ORDER_PRESETS, ZH_SLOT_PAIR
from rnnviz.text.tokenize import prepare


def test_the_chinese_model_is_offered_the_notes_chinese_pairs_first():
    """On the Chinese model the first preset is 狗咬人 / 人咬狗 (note 000), then 到达台北 /
    离开台北 (note 004), and none of the English pairs (their words are <unk> there)."""
    vocab = load_builtin("zh")[1]
    presets = hd.order_presets(vocab)
    assert presets[0] == ZH_ORDER_PAIR == ("狗咬人", "人咬狗")
    assert presets[1] == ZH_SLOT_PAIR and presets == list(ZH_ORDER_PRESETS)
    for a, b in presets:  # every character read as itself, none as <unk>
        assert not prepare(a, vocab).unknown and not prepare(b, vocab).unknown
    a, b = presets[0]
    assert sorted(a) == sorted(b) and a != b  # the same characters in another order


@pytest.mark.parametrize("key", ["default", "subword", "lstm"])
def test_the_english_models_keep_the_english_list(key):
    """The default model (and the BPE model, which reads Chinese only as fallback bytes) get
    exactly the English pairs, dog bites man first."""
    presets = hd.order_presets(load_builtin(key)[1])
    assert presets == list(hd.ORDER_PRESETS)
    assert presets[0] == ("dog bites man", "man bites dog")


def test_the_notes_model_keeps_its_two_pairs():
    presets = hd.order_presets(load_builtin("notes")[1])
    assert presets == [("I like cats", "cats like I"), ("I like dogs", "dogs like I")]
