"""The first page after `streamlit run`, two checkouts started in turn: how long until the server
answers /_stcore/health, and how long the overview's first run takes after that.

    python bench/bench_first_page.py [BASE_ROOT [CURRENT_ROOT]] [--starts 5] [--lang en] [--json FILE]

Defaults: BASE_ROOT /work/wt/base (commit 6134da8), CURRENT_ROOT this checkout. Each start is a
new process (`streamlit run` on 127.0.0.1 and a free port, bench/appserver.py, bytecode warmed
once per root as a deployed server has it), with the checkout's own .streamlit/config.toml as
a bare `streamlit run app.py` reads it (file watcher included; --watcher overrides it for
both). The roots alternate, and which goes first alternates, so both see the same machine.
For each start:

- healthy: from the start until /_stcore/health answers "ok" (asked every 20 ms);
- first page: a new websocket session asks for the overview; from its request until
  script_finished (Python client, bench/stclient.py), the server's first run: importing PyTorch,
  pandas and the app, then drawing the page;
- total: the two together, what the issue's "first page after streamlit run" counts.

Prints each start, then per root the median and max of each, and the ratio base / current.
Bounded: at most 20 starts per root; loopback only. Not a test: nothing asserts on the figures.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.appserver import app_server, warm_bytecode  # noqa: E402
from bench.bench_pages import visit  # noqa: E402
from bench.stclient import RunError  # noqa: E402

MAX_STARTS = 20


async def first_run(url: str, lang: str, timeout: float):
    session, run = await visit(url, lang, "", timeout)
    await session.close()
    return run


def one_start(root: Path, lang: str, timeout: float, watcher: str | None) -> dict:
    """Start a server on root, time healthy and the overview's first run, stop it."""
    t0 = time.perf_counter()
    try:
        with app_server(root, "bench-first-page.log", timeout=timeout, poll=0.02,
                        watcher=watcher) as (url, _proc):
            healthy = time.perf_counter() - t0
            run = asyncio.run(first_run(url, lang, timeout))
    except (RuntimeError, RunError) as err:  # not healthy, or the first run failed
        return {"error": str(err)}
    return {"healthy_s": round(healthy, 3), "first_page_s": round(run.seconds, 3),
            "total_s": round(healthy + run.seconds, 3), "kb": round(run.bytes / 1000)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", help="BASE_ROOT [CURRENT_ROOT]")
    ap.add_argument("--starts", type=int, default=5, help="starts per root")
    ap.add_argument("--lang", default="en")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--watcher", default=None, choices=["none", "auto", "poll", "watchdog"],
                    help="--server.fileWatcherType for both; default: each checkout's own "
                         ".streamlit/config.toml, as a bare `streamlit run app.py` starts it")
    ap.add_argument("--json", default=None, metavar="FILE")
    args = ap.parse_args(argv)
    if not 1 <= args.starts <= MAX_STARTS:
        ap.error(f"--starts must be 1..{MAX_STARTS}")
    roots = [Path(r).resolve() for r in (args.roots or ["/work/wt/base", str(ROOT)])]
    if len(roots) == 1:
        roots.append(ROOT)
    names = ("base", "current")
    for root in roots:
        warm_bytecode(root)
    results: dict = {n: [] for n in names}
    for k in range(args.starts):
        for j in ((0, 1) if k % 2 == 0 else (1, 0)):
            load = Path("/proc/loadavg").read_text().split()[0]
            res = {**one_start(roots[j], args.lang, args.timeout, args.watcher), "load": load}
            results[names[j]].append(res)
            print(f"# start {k + 1} {names[j]:8s} {res}", file=sys.stderr, flush=True)
    print(f"# base = {roots[0]}, current = {roots[1]}; lang={args.lang}; "
          f"file watcher {args.watcher or 'as each config.toml says'}; {args.starts} starts each")
    print(f"{'root':8s} {'healthy s':>18s} {'first page s':>18s} {'total s':>18s}   (median, max)")
    med = {}
    for n in names:
        ok = [r for r in results[n] if "error" not in r]
        cols = []
        for key in ("healthy_s", "first_page_s", "total_s"):
            vals = [r[key] for r in ok]
            med[(n, key)] = statistics.median(vals) if vals else float("nan")
            cols.append(f"{med[(n, key)]:.2f}, {max(vals) if vals else float('nan'):.2f}")
        errors = len(results[n]) - len(ok)
        note = f"   {errors} errors" if errors else ""
        print(f"{n:8s} {cols[0]:>18s} {cols[1]:>18s} {cols[2]:>18s}{note}")
    print("ratio base / current (median): " + ", ".join(
        f"{key.removesuffix('_s').replace('_', ' ')} {med[('base', key)] / med[('current', key)]:.2f}"
        for key in ("healthy_s", "first_page_s", "total_s")))
    if args.json:
        Path(args.json).write_text(json.dumps({"roots": [str(r) for r in roots], **results}, indent=1))
    return results


if __name__ == "__main__":
    main()
