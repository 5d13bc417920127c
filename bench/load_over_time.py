"""bench_load.py's learners, with each run's finish time kept: p50 and p95 per 20-s window and
after the first 40 s, to tell a class's arrival (every learner's first visit to each page, with a
sentence of their own, at once) from the steady state.

    python bench/load_over_time.py [bench_load.py's options, e.g. --sessions 40 --think 5 --seconds 120]

Bounded as bench_load.py is; loopback only. Not a test: it prints figures.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import bench_load  # noqa: E402

WINDOW_S, ARRIVAL_S = 20, 40


def main(argv=None) -> list[tuple[float, str, float]]:
    marks = []  # (finish time, page label, seconds to script_finished)
    add = bench_load.Stats.add

    def kept(self, label, run):
        marks.append((time.time(), label, run.seconds))
        return add(self, label, run)

    bench_load.Stats.add = kept
    try:
        bench_load.main(argv)
    finally:
        bench_load.Stats.add = add
    if not marks:
        return marks
    t0 = min(m[0] for m in marks)
    pct = bench_load.pct
    end = max(m[0] for m in marks) - t0
    for lo in range(0, int(end) + 1, WINDOW_S):
        got = [m for m in marks if lo <= m[0] - t0 < lo + WINDOW_S]
        times, visits = [m[2] for m in got], [m[2] for m in got if "slider" not in m[1]]
        print(f"{lo:4d}-{lo + WINDOW_S:4d} s: runs {len(got):4d}  p50 {pct(times, 0.5):6.3f} s  "
              f"p95 {pct(times, 0.95):6.3f} s  page visits p95 {pct(visits, 0.95):6.3f} s")
    late = [m[2] for m in marks if m[0] - t0 >= ARRIVAL_S]
    print(f"after the first {ARRIVAL_S} s: runs {len(late)}  p50 {pct(late, 0.5):.3f} s  "
          f"p95 {pct(late, 0.95):.3f} s")
    return marks


if __name__ == "__main__":
    main()
