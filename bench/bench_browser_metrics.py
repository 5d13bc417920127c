"""What the renderer does in a step move, by Chromium's own counters: script, style, layout and the
rest of its main-thread tasks, and (--trace) its main thread's trace events by self time.

    python bench/bench_browser_metrics.py [ROOT] [--pages hidden,output,bptt] [--repeat 9]
                                          [--lang en] [--query "&cut=..."] [--trace]

Starts `streamlit run ROOT/app.py` (bench/appserver.py, loopback; default ROOT: this checkout),
opens each page in a new context of the system Chromium (Playwright, headless, never a
downloaded browser) at ?lang=<lang><query>, waits until the visit is drawn, moves the step
slider once (not counted), then --repeat times (ArrowLeft, ArrowRight, ...), each until drawn
(bench/bench_browser_slider.py: script_finished arrived, the running indicator gone, two
animation frames). Per move, medians:

- from CDP Performance.getMetrics, the change over the move: ScriptDuration (JavaScript),
  RecalcStyleDuration and LayoutDuration (style and layout), TaskDuration (every main-thread
  task, so also paint, compositing and parsing), their counts, and the DOM nodes made;
- the CSS rules inserted (CSSStyleSheet.insertRule, counted in the page): a new rule makes
  Chromium match styles again;
- with --trace, the renderer main thread's trace events (devtools.timeline) by self time,
  summed over the moves and divided by their number.

--query adds to the URL, e.g. to compare a throw-away copy's variants on one server. Loopback
only; bounded by --repeat (at most 20) and a 120-s wait per move. Not a test: it asserts
nothing.
"""
from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.appserver import app_server  # noqa: E402
from bench.bench_browser_slider import Frames, open_step_slider, settle, step_pages, wait_finished  # noqa: E402
from tools.server import CHROME_ARGS, CHROMIUM  # noqa: E402

COUNT_RULES_JS = """() => { if (window.__rules !== undefined) return; window.__rules = 0;
  const insert = CSSStyleSheet.prototype.insertRule;
  CSSStyleSheet.prototype.insertRule = function (...a) {
    window.__rules++; return insert.apply(this, a); }; }"""
METRICS = ("ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "TaskDuration", "RecalcStyleCount",
           "LayoutCount", "Nodes")
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink", "toplevel"]


def metrics(cdp) -> dict:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def self_times(trace_file: Path) -> collections.Counter:
    """us of self time per event name on the busiest renderer main thread of a trace."""
    events = json.loads(trace_file.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    busy = collections.Counter()
    for e in events:
        if e.get("ph") == "X":
            busy[(e["pid"], e["tid"])] += e.get("dur", 0)
    main = max((k for k, v in names.items() if v == "CrRendererMain"), key=busy.__getitem__)
    spans = sorted((e for e in events if (e["pid"], e["tid"]) == main and e.get("ph") == "X"),
                   key=lambda e: (e["ts"], -e.get("dur", 0)))
    out, open_spans = collections.Counter(), []
    for e in spans:
        start, dur = e["ts"], e.get("dur", 0)
        while open_spans and open_spans[-1][0] + open_spans[-1][1] <= start:
            open_spans.pop()
        if open_spans:
            out[open_spans[-1][2]] -= dur  # the parent's self time excludes its children
        out[e["name"]] += dur
        open_spans.append((start, dur, e["name"]))
    return out


def measure_page(browser, base: str, page: str, args) -> dict:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        pg.add_init_script(f"({COUNT_RULES_JS})()")
        frames = Frames()
        frames.attach(pg)
        cdp = ctx.new_cdp_session(pg)
        cdp.send("Performance.enable")
        slider = open_step_slider(pg, frames, f"{base}/{page}?lang={args.lang}{args.query}", page, 120)
        if slider is None:
            raise RuntimeError(f"{page}: no script_finished on the visit")
        trace_file = Path(tempfile.mkstemp(suffix=".json")[1])
        rows, drawn = [], []
        for i in range(args.repeat + 1):  # the first move is not counted
            if i == 1 and args.trace:
                browser.start_tracing(page=pg, path=str(trace_file), categories=TRACE_CATEGORIES)
            pg.wait_for_timeout(300)
            slider.focus()
            before, rules = metrics(cdp), pg.evaluate("() => window.__rules")
            n, t0 = len(frames.finished), time.perf_counter()
            pg.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            if wait_finished(pg, frames, n, 120) is None:
                raise RuntimeError(f"{page}: move {i + 1} had no script_finished in 120 s")
            settle(pg, 120)
            seconds = time.perf_counter() - t0
            after = metrics(cdp)
            if i:
                drawn.append(seconds)
                rows.append({k: after[k] - before[k] for k in METRICS}
                            | {"rules": pg.evaluate("() => window.__rules") - rules})
        if args.trace:
            browser.stop_tracing()
        out = {"drawn": statistics.median(drawn), "rows": rows,
               "nodes": pg.evaluate("() => document.getElementsByTagName('*').length")}
        if args.trace:
            out["trace"] = self_times(trace_file)
        trace_file.unlink(missing_ok=True)
        return out
    finally:
        ctx.close()


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default=str(ROOT))
    ap.add_argument("--pages", default="hidden,output,bptt")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--query", default="", help="added to each page's URL (e.g. '&cut=look')")
    ap.add_argument("--trace", action="store_true", help="also the main thread's trace events")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args(argv)
    args.repeat = max(1, min(args.repeat, 20))
    pages = step_pages(ap, args)
    from playwright.sync_api import sync_playwright

    results = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        try:
            with app_server(Path(args.root).resolve(), "bench-browser-metrics.log") as (url, _proc):
                for page in pages:
                    results[page] = measure_page(browser, url, page, args)
        finally:
            browser.close()
    print(f"# {Path(args.root).resolve()}; Chromium {CHROMIUM}; lang={args.lang}{args.query}; "
          f"{args.repeat} step moves per page; per move, medians (ms unless said)")
    print(f"{'page':<10} {'drawn':>6} {'script':>7} {'style':>6} {'layout':>7} {'tasks':>6} {'styles':>7} "
          f"{'layouts':>8} {'new nodes':>10} {'CSS rules':>10} {'DOM nodes':>10}")
    for page, r in results.items():
        m = {k: statistics.median(row[k] for row in r["rows"]) for k in (*METRICS, "rules")}
        print(f"{page:<10} {r['drawn'] * 1000:>6.0f} {m['ScriptDuration'] * 1000:>7.1f} "
              f"{m['RecalcStyleDuration'] * 1000:>6.1f} {m['LayoutDuration'] * 1000:>7.1f} "
              f"{m['TaskDuration'] * 1000:>6.1f} {m['RecalcStyleCount']:>7.0f} {m['LayoutCount']:>8.0f} "
              f"{m['Nodes']:>10.0f} {m['rules']:>10.0f} {r['nodes']:>10}")
    for page, r in results.items():
        if "trace" in r:
            print(f"## {page}: renderer main thread, self ms per move (trace events)")
            for name, us in r["trace"].most_common(args.top):
                print(f"   {us / 1000 / args.repeat:8.1f}  {name}")
    return results


if __name__ == "__main__":
    main()
