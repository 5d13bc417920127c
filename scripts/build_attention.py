"""Train the built-in attention twins deterministically, beside their Elman models.

    python scripts/build_attention.py            # both
    python scripts/build_attention.py bpe        # the subword English twin of bpe_lm
    python scripts/build_attention.py zh         # the Chinese character twin of zh_lm

An attention twin is its Elman model with attention over its own past hidden states
(RNNConfig(attention=True): s_{t,j} = h_t . W_a h_j for j <= t, alpha_t = softmax(s_t),
c_t = sum_j alpha_{t,j} h_j, output from [h_t; c_t]). Everything else is the twin's:
- bpe: scripts/build_bpe.py's corpus, split, BPE merge table and vocabulary (checked against the
  shipped bpe_lm.pt), d = 32, H = 96 and training run (1500 steps, Adam, clipping, weight decay,
  seed). Writes rnnviz/pretrained/bpe_attn_lm.pt and .json.
- zh: scripts/build_zh.py's corpora, split (with its validation carve-out), vocabulary, d = 32,
  H = 64 and training run (up to 3000 steps, validation every 100, stop after 3 checks without
  gain, best weights kept). Writes rnnviz/pretrained/zh_attn_lm.pt and .json.
Each JSON holds the twin's held-out perplexity beside the attention model's. Every run writes
the same bytes (one thread, seeded generators; timings are printed, not stored).
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
from rnnviz.store.catalog import PRETRAINED, subword_report, zh_model, zh_training_report
from rnnviz.text.corpora import lm_tensors, split_heldout
from rnnviz.text.tokenize import Vocab
from scripts import build_bpe, build_zh  # noqa: E402
from scripts.build_gated import sizes  # noqa: E402

TWINS = ("bpe", "zh")


def build_bpe_twin() -> dict:
    model, vocab, table, report, seconds = build_bpe.train_beside_bpe_lm(attention=True)
    elman = subword_report()
    report |= {
        "twin": "bpe_lm", "twin_heldout_perplexity": elman["heldout_perplexity"],
        "twin_everyday50_perplexity": elman["everyday50_perplexity"],
        **sizes(model),
        "matches": "corpus, split, BPE merge table, vocabulary, d, hidden size H and training run "
                   "of the subword Elman model bpe_lm; adds W_a (H x H) and doubles W_o's columns",
        "config": model.cfg.to_dict(), "train_config": build_bpe.TRAIN_CFG.__dict__,
    }
    meta = build_bpe.bpe_meta(table, report)
    _write("bpe_attn_lm", model, vocab, meta, report)
    print(f"bpe attention: trained in {seconds:.1f} s", file=sys.stderr)
    return report


def build_zh_twin() -> dict:
    splits = build_zh.lm_splits()
    fit_val = {k: split_heldout(tr, frac=0.1, seed=3) for k, (tr, _) in splits.items()}
    fit_s = [s for fit, _ in fit_val.values() for s in fit]
    val_s = [s for _, val in fit_val.values() for s in val]
    test_s = [s for _, te in splits.values() for s in te]
    vocab = Vocab.build(fit_s + val_s + test_s)
    if vocab.itos != zh_model()[1].itos:
        raise SystemExit("the Chinese vocabulary differs from zh_lm.pt: rebuild it first")
    model = RNNModel(RNNConfig(vocab_size=len(vocab), **build_zh.ZH_LM_CFG, attention=True), seed=0)
    x_tr, y_tr = lm_tensors(fit_s, vocab)
    stop = build_zh.EarlyStop(model, lm_tensors(val_s, vocab))
    start = time.perf_counter()
    history = train(model, x_tr, y_tr, build_zh.ZH_LM_TRAIN, stop)
    model.load_state_dict(stop.best_state)
    seconds = time.perf_counter() - start
    twin = zh_training_report()
    report = {
        "train_sentences": len(fit_s), "validation_sentences": len(val_s),
        "heldout_sentences": len(test_s), "best_step": stop.best_step,
        "validation_checks": stop.checks,
        "vocab_size": len(vocab), "steps": build_zh.ZH_LM_TRAIN.steps, "steps_run": len(history),
        "train_loss_at_best_step": round(history[stop.best_step - 1]["loss"], 4),
        "heldout_perplexity": round(perplexity(model, *lm_tensors(test_s, vocab)), 3),
        "heldout_perplexity_by_corpus": {
            k: round(perplexity(model, *lm_tensors(te, vocab)), 3) for k, (_, te) in splits.items()},
        "uniform_perplexity": float(len(vocab)),
        "twin": "zh_lm", "twin_heldout_perplexity": twin["heldout_perplexity"],
        "twin_best_step": twin["best_step"],
        **sizes(model),
        "matches": "corpora, split, vocabulary, d, hidden size H and training run (early stopping "
                   "included) of the Chinese Elman model zh_lm; adds W_a (H x H) and doubles W_o's "
                   "columns",
        "config": model.cfg.to_dict(), "train_config": build_zh.ZH_LM_TRAIN.__dict__,
    }
    _write("zh_attn_lm", model, vocab, {"report": report}, report)
    print(f"zh attention: trained in {seconds:.1f} s", file=sys.stderr)
    return report


def _write(stem: str, model, vocab, meta: dict, report: dict) -> None:
    PRETRAINED.mkdir(exist_ok=True)
    (PRETRAINED / f"{stem}.pt").write_bytes(save_bundle(model, vocab, meta))
    (PRETRAINED / f"{stem}.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n",
                                             encoding="utf-8")


if __name__ == "__main__":
    torch.set_num_threads(1)  # as every built-in model was built (byte-identical rebuilds)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("twins", nargs="*", metavar="twin", help=f"one or more of {TWINS} (default: both)")
    args = parser.parse_args()
    for name in args.twins:
        if name not in TWINS:
            parser.error(f"unknown twin {name!r}: use one of {TWINS}")
    for name in args.twins or TWINS:
        print(json.dumps({"bpe": build_bpe_twin, "zh": build_zh_twin}[name](), indent=2, ensure_ascii=False))
