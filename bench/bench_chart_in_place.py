"""How much sooner is a step move drawn with its charts drawn in place? st.plotly_chart against
ui.charts.chart (an st.components.v2 chart updated by Plotly.react), same figures, same browser,
same run.

    python bench/bench_chart_in_place.py [--repeat 9] [--rounds 2]

Streamlit 1.67 mounts a changed st.plotly_chart anew (docs/serving.md, twelfth session); the
app's chart keeps its <div> and updates it (ui/plotly_chart.js). bench/apps/chart_in_place_floor.py
draws, per row, a step slider in a fragment with page 2's terms chart and/or page 4's step
Jacobian, through st.plotly_chart or in place (Plotly.js served from bench/apps/static, as
app.py serves it). Each row: --repeat step moves (bench_browser_floor.measure_floor:
"drawn" when the running indicator is gone and two animation frames later; "made anew": chart
elements a move replaced). The rows go --rounds times in turn, so a slower minute of the machine
falls on both kinds alike. Medians. Not a test: it asserts nothing. Loopback only.
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.appserver import app_server  # noqa: E402
from bench.bench_browser_floor import measure_floor  # noqa: E402
from tools.server import CHROME_ARGS, CHROMIUM  # noqa: E402

PAGE = "bench/apps/chart_in_place_floor.py"
ROWS = ("", "terms", "terms in place", "jacobian", "jacobian in place", "terms,jacobian",
        "terms in place,jacobian in place")


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9, help="moves per row and round (at most 20)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per wait at most")
    ap.add_argument("--max-seconds", type=float, default=600)
    args = ap.parse_args(argv)
    repeat = max(1, min(args.repeat, 20))
    from playwright.sync_api import sync_playwright

    end, loads = time.time() + args.max_seconds, []
    rows = {r: {"finished_s": [], "drawn_s": [], "charts": 0, "remounted": 0} for r in ROWS}
    with contextlib.ExitStack() as stack:
        # (this checkout's .streamlit/config.toml turns static serving on, as for the app)
        url, _proc = stack.enter_context(app_server(ROOT, "bench-chart-in-place.log", script=PAGE))
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        stack.callback(browser.close)
        measure_floor(browser, url, "terms in place", 1, args.timeout)  # Plotly.js fetched: not timed
        for _ in range(args.rounds):
            for parts in ROWS:
                if time.time() > end:
                    break
                loads.append(Path("/proc/loadavg").read_text().split()[0])
                got = measure_floor(browser, url, parts, repeat, args.timeout)
                for k in ("finished_s", "drawn_s"):
                    rows[parts][k] += got[k]
                rows[parts]["charts"] += got["charts"]
                rows[parts]["remounted"] += got["remounted"]
                if got.get("error"):
                    rows[parts]["error"] = got["error"]
    med = lambda v: statistics.median(v) if v else float("nan")  # noqa: E731
    print(f"# Chromium {CHROMIUM}; {repeat} moves per row, {args.rounds} rounds; medians")
    print(f"# 1-min load average before each row: {' '.join(loads)}"
          + ("; stopped at --max-seconds" if time.time() > end else ""))
    print(f"{'slider + ...':<34} {'finished s':>10} {'drawn s':>8} {'over the slider':>16}"
          "  made anew / charts")
    alone = med(rows[""]["drawn_s"])
    for parts, r in rows.items():
        print(f"{parts or '(nothing)':<34} {med(r['finished_s']):>10.3f} {med(r['drawn_s']):>8.3f} "
              f"{med(r['drawn_s']) - alone:>16.3f}  {r['remounted']} / {r['charts']}"
              + (f"  {r['error']}" if r.get("error") else ""))
    for kind in ("terms", "jacobian", "terms,jacobian"):
        in_place = ",".join(f"{k} in place" for k in kind.split(","))
        a, b = med(rows[kind]["drawn_s"]) - alone, med(rows[in_place]["drawn_s"]) - alone
        print(f"{kind}: st.plotly_chart adds {a:.3f} s to a move, drawn in place {b:.3f} s "
              f"({a / b:.2f}x less)" if b > 0 else f"{kind}: drawn in place, it adds nothing measurable")
    return rows


if __name__ == "__main__":
    main()
