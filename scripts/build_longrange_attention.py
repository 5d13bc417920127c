"""Measure page 8's long-range task ("the label is the first token") for an Elman with
attention over its hidden states, as scripts/build_longrange.py measures Elman, LSTM and GRU,
and store it in rnnviz/pretrained/longrange.json under "attention" (the other entries are kept
as they are). Same distances, steps, H, batch, learning rate and seed as the "fixed" experiment.

    python scripts/build_longrange_attention.py
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from rnnviz.explain.longrange import ATTENTION, RESULTS_FILE, run_experiment
from rnnviz.store.catalog import PRETRAINED
from scripts.build_longrange import DISTANCES, STEPS  # noqa: E402


def build() -> dict:
    torch.set_num_threads(1)
    path = PRETRAINED / RESULTS_FILE
    report = json.loads(path.read_text())
    start = time.perf_counter()
    report[ATTENTION] = run_experiment(cells=(ATTENTION,), distances=DISTANCES, schedule="fixed",
                                       steps=STEPS)
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"measured in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return report


if __name__ == "__main__":
    for row in build()[ATTENTION]["rows"]:
        print(row["cell"], row["distance"], row["accuracy"],
              f"grad x_1 {row['grad_first_before']['first']:.2e} -> {row['grad_first_after']['first']:.2e}")
