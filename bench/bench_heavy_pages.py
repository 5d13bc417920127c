"""Benchmark (not a test): the BPTT and Gates pages' server time per section for the heaviest
own model a learner can make (H = d = 128) and a 200-token sentence, in AppTest (in process).

    python bench/bench_heavy_pages.py CELL PAGE [--root CHECKOUT]

CELL: elman | lstm | gru; PAGE: bptt | gates. --root runs another checkout's pages (e.g. the
main branch, for a before / after table: bench/results/heavy_jacobian_pages.txt). Prints the
first run (nothing cached) and a rerun (cached), with the eight slowest sections of each: every
public function of ui.sections.<PAGE> is wrapped with a timer (nested calls count in both).
"""
from __future__ import annotations

import argparse
import collections
import functools
import importlib
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cell", choices=("elman", "lstm", "gru"))
    ap.add_argument("page", choices=("bptt", "gates"))
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    args = ap.parse_args()
    sys.path.insert(0, args.root)
    import torch
    from streamlit.testing.v1 import AppTest

    from rnnviz.engine.model import RNNConfig, RNNModel
    from rnnviz.serve.links import OWN_PREFIX
    from rnnviz.text.tokenize import Vocab

    pkg = importlib.import_module(f"ui.sections.{args.page}")
    times: dict = collections.defaultdict(float)
    for name in dir(pkg):
        f = getattr(pkg, name)
        if callable(f) and not isinstance(f, type) and getattr(f, "__module__", "").startswith(pkg.__name__):
            def wrap(f=f, name=name):
                @functools.wraps(f)
                def timed(*a, **k):
                    t0 = time.perf_counter()
                    try:
                        return f(*a, **k)
                    finally:
                        times[name] += time.perf_counter() - t0
                return timed
            setattr(pkg, name, wrap())
    words = [f"w{i}" for i in range(4990)]
    vocab = Vocab.build([words])
    model = RNNModel(RNNConfig(len(vocab), 128, 128, cell=args.cell), seed=0)
    pick = torch.randint(0, len(words), (199,), generator=torch.Generator().manual_seed(0))
    at = AppTest.from_file(str(Path(args.root) / "pages" / f"{args.page}.py"), default_timeout=3000)
    at.session_state["own_models"] = {"big": (model, vocab, {"level": "word"})}
    at.session_state["model"] = OWN_PREFIX + "big"
    at.session_state["text"] = " ".join(words[int(i)] for i in pick)
    for label in ("first run", "rerun"):
        times.clear()
        t0 = time.perf_counter()
        at.run()
        dt = time.perf_counter() - t0
        assert not at.exception, [e.value for e in at.exception]
        top = sorted(times.items(), key=lambda kv: -kv[1])[:8]
        print(f"{args.cell} {args.page} {label}: {dt:.1f}s;", ", ".join(f"{k} {v:.2f}" for k, v in top))


if __name__ == "__main__":
    main()
