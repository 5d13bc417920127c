"""What a class's arrival costs: each learner's first visit to each page with a sentence of their
own, one learner at a time, on a server that has already served someone (imports and models
loaded).

    python bench/bench_arrival.py [--app-root DIR ...] [--learners 10] [--lang en] [--profile [--top 25]]
                                  [--gil-profile RAW]

bench_load.py's learners arrive within a few seconds, each with a sentence of their own
(bench/oracle.sentence_for), and tour Overview -> Hidden states -> Output -> BPTT, moving each
page's step slider once. On one process their first visits queue behind each other, which is
the p95 of the first 40 s (bench/load_over_time.py). Here the same tour runs for --learners
learners in turn (sentences 0..N-1, as bench_load's first N), after one warm-up learner
(sentence 1000, not counted), so each first visit's server time is measured alone: p50 and p95
per page and the tour's sum (the server time one arriving learner costs). Give --app-root
several times to compare checkouts in one run (their servers take turns, root by root).

--profile runs each server under bench/profile_server.py (cProfile around each script run) and
prints each page's top cumulative costs over the counted learners' first visits (profiled times
are inflated; the table of a --profile run is not the before / after table). --gil-profile RAW
samples the server with py-spy (the thread holding the GIL, 100 times a second) through the
counted tours instead, keeps the raw samples in RAW and prints their shares (profile_load.py's).

Loopback only; bounded: at most 40 learners, each run times out after --timeout s.
Not a test: it prints figures; nothing asserts on them.
"""
from __future__ import annotations

import argparse
import asyncio
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import oracle  # noqa: E402
from bench.appserver import app_server, warm_bytecode  # noqa: E402
from bench.bench_load import PLAN, pct  # noqa: E402
from bench.bench_pages import commit_of, summarise_profile  # noqa: E402
from bench.profile_load import shares  # noqa: E402
from bench.stclient import Session  # noqa: E402

MAX_LEARNERS = 40
WARM_UP = 1000  # the warm-up learner's sentence number (not one of bench_load's first 300)


async def tour(base: str, i: int, lang: str, timeout: float, prof: Path | None) -> list[tuple]:
    """Learner i's first tour: [(label, seconds, profile files)] for the session's first run
    (the overview on the start sentence), the overview with the learner's sentence, each page's
    first visit and its step slider's move."""
    s = Session(base, timeout=timeout, query=f"model=default&lang={lang}", browser=True)
    out = []

    async def timed(label: str, page: str | None):
        before = set(prof.glob("run-*.prof")) if prof else set()
        run = await s.rerun(page)
        files = sorted(set(prof.glob("run-*.prof")) - before) if prof else []
        out.append((label, run.seconds, files))

    try:
        await s.connect()
        await timed("overview, new session", "")
        s.set_widget("text", oracle.sentence_for(i))
        await timed("overview, new sentence", None)
        T = oracle.overview(oracle.sentence_for(i))["T"]
        for page, slider in PLAN[:-1]:
            await timed(f"{page} first visit", page)
            if slider in s.seen:
                s.set_widget(slider, [1 + (i + 1) % T])
                await timed(f"{page} step slider", None)
    finally:
        await s.close()
    return out


def run_root(root: Path, args) -> tuple[dict, list]:
    """{label: [seconds]}, [tour sums] for one app root; prints profiles."""
    warm_bytecode(root)
    prof = Path(tempfile.mkdtemp(prefix="bench-arrival-", dir=ROOT / "artifacts")) if args.profile else None
    times, sums, files = {}, [], {}
    with app_server(root, "bench-arrival.log", profile_dir=prof) as (base, proc):
        asyncio.run(tour(base, WARM_UP, args.lang, args.timeout, prof))
        spy = None
        if args.gil_profile:
            spy = subprocess.Popen(["py-spy", "record", "-p", str(proc.pid), "-r", "100", "-f", "raw", "-o",
                                    str(args.gil_profile), "--nonblocking", "--threads", "--gil"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)
        for i in range(args.learners):
            rows = asyncio.run(tour(base, i, args.lang, args.timeout, prof))
            sums.append(sum(r[1] for r in rows if "slider" not in r[0]))
            for label, seconds, fs in rows:
                times.setdefault(label, []).append(seconds)
                files.setdefault(label, []).extend(fs)
        if spy is not None:
            spy.send_signal(signal.SIGINT)  # py-spy writes its samples on an interrupt
            spy.wait(timeout=60)
    if args.gil_profile:
        shares(args.gil_profile, args.top)
    if prof:
        for label, fs in files.items():
            if fs and "slider" not in label:
                p = summarise_profile(fs, len(times[label]), args.top)
                print(f"\n--- {root.name} {args.lang} {label}: {p['total_s']:.3f} s profiled per run "
                      f"(self by library: {p['self_by_lib']})")
                for e in p["top"]:
                    print(f"  {e['cum_s']:8.4f} s {e['pct']:5.1f} %  {e['calls']:6d}  {e['func']}")
    return times, sums


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app-root", action="append", default=None, help="a checkout (default: this one)")
    ap.add_argument("--learners", type=int, default=10)
    ap.add_argument("--lang", default="en", choices=("en", "zh"))
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--gil-profile", type=Path, default=None, metavar="RAW",
                    help="sample the server with py-spy through the counted tours (py-spy==0.4.3)")
    args = ap.parse_args(argv)
    args.learners = max(1, min(args.learners, MAX_LEARNERS))
    roots = [Path(r).resolve() for r in (args.app_root or [ROOT])]
    print(f"# {args.learners} learners in turn, lang {args.lang}, after one warm-up learner; "
          f"load {' '.join(Path('/proc/loadavg').read_text().split()[:3])} at {time.strftime('%H:%M:%S')}")
    print(f"{'root':<16} {'what':<26} {'n':>3} {'p50 s':>7} {'p95 s':>7}")
    for root in roots:
        times, sums = run_root(root, args)
        name = f"{root.name}@{commit_of(root)}"
        for label, ts in times.items():
            print(f"{name:<16} {label:<26} {len(ts):>3} {pct(ts, 0.5):>7.3f} {pct(ts, 0.95):>7.3f}")
        print(f"{name:<16} {'a tour (first visits)':<26} {len(sums):>3} {pct(sums, 0.5):>7.3f} "
              f"{pct(sums, 0.95):>7.3f}", flush=True)


if __name__ == "__main__":
    main()
