"""Where Chromium spends a step move: a CPU profile of the renderer, per move, by the code that ran.

    python bench/bench_browser_profile.py [ROOT] [--pages hidden,output,bptt,gates] [--repeat 7]
                                          [--lang en] [--top 12] [--query "&cut=..."]

Starts `streamlit run ROOT/app.py` (bench/appserver.py, loopback; default ROOT: this checkout)
and, per page, opens it in a new context of the system Chromium (Playwright, headless, never a
downloaded browser), waits until the visit is drawn, then moves the step slider --repeat times
(ArrowRight, ArrowLeft, ...) with V8's sampling profiler on (CDP Profiler, a sample every 100 us)
from the key press until the move is drawn (bench/bench_browser_slider.py: the script_finished
frame arrived, the running indicator gone, two animation frames). Printed per page, in ms per
move (the mean of the moves; "drawn" is the median):

- by where the code comes from: each sample goes to the script file of its innermost frame that
  has one, grouped (React, emotion styles, Markdown and KaTeX, the data grid, Plotly.js, the
  app's chart code, Streamlit's other code); "(program)" is the browser's own work outside
  JavaScript (style, layout, paint, parsing), "(idle)" the renderer waiting (for the server);
- the --top functions by self time.

Loopback only; bounded by --repeat (at most 20) and a 120-s wait per step. Not a test: it
asserts nothing.
"""
from __future__ import annotations

import argparse
import collections
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.appserver import app_server  # noqa: E402
from bench.bench_browser_slider import Frames, open_step_slider, settle, step_pages, wait_finished  # noqa: E402
from tools.server import CHROME_ARGS, CHROMIUM  # noqa: E402

# (group, pattern on the script file's name), first match wins
GROUPS = (
    ("React (Streamlit's frontend)", r"^react-dom"),
    ("emotion styles (Streamlit's frontend)", r"^emotion"),
    ("Markdown and KaTeX", r"Markdown|katex|remark|rehype|micromark|mdast|hast"),
    ("data grid (st.dataframe)", r"DataFrame|glide"),
    ("Plotly.js (charts)", r"^plotly"),
    ("the app's chart code (ui/plotly_chart.js)", r"^rnnviz-chart"),
)
BROWSER = {"(program)": "(program): style, layout, paint, parsing", "(idle)": "(idle): waiting",
           "(garbage collector)": "(garbage collector)"}


def group(url: str) -> str:
    name = url.rsplit("/", 1)[-1]
    if not name:
        return "(native functions)"
    return next((g for g, pattern in GROUPS if re.search(pattern, name)), "Streamlit's other frontend code")


def add_profile(profile: dict, by_group: collections.Counter, by_function: collections.Counter) -> None:
    """Add one CDP profile's sample times (us) to the counters."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", ())}
    deltas = profile["timeDeltas"][1:] + [0]  # the time until the next sample is this sample's
    for sample, dt in zip(profile["samples"], deltas):
        frame = nodes[sample]["callFrame"]
        name = frame["functionName"]
        if name in BROWSER:
            by_group[BROWSER[name]] += dt
            continue
        node, url = sample, ""
        while node is not None and not url:
            url = nodes[node]["callFrame"]["url"]
            node = parent.get(node)
        by_group[group(url)] += dt
        by_function[(name or "(anonymous)", frame["url"].rsplit("/", 1)[-1], frame["lineNumber"])] += dt


def profile_page(browser, base: str, page: str, repeat: int, lang: str) -> dict:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        frames = Frames()
        frames.attach(pg)
        cdp = ctx.new_cdp_session(pg)
        slider = open_step_slider(pg, frames, f"{base}/{page}?lang={lang}", page, 120)
        if slider is None:
            raise RuntimeError(f"{page}: no script_finished on the visit")
        pg.wait_for_timeout(500)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 100})
        by_group, by_function = collections.Counter(), collections.Counter()
        drawn, finished = [], []
        for i in range(repeat):
            pg.wait_for_timeout(300)
            slider.focus()
            cdp.send("Profiler.start")
            n, t0 = len(frames.finished), time.perf_counter()
            pg.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            done = wait_finished(pg, frames, n, 120)
            if done is None:
                raise RuntimeError(f"{page}: move {i + 1} had no script_finished in 120 s")
            settle(pg, 120)
            drawn.append(time.perf_counter() - t0)
            finished.append(done - t0)
            add_profile(cdp.send("Profiler.stop")["profile"], by_group, by_function)
        return {"drawn": statistics.median(drawn), "finished": statistics.median(finished),
                "groups": by_group, "functions": by_function}
    finally:
        ctx.close()


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default=str(ROOT))
    ap.add_argument("--pages", default="hidden,output,bptt,gates")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--top", type=int, default=12, help="functions listed per page")
    ap.add_argument("--query", default="", help="added to each page's URL after ?lang= (e.g. '&cut=look')")
    args = ap.parse_args(argv)
    pages = step_pages(ap, args)
    from playwright.sync_api import sync_playwright

    print(f"# {Path(args.root).resolve()}; Chromium {CHROMIUM}; lang={args.lang}{args.query}; "
          f"{args.repeat} step moves per page; ms per move (mean), drawn and finished: medians")
    out = {}
    with sync_playwright() as pw, app_server(Path(args.root), "bench-browser-profile.log") as (base, _):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        try:
            profile_page(browser, base, pages[0], 1, args.lang)  # the first page after start: not timed
            for page in pages:
                r = out[page] = profile_page(browser, base, page, args.repeat, args.lang + args.query)
                load = Path("/proc/loadavg").read_text().split()[0]
                print(f"## {page}: drawn {r['drawn'] * 1000:.0f} ms, finished {r['finished'] * 1000:.0f} ms "
                      f"(load {load})")
                for name, us in r["groups"].most_common():
                    print(f"   {us / 1000 / args.repeat:7.1f}  {name}")
                print(f"   -- top {args.top} functions, self time")
                for (name, script, line), us in r["functions"].most_common(args.top):
                    print(f"   {us / 1000 / args.repeat:7.1f}  {name} ({script or 'native'}:{line})")
        finally:
            browser.close()
    return out


if __name__ == "__main__":
    main()
