"""What drawing each page's charts costs the browser: Plotly.js in headless Chromium, per figure,
drawn once (Plotly.newPlot) and drawn as Streamlit 1.67's chart component draws a changed chart
(newPlot, then Plotly.react with the figure copied through JSON: its theme effect, which runs on
every mount).

    python bench/bench_chart_draw.py [--pages hidden,output,bptt] [--repeat 12]

The figures are the ones a warm AppTest run of each page hands st.plotly_chart
(bench/bench_chart_json.page_figures), as JSON. Plotly.js is plotly.py's own bundle
(plotly/package_data/plotly.min.js, opened from a file: no network). Each figure is drawn
--repeat times in a new 1,100-px-wide div (the first two not counted); the time is until
the draw's promise resolves. Prints per figure the medians and the ratio of the two (about 2:
the component draws each changed chart twice). The system Chromium only (tools/server.py's
CHROMIUM and CHROME_ARGS). Not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.server import CHROME_ARGS, CHROMIUM  # noqa: E402

DRAW_JS = """async ([spec, n, twice]) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const div = document.createElement('div'); div.style.width = '1100px'; document.body.appendChild(div);
    const t0 = performance.now();
    const layout = Object.assign({}, spec.layout, {width: 1100});
    await Plotly.newPlot(div, JSON.parse(JSON.stringify(spec.data)), layout);
    if (twice) {  // Streamlit 1.67's PlotlyChart: its theme effect sets a JSON copy of the figure
      const copy = JSON.parse(JSON.stringify({data: div.data, layout: div.layout}));
      await Plotly.react(div, copy.data, copy.layout);
    }
    times.push(performance.now() - t0);
    Plotly.purge(div); div.remove();
  }
  return times.slice(2); }"""


def plotly_js() -> Path:
    import plotly
    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def page_specs(pages: list[str]) -> list[tuple[str, str, dict]]:
    """(page, title, figure JSON) of every chart the pages draw."""
    import plotly.io as pio

    from bench.bench_chart_json import page_figures
    out = []
    for page in pages:
        for fig in page_figures(page):
            spec = json.loads(pio.to_json(fig.to_dict(), validate=False))
            out.append((page, ((spec["layout"].get("title") or {}).get("text") or "")[:48], spec))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="hidden,output,bptt")
    ap.add_argument("--repeat", type=int, default=12)
    args = ap.parse_args(argv)
    if not 3 <= args.repeat <= 50:
        ap.error("--repeat must be 3..50")
    specs = page_specs([p for p in args.pages.split(",") if p])
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        html = Path(tmp) / "draw.html"
        html.write_text(f"<html><body><script src='{plotly_js().as_uri()}'></script></body></html>")
        browser = pw.chromium.launch(executable_path=CHROMIUM,
                                     args=[*CHROME_ARGS, "--allow-file-access-from-files"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(html.as_uri())
            page.wait_for_function("() => !!window.Plotly")
            print(f"# Plotly.js {page.evaluate('() => Plotly.version')} in {CHROMIUM}; medians of "
                  f"{args.repeat - 2} draws; load {os.getloadavg()[0]:.2f}")
            print(f"{'page':8s} {'figure':50s} {'newPlot ms':>10s} {'as Streamlit ms':>16s} {'ratio':>6s}")
            for name, title, spec in specs:
                once = statistics.median(page.evaluate(DRAW_JS, [spec, args.repeat, False]))
                twice = statistics.median(page.evaluate(DRAW_JS, [spec, args.repeat, True]))
                print(f"{name:8s} {title:50s} {once:10.1f} {twice:16.1f} {twice / once:6.2f}")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
