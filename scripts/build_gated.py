"""Train the built-in LSTM and GRU language models deterministically, beside the default Elman.

    python scripts/build_gated.py            # both
    python scripts/build_gated.py lstm       # one

Same corpus, held-out split, vocabulary, embedding size d, HIDDEN SIZE H = 32 and training
run (steps, batch, Adam, clipping, seed) as scripts/build_pretrained.py: only the cell
differs. Matching H (not the parameter count) keeps the heatmaps tokens x 32 units on
every page; the gated models carry 4x (LSTM) / 3x (GRU) the recurrent weights, and the
report says how many. Writes rnnviz/pretrained/{lstm,gru}_lm.pt and .json.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rnnviz.bundle import save_bundle  # noqa: E402
from rnnviz.catalog import PRETRAINED  # noqa: E402
from rnnviz.data import lm_tensors, split_heldout  # noqa: E402
from rnnviz.model import RNNConfig, RNNModel  # noqa: E402
from rnnviz.text import Vocab  # noqa: E402
from rnnviz.train import perplexity, train  # noqa: E402
from scripts.build_pretrained import DEFAULT_CFG, TRAIN_CFG, corpus_sentences  # noqa: E402

CELLS = ("lstm", "gru")


def build(cell: str) -> dict:
    torch.manual_seed(0)
    train_s, test_s = split_heldout(corpus_sentences())
    vocab = Vocab.build(corpus_sentences())
    model = RNNModel(RNNConfig(vocab_size=len(vocab), **{**DEFAULT_CFG, "cell": cell}), seed=0)
    x_tr, y_tr = lm_tensors(train_s, vocab)
    x_te, y_te = lm_tensors(test_s, vocab)
    start = time.perf_counter()
    history = train(model, x_tr, y_tr, TRAIN_CFG)
    counts = model.param_counts()
    report = {
        "train_sentences": len(train_s), "heldout_sentences": len(test_s),
        "vocab_size": len(vocab), "steps": TRAIN_CFG.steps, "final_train_loss": history[-1]["loss"],
        "heldout_perplexity": round(perplexity(model, x_te, y_te), 3),
        "uniform_perplexity": float(len(vocab)),
        "parameters": sum(counts.values()),
        "recurrent_parameters": sum(v for k, v in counts.items() if k not in ("E", "W_o", "b_o")),
        "matches": "hidden size H of the default Elman model (not its parameter count)",
        "config": model.cfg.to_dict(), "train_config": TRAIN_CFG.__dict__,
    }
    PRETRAINED.mkdir(exist_ok=True)
    (PRETRAINED / f"{cell}_lm.pt").write_bytes(save_bundle(model, vocab, {"report": report}))
    (PRETRAINED / f"{cell}_lm.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"{cell}: trained in {time.perf_counter() - start:.1f} s (not stored: the files are "
          "byte-identical on every run)")
    return report


if __name__ == "__main__":
    for name in sys.argv[1:] or CELLS:
        if name not in CELLS:
            raise SystemExit(f"unknown cell {name!r}: use one of {CELLS}")
        print(json.dumps(build(name), indent=2))
