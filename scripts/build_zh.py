"""Train the built-in Chinese models deterministically and write them to rnnviz/pretrained/.

    python scripts/build_zh.py            # the language model and the four taggers
    python scripts/build_zh.py lm         # only the language model
    python scripts/build_zh.py taggers    # only the taggers (the five of them)
    python scripts/build_zh.py flat       # only the flattened FNN (the other files are kept)
    python scripts/build_zh.py gated      # the LSTM and GRU twins of the language model (page 8)

Writes zh_lm.pt (a model bundle: a character-level Elman LM over the everyday and travel
corpora in rnnviz/corpora/) and zh_lm.json (its held-out perplexity next to a uniform
guess's), and zh_taggers/{fnn,elman,jordan,bi,flat}.pt with zh_taggers.json (held-out accuracy
and per-slot F1; flat is note 004's FNN over the whole padded sentence, its length measured on
the corpus). Every run writes the same bytes: no timings are stored; they are printed.
tests/core/store/test_catalog_zh.py re-evaluates the shipped files against the JSON.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.taggers import ALL_KINDS, FLAT, LABELS
from rnnviz.engine.train import TrainConfig, perplexity, train
from rnnviz.explain.slots import HIDDEN, ZH_SHIFT_PREFIX, evaluate, train_tagger
from rnnviz.store.bundle import save_bundle
from rnnviz.store.catalog import PRETRAINED, ZH_TAGGERS_DIR, zh_model, zh_tagging_data
from rnnviz.store.tagger_files import save_tagger
from rnnviz.text.corpora import lm_tensors, split_heldout, zh_everyday_corpus, zh_travel_corpus
from rnnviz.text.tokenize import Vocab

ZH_LM_CFG = dict(embed_dim=32, hidden_size=64, cell="elman", nonlinearity="tanh")
# About 13,000 characters of everyday text for 1,700 characters: without weight decay and
# early stopping the model memorises the sentences and is worse than uniform on new ones.
ZH_LM_TRAIN = TrainConfig(steps=3000, batch_size=32, optimizer="adam", lr=0.005, clip=1.0,
                          weight_decay=3e-4, seed=0)
CHECK_EVERY, PATIENCE = 100, 3  # validation perplexity every 100 steps; stop after 3 without gain
ZH_TAGGER_STEPS = 600  # per-character sentences are about twice as long as the English ones


def flat_len(data) -> int:
    """The flattened FNN's fixed length: the longest sentence of the corpus (one token per
    character, 22 today against 9 English words) plus room for the shifted held-out test's
    prefix (tagging.shifted_heldout with ZH_SHIFT_PREFIX), so every sentence it is asked
    about fits."""
    longest = max(len(toks) for toks, _ in data.train + data.heldout)
    return longest + len(ZH_SHIFT_PREFIX)


def lm_splits() -> dict[str, tuple[list, list]]:
    """Each corpus split on its own, so the report can give both held-out perplexities."""
    travel = [toks for toks, _ in zh_travel_corpus()]
    return {"everyday": split_heldout(zh_everyday_corpus()), "travel": split_heldout(travel)}


class EarlyStop:
    """A train() callback: every CHECK_EVERY steps, the perplexity on validation sentences
    (carved from the training split, never the held-out ones); keeps the best weights and
    stops after PATIENCE checks without improvement."""

    def __init__(self, model: RNNModel, val: tuple):
        self.model, self.val = model, val
        self.best, self.best_step, self.best_state, self.checks = float("inf"), 0, None, []

    def __call__(self, record: dict) -> bool:
        if record["step"] % CHECK_EVERY:
            return True
        ppl = perplexity(self.model, *self.val)
        self.checks.append({"step": record["step"], "validation_perplexity": round(ppl, 3)})
        if ppl < self.best:
            self.best, self.best_step = ppl, record["step"]
            self.best_state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        return record["step"] - self.best_step < PATIENCE * CHECK_EVERY


ZH_LM_FILES = {"elman": "zh_lm", "lstm": "zh_lstm_lm", "gru": "zh_gru_lm"}  # cell -> file stem


def build_lm(cell: str = "elman") -> dict:
    """The Chinese character-level LM with `cell`: the LSTM and GRU twins share the Elman's
    corpus, split, vocabulary, d, H and training run (early stopping included); only the cell
    differs. Writes ZH_LM_FILES[cell].pt and .json."""
    splits = lm_splits()
    fit_val = {k: split_heldout(tr, frac=0.1, seed=3) for k, (tr, _) in splits.items()}
    fit_s = [s for fit, _ in fit_val.values() for s in fit]
    val_s = [s for _, val in fit_val.values() for s in val]
    test_s = [s for _, te in splits.values() for s in te]
    vocab = Vocab.build(fit_s + val_s + test_s)
    if cell != "elman" and vocab.itos != zh_model()[1].itos:
        raise SystemExit("the re-built vocabulary differs from zh_lm.pt: rebuild it first")
    model = RNNModel(RNNConfig(vocab_size=len(vocab), **{**ZH_LM_CFG, "cell": cell}), seed=0)
    x_tr, y_tr = lm_tensors(fit_s, vocab)  # (N, T), (N, T)
    stop = EarlyStop(model, lm_tensors(val_s, vocab))
    start = time.perf_counter()
    history = train(model, x_tr, y_tr, ZH_LM_TRAIN, stop)
    model.load_state_dict(stop.best_state)
    print(f"zh LM ({cell}): trained in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    report = {
        "train_sentences": len(fit_s), "validation_sentences": len(val_s),
        "heldout_sentences": len(test_s), "best_step": stop.best_step,
        "validation_checks": stop.checks,
        "heldout_by_corpus": {k: len(te) for k, (_, te) in splits.items()},
        "vocab_size": len(vocab), "steps": ZH_LM_TRAIN.steps, "steps_run": len(history),
        "train_loss_at_best_step": round(history[stop.best_step - 1]["loss"], 4),
        "heldout_perplexity": round(perplexity(model, *lm_tensors(test_s, vocab)), 3),
        "heldout_perplexity_by_corpus": {
            k: round(perplexity(model, *lm_tensors(te, vocab)), 3) for k, (_, te) in splits.items()},
        "uniform_perplexity": float(len(vocab)),
        "config": model.cfg.to_dict(), "train_config": ZH_LM_TRAIN.__dict__,
    }
    if cell != "elman":
        report["elman_heldout_perplexity"] = json.loads(
            (PRETRAINED / "zh_lm.json").read_text(encoding="utf-8"))["heldout_perplexity"]
    stem = ZH_LM_FILES[cell]
    (PRETRAINED / f"{stem}.pt").write_bytes(save_bundle(model, vocab, {"report": report}))
    (PRETRAINED / f"{stem}.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n",
                                           encoding="utf-8")
    return report


def build_taggers(only: tuple = ALL_KINDS) -> dict:
    """Train the taggers in `only` (all five by default); the others' files and JSON entries
    are kept as they are."""
    data = zh_tagging_data()
    ZH_TAGGERS_DIR.mkdir(parents=True, exist_ok=True)
    L = flat_len(data)
    report = {"train_sentences": len(data.train), "heldout_sentences": len(data.heldout),
              "vocab_size": len(data.vocab), "hidden_size": HIDDEN, "steps": ZH_TAGGER_STEPS,
              "longest_sentence": L - len(ZH_SHIFT_PREFIX), "flat_max_len": L, "taggers": {}}
    old = ZH_TAGGERS_DIR / "zh_taggers.json"
    if set(only) != set(ALL_KINDS) and old.exists():
        report["taggers"] = json.loads(old.read_text(encoding="utf-8"))["taggers"]
    for kind in only:
        start = time.perf_counter()
        model, history = train_tagger(kind, data, steps=ZH_TAGGER_STEPS, max_len=L)
        scores = evaluate(model, data)
        entry = {"label": LABELS[kind], "heldout_accuracy": round(scores["accuracy"], 4),
                 "heldout_f1": {k: round(v, 4) for k, v in scores["f1"].items()},
                 "final_train_loss": round(history[-1]["loss"], 4)}
        print(f"zh {kind}: trained in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        report["taggers"][kind] = entry
        (ZH_TAGGERS_DIR / f"{kind}.pt").write_bytes(
            save_tagger(model, data.vocab, {"kind": kind, "language": "zh", "report": entry}))
    report["taggers"] = {k: report["taggers"][k] for k in ALL_KINDS if k in report["taggers"]}
    (ZH_TAGGERS_DIR / "zh_taggers.json").write_text(json.dumps(report, indent=2) + "\n",
                                                    encoding="utf-8")
    return report


def build(what: str = "all") -> dict:
    if what not in ("all", "lm", "taggers", FLAT, "gated"):
        raise SystemExit("usage: python scripts/build_zh.py [all|lm|taggers|flat|gated]")
    out = {}
    if what in ("all", "lm"):
        out["lm"] = build_lm()
    if what in ("all", "gated"):
        out |= {cell: build_lm(cell) for cell in ("lstm", "gru")}
    if what in ("all", "taggers"):
        out["taggers"] = build_taggers()
    if what == FLAT:
        out["taggers"] = build_taggers((FLAT,))
    return out


if __name__ == "__main__":
    torch.set_num_threads(1)  # as every built-in model was built (byte-identical rebuilds)
    start = time.perf_counter()
    result = build(sys.argv[1] if len(sys.argv) > 1 else "all")
    print(json.dumps(result, indent=2, ensure_ascii=False))
    print(f"built in {time.perf_counter() - start:.1f} s", file=sys.stderr)
