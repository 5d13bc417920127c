"""Benchmark (not a test): issue 28's two interactive computations, on one thread as the app runs.

    python bench/bench_probe.py

1. One Jacobian cell opened (rnnviz.engine.cellpath.cell_strip) at T = 512, H = 128: the farthest
   cell (s = 512, t = 1, 511 factors), spectral and Frobenius, for an Elman model and an LSTM
   (state [h; c], S = 256), from a ready Trace (the page has it) and including step_jacobians.
   The spectral norms: Lanczos (cellpath.lanczos_norm2); beside it, the old way for comparison:
   every factor's and running product's norm by the exact eigenvalue route (exact_norm2).
2. The unit search (rnnviz.engine.units.unit_search, 1,000 permutations, held-out AUC) at
   T = 200, H = 128 on hidden states of the default-sized model. Target: under 300 ms.
Prints the best of 5 (3 for the slow ones) in milliseconds; bench/results/probe.txt keeps a run.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from rnnviz.engine import cellpath, units  # noqa: E402
from rnnviz.engine.jacobians import exact_norm2  # noqa: E402
from rnnviz.engine.model import RNNConfig, RNNModel  # noqa: E402
from rnnviz.engine.trace import trace  # noqa: E402


def best_of(fn, repeat=5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def one_cell(cell: str, T: int = 512, H: int = 128) -> None:
    model = RNNModel(RNNConfig(vocab_size=200, embed_dim=32, hidden_size=H, cell=cell), seed=0).eval()
    ids = torch.randint(0, 200, (T,), generator=torch.Generator().manual_seed(0))
    tr = trace(model, ids)
    for ord_ in (2, "fro"):
        ms = best_of(lambda o=ord_: cellpath.cell_strip(model, tr, T - 1, 0, "fwd", o), 3)
        print(f"one cell   {cell:5s} T={T} H={H} S={cellpath.direction_jacobians(model, tr).shape[1]:3d} "
              f"ord={ord_!s:3s} (s={T}, t=1, {T - 1} factors): {ms:8.1f} ms")
    J = cellpath.direction_jacobians(model, tr)[1:]

    def exact_route():
        exact_norm2(J)
        P, Ps = torch.eye(J.shape[1], dtype=torch.float64), []
        for F in J:
            P = F @ P
            P = P / torch.linalg.matrix_norm(P)
            Ps.append(P)
        exact_norm2(torch.stack(Ps))

    ms = best_of(exact_route, 1)
    print(f"           {cell:5s} the same {2 * (T - 1)} spectral norms by the exact eigenvalue route "
          f"(before): {ms:8.1f} ms")


def search(T: int = 200, H: int = 128) -> None:
    model = RNNModel(RNNConfig(vocab_size=200, embed_dim=32, hidden_size=H), seed=0).eval()
    g = torch.Generator().manual_seed(1)
    h_fit = units.run_probs(model, torch.randint(0, 200, (T,), generator=g))[1]  # (T, H)
    h_out = units.run_probs(model, torch.randint(0, 200, (T,), generator=g))[1]
    pos, pos_out = torch.rand(T, generator=g) < 0.3, torch.rand(T, generator=g) < 0.3
    ms = best_of(lambda: units.unit_search(h_fit, pos, None, torch.Generator().manual_seed(0),
                                           heldout=(h_out, pos_out, ~pos_out)))
    print(f"unit search T={T} H={H}, 1,000 permutations + held-out AUC ({T} tokens): {ms:8.1f} ms "
          f"(target < 300 ms)")


if __name__ == "__main__":
    torch.set_num_threads(1)
    search()
    for cell in ("elman", "lstm"):
        one_cell(cell)
