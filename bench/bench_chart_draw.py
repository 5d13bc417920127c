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

--why-twice adds why the component's second draw is a whole redraw, not a no-op. Plotly.react
redraws when its diff finds a change; it compares `layout.template` (valType "any") and typed
arrays (the figures' base64 `bdata`, decoded anew for each call) by identity, and the JSON copy
makes new ones. Columns, each drawn as the component draws (the spec as Streamlit keeps it,
then Plotly.react with its JSON copy): as sent; with a constant `layout.datarevision` (no array
then counts as changed by identity); with it and no template; with it, no template and data
arrays of up to 5,000 numbers as plain lists. Streamlit's theme (st.plotly_chart's default,
theme="streamlit") always adds a template, so the last column is not something the app can
send while it keeps Streamlit's look; it shows what bounds the second draw.
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


COPY_JS = """async ([spec, n, twice]) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const div = document.createElement('div'); div.style.width = '1100px'; document.body.appendChild(div);
    const t0 = performance.now();
    const state = JSON.parse(JSON.stringify(spec)); state.layout.width = 1100;
    await Plotly.react(div, state.data, state.layout);
    if (twice) {  // the component's theme effect: a JSON copy of its state
      const copy = JSON.parse(JSON.stringify(state)); await Plotly.react(div, copy.data, copy.layout);
    }
    times.push(performance.now() - t0);
    Plotly.purge(div); div.remove();
  }
  return times.slice(2); }"""
LIST_LIMIT = 5000  # numbers: a longer array stays base64 (--why-twice's last column)


def variant(spec: dict, revision: bool = False, template: bool = True, lists: bool = False) -> dict:
    """A copy of a figure spec for --why-twice: a constant datarevision, no template, short
    base64 arrays as lists."""
    out = json.loads(json.dumps(spec))
    if revision:
        out["layout"]["datarevision"] = "fixed"
    if not template:
        out["layout"].pop("template", None)
    if lists:
        out["data"] = _as_lists(out["data"])
    return out


def _as_lists(value):
    """Every base64 array of up to LIST_LIMIT numbers as a list (rnnviz/figures/wire.py decodes)."""
    from rnnviz.figures.wire import decoded
    if isinstance(value, dict) and set(value) >= {"bdata", "dtype"}:
        arr = decoded(value)
        return arr.tolist() if arr is not None and arr.size <= LIST_LIMIT else value
    if isinstance(value, dict):
        return {k: _as_lists(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_lists(v) for v in value]
    return value


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
    ap.add_argument("--why-twice", action="store_true",
                    help="also: the second draw with a datarevision, without the template, with lists")
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
            if args.why_twice:
                why_twice(page, specs, args.repeat)
                return
            print(f"{'page':8s} {'figure':50s} {'newPlot ms':>10s} {'as Streamlit ms':>16s} {'ratio':>6s}")
            for name, title, spec in specs:
                once = statistics.median(page.evaluate(DRAW_JS, [spec, args.repeat, False]))
                twice = statistics.median(page.evaluate(DRAW_JS, [spec, args.repeat, True]))
                print(f"{name:8s} {title:50s} {once:10.1f} {twice:16.1f} {twice / once:6.2f}")
        finally:
            browser.close()


def why_twice(page, specs, repeat: int) -> None:
    """--why-twice: ms to draw once, and as the component draws, for each variant (see above)."""
    cols = (("once", None), ("as sent", {}), ("+revision", {"revision": True}),
            ("+no template", {"revision": True, "template": False}),
            ("+lists", {"revision": True, "template": False, "lists": True}))
    print(f"{'page':8s} {'figure':44s} " + " ".join(f"{c:>13s}" for c, _ in cols) + "   KB sent, with lists")
    for name, title, spec in specs:
        row = []
        for _, kw in cols:
            sp = spec if kw is None else variant(spec, **kw)
            row.append(statistics.median(page.evaluate(COPY_JS, [sp, repeat, kw is not None])))
        kb = (len(json.dumps(spec)) / 1000, len(json.dumps(variant(spec, lists=True))) / 1000)
        print(f"{name:8s} {title[:44]:44s} " + " ".join(f"{v:13.1f}" for v in row)
              + f"   {kb[0]:.0f}, {kb[1]:.0f}")


if __name__ == "__main__":
    main()
