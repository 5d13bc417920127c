"""Benchmark (not a test): the heaviest BPTT-page job a learner can start, unbounded and
bounded by limits.MAX_JACOBIAN_WORK (issue 17, "fair to everyone"), and what it does to
another learner's page.

    python bench/bench_heavy_jacobian.py [--reps N] [--sample T] [--full] [--think S]

1. The heavy job: an own model at H = 128 (the largest a learner can train), a sentence of
   limits.MAX_TOKENS = 200 tokens, the BPTT page's all-pairs norms for one slider move with
   Frobenius chosen: spectral (the verdict) + Frobenius (the heatmap). Elman (S = H) and LSTM
   (S = 2H, [h; c]). "before": the unbounded engine on all 200 steps. It takes minutes, so by
   default it is timed on the first --sample steps and extrapolated by the engine's work,
   S^3 T (T - 1) (the per-step cost grows like s; the spectral part's exact fallbacks are
   commoner in short products, so the extrapolation is rough: --full times it all).
   "after": the page's window (rnnviz.engine.jacwindow.jacobian_window), timed whole.
2. A light job: another learner on the default model with a short sentence, uncached: the
   trace and the BPTT page's computations (step Jacobians, all-pairs spectral and Frobenius
   norms, gradient flow, hand BPTT). p50 / p95 of --reps runs alone, then while the heavy
   learner (Elman, the less heavy of the two) moves a slider every --think seconds in another
   thread: "before" the unbounded job (each one outlasts the think time: the core is never
   free), "after" the bounded one. One torch thread, as the app runs (rnnviz sets it).
The machine is shared: absolute times move with its load (printed); the ratios are the result.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from rnnviz import limits
from rnnviz.engine import jacobians, jacwindow
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.trace import trace
from rnnviz.store.catalog import load_builtin

H = limits.MAX_HIDDEN
T = limits.MAX_TOKENS
LIGHT_SENTENCE = "I like cats and you like dogs"


class Stop(Exception):
    """Raised from the engine's progress callback to end a background job early."""


def heavy_setup(cell: str):
    """(step Jacobians (T, S, S), window) of an H = 128 model on a random 200-token sentence."""
    model = RNNModel(RNNConfig(limits.MAX_VOCAB, limits.MAX_EMBED, H, cell=cell), seed=0)
    ids = torch.randint(0, limits.MAX_VOCAB, (T,), generator=torch.Generator().manual_seed(0)).tolist()
    tr = trace(model, ids)
    J = jacobians.step_jacobians(model, tr)
    return J, jacwindow.jacobian_window(T, J.shape[1])


def page_job(J: torch.Tensor, start: int = 0, stop_flag: threading.Event | None = None) -> None:
    """One slider move's all-pairs work on steps start..: spectral, then Frobenius."""
    def progress(done, total):
        if stop_flag is not None and stop_flag.is_set():
            raise Stop

    for ord_ in (2, "fro"):
        jacobians.product_norms(J[start:], ord_, progress)


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def heavy_table(sample: int, full: bool) -> list[str]:
    lines = [f"Heavy job: H = {H}, T = {T}, spectral + Frobenius all-pairs norms (one slider move), "
             f"budget MAX_JACOBIAN_WORK = {limits.MAX_JACOBIAN_WORK:.3g}"]
    for cell in ("elman", "lstm"):
        J, win = heavy_setup(cell)
        S = J.shape[1]
        if full:
            before, how = timed(lambda: page_job(J)), "measured on all 200 steps"  # noqa: B023
        else:
            part = timed(lambda: page_job(J[:sample]))  # noqa: B023
            before = part * jacwindow.work(T, S) / jacwindow.work(sample, S)
            how = f"measured on {sample} steps ({part:.2f} s), extrapolated by S^3 T (T - 1)"
        after = timed(lambda: page_job(J, win.start))  # noqa: B023
        lines.append(f"  {cell:5s} S = {S:3d}: before {before:8.1f} s ({how})")
        lines.append(f"              after  {after:8.2f} s (window: steps {win.first}-{win.last}, "
                     f"{win.size} steps, work {jacwindow.work(win.size, S):.3g})   before/after = "
                     f"{before / after:.0f}x")
    return lines


def light_setup():
    model, vocab, meta = load_builtin("default")
    from rnnviz.text.corpora import lm_pair
    from rnnviz.text.tokenize import prepare
    ids, targets = lm_pair(list(prepare(LIGHT_SENTENCE, vocab, meta.get("level", "word")).ids), vocab)
    return model, ids, targets


def light_job(model, ids, targets) -> None:
    """Another learner's BPTT page on a short sentence, nothing cached."""
    tr = trace(model, ids, targets)
    J = jacobians.step_jacobians(model, tr)
    jacobians.product_norms(J, 2)
    jacobians.product_norms(J, "fro")
    jacobians.gradient_flow(model, tr, J)
    jacobians.hand_bptt(model, tr)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def light_runs(reps: int, gap: float) -> list[float]:
    """reps light jobs, one every `gap` s (a learner clicking), so that they span many of the
    heavy learner's moves."""
    model, ids, targets = light_setup()
    light_job(model, ids, targets)  # warm-up
    out = []
    for _ in range(reps):
        out.append(timed(lambda: light_job(model, ids, targets)))
        time.sleep(max(0.0, gap - out[-1]))
    return out


def with_heavy(reps: int, gap: float, bounded: bool, think: float, tabs: int) -> tuple[list[float], int]:
    """Light runs while `tabs` heavy tabs each move a slider every `think` s (Elman, H = 128,
    T = 200)."""
    J, win = heavy_setup("elman")
    start = win.start if bounded else 0
    stop, moves = threading.Event(), [0]

    def learner():
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                page_job(J, start, stop)
            except Stop:
                return
            moves[0] += 1
            stop.wait(max(0.0, think - (time.perf_counter() - t0)))

    threads = [threading.Thread(target=learner, daemon=True) for _ in range(tabs)]
    for th in threads:
        th.start()
        time.sleep(think / tabs)  # the tabs' moves spread over the think time
    try:
        return light_runs(reps, gap), moves[0]
    finally:
        stop.set()
        for th in threads:
            th.join()


def fmt_runs(name: str, xs: list[float], base: list[float] | None = None) -> str:
    line = f"  {name:34s} p50 {pct(xs, 0.5) * 1000:7.1f} ms   p95 {pct(xs, 0.95) * 1000:7.1f} ms"
    if base:
        p50, p95 = pct(xs, 0.5) / pct(base, 0.5), pct(xs, 0.95) / pct(base, 0.95)
        line += f"   x{p50:.2f} (p50), x{p95:.2f} (p95) of alone"
    return line


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--gap", type=float, default=0.5, help="seconds from one light run to the next")
    ap.add_argument("--sample", type=int, default=50, help="steps timed for the unbounded job")
    ap.add_argument("--full", action="store_true", help="time the unbounded job on all 200 steps")
    ap.add_argument("--think", type=float, default=5.0, help="seconds between the heavy learner's moves")
    ap.add_argument("--tabs", type=int, default=2, help="heavy tabs (threads) at once; 2 fill the 2 cores")
    args = ap.parse_args()
    torch.set_num_threads(1)
    print(f"bench_heavy_jacobian  {time.strftime('%Y-%m-%d %H:%M')}  torch threads 1, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    for line in heavy_table(args.sample, args.full):
        print(line, flush=True)
    print(f"Light job: default model, '{LIGHT_SENTENCE}' + <bos>, trace and the BPTT page's computations, "
          f"uncached, {args.reps} runs {args.gap:g} s apart; heavy learner: {args.tabs} tab(s), Elman "
          f"H = {H}, T = {T}, a slider move every {args.think:g} s in each")
    alone = light_runs(args.reps, args.gap)
    print(fmt_runs("alone", alone), flush=True)
    before, n_before = with_heavy(args.reps, args.gap, False, args.think, args.tabs)
    print(fmt_runs("beside the unbounded heavy job", before, alone) + f"   ({n_before} heavy moves done)",
          flush=True)
    after, n_after = with_heavy(args.reps, args.gap, True, args.think, args.tabs)
    print(fmt_runs("beside the bounded heavy job", after, alone) + f"   ({n_after} heavy moves done)",
          flush=True)
    print(f"  p95 beside the heavy job, before / after: {pct(before, 0.95) / pct(after, 0.95):.2f}x; "
          f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
