"""Train the built-in LSTM and GRU language models deterministically, beside the default Elman.

    python scripts/build_gated.py            # both
    python scripts/build_gated.py lstm       # one
    python scripts/build_gated.py --bpe      # the subword pair (bpe_lstm_lm, bpe_gru_lm)

Same corpus, held-out split, vocabulary, embedding size d, HIDDEN SIZE H = 32 and training
run (steps, batch, Adam, clipping, seed) as scripts/build_pretrained.py: only the cell
differs. Matching H (not the parameter count) keeps the heatmaps tokens x 32 units on
every page; the gated models carry 4x (LSTM) / 3x (GRU) the recurrent weights, and the
report says how many. Writes rnnviz/pretrained/{lstm,gru}_lm.pt and .json.

With --bpe the same holds against the subword Elman of scripts/build_bpe.py: its corpus, split,
BPE merge table and vocabulary (its own functions, and the shipped bpe_lm.pt must agree), d = 32,
H = 96 and training run; the bundles carry the same tokenizer metadata ("level": "bpe" and the
merge table), so prepare() reads a sentence into the same tokens for all three cells. Writes
rnnviz/pretrained/bpe_{lstm,gru}_lm.pt and .json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.train import perplexity, train
from rnnviz.store.bundle import save_bundle
from rnnviz.store.catalog import PRETRAINED, subword_report
from rnnviz.text.corpora import lm_tensors, split_heldout
from rnnviz.text.tokenize import Vocab
from scripts import build_bpe  # noqa: E402
from scripts.build_pretrained import DEFAULT_CFG, TRAIN_CFG, corpus_sentences  # noqa: E402

CELLS = ("lstm", "gru")


def sizes(model: RNNModel) -> dict:
    """All parameters, and those of the recurrent cell alone (what the gates multiply)."""
    counts = model.param_counts()
    return {"parameters": sum(counts.values()),
            "recurrent_parameters": sum(v for k, v in counts.items() if k not in ("E", "W_o", "b_o"))}


def build(cell: str) -> dict:
    train_s, test_s = split_heldout(corpus_sentences())
    vocab = Vocab.build(corpus_sentences())
    model = RNNModel(RNNConfig(vocab_size=len(vocab), **{**DEFAULT_CFG, "cell": cell}), seed=0)
    x_tr, y_tr = lm_tensors(train_s, vocab)
    x_te, y_te = lm_tensors(test_s, vocab)
    start = time.perf_counter()
    history = train(model, x_tr, y_tr, TRAIN_CFG)
    report = {
        "train_sentences": len(train_s), "heldout_sentences": len(test_s),
        "vocab_size": len(vocab), "steps": TRAIN_CFG.steps, "final_train_loss": history[-1]["loss"],
        "heldout_perplexity": round(perplexity(model, x_te, y_te), 3),
        "uniform_perplexity": float(len(vocab)),
        **sizes(model),
        "matches": "hidden size H of the default Elman model (not its parameter count)",
        "config": model.cfg.to_dict(), "train_config": TRAIN_CFG.__dict__,
    }
    PRETRAINED.mkdir(exist_ok=True)
    (PRETRAINED / f"{cell}_lm.pt").write_bytes(save_bundle(model, vocab, {"report": report}))
    (PRETRAINED / f"{cell}_lm.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"{cell}: trained in {time.perf_counter() - start:.1f} s (not stored: the files are "
          "byte-identical on every run)")
    return report


def build_bpe_cell(cell: str) -> dict:
    """The subword (BPE) LSTM or GRU: build_bpe.py's data and run, only the cell differs."""
    model, vocab, table, report, seconds = build_bpe.train_beside_bpe_lm(cell=cell)
    elman = subword_report()
    report |= {
        "elman_heldout_perplexity": elman["heldout_perplexity"],
        "elman_everyday50_perplexity": elman["everyday50_perplexity"],
        **sizes(model),
        "matches": "corpus, split, BPE merge table, vocabulary, d, hidden size H and training run "
                   "of the subword Elman model bpe_lm (not its parameter count)",
        "config": model.cfg.to_dict(), "train_config": build_bpe.TRAIN_CFG.__dict__,
    }
    meta = build_bpe.bpe_meta(table, report)
    PRETRAINED.mkdir(exist_ok=True)
    (PRETRAINED / f"bpe_{cell}_lm.pt").write_bytes(save_bundle(model, vocab, meta))
    (PRETRAINED / f"bpe_{cell}_lm.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"bpe {cell}: trained in {seconds:.1f} s; bpe_{cell}_lm.pt is "
          f"{(PRETRAINED / f'bpe_{cell}_lm.pt').stat().st_size:,} bytes (neither stored: the "
          "files are byte-identical on every run)")
    return report


if __name__ == "__main__":
    torch.set_num_threads(1)  # as every built-in model was built (byte-identical rebuilds)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cells", nargs="*", metavar="cell", help=f"one or more of {CELLS} (default: both)")
    parser.add_argument("--bpe", action="store_true",
                        help="the subword (BPE) pair beside bpe_lm instead of the word-level pair")
    args = parser.parse_args()
    for name in args.cells:
        if name not in CELLS:
            parser.error(f"unknown cell {name!r}: use one of {CELLS}")
    for name in args.cells or CELLS:
        print(json.dumps((build_bpe_cell if args.bpe else build)(name), indent=2))
