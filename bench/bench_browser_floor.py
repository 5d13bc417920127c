"""How fast can a step move be drawn at all? Streamlit's own floor in Chromium, beside the app's
pages and their 4x target, measured in the same run.

    python bench/bench_browser_floor.py [BASE_ROOT] [--pages hidden,output,bptt] [--repeat 7]

Issue 24 asks a step move in Chromium to be 4x faster than at 6134da8 (BASE_ROOT, default
/work/wt/base). This prints, one server at a time (bench/appserver.py, loopback):

- base and current: each page's step move (bench/bench_browser_slider.measure: "finished" when
  the run's script_finished frame arrived, "drawn" when the running indicator is gone and two
  animation frames later, and on a page whose step parts follow the slider in the browser
  (ui/stepped.py), "shown" when every one of them shows the new step and two frames later;
  where the slider sits in a step form (ui/widgets.step_form), the move runs nothing, "drawn" is
  "shown" with no run begun, and "sync" the run that comes when the learner stops), and the
  target, base / 4;
- the floor: bench/apps/fragment_floor.py, a step slider in a fragment with nothing of the app
  around it, drawing with each move: nothing else; a line of text; a 64 x 5 table; page 2's
  terms chart (64 units, ui.charts.chart); that chart sent again unchanged; text, table and
  the changing chart. Same browser, same measure. For the floor
  it also counts the chart elements a move made anew: Streamlit 1.67 gives a chart an element
  id computed from its figure (st.plotly_chart: key_as_main_identity=False) and its frontend
  keys the chart by that id, so every changed chart is unmounted and drawn from scratch
  (Plotly.newPlot), never updated in place.

So a target below the floor of a fragment holding one chart is out of reach for any page that
redraws a chart on a move, whatever the app's server does. Medians; --repeat moves per row (at
most 20); stops at --max-seconds. Not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.appserver import app_server  # noqa: E402
from bench.bench_browser_slider import Frames, measure, settle, step_pages, wait_finished  # noqa: E402
from tools.server import CHROME_ARGS, CHROMIUM  # noqa: E402

TAG_JS = "() => document.querySelectorAll('.js-plotly-plot').forEach(d => { d.__kept = 1; })"
KEPT_JS = "() => [...document.querySelectorAll('.js-plotly-plot')].map(d => !!d.__kept)"
FLOORS = ("", "text", "table", "same chart", "chart", "text,table,chart")  # ?parts= of FLOOR_PAGE
FLOOR_PAGE = "bench/apps/fragment_floor.py"


def floor_parts() -> tuple:
    """The parts FLOOR_PAGE can draw (its PARTS; read, not imported: importing it runs the page)."""
    tree = ast.parse((ROOT / FLOOR_PAGE).read_text())
    return next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                and any(getattr(t, "id", "") == "PARTS" for t in node.targets))


def measure_floor(browser, base: str, parts: str, repeat: int, timeout: float) -> dict:
    """The floor page with ?parts=: the visit, then `repeat` step moves (ArrowRight, ArrowLeft, ...)."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    out = {"finished_s": [], "drawn_s": [], "charts": 0, "remounted": 0}
    try:
        pg = ctx.new_page()
        frames = Frames()
        frames.attach(pg)
        pg.goto(f"{base}/?parts={quote(parts)}", timeout=timeout * 1000)
        if wait_finished(pg, frames, 0, timeout) is None:
            out["error"] = "no script_finished on the visit"
            return out
        settle(pg, timeout)
        slider = pg.locator(".st-key-floor_step").get_by_role("slider").first
        slider.wait_for(state="attached", timeout=timeout * 1000)
        pg.wait_for_timeout(500)
        for i in range(repeat):
            pg.wait_for_timeout(300)
            slider.focus()
            pg.evaluate(TAG_JS)  # each chart's element, to see whether the move keeps it
            n, t0 = len(frames.finished), time.perf_counter()
            pg.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            done = wait_finished(pg, frames, n, timeout)
            if done is None:
                out["error"] = f"move {i + 1}: no script_finished in {timeout:.0f} s"
                break
            settle(pg, timeout)
            out["finished_s"].append(done - t0)
            out["drawn_s"].append(time.perf_counter() - t0)
            kept = pg.evaluate(KEPT_JS)
            out["charts"] += len(kept)
            out["remounted"] += kept.count(False)
    finally:
        ctx.close()
    return out


def med(values) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base_root", nargs="?", default="/work/wt/base")
    ap.add_argument("--pages", default="hidden,output,bptt")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per wait at most")
    ap.add_argument("--max-seconds", type=float, default=900)
    ap.add_argument("--floors", default=";".join(FLOORS),
                    help="the floor rows, ';'-separated ?parts= values (default: %(default)r)")
    args = ap.parse_args(argv)
    pages = step_pages(ap, args)
    unknown = {p for floor in args.floors.split(";") for p in floor.split(",") if p} - set(floor_parts())
    if unknown:
        ap.error(f"--floors: no part {sorted(unknown)} on {FLOOR_PAGE} (it has {floor_parts()})")
    from playwright.sync_api import sync_playwright

    end, loads = time.time() + args.max_seconds, []
    rows: dict[str, dict] = {}
    warm = argparse.Namespace(**{**vars(args), "repeat": 1})
    with contextlib.ExitStack() as stack:
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        stack.callback(browser.close)
        for name, root in (("base", Path(args.base_root).resolve()), ("current", ROOT)):
            with app_server(root, f"bench-floor-{name}.log") as (url, _proc):
                measure(browser, url, pages[0], warm)  # the first page after start: not timed
                for page in pages:
                    if time.time() < end:
                        loads.append(Path("/proc/loadavg").read_text().split()[0])
                        rows[f"{name} {page}"] = measure(browser, url, page, args)
        with app_server(ROOT, "bench-floor.log", script=FLOOR_PAGE) as (url, _proc):
            measure_floor(browser, url, "", 1, args.timeout)  # first run after start: not timed
            for parts in args.floors.split(";"):
                if time.time() < end:
                    loads.append(Path("/proc/loadavg").read_text().split()[0])
                    rows[f"floor slider{' + ' + parts.replace(',', ' + ') if parts else ''}"] = \
                        measure_floor(browser, url, parts, args.repeat, args.timeout)
    print(f"# base = {Path(args.base_root).resolve()}, current = {ROOT}; Chromium {CHROMIUM}, "
          f"lang={args.lang}, {args.repeat} moves per row; medians")
    print(f"# 1-min load average before each row: {' '.join(loads)}"
          + ("; stopped at --max-seconds" if time.time() > end else ""))
    print(f"{'what':<38} {'finished s':>10} {'drawn s':>8} {'shown s':>8} {'sync s':>7}  "
          "charts made anew / charts after a move")
    for what, r in rows.items():
        made = f"  {r['remounted']} / {r['charts']}" if "charts" in r else ""
        shown = f"{med(r['shown_s']):>8.3f}" if r.get("shown_s") else f"{'-':>8}"
        sync = f"{med(r['sync_s']):>7.3f}" if r.get("sync_s") else f"{'-':>7}"
        print(f"{what:<38} {med(r['finished_s']):>10.3f} {med(r['drawn_s']):>8.3f} {shown} {sync}{made}"
              + (f"  {r['error']}" if r.get("error") else ""))
    floor = rows.get("floor slider + chart")
    for page in pages:
        b, c = rows.get(f"base {page}"), rows.get(f"current {page}")
        if not (b and c and b["drawn_s"] and c["drawn_s"]):
            continue
        target = med(b["drawn_s"]) / 4
        line = (f"{page}: 4x target (drawn) {target:.3f} s; current {med(c['drawn_s']):.3f} s "
                f"({med(b['drawn_s']) / med(c['drawn_s']):.2f}x)")
        if floor and floor["drawn_s"]:
            line += (f"; the floor with one chart {med(floor['drawn_s']):.3f} s "
                     f"({med(b['drawn_s']) / med(floor['drawn_s']):.2f}x base)")
        if c.get("sync_s"):  # a step form: the move ran nothing; its sync ran when the learner stopped
            line += f"; the sync's run {med(c['sync_s']):.3f} s from its request, when the learner stops"
        elif c.get("shown_s"):  # the step's parts follow the slider (ui/stepped.py): on screen first
            line += (f"; shown {med(c['shown_s']):.3f} s ({med(b['drawn_s']) / med(c['shown_s']):.2f}x), "
                     f"then the slider's run settles")
        print(line)
    return rows


if __name__ == "__main__":
    main()
