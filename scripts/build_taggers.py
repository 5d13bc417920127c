"""Train the five slot-filling taggers deterministically and write them to rnnviz/pretrained/taggers/.

    python scripts/build_taggers.py              # all five
    python scripts/build_taggers.py --only flat  # one (the others' files and entries are kept)

Writes fnn.pt, elman.pt, jordan.pt, bi.pt, flat.pt (read with torch.load(weights_only=True)) and
taggers.json: each tagger's held-out accuracy and per-slot F1, recorded when built
(the same bytes on every run: no timings are stored)
(tests/core/explain/test_slots.py re-evaluates the shipped files against it).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rnnviz.engine.taggers import ALL_KINDS, LABELS
from rnnviz.explain.slots import HIDDEN, TRAIN_CFG, evaluate, tagging_data, train_tagger
from rnnviz.store.tagger_files import TAGGERS_DIR, save_tagger


def build(only: tuple = ALL_KINDS) -> dict:
    data = tagging_data()
    TAGGERS_DIR.mkdir(parents=True, exist_ok=True)
    report = {"train_sentences": len(data.train), "heldout_sentences": len(data.heldout),
              "vocab_size": len(data.vocab), "hidden_size": HIDDEN, "steps": TRAIN_CFG.steps,
              "taggers": {}}
    old = TAGGERS_DIR / "taggers.json"
    if set(only) != set(ALL_KINDS) and old.exists():
        report["taggers"] = json.loads(old.read_text())["taggers"]
    for kind in only:
        start = time.perf_counter()
        model, history = train_tagger(kind, data)
        scores = evaluate(model, data)
        entry = {"label": LABELS[kind], "heldout_accuracy": round(scores["accuracy"], 4),
                 "heldout_f1": {k: round(v, 4) for k, v in scores["f1"].items()},
                 "final_train_loss": round(history[-1]["loss"], 4)}
        print(f"{kind}: trained in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        report["taggers"][kind] = entry
        (TAGGERS_DIR / f"{kind}.pt").write_bytes(
            save_tagger(model, data.vocab, {"kind": kind, "report": entry}))
    report["taggers"] = {k: report["taggers"][k] for k in ALL_KINDS if k in report["taggers"]}
    (TAGGERS_DIR / "taggers.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    torch.set_num_threads(1)  # as every built-in model was built (byte-identical rebuilds)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=ALL_KINDS, default=list(ALL_KINDS))
    print(json.dumps(build(tuple(parser.parse_args().only)), indent=2))
