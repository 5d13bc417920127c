"""Train the subword default language model deterministically and write it to rnnviz/pretrained/.

    python scripts/build_bpe.py            # learn BPE, train, write bpe_lm.pt and bpe_lm.json
    python scripts/build_bpe.py --corpus   # first rewrite rnnviz/corpora/en_patterns.txt

The corpus is every rnnviz/corpora/en_*.txt line plus the distinct sentences of the word-level
default's travel and everyday corpora (so its sentences still read well). 15 % of the distinct
sentences are held out: BPE and the model see only the rest. The report (bpe_lm.json) gives
the held-out perplexity per token, the unknown rate on tests/data/en_heldout_everyday.txt
(50 everyday sentences written apart from the corpus) beside the word-level default's, and
the word / letter-trigram / BPE / character comparison. Both files are byte-identical on
every run; the build time is printed, not stored.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rnnviz.engine.model import RNNConfig, RNNModel  # noqa: E402
from rnnviz.engine.train import TrainConfig, perplexity, train  # noqa: E402
from rnnviz.store.bundle import save_bundle  # noqa: E402
from rnnviz.store.catalog import PRETRAINED, default_model, subword_model  # noqa: E402
from rnnviz.text.bpe import BPE, bpe_vocab, compare_tokenizers, learn_bpe  # noqa: E402
from rnnviz.text.corpora import (  # noqa: E402
    CORPORA,
    PATTERNS_FILE,
    english_patterns,
    english_sentences,
    everyday_corpus,
    lm_tensors,
    split_heldout,
    travel_corpus,
)
from rnnviz.text.tokenize import Vocab, prepare  # noqa: E402

HELDOUT_FILE = ROOT / "tests" / "data" / "en_heldout_everyday.txt"
NUM_MERGES = 800
BPE_CFG = dict(embed_dim=32, hidden_size=96, cell="elman", nonlinearity="tanh")
# Chosen on the held-out split (steps 250..2500 tried): more steps fit the corpus better but
# grow overconfident on sentences unlike it; weight decay keeps the everyday perplexity down.
TRAIN_CFG = TrainConfig(steps=1500, batch_size=32, optimizer="adam", lr=0.005, clip=1.0,
                        weight_decay=1e-4, seed=0)
DEFAULT_SENTENCE = "the cat sat on the mat"


def corpus_sentences() -> list[str]:
    """The English files, then the word-level default's distinct sentences (first seen order)."""
    old = [" ".join(t) for t, _ in travel_corpus()] + [" ".join(s) for s in everyday_corpus()]
    return list(dict.fromkeys(english_sentences() + old))


def heldout_everyday() -> list[str]:
    return [ln.strip() for ln in HELDOUT_FILE.read_text(encoding="utf-8").splitlines() if ln.strip()]


def unknown_rate(sentences: list[str], vocab, level=None) -> dict:
    """Share of tokens the vocabulary does not know, over all sentences."""
    preps = [prepare(s, vocab, level) for s in sentences]
    n = sum(len(p.tokens) for p in preps)
    unk = sum(len(p.unknown) for p in preps)
    return {"tokens": n, "unknown": unk, "rate": round(unk / n, 4),
            "sentences_with_unknown": sum(bool(p.unknown) for p in preps)}


def bpe_data() -> tuple[list[str], list[str], BPE, Vocab]:
    """The subword model's split (train, held-out), its merge table and vocabulary: what
    scripts/build_gated.py --bpe reuses so its LSTM and GRU read text exactly as this model."""
    train_s, test_s = split_heldout(corpus_sentences())  # strings: split by their own text
    table = learn_bpe(train_s, NUM_MERGES)
    return train_s, test_s, table, bpe_vocab(table)


def train_beside_bpe_lm(**changes) -> tuple[RNNModel, Vocab, BPE, dict, float]:
    """A subword model that differs from bpe_lm only by `changes` to its config (a gated cell,
    attention), trained on this script's split, merge table and vocabulary (checked against the
    shipped bpe_lm.pt) with its training run: scripts/build_gated.py --bpe and
    scripts/build_attention.py bpe both train through here. Returns (model, vocab, table,
    report, seconds): the report's numbers up to the uniform perplexity (the caller adds its own)."""
    train_s, test_s, table, vocab = bpe_data()
    if vocab.itos != subword_model()[1].itos:
        raise SystemExit("the re-learned BPE vocabulary differs from bpe_lm.pt: rebuild it first")
    model = RNNModel(RNNConfig(vocab_size=len(vocab), **{**BPE_CFG, **changes}), seed=0)
    x_tr, y_tr = lm_tensors([table.tokenize(s) for s in train_s], vocab)
    x_te, y_te = lm_tensors([table.tokenize(s) for s in test_s], vocab)
    x_ev, y_ev = lm_tensors([table.tokenize(s) for s in heldout_everyday()], vocab)
    start = time.perf_counter()
    history = train(model, x_tr, y_tr, TRAIN_CFG)
    seconds = time.perf_counter() - start
    report = {
        "train_sentences": len(train_s), "heldout_sentences": len(test_s),
        "merges": len(table.merges), "vocab_size": len(vocab), "steps": TRAIN_CFG.steps,
        "final_train_loss": round(history[-1]["loss"], 4),
        "heldout_perplexity": round(perplexity(model, x_te, y_te), 3),
        "everyday50_perplexity": round(perplexity(model, x_ev, y_ev), 3),
        "uniform_perplexity": float(len(vocab)),
    }
    return model, vocab, table, report, seconds


def bpe_meta(table: BPE, report: dict) -> dict:
    """A subword bundle's metadata: its tokenizer (the merge table) and default sentence."""
    return {"level": "bpe", "bpe": table.to_dict(), "default_sentence": DEFAULT_SENTENCE, "report": report}


def build() -> dict:
    train_s, test_s, table, vocab = bpe_data()
    model = RNNModel(RNNConfig(vocab_size=len(vocab), **BPE_CFG), seed=0)
    everyday = heldout_everyday()
    x_tr, y_tr = lm_tensors([table.tokenize(s) for s in train_s], vocab)
    x_te, y_te = lm_tensors([table.tokenize(s) for s in test_s], vocab)
    x_ev, y_ev = lm_tensors([table.tokenize(s) for s in everyday], vocab)
    start = time.perf_counter()
    history = train(model, x_tr, y_tr, TRAIN_CFG)
    seconds = time.perf_counter() - start
    _, word_vocab, _ = default_model()
    report = {
        "corpus_sentences": len(train_s) + len(test_s), "train_sentences": len(train_s),
        "heldout_sentences": len(test_s), "train_tokens": int((y_tr >= 0).sum()),
        "merges": len(table.merges), "vocab_size": len(vocab),
        "steps": TRAIN_CFG.steps, "final_train_loss": round(history[-1]["loss"], 4),
        "heldout_perplexity": round(perplexity(model, x_te, y_te), 3),
        "everyday50_perplexity": round(perplexity(model, x_ev, y_ev), 3),
        "uniform_perplexity": float(len(vocab)),
        "unknown_everyday50": {"bpe": unknown_rate(everyday, vocab),
                               "word_default": unknown_rate(everyday, word_vocab, "word")},
        "tokenizers_on_heldout": compare_tokenizers(train_s, test_s + everyday, table),
        "tokenizers_on_everyday50": compare_tokenizers(train_s, everyday, table),
        "config": model.cfg.to_dict(), "train_config": TRAIN_CFG.__dict__,
    }
    meta = {"level": "bpe", "bpe": table.to_dict(), "default_sentence": DEFAULT_SENTENCE,
            "report": report}
    PRETRAINED.mkdir(exist_ok=True)
    (PRETRAINED / "bpe_lm.pt").write_bytes(save_bundle(model, vocab, meta))
    (PRETRAINED / "bpe_lm.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"trained in {seconds:.1f} s; bpe_lm.pt is {(PRETRAINED / 'bpe_lm.pt').stat().st_size:,} "
          "bytes (neither stored: the files are byte-identical on every run)")
    return report


def write_patterns() -> None:
    (CORPORA / PATTERNS_FILE).write_text("\n".join(english_patterns()) + "\n", encoding="utf-8")


if __name__ == "__main__":
    torch.set_num_threads(1)  # as every built-in model was built (byte-identical rebuilds)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="store_true", help="rewrite en_patterns.txt first")
    if parser.parse_args().corpus:
        write_patterns()
    print(json.dumps(build(), indent=2))
