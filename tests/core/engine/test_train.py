"""Built-in corpora, shifting, padding and masks, the training loop, the shipped default model."""
import json

import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.conventions import IGNORE
from rnnviz.engine.train import TrainConfig, perplexity, train
from rnnviz.store.catalog import NOTES_E, PRETRAINED, load_builtin
from rnnviz.text.corpora import (
    TAGS,
    everyday_corpus,
    lm_pair,
    lm_tensors,
    pad_batch,
    split_heldout,
    travel_corpus,
)
from rnnviz.text.tokenize import BOS, EOS, Vocab


def test_corpora_are_deterministic_and_tagged():
    assert travel_corpus(50, seed=3) == travel_corpus(50, seed=3)
    for tokens, tags in travel_corpus(200):
        assert len(tokens) == len(tags) and set(tags) <= set(TAGS)
    assert ["Arrive", "Taipei"] in [t[:2] for t, _ in travel_corpus()]
    assert ["dog", "bites", "man"] in everyday_corpus()


def test_heldout_split_shares_no_sentence():
    train_s, test_s = split_heldout([t for t, _ in travel_corpus()])
    assert test_s and not {" ".join(s) for s in train_s} & {" ".join(s) for s in test_s}


def test_lm_pair_with_and_without_specials():
    v = Vocab.build([["I", "like", "cats", "today"]])
    ids = v.encode(["I", "like", "cats", "today"])[0]
    inp, tgt = lm_pair(ids, v)
    assert v.decode(inp) == [BOS, "I", "like", "cats", "today"]
    assert v.decode(tgt) == ["I", "like", "cats", "today", EOS]
    notes = Vocab(("I", "like", "cats", "dogs", "you"))
    assert lm_pair([0, 1, 2], notes) == ([0, 1, 2], [1, 2, IGNORE])  # input [I like cats]


def test_padding_to_b_by_t_with_mask():
    ids, mask = pad_batch([[0, 1, 2], [3, 1, 4, 4]], pad_id=9)
    assert ids.shape == (2, 4) and ids[0, 3] == 9  # the notes: 2 sentences padded to 4 tokens
    assert mask.tolist() == [[True, True, True, False], [True] * 4]
    E = torch.tensor(NOTES_E)
    assert E[ids.clamp(max=4)].shape == (2, 4, 3)  # B x T x d = 2 x 4 x 3


def test_lm_tensors_ignore_padding():
    v = Vocab.build([["a", "b"], ["a"]])
    x, y = lm_tensors([["a", "b"], ["a"]], v)
    assert x.shape == y.shape == (2, 3) and y[1, 2] == IGNORE


def test_training_reduces_loss_deterministically():
    sents = everyday_corpus(200)
    v = Vocab.build(sents)
    x, y = lm_tensors(sents, v)

    def run():
        model = RNNModel(RNNConfig(len(v), 8, 16), seed=0)
        before = perplexity(model, x, y)
        hist = train(model, x, y, TrainConfig(steps=60, lr=0.02, seed=1))
        return before, perplexity(model, x, y), hist

    before, after, hist = run()
    assert after < before * 0.5
    assert run()[2] == hist  # same seed, same numbers


def test_training_can_be_stopped_by_the_callback():
    sents = everyday_corpus(50)
    v = Vocab.build(sents)
    x, y = lm_tensors(sents, v)
    hist = train(RNNModel(RNNConfig(len(v), 4, 4), seed=0), x, y, TrainConfig(steps=100),
                 callback=lambda r: r["step"] < 7)
    assert len(hist) == 7


def test_shipped_default_model_beats_uniform_on_heldout():
    model, vocab, meta = load_builtin("default")
    report = json.loads((PRETRAINED / "default_lm.json").read_text())
    from scripts.build_pretrained import corpus_sentences
    _, test_s = split_heldout(corpus_sentences())
    x, y = lm_tensors(test_s, vocab)
    ppl = perplexity(model, x, y)
    assert abs(ppl - report["heldout_perplexity"]) < 1e-2
    assert ppl < report["uniform_perplexity"] / 5
    assert (PRETRAINED / "default_lm.pt").stat().st_size < 2_000_000


def test_notes_model_has_the_notes_embedding():
    model, vocab, _ = load_builtin("notes")
    assert vocab.itos == ("I", "like", "cats", "dogs", "you")
    torch.testing.assert_close(model.E[2], torch.tensor([-0.4, 0.8, 0.1]))
    assert (model.cfg.vocab_size, model.cfg.embed_dim, model.cfg.hidden_size) == (5, 3, 4)
