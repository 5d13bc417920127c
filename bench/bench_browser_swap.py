"""When does a step move reach the screen, measured inside the page? For the pages whose step parts
follow the slider in the browser (ui/stepped.py).

    python bench/bench_browser_swap.py [ROOT] [--pages hidden,output,bptt] [--repeat 9] [--lang en]

Starts `streamlit run ROOT/app.py` (bench/appserver.py, loopback; default ROOT: this checkout),
opens each page in the system Chromium (Playwright, headless, never a downloaded browser), and
for each of --repeat key presses on the page's step slider (ArrowRight, ArrowLeft, ...) notes, on
the page's own clock (performance.now, from the keydown event): "swapped", when every stepped part
shows the slider's new step (their data-step, set as each part swaps its HTML or has its chart
redrawn), and "frame", the next animation frame after it (the browser paints right after it).
The Chromium benches (bench_browser_floor, bench_browser_slider) measure from Playwright's side
and wait for two frames, which Streamlit's run after the move delays: this says how much of their
"shown" is the page itself. Medians; bounded by --repeat (at most 20) and a 30-s wait per move.
Not a test: it asserts nothing. Loopback only.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.appserver import app_server  # noqa: E402
from bench.bench_browser_slider import SLIDERS, step_pages  # noqa: E402
from tools.server import CHROME_ARGS, CHROMIUM, IDLE_JS  # noqa: E402

INSTALL_JS = """key => {
  window.__swaps = [];
  document.addEventListener('keydown', () => {
    window.__t0 = performance.now(); window.__seen = false; }, true);
  new MutationObserver(() => {
    if (window.__seen || window.__t0 === undefined) return;
    const v = document.querySelector(`.st-key-${key} input[type=range]`)?.value;
    const parts = [...document.querySelectorAll('.rnnviz-stepped, .rnnviz-chart-frame[data-step]')];
    if (!parts.length || !parts.every(p => p.dataset.step === v)) return;
    window.__seen = true;
    const swapped = performance.now() - window.__t0;
    requestAnimationFrame(() => window.__swaps.push([swapped, performance.now() - window.__t0]));
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['data-step']});
}"""


def measure(browser, base: str, page: str, repeat: int, lang: str) -> list:
    """[(swapped ms, frame ms)] of `repeat` moves on one page."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        key = SLIDERS[page]
        pg.goto(f"{base}/{page}?lang={lang}", timeout=120_000)
        pg.wait_for_selector(f".st-key-{key}", timeout=120_000)
        pg.wait_for_function(IDLE_JS, timeout=120_000)
        pg.wait_for_timeout(2000)  # late frames of the visit
        pg.evaluate(INSTALL_JS, key)
        slider = pg.locator(f".st-key-{key}").get_by_role("slider").first
        slider.scroll_into_view_if_needed()
        for i in range(repeat):
            pg.wait_for_timeout(500)
            slider.focus()
            pg.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            pg.wait_for_timeout(150)
            pg.wait_for_function(IDLE_JS, timeout=30_000)
        return pg.evaluate("window.__swaps")
    finally:
        ctx.close()


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default=str(ROOT))
    ap.add_argument("--pages", default="hidden,output,bptt")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--lang", default="en")
    args = ap.parse_args(argv)
    pages = step_pages(ap, args)  # --repeat 1..20, each page with a known step slider
    from playwright.sync_api import sync_playwright

    out = {}
    with app_server(Path(args.root), "bench-swap.log") as (url, _proc), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        try:
            for page in pages:
                out[page] = measure(browser, url, page, args.repeat, args.lang)
        finally:
            browser.close()
    print(f"# {Path(args.root).resolve()}; Chromium {CHROMIUM}; lang={args.lang}; "
          f"{args.repeat} moves per page; in-page ms from keydown, medians")
    print(f"{'page':<8} {'moves':>5} {'swapped ms':>11} {'frame ms':>9}  swapped, each move")
    for page, swaps in out.items():
        if not swaps:
            print(f"{page:<8} {0:>5}  no stepped part on this page")
            continue
        print(f"{page:<8} {len(swaps):>5} {statistics.median(s for s, _ in swaps):>11.1f} "
              f"{statistics.median(f for _, f in swaps):>9.1f}  {[round(s) for s, _ in swaps]}")
    return out


if __name__ == "__main__":
    main()
