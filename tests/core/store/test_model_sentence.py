"""A model file's default sentence that its own vocabulary cannot read is replaced when the file
is loaded (issue 22, R8): by a sentence made from the vocabulary, or the file is refused when no
token can be read at all."""
from __future__ import annotations

import pytest
import torch

from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.errors import InputError
from rnnviz.explain.upload import read_model_file
from rnnviz.store.bundle import save_bundle
from rnnviz.store.model_sentence import readable, usable_default
from rnnviz.text.tokenize import Vocab, prepare

NO_UNK = Vocab(("I", "like", "dogs", "cats", "runs"))          # the notes' style: no <unk>
WITH_UNK = Vocab(("<pad>", "<unk>", "<bos>", "<eos>", "the", "cat", "sat"))
ZERO_WIDTH = "\u200b\u200d\u2060\ufeff"


def bundle(vocab: Vocab, sentence) -> bytes:
    torch.manual_seed(0)
    model = RNNModel(RNNConfig(vocab_size=len(vocab), embed_dim=3, hidden_size=4))
    meta = {"level": "word", "name": "odd"}
    if sentence is not None:
        meta["default_sentence"] = sentence
    return save_bundle(model, vocab, meta)


@pytest.mark.parametrize(("vocab", "sentence"), [
    (NO_UNK, "zebras graze quietly"),      # unknown words, no <unk> to stand for them
    (WITH_UNK, ZERO_WIDTH),                # only zero-width characters
    (WITH_UNK, ZERO_WIDTH * 3 + " \t "),
    (NO_UNK, None),                        # none at all
])
def test_an_unreadable_default_sentence_is_replaced_on_load(vocab, sentence):
    _, v, meta = read_model_file(bundle(vocab, sentence), "odd.pt")
    assert not readable(sentence, v, "word")
    text = meta["default_sentence"]
    p = prepare(text, v, "word")
    assert p.ids and not p.unknown
    assert set(text.split()) <= set(v.itos)


def test_a_readable_default_sentence_is_kept():
    _, _, meta = read_model_file(bundle(NO_UNK, "I like zebras"), "ok.pt")
    assert meta["default_sentence"] == "I like zebras"   # some unknown words: still readable


def test_a_vocabulary_with_no_readable_token_is_refused():
    only_marks = Vocab(("<pad>", "<unk>", "<bos>", "<eos>", ZERO_WIDTH))
    with pytest.raises(InputError, match="No token of this model's vocabulary") as err:
        usable_default("x", Vocab(("<pad>", "<bos>", "<eos>", ZERO_WIDTH)), "word")
    assert err.value.key == "no_readable_token"
    assert usable_default("anything", only_marks, "word") == "anything"   # <unk> reads it
