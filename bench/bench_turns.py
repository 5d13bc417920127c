"""Page runs taking turns against every run at once, on the same machine in the same hour:
bench/load_over_time.py's class (40 learners, one process by default) with the app's turns
(rnnviz/serve/turns.py, RNNVIZ_PAGE_RUNS as set, 1 slot by default) and with them off
(RNNVIZ_PAGE_RUNS=0), the two settings alternating round by round.

    python bench/bench_turns.py [--rounds 3] [--sessions 40] [--replicas 1] [--seconds 120]
                                [--turns-env RNNVIZ_PAGE_RUN_MAX_WAIT=5 ...]

Each round runs both settings one after the other (the order alternates), so a slow spell of
the machine lands on both. It prints each run's p95 over the whole run, in the first 40 s (the
class arriving) and after it, the server's CPU per run, and the median of each over the rounds
with the ratio off / on. Loopback only; each run is bounded as bench_load.py's (at most 3,600 s,
300 sessions), and --rounds at most 5. Not a test: it prints figures.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_ROUNDS = 5
WINDOW = re.compile(r"^\s*(\d+)-\s*(\d+) s: runs\s+(\d+)\s+p50\s+([\d.]+) s\s+p95\s+([\d.]+) s")
LATE = re.compile(r"^after the first (\d+) s: runs (\d+)\s+p50 ([\d.]+) s\s+p95 ([\d.]+) s")


def one_run(env: dict, args) -> dict:
    """One load_over_time.py run under env: its summary and its windows' figures."""
    cmd = [sys.executable, str(ROOT / "bench" / "load_over_time.py"), "--sessions", str(args.sessions),
           "--replicas", str(args.replicas), "--think", str(args.think), "--seconds", str(args.seconds),
           "--json"]
    out = subprocess.run(cmd, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True,
                         timeout=args.seconds + 600, check=True).stdout
    lines = out.splitlines()
    summary = json.loads(next(line for line in reversed(lines) if line.startswith("{")))
    arrival = [float(m.group(5)) for m in map(WINDOW.match, lines) if m and int(m.group(2)) <= 40]
    late = next((float(m.group(4)) for m in map(LATE.match, lines) if m), float("nan"))
    return {"p95": summary["p95_s"], "p50": summary["p50_s"],
            "arrival_p95": max(arrival, default=float("nan")), "late_p95": late,
            "cpu_ms": summary.get("server_cpu_ms_per_run", float("nan")),
            "errors": summary["errors"], "crosstalk": summary["crosstalk"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sessions", type=int, default=40)
    ap.add_argument("--replicas", type=int, default=1)
    ap.add_argument("--think", type=float, default=5.0)
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--turns-env", nargs="*", default=[], metavar="NAME=VALUE",
                    help="settings for the turns' runs (e.g. RNNVIZ_PAGE_RUNS=2)")
    args = ap.parse_args()
    if not 1 <= args.rounds <= MAX_ROUNDS:
        ap.error(f"--rounds must be 1..{MAX_ROUNDS}")
    on = dict(kv.split("=", 1) for kv in args.turns_env)
    settings = {"turns": on, "all at once": {"RNNVIZ_PAGE_RUNS": "0"}}
    got = {name: [] for name in settings}
    cols = ("p95", "arrival_p95", "late_p95", "p50", "cpu_ms")
    print(f"# {args.sessions} learners, {args.replicas} replica(s), think {args.think} s, {args.seconds} s "
          f"a run; turns: {on or 'defaults'}; p95 over the run, the worst 20-s window of the first 40 s "
          f"(arrival), after 40 s (late); server CPU ms a run")
    print(f"{'round':5s} {'setting':12s} " + " ".join(f"{c:>11s}" for c in cols) + "  errors cross-talk")
    for r in range(args.rounds):
        order = list(settings) if r % 2 == 0 else list(settings)[::-1]
        for name in order:
            row = one_run(settings[name], args)
            got[name].append(row)
            print(f"{r + 1:5d} {name:12s} " + " ".join(f"{row[c]:11.3f}" for c in cols)
                  + f"  {row['errors']:6d} {row['crosstalk']:10d}", flush=True)
    print("median over the rounds, and all at once / turns:")
    for c in cols:
        med = {name: statistics.median(row[c] for row in rows) for name, rows in got.items()}
        print(f"  {c:12s} turns {med['turns']:7.3f}   all at once {med['all at once']:7.3f}   "
              f"ratio {med['all at once'] / med['turns']:5.2f}")


if __name__ == "__main__":
    main()
