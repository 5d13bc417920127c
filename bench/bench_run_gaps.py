"""When each message of a step move reaches the client: the run's answer, message by message.

    python bench/bench_run_gaps.py [--app-root OLD] [--app-root NEW] [--page gates] [--moves 40]
    python bench/bench_run_gaps.py --url http://127.0.0.1:8500   (a running server, e.g. HAProxy)

For each checkout (default: this one) it starts `streamlit run app.py` (bench/appserver.py,
loopback), opens --page over Streamlit's websocket as a browser's page does
(bench/bench_pages.BenchSession), moves its step slider --moves times and prints, per
checkout: the move's time until script_finished (p50, p95), the longest wait between two
consecutive messages of a run (p50), and for the median move each message's arrival (ms after
the request) and size. A run whose script takes 13 ms but whose later messages all arrive
40 ms after the first is the server's socket holding small writes for the client's delayed
acknowledgement (Nagle's algorithm; rnnviz/serve/nodelay.py). Then the ratio of the p50s, OLD
over NEW, measured in the same run. Not a test: it prints figures.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.appserver import app_server  # noqa: E402
from bench.bench_pages import CONTROLS, PAGES, commit_of, next_value, pct, visit  # noqa: E402
from bench.stclient import check_loopback  # noqa: E402

MAX_MOVES = 200


async def moves(url: str, page: str, key: str, n: int) -> list[list[tuple[float, int]]]:
    """n moves of `key` on `page`: per move, (ms after the request, bytes) of each message."""
    s, _run = await visit(url, "en", dict(PAGES)[page], 120)
    kind, body = s.elements[key]
    arrivals: list[tuple[float, int]] = []
    recv = s.ws.recv

    async def timed_recv():
        raw = await recv()
        arrivals.append((time.perf_counter(), len(raw)))
        return raw
    s.ws.recv = timed_recv
    out = []
    try:
        for i in range(n):
            arrivals.clear()
            s.fragment_id = s.fragments.get(key, "")
            s.set_widget(key, next_value(kind, body, i))
            start = time.perf_counter()
            await s.rerun()
            out.append([((t - start) * 1000, size) for t, size in arrivals])
    finally:
        await s.close()
    return out


def until_finished(run: list[tuple[float, int]]) -> float:
    return run[-1][0] if run else float("nan")


def longest_gap(run: list[tuple[float, int]]) -> float:
    times = [t for t, _ in run]
    return max((b - a for a, b in zip(times, times[1:])), default=0.0)


def report(name: str, runs: list) -> float:
    done = [until_finished(run) for run in runs]
    gaps = [longest_gap(run) for run in runs]
    middle = sorted(runs, key=until_finished)[len(runs) // 2]
    print(f"{name}: {len(runs)} moves, until script_finished p50 {statistics.median(done):.1f} ms, "
          f"p95 {pct(done, 0.95):.1f} ms; longest wait between two messages p50 "
          f"{statistics.median(gaps):.1f} ms")
    print("  the median move, each message (ms after the request, bytes): "
          + ", ".join(f"{t:.1f} ({size})" for t, size in middle))
    return statistics.median(done)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app-root", action="append", default=None, help="checkouts, in order")
    ap.add_argument("--page", default="gates", choices=sorted(p for p, c in CONTROLS.items()
                                                              if c and c[0][0] == "step slider"))
    ap.add_argument("--moves", type=int, default=40)
    ap.add_argument("--url", default=None,
                    help="a server already running on loopback (e.g. HAProxy of deploy/replicas.py) instead")
    args = ap.parse_args(argv)
    if not 1 <= args.moves <= MAX_MOVES:
        ap.error(f"--moves must be 1..{MAX_MOVES}")
    key = CONTROLS[args.page][0][1]
    if args.url:
        check_loopback(args.url)
        report(f"{args.url}, {args.page} {key}", asyncio.run(moves(args.url, args.page, key, args.moves)))
        return
    p50 = {}
    for root in [Path(r).resolve() for r in (args.app_root or [ROOT])]:
        with app_server(root, "bench-run-gaps.log") as (url, _proc):
            runs = asyncio.run(moves(url, args.page, key, args.moves))
        p50[root] = report(f"{root} at {commit_of(root)}, {args.page} {key}", runs)
    if len(p50) == 2:
        (old, a), (new, b) = p50.items()
        print(f"ratio {old.name} / {new.name} (p50 until script_finished): {a / b:.2f}")


if __name__ == "__main__":
    main()
