"""Train the built-in default language model deterministically and write it to rnnviz/pretrained/.

    python scripts/build_pretrained.py          # the default model
    python scripts/build_pretrained.py --tied   # the embedding page's tied model (rnnviz.explain.tied)

Writes default_lm.pt (a model bundle) and default_lm.json (the training report:
held-out perplexity next to a uniform model's); with --tied, tied_lm.pt and tied_lm.json (the
page used to train it on first use, 3.7 s of one click).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.train import TrainConfig, perplexity, train
from rnnviz.store.bundle import save_bundle
from rnnviz.store.catalog import PRETRAINED
from rnnviz.text.corpora import everyday_corpus, lm_tensors, split_heldout, travel_corpus
from rnnviz.text.tokenize import Vocab

DEFAULT_CFG = dict(embed_dim=16, hidden_size=32, cell="elman", nonlinearity="tanh")
TRAIN_CFG = TrainConfig(steps=1500, batch_size=32, optimizer="adam", lr=0.01, clip=1.0, seed=0)


def corpus_sentences() -> list[list[str]]:
    return [toks for toks, _ in travel_corpus()] + everyday_corpus()


def build() -> dict:
    train_s, test_s = split_heldout(corpus_sentences())
    vocab = Vocab.build(corpus_sentences())
    model = RNNModel(RNNConfig(vocab_size=len(vocab), **DEFAULT_CFG), seed=0)
    x_tr, y_tr = lm_tensors(train_s, vocab)
    x_te, y_te = lm_tensors(test_s, vocab)
    start = time.perf_counter()
    history = train(model, x_tr, y_tr, TRAIN_CFG)
    report = {
        "train_sentences": len(train_s), "heldout_sentences": len(test_s),
        "vocab_size": len(vocab), "steps": TRAIN_CFG.steps, "final_train_loss": history[-1]["loss"],
        "heldout_perplexity": round(perplexity(model, x_te, y_te), 3),
        "uniform_perplexity": float(len(vocab)),
        "config": model.cfg.to_dict(), "train_config": TRAIN_CFG.__dict__,
    }
    PRETRAINED.mkdir(exist_ok=True)
    (PRETRAINED / "default_lm.pt").write_bytes(save_bundle(model, vocab, {"report": report}))
    (PRETRAINED / "default_lm.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"trained in {time.perf_counter() - start:.1f} s (not stored: the files are byte-identical "
          "on every run)")
    return report


def build_tied() -> dict:
    from rnnviz.explain.tied import TIED_FILE, train_tied_model
    model, vocab, report = train_tied_model()  # E and W_o: one tensor, stored under both names
    (PRETRAINED / f"{TIED_FILE}.pt").write_bytes(save_bundle(model, vocab, {"report": report}))
    (PRETRAINED / f"{TIED_FILE}.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    torch.set_num_threads(1)  # as every built-in model was built (byte-identical rebuilds)
    print(json.dumps(build_tied() if "--tied" in sys.argv else build(), indent=2))
