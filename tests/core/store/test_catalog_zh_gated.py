"""Issue 25, page 8 in 中文: the Chinese character-level LSTM and GRU beside the Chinese Elman.
One reader for the three (same vocabulary, d and H, the Elman's corpus, split and training run),
their forward pass and loss equal to torch.nn.LSTM / GRU and cross-entropy (float64) on the
Chinese default sentence, their reported held-out perplexities re-evaluated from the shipped
files, and the build byte-identical on a rerun (checked on a tiny run of the same script)."""
from __future__ import annotations

import json

import pytest
import torch

from rnnviz.engine.train import TrainConfig, perplexity
from rnnviz.store.catalog import (
    BUILTINS,
    CELL_FAMILIES,
    PRETRAINED,
    ZH_FILES,
    builtin_lang,
    family_for_tokenizer,
    family_of,
    load_builtin,
    training_report,
)
from rnnviz.text.corpora import ZH_DEFAULT_SENTENCE, lm_pair, lm_tensors
from rnnviz.text.tokenize import UNK, prepare
from scripts import build_zh
from tests.oracles import assert_gated_lm_equals_torch_nn

KEYS = ("zh_lstm", "zh_gru")


@pytest.fixture(scope="module")
def elman():
    return load_builtin("zh")


def _ids(vocab):
    return lm_pair(list(prepare(ZH_DEFAULT_SENTENCE, vocab, "word").ids), vocab)  # (T,), (T,)


def test_the_families_name_three_cells_each_and_the_chinese_one_reads_chinese():
    assert CELL_FAMILIES["zh_char"] == {"elman": "zh", "lstm": "zh_lstm", "gru": "zh_gru"}
    for fam, keys in CELL_FAMILIES.items():
        assert set(keys) == {"elman", "lstm", "gru"} and set(keys.values()) <= set(BUILTINS)
        assert all(family_of(k) == fam for k in keys.values())
    assert family_of("notes") is None and family_of("own:x") is None
    assert [family_for_tokenizer(t) for t in ("bpe", "zh_char", "zh_word", "word", "char")] == [
        "bpe", "zh_char", "zh_char", "word", "word"]
    assert all(builtin_lang(k) == "zh" for k in ZH_FILES)


@pytest.mark.parametrize("key", KEYS)
def test_same_vocabulary_d_and_h_as_the_chinese_elman(key, elman):
    model, vocab, meta = load_builtin(key)
    e_model, e_vocab, _ = elman
    assert BUILTINS[key].default_sentence == ZH_DEFAULT_SENTENCE
    assert (PRETRAINED / f"{ZH_FILES[key]}.pt").stat().st_size < 2_000_000
    assert model.cfg.cell == key.removeprefix("zh_") and model.cfg.nonlinearity == "tanh"
    assert (model.cfg.embed_dim, model.cfg.hidden_size) == (e_model.cfg.embed_dim, e_model.cfg.hidden_size)
    assert vocab.itos == e_vocab.itos and model.cfg.vocab_size == len(vocab)
    prep = prepare(ZH_DEFAULT_SENTENCE, vocab, meta.get("level", "word"))
    assert prep.tokenizer == "zh_char" and not prep.unknown and UNK not in vocab.decode(prep.ids)
    assert prep.tokens == prepare(ZH_DEFAULT_SENTENCE, e_vocab, "word").tokens  # the Elman's tokens


@pytest.mark.parametrize("key", KEYS)
def test_forward_and_loss_equal_torch_nn(key):
    model, vocab, _ = load_builtin(key)
    ids, targets = _ids(vocab)
    assert_gated_lm_equals_torch_nn(model, ids, targets)  # float64 against nn.LSTM / nn.GRU


@pytest.mark.parametrize("key", KEYS)
def test_reported_perplexities_re_evaluate_from_the_shipped_files(key, elman):
    model, vocab, meta = load_builtin(key)
    report = training_report(key)
    assert meta["report"] == report
    splits = build_zh.lm_splits()
    test_s = [s for _, te in splits.values() for s in te]
    assert report["heldout_sentences"] == len(test_s)
    assert perplexity(model, *lm_tensors(test_s, vocab)) == pytest.approx(report["heldout_perplexity"], abs=1e-3)
    for name, (_, te) in splits.items():
        got = perplexity(model, *lm_tensors(te, vocab))
        assert got == pytest.approx(report["heldout_perplexity_by_corpus"][name], abs=1e-3)
    assert report["uniform_perplexity"] == len(vocab)
    assert report["heldout_perplexity"] < report["uniform_perplexity"] / 5
    e_report = elman[2]["report"]
    assert report["elman_heldout_perplexity"] == e_report["heldout_perplexity"]
    for k in ("train_sentences", "validation_sentences", "heldout_sentences", "vocab_size", "steps",
              "train_config"):
        assert report[k] == e_report[k], k  # the Elman's data and training run
    assert report["config"] == {**e_report["config"], "cell": key.removeprefix("zh_")}


def test_a_rebuild_writes_the_same_bytes(tmp_path, monkeypatch):
    """The build, on a tiny run (4 steps, a check every 2): twice, byte for byte the same files."""
    monkeypatch.setattr(build_zh, "ZH_LM_TRAIN", TrainConfig(**{**build_zh.ZH_LM_TRAIN.__dict__, "steps": 4}))
    monkeypatch.setattr(build_zh, "CHECK_EVERY", 2)
    (tmp_path / "zh_lm.json").write_text((PRETRAINED / "zh_lm.json").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(build_zh, "PRETRAINED", tmp_path)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the script runs
    files = []
    try:
        for _ in range(2):
            build_zh.build_lm("gru")
            files.append(((tmp_path / "zh_gru_lm.pt").read_bytes(), (tmp_path / "zh_gru_lm.json").read_bytes()))
    finally:
        torch.set_num_threads(threads)
    assert files[0] == files[1]
    assert json.loads(files[0][1])["steps"] == 4
