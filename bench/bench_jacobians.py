"""Benchmark (not a test): the all-pairs Jacobian-norm engine against per-pair baselines.

    python bench/bench_jacobians.py          (all; "... lstm" runs only the LSTM part)

For T = 64, 256, 512 and H = 16, 64, 128 it prints the engine's time (Frobenius and
spectral), the per-pair torch.autograd.functional.jacobian baseline and the torch.func
vmap(jacrev) baseline (both timed on a sample of pairs at two distances, fitted as
a + b * distance per pair and extrapolated to all T(T-1)/2 pairs), the ratios, this
machine's float64 GEMM rate measured in the same run, and the engine's fraction of it
(engine flops: sum over s of the (s H, H) x (H, H) product = H^3 T (T - 1)).
Targets for T = 256, H = 64: >= 500x per-pair, >= 20x torch.func, >= half the GEMM rate,
and spectral ("2/fro": certified to rnnviz.engine.jacobians.SPECTRAL_TOL) at most 3x the Frobenius time.
Everything runs on one thread, as the app does (rnnviz sets torch.set_num_threads(1)).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402
from torch.func import jacrev, vmap  # noqa: E402

from rnnviz.engine.jacobians import product_norms

SIZES_T = (64, 256, 512)
SIZES_H = (16, 64, 128)
DISTANCES = (4, 32)


def best_of(fn, repeat=3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def gemm_rate(n: int = 1024) -> float:
    """Square float64 matmul, best of 5, GFLOP/s. The machine is shared, so the run keeps
    the best rate seen (measured before every size) as this machine's rate."""
    a, b = torch.randn(n, n, dtype=torch.float64), torch.randn(n, n, dtype=torch.float64)
    return 2 * n ** 3 / best_of(lambda: a @ b, 5) / 1e9


def rnn(T: int, H: int, seed: int = 0):
    """A tanh RNN with W_h of spectral radius about 1: (W_h, b, inputs u (T, H), h (T, H), J)."""
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(H, H, dtype=torch.float64, generator=g) / H ** 0.5
    u = torch.randn(T, H, dtype=torch.float64, generator=g) * 0.5  # W_x x_t, precomputed
    b = torch.zeros(H, dtype=torch.float64)
    h, hs = torch.zeros(H, dtype=torch.float64), []
    for t in range(T):
        h = torch.tanh(u[t] + W @ h + b)
        hs.append(h)
    hs = torch.stack(hs)
    J = (1 - hs ** 2)[:, :, None] * W  # (T, H, H)
    return W, b, u, hs, J


def run_from(W, b, u_seg, h):
    for k in range(u_seg.shape[0]):
        h = torch.tanh(u_seg[k] + W @ h + b)
    return h


def per_pair_seconds(W, b, u, hs, d: int, pairs: int = 2) -> float:
    """torch.autograd.functional.jacobian of h_t -> h_{t+d}, then its norm, per pair."""
    T = hs.shape[0]
    starts = torch.linspace(0, T - 1 - d, pairs).long().tolist()

    def go():
        for t in starts:
            Jst = torch.autograd.functional.jacobian(lambda h: run_from(W, b, u[t + 1:t + 1 + d], h), hs[t])  # noqa: B023
            torch.linalg.matrix_norm(Jst)
    return best_of(go, 2) / pairs


def func_seconds(W, b, u, hs, d: int, batch: int = 16) -> float:
    """vmap over start steps of jacrev(h_t -> h_{t+d}), norms included, per pair."""
    T = hs.shape[0]
    m = min(batch, T - d)
    starts = torch.arange(m)
    segs = torch.stack([u[t + 1:t + 1 + d] for t in starts.tolist()])  # (m, d, H)
    f = vmap(jacrev(lambda h, seg: run_from(W, b, seg, h)), in_dims=(0, 0))

    def go():
        torch.linalg.matrix_norm(f(hs[starts], segs))
    return best_of(go, 2) / m


def extrapolate(seconds_at: dict, T: int) -> float:
    """Per-pair time a + b d fitted through two distances, summed over all pairs t < s."""
    (d1, y1), (d2, y2) = sorted(seconds_at.items())
    b = (y2 - y1) / (d2 - d1)
    a = y1 - b * d1
    return sum((T - d) * (a + b * d) for d in range(1, T))


def main() -> None:
    torch.set_num_threads(1)
    rates = [gemm_rate()]
    print(f"float64 GEMM rate (1024 x 1024, 1 thread): {rates[0]:.1f} GFLOP/s at the start\n")
    head = (f"{'T':>4} {'H':>4} {'engine fro':>11} {'engine 2':>10} {'2/fro':>6} {'GF/s':>6} {'of GEMM':>8} "
            f"{'per-pair (extrap.)':>19} {'ratio':>8} {'torch.func (extrap.)':>21} {'ratio':>7}")
    print(head)
    print("-" * len(head))
    for T in SIZES_T:
        for H in SIZES_H:
            W, b, u, hs, J = rnn(T, H)
            rates.append(gemm_rate())
            rate = max(rates)
            t_fro = best_of(lambda: product_norms(J, "fro"), 2 if T * H > 20000 else 5)  # noqa: B023
            t_two = best_of(lambda: product_norms(J, 2), 2 if T * H > 20000 else 5)  # noqa: B023
            gf = H ** 3 * T * (T - 1) / t_fro / 1e9
            ds = [d for d in DISTANCES if d < T]
            pp = extrapolate({d: per_pair_seconds(W, b, u, hs, d) for d in ds}, T)
            fn = extrapolate({d: func_seconds(W, b, u, hs, d) for d in ds}, T)
            print(f"{T:>4} {H:>4} {t_fro:>10.3f}s {t_two:>9.3f}s {t_two / t_fro:>5.1f}x "
                  f"{gf:>6.1f} {gf / rate:>7.0%} "
                  f"{pp:>18.1f}s {pp / t_fro:>7.0f}x {fn:>20.1f}s {fn / t_fro:>6.0f}x", flush=True)
    rates.append(gemm_rate())
    print(f"\nfloat64 GEMM rate over the run: best {max(rates):.1f}, worst {min(rates):.1f} GFLOP/s "
          f"(the machine is shared); 'of GEMM' uses the best seen so far.")
    print("ratios are against the Frobenius engine; baselines include the norm of each Jacobian.")


def bench_lstm(T: int = 256, H: int = 64, d: int = 16) -> dict:
    """The LSTM at T = 256, H = 64 (gated cells, issue 15): its state [h; c] has S = 2H, so the
    all-pairs engine does S^3 T (T - 1) flops on (T, 2H, 2H) step Jacobians. Prints the times of
    trace(), step_jacobians (written out), jacobian_norms (Frobenius) and input_jacobian_norms,
    the engine's GFLOP/s and its fraction of this machine's GEMM rate measured in the same run."""
    from rnnviz import RNNConfig, RNNModel
    from rnnviz.engine.jacobians import input_jacobian_norms, jacobian_norms, step_jacobians
    from rnnviz.engine.trace import trace

    torch.set_num_threads(1)
    model = RNNModel(RNNConfig(50, d, H, cell="lstm"), seed=0).double()
    ids = torch.randint(0, 50, (T,), generator=torch.Generator().manual_seed(0))
    rate = max(gemm_rate(), gemm_rate())
    t_trace = best_of(lambda: trace(model, ids), 1)
    tr = trace(model, ids)
    t_step = best_of(lambda: step_jacobians(model, tr), 3)
    t_fro = best_of(lambda: jacobian_norms(model, tr), 2)
    t_in = best_of(lambda: input_jacobian_norms(model, tr), 2)
    S = 2 * H
    gf = S ** 3 * T * (T - 1) / t_fro / 1e9
    rate = max(rate, gemm_rate())
    out = {"T": T, "H": H, "trace_s": t_trace, "step_jacobians_s": t_step, "jacobian_norms_s": t_fro,
           "input_jacobian_norms_s": t_in, "engine_gflops": gf, "gemm_gflops": rate,
           "of_gemm": gf / rate}
    print(f"\nLSTM T={T} H={H} (state 2H = {S}): trace {t_trace:.2f}s, step Jacobians "
          f"{t_step:.3f}s, all-pairs ||d[h;c]_s/d[h;c]_t|| {t_fro:.2f}s = {gf:.1f} GFLOP/s = "
          f"{gf / rate:.0%} of GEMM ({rate:.1f} GFLOP/s), ||dh_s/dx_t|| {t_in:.2f}s", flush=True)
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["lstm"]:
        bench_lstm()
    else:
        main()
        bench_lstm()
