"""Train the built-in Chinese models deterministically and write them to rnnviz/pretrained/.

    python scripts/build_zh.py            # the language model and the four taggers
    python scripts/build_zh.py lm         # only the language model
    python scripts/build_zh.py taggers    # only the taggers

Writes zh_lm.pt (a model bundle: a character-level Elman LM over the everyday and travel
corpora in rnnviz/corpora/) and zh_lm.json (its held-out perplexity next to a uniform
guess's), and zh_taggers/{fnn,elman,jordan,bi}.pt with zh_taggers.json (held-out accuracy
and per-slot F1). Every run writes the same bytes: no timings are stored; they are printed.
tests/core/test_zh_models.py re-evaluates the shipped files against the JSON.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rnnviz.bundle import save_bundle  # noqa: E402
from rnnviz.catalog import PRETRAINED, ZH_TAGGERS_DIR, zh_tagging_data  # noqa: E402
from rnnviz.data import (lm_tensors, split_heldout, zh_everyday_corpus,  # noqa: E402
                         zh_travel_corpus)
from rnnviz.model import RNNConfig, RNNModel  # noqa: E402
from rnnviz.tagging import HIDDEN, KINDS, LABELS, evaluate, save_tagger, train_tagger  # noqa: E402
from rnnviz.text import Vocab  # noqa: E402
from rnnviz.train import TrainConfig, perplexity, train  # noqa: E402

ZH_LM_CFG = dict(embed_dim=32, hidden_size=96, cell="elman", nonlinearity="tanh")
ZH_LM_TRAIN = TrainConfig(steps=3000, batch_size=32, optimizer="adam", lr=0.005, clip=1.0, seed=0)
ZH_TAGGER_STEPS = 600  # per-character sentences are about twice as long as the English ones


def lm_splits() -> dict[str, tuple[list, list]]:
    """Each corpus split on its own, so the report can give both held-out perplexities."""
    travel = [toks for toks, _ in zh_travel_corpus()]
    return {"everyday": split_heldout(zh_everyday_corpus()), "travel": split_heldout(travel)}


def build_lm() -> dict:
    torch.manual_seed(0)
    splits = lm_splits()
    train_s = [s for tr, _ in splits.values() for s in tr]
    test_s = [s for _, te in splits.values() for s in te]
    vocab = Vocab.build(train_s + test_s)
    model = RNNModel(RNNConfig(vocab_size=len(vocab), **ZH_LM_CFG), seed=0)
    x_tr, y_tr = lm_tensors(train_s, vocab)  # (N, T), (N, T)
    start = time.perf_counter()
    history = train(model, x_tr, y_tr, ZH_LM_TRAIN)
    print(f"zh LM: trained in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    report = {
        "train_sentences": len(train_s), "heldout_sentences": len(test_s),
        "heldout_by_corpus": {k: len(te) for k, (_, te) in splits.items()},
        "vocab_size": len(vocab), "steps": ZH_LM_TRAIN.steps,
        "final_train_loss": round(history[-1]["loss"], 4),
        "heldout_perplexity": round(perplexity(model, *lm_tensors(test_s, vocab)), 3),
        "heldout_perplexity_by_corpus": {
            k: round(perplexity(model, *lm_tensors(te, vocab)), 3) for k, (_, te) in splits.items()},
        "uniform_perplexity": float(len(vocab)),
        "config": model.cfg.to_dict(), "train_config": ZH_LM_TRAIN.__dict__,
    }
    (PRETRAINED / "zh_lm.pt").write_bytes(save_bundle(model, vocab, {"report": report}))
    (PRETRAINED / "zh_lm.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n",
                                           encoding="utf-8")
    return report


def build_taggers() -> dict:
    data = zh_tagging_data()
    ZH_TAGGERS_DIR.mkdir(parents=True, exist_ok=True)
    report = {"train_sentences": len(data.train), "heldout_sentences": len(data.heldout),
              "vocab_size": len(data.vocab), "hidden_size": HIDDEN, "steps": ZH_TAGGER_STEPS,
              "taggers": {}}
    for kind in KINDS:
        start = time.perf_counter()
        model, history = train_tagger(kind, data, steps=ZH_TAGGER_STEPS)
        scores = evaluate(model, data)
        entry = {"label": LABELS[kind], "heldout_accuracy": round(scores["accuracy"], 4),
                 "heldout_f1": {k: round(v, 4) for k, v in scores["f1"].items()},
                 "final_train_loss": round(history[-1]["loss"], 4)}
        print(f"zh {kind}: trained in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        report["taggers"][kind] = entry
        (ZH_TAGGERS_DIR / f"{kind}.pt").write_bytes(
            save_tagger(model, data.vocab, {"kind": kind, "language": "zh", "report": entry}))
    (ZH_TAGGERS_DIR / "zh_taggers.json").write_text(json.dumps(report, indent=2) + "\n",
                                                    encoding="utf-8")
    return report


def build(what: str = "all") -> dict:
    if what not in ("all", "lm", "taggers"):
        raise SystemExit("usage: python scripts/build_zh.py [all|lm|taggers]")
    out = {}
    if what in ("all", "lm"):
        out["lm"] = build_lm()
    if what in ("all", "taggers"):
        out["taggers"] = build_taggers()
    return out


if __name__ == "__main__":
    start = time.perf_counter()
    result = build(sys.argv[1] if len(sys.argv) > 1 else "all")
    print(json.dumps(result, indent=2, ensure_ascii=False))
    print(f"built in {time.perf_counter() - start:.1f} s", file=sys.stderr)
