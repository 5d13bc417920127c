"""The built-in attention twins (scripts/build_attention.py): each is its Elman twin's config
with attention=True and the twin's vocabulary; its JSON's held-out perplexity (and the twin's
beside it) is what the shipped weights give on the held-out split, recomputed here. (Rebuilding
the files byte for byte takes minutes per model on one core: run the script and compare.)"""
from __future__ import annotations

import json

import pytest

from rnnviz.engine.train import perplexity
from rnnviz.store.catalog import (
    ATTENTION_FILES,
    PRETRAINED,
    attention_report,
    attention_twin,
    subword_model,
    subword_report,
    zh_model,
    zh_training_report,
)
from rnnviz.text.corpora import lm_tensors
from scripts import build_bpe
from scripts.build_zh import lm_splits

pytestmark = pytest.mark.core


def test_twins_share_config_and_vocabulary():
    for key, (twin_model, twin_vocab) in (("subword", subword_model()[:2]), ("zh", zh_model()[:2])):
        model, vocab, meta = attention_twin(key)
        assert model.cfg.attention and vocab.itos == twin_vocab.itos
        plain = {**model.cfg.to_dict()}
        del plain["attention"]
        assert plain == twin_model.cfg.to_dict()
        assert (PRETRAINED / f"{ATTENTION_FILES[key]}.pt").stat().st_size < 3_000_000


def test_zh_recorded_perplexity_is_recomputed_from_the_shipped_weights():
    model, vocab, _ = attention_twin("zh")
    report = attention_report("zh")
    test_s = [s for _, te in lm_splits().values() for s in te]
    assert perplexity(model, *lm_tensors(test_s, vocab)) == pytest.approx(report["heldout_perplexity"],
                                                                          abs=1e-3)
    assert report["twin_heldout_perplexity"] == zh_training_report()["heldout_perplexity"]
    assert report["heldout_perplexity"] < report["uniform_perplexity"] / 20


def test_bpe_recorded_perplexity_is_recomputed_from_the_shipped_weights():
    model, vocab, meta = attention_twin("subword")
    report = json.loads((PRETRAINED / "bpe_attn_lm.json").read_text())
    _, test_s, table, _ = build_bpe.bpe_data()
    ppl = perplexity(model, *lm_tensors([table.tokenize(s) for s in test_s], vocab))
    assert ppl == pytest.approx(report["heldout_perplexity"], abs=1e-3)
    assert report["twin_heldout_perplexity"] == subword_report()["heldout_perplexity"]
    assert meta["level"] == "bpe"
