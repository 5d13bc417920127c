"""Measure the long-range task ("the label is the first token") for Elman, LSTM and GRU and
write the figures to rnnviz/pretrained/longrange.json (seeded: the same numbers every run).

    python scripts/build_longrange.py

Two experiments: "fixed" trains each cell at each distance in DISTANCES with every batch at
that distance; "curriculum" trains each cell once with distances drawn log-uniformly up
to 200 and evaluates at every distance. Both at STEPS Adam steps, H = 16. A third,
"lstm_forget_bias_3", trains the LSTM alone with its forget-gate bias started at +3 (keep the
cell state by default) for LONG_STEPS at the longer distances.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from rnnviz.explain.longrange import run_experiment
from rnnviz.store.catalog import PRETRAINED

DISTANCES = (10, 25, 50, 100, 200)
STEPS = 400
LONG_STEPS = 1000
LONG_DISTANCES = (50, 100, 200)


def forget_bias_experiment() -> dict:
    return run_experiment(cells=("lstm",), distances=LONG_DISTANCES, schedule="fixed",
                          steps=LONG_STEPS, forget_bias=3.0)


def build() -> dict:
    torch.set_num_threads(1)
    start = time.perf_counter()
    report = {"fixed": run_experiment(distances=DISTANCES, schedule="fixed", steps=STEPS),
              "curriculum": run_experiment(distances=(200,), schedule="curriculum", steps=STEPS,
                                           eval_distances=DISTANCES),
              "lstm_forget_bias_3": forget_bias_experiment()}
    (PRETRAINED / "longrange.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"measured in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return report


if __name__ == "__main__":
    out = build()
    for name, exp in out.items():
        for row in exp["rows"]:
            print(name, row["cell"], row["distance"], row["accuracy_by_distance"],
                  f"grad x_1 {row['grad_first_before']['ratio']:.2e} -> "
                  f"{row['grad_first_after']['ratio']:.2e}")
