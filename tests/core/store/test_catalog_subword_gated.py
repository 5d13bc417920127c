"""The subword (BPE) LSTM and GRU beside the subword Elman: one tokenizer for the three (same
merge table and vocabulary in the bundles, same d and H), their forward pass and loss equal to
torch.nn.LSTM / GRU and cross-entropy (float64) on "the cat sat on the mat", their reported
perplexities re-evaluated from the shipped files, and no <unk> on the start sentence."""

import pytest
import torch

from rnnviz.engine.trace import trace
from rnnviz.engine.train import perplexity
from rnnviz.store.catalog import BUILTINS, PRETRAINED, SUBWORD_FILES, load_builtin, training_report
from rnnviz.text.bpe import BPE
from rnnviz.text.corpora import lm_pair, lm_tensors, split_heldout
from rnnviz.text.tokenize import UNK, prepare
from scripts.build_bpe import corpus_sentences, heldout_everyday
from tests.oracles import assert_gated_lm_equals_torch_nn

KEYS = ("subword_lstm", "subword_gru")
SENTENCE = "the cat sat on the mat"


@pytest.fixture(scope="module")
def elman():
    return load_builtin("subword")


def _ids(vocab, meta):
    return lm_pair(list(prepare(SENTENCE, vocab, meta["level"]).ids), vocab)  # (T,), (T,)


@pytest.mark.parametrize("key", KEYS)
def test_same_tokenizer_d_and_h_as_the_subword_elman(key, elman):
    model, vocab, meta = load_builtin(key)
    e_model, e_vocab, e_meta = elman
    assert BUILTINS[key].default_sentence == SENTENCE and "subword" in BUILTINS  # old key kept
    assert (PRETRAINED / f"{SUBWORD_FILES[key]}.pt").stat().st_size < 2_000_000
    assert model.cfg.cell == key.removeprefix("subword_") and model.cfg.nonlinearity == "tanh"
    assert (model.cfg.embed_dim, model.cfg.hidden_size) == (e_model.cfg.embed_dim, e_model.cfg.hidden_size)
    assert meta["level"] == "bpe" and vocab.tokenizer == "bpe"
    assert meta["bpe"] == e_meta["bpe"] and vocab.itos == e_vocab.itos
    assert model.cfg.vocab_size == len(vocab)
    prep = prepare(SENTENCE, vocab, meta["level"])
    assert prep.tokenizer == "bpe" and not prep.unknown and UNK not in vocab.decode(prep.ids)
    assert prep.tokens == prepare(SENTENCE, e_vocab, e_meta["level"]).tokens  # the Elman's tokens


@pytest.mark.parametrize("key", KEYS)
def test_forward_and_loss_equal_torch_nn(key):
    model, vocab, meta = load_builtin(key)
    ids, targets = _ids(vocab, meta)
    h = assert_gated_lm_equals_torch_nn(model, ids, targets)  # float64 against nn.LSTM / nn.GRU
    tr32 = trace(model, torch.tensor(ids), torch.tensor(targets))  # the shipped float32 weights
    torch.testing.assert_close(tr32.h.double(), h, rtol=0, atol=1e-5)


@pytest.mark.parametrize("key", KEYS)
def test_reported_perplexities_re_evaluate_from_the_shipped_files(key, elman):
    model, vocab, meta = load_builtin(key)
    report = training_report(key)
    assert meta["report"] == report
    table = BPE.from_dict(meta["bpe"])
    train_s, test_s = split_heldout(corpus_sentences())
    assert (len(train_s), len(test_s)) == (report["train_sentences"], report["heldout_sentences"])
    x_te, y_te = lm_tensors([table.tokenize(s) for s in test_s], vocab)
    assert perplexity(model, x_te, y_te) == pytest.approx(report["heldout_perplexity"], abs=1e-3)
    x_ev, y_ev = lm_tensors([table.tokenize(s) for s in heldout_everyday()], vocab)
    assert perplexity(model, x_ev, y_ev) == pytest.approx(report["everyday50_perplexity"], abs=1e-3)
    assert report["uniform_perplexity"] == len(vocab)
    assert report["heldout_perplexity"] < report["uniform_perplexity"] / 10
    assert report["parameters"] == sum(p.numel() for p in model.parameters())
    e_report = elman[2]["report"]
    assert report["elman_heldout_perplexity"] == e_report["heldout_perplexity"]
    assert report["steps"] == e_report["steps"] and report["train_config"] == e_report["train_config"]
