"""What a step move costs the browser after the server has answered: the renderer's own counters
per move, and which elements the move rebuilt, for one checkout in Chromium.

    python bench/bench_draw_work.py [ROOT] [--pages hidden,output,bptt] [--repeat 7] [--lang en]

Starts `streamlit run ROOT/app.py` (bench/appserver.py; default ROOT: this checkout) and, per
page, opens it in a new context of the system Chromium (Playwright, headless, never a downloaded
browser), waits until the visit is drawn, then moves the step slider --repeat times (ArrowRight,
ArrowLeft, ...). Per move (medians printed):

- finished / drawn: as bench/bench_browser_slider.py (script_finished frame arrived; then the
  running indicator gone and two animation frames);
- the renderer's counters around the move, from CDP Performance.getMetrics (read 0.4 s after it
  is drawn): TaskDuration (all main-thread tasks), ScriptDuration (JavaScript),
  RecalcStyleDuration, LayoutDuration, and Nodes (DOM nodes made);
- on the first two moves: the element containers whose DOM the move added (a MutationObserver
  on the page; an added subtree is counted with everything below it), by Streamlit element kind
  and widget key, largest first.

Loopback only; bounded by --repeat (at most 20) and a 120-s wait per step. Not a test: it
asserts nothing.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.appserver import app_server  # noqa: E402
from bench.bench_browser_slider import Frames, open_step_slider, settle, step_pages, wait_finished  # noqa: E402
from tools.server import CHROME_ARGS, CHROMIUM  # noqa: E402

COUNTERS = ("TaskDuration", "ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "Nodes")
WATCH_JS = """() => { window.__adds = []; window.__obs = new MutationObserver(ms => {
  for (const m of ms) for (const n of m.addedNodes) {
    if (n.nodeType !== 1) continue;
    const c = n.closest('[data-testid="stElementContainer"]');
    const inner = c && c.querySelector('[data-testid]:not([data-testid="stElementContainer"])');
    const kind = c ? (inner ? inner.getAttribute('data-testid') : '?') : 'outside an element';
    const key = c ? ((c.className.match(/st-key-[\\w-]+/) || [''])[0]) : '';
    window.__adds.push([kind, key, n.getElementsByTagName('*').length + 1]); } });
  window.__obs.observe(document.body, {childList: true, subtree: true}); }"""
TAKE_JS = "() => { window.__obs.disconnect(); return window.__adds; }"


def counters(cdp) -> dict:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def rebuilt(adds: list) -> list[tuple[int, str]]:
    """(nodes, 'kind key') per element container, largest first."""
    per: dict[str, int] = {}
    for kind, key, nodes in adds:
        name = f"{kind} {key}".strip()
        per[name] = per.get(name, 0) + nodes
    return sorted(((n, k) for k, n in per.items()), reverse=True)


def measure(browser, base: str, page: str, repeat: int, lang: str) -> tuple[list[dict], list]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        frames = Frames()
        frames.attach(pg)
        cdp = ctx.new_cdp_session(pg)
        cdp.send("Performance.enable")
        slider = open_step_slider(pg, frames, f"{base}/{page}?lang={lang}", page, 120)
        if slider is None:
            raise RuntimeError(f"{page}: no script_finished on the visit")
        pg.wait_for_timeout(500)  # with open_step_slider's 0.5 s: 1 s for late frames of the visit
        rows, seen = [], []
        for i in range(repeat):
            pg.wait_for_timeout(300)
            slider.focus()
            if i < 2:
                pg.evaluate(WATCH_JS)
            before, n, t0 = counters(cdp), len(frames.finished), time.perf_counter()
            pg.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            done = wait_finished(pg, frames, n, 120)
            if done is None:
                raise RuntimeError(f"{page}: move {i + 1} had no script_finished in 120 s")
            settle(pg, 120)
            drawn = time.perf_counter() - t0
            pg.wait_for_timeout(400)
            after = counters(cdp)
            if i < 2:
                seen.append(rebuilt(pg.evaluate(TAKE_JS)))
            rows.append({"finished": done - t0, "drawn": drawn,
                         **{k: after[k] - before[k] for k in COUNTERS}})
        return rows, seen
    finally:
        ctx.close()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default=str(ROOT))
    ap.add_argument("--pages", default="hidden,output,bptt")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--top", type=int, default=6, help="element containers listed per move")
    args = ap.parse_args(argv)
    pages = step_pages(ap, args)
    from playwright.sync_api import sync_playwright

    print(f"# {Path(args.root).resolve()}; Chromium {CHROMIUM}; lang={args.lang}; "
          f"medians of {args.repeat} step moves")
    print(f"{'page':<10} {'finished ms':>11} {'drawn ms':>9} {'task ms':>8} {'script ms':>9} "
          f"{'style ms':>8} {'layout ms':>9} {'nodes':>6}")
    details = []
    with sync_playwright() as pw, app_server(Path(args.root), "bench-draw-work.log") as (base, _):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        try:
            measure(browser, base, pages[0], 1, args.lang)  # the first page after start: not timed
            for page in pages:
                rows, seen = measure(browser, base, page, args.repeat, args.lang)
                med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
                print(f"{page:<10} {med['finished'] * 1000:11.0f} {med['drawn'] * 1000:9.0f} "
                      f"{med['TaskDuration'] * 1000:8.0f} {med['ScriptDuration'] * 1000:9.0f} "
                      f"{med['RecalcStyleDuration'] * 1000:8.0f} {med['LayoutDuration'] * 1000:9.0f} "
                      f"{med['Nodes']:6.0f}", flush=True)
                details.append((page, seen))
        finally:
            browser.close()
    for page, seen in details:
        for i, per in enumerate(seen, 1):
            print(f"## {page}, move {i}: DOM added, by element (nodes)")
            for nodes, name in per[:args.top]:
                print(f"   {nodes:7d}  {name}")


if __name__ == "__main__":
    main()
