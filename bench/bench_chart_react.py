"""What one changed chart costs Chromium on a step move, drawn in place (Plotly.react), with and
without steady margins (ui/plotly_chart.js: a new figure of the same sentence starts from the
margins the chart has, and Plotly's automargin only grows them).

    python bench/bench_chart_react.py [--pages hidden,output,bptt] [--repeat 12]

The figures: each page's charts at its start step t and at t + 1, from AppTest runs of the app
(the start model and sentence, English), as JSON the way the chart element carries them. Per
chart that the move changes, in one 940-px-wide div: the figure at t drawn, then --repeat
Plotly.react calls alternating t + 1, t, t + 1, ... (the first two not counted), each with a fresh
copy of its figure. Printed per chart: the median ms of a react and the number of Plotly draws
(`plotly_beforeplot` events: automargin's second draw is one more) as sent and with steady
margins, and the ratio. Plotly.js is plotly.py's bundle, opened from a file; the system Chromium
only (tools/server.py). Not a test: it asserts nothing.

--levers (twentieth session): per chart, the same react t -> t + 1 (steady margins) as sent, then
with the three things that might let Plotly redraw less, each applied to both figures: no
`layout.datarevision` (Plotly then compares the arrays); `layout.transition` of 0 ms (Plotly's
animated path); as many traces at t + 1 as at t (empty bar traces put first, so that no trace
is added or removed; only where the counts differ). And two that say where the time goes: the
data of t + 1 under the layout of t with the datarevision of t (Plotly believes nothing changed:
the cost of a react that redraws nothing), and t -> t itself.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.server import CHROME_ARGS, CHROMIUM  # noqa: E402

STEP_KEYS = {"hidden": "hid_step", "output": "out_step", "bptt": "bptt_step", "embedding": "emb_step",
             "gates": "gates_step"}
# reacts alternating two figures, as ui/plotly_chart.js draws them: steady, through its own
# withMargins and keepMargins (window.__steady, see load_chart_code), with one key per call
REACT = """async ([first, second, repeat, steady]) => {
  const div = document.getElementById('c'); Plotly.purge(div);
  const key = String(performance.now());  // a new chart: no margins kept from the last call
  let draws = 0;
  const draw = async (figure) => {
    const layout = steady ? window.__steady.withMargins(div, figure.layout, key) : figure.layout;
    const t0 = performance.now(); draws = 0;
    await Plotly.react(div, figure.data, layout);
    if (steady) window.__steady.keepMargins(div);
    return [performance.now() - t0, draws];
  };
  await draw(JSON.parse(first));
  div.on('plotly_beforeplot', () => { draws += 1; });
  const out = [];
  for (let k = 0; k < repeat + 2; k++) out.push(await draw(JSON.parse(k % 2 ? first : second)));
  return out.slice(2);
}"""


def load_chart_code(pg) -> None:
    """The app's chart code (ui/plotly_chart.js) in the page, its steady-margin functions on
    window.__steady: the bench measures the code the app runs, not a copy of it."""
    code = (ROOT / "ui" / "plotly_chart.js").read_text(encoding="utf-8")
    pg.add_script_tag(content=code + "\nwindow.__steady = { withMargins, keepMargins };\n", type="module")
    pg.wait_for_function("() => !!window.__steady")


def page_charts(page: str) -> tuple[list[str], list[str]]:
    """The page's charts (figure JSON) at its start step and the step after."""
    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import chart_elements, chart_json
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    start = at.slider(key=STEP_KEYS[page]).value
    before = [chart_json(el) for el in chart_elements(at)]
    at.slider(key=STEP_KEYS[page]).set_value(start + 1).run()
    return before, [chart_json(el) for el in chart_elements(at)]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="hidden,output,bptt")
    ap.add_argument("--repeat", type=int, default=12)
    ap.add_argument("--levers", action="store_true", help="also the react with each lever (see above)")
    args = ap.parse_args(argv)
    import plotly
    from playwright.sync_api import sync_playwright
    plotly_js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    charts = []
    for page in args.pages.split(","):
        before, after = page_charts(page)
        charts += [(page, a, b) for a, b in zip(before, after) if a != b]
    print(f"# {len(charts)} charts a step move changes; medians of {args.repeat} reacts; Chromium {CHROMIUM}")
    print(f"{'page':8s} {'chart':52s} {'as sent ms':>10s} {'draws':>5s} {'steady ms':>9s} {'draws':>5s} "
          f"{'ratio':>6s}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        pg.set_content("<html><body><div id=c style='width:940px'></div></body></html>")
        pg.add_script_tag(path=str(plotly_js))
        load_chart_code(pg)
        pg.evaluate(REACT, [charts[0][1], charts[0][2], 4, False])  # warm the JIT
        total = {False: 0.0, True: 0.0}
        for page, first, second in charts:
            row = {}
            for steady in (False, True):
                runs = pg.evaluate(REACT, [first, second, args.repeat, steady])
                row[steady] = (statistics.median(ms for ms, _ in runs), statistics.median(n for _, n in runs))
                total[steady] += row[steady][0]
            title = (json.loads(first)["layout"].get("title") or {}).get("text", "")[:52]
            (sent, sent_n), (kept, kept_n) = row[False], row[True]
            print(f"{page:8s} {title:52s} {sent:10.1f} {sent_n:5.0f} {kept:9.1f} {kept_n:5.0f} "
                  f"{sent / kept:6.2f}")
        if args.levers:
            print_levers(pg, charts, args.repeat)
        browser.close()
    print(f"all charts: as sent {total[False]:.1f} ms, steady {total[True]:.1f} ms "
          f"({total[False] / total[True]:.2f}x)")


def lever_pairs(first: str, second: str) -> dict[str, tuple[str, str]]:
    """The figure pairs --levers reacts between (JSON texts), by name."""
    a, b = json.loads(first), json.loads(second)

    def with_layout(fig: dict, **changes) -> dict:  # a change to None removes the setting
        layout = {**fig["layout"], **changes}
        return {**fig, "layout": {k: v for k, v in layout.items() if v is not None}}

    pairs = {"as sent": (a, b),
             "no datarevision": (with_layout(a, datarevision=None), with_layout(b, datarevision=None)),
             "transition 0 ms": (with_layout(a, transition={"duration": 0}),
                                 with_layout(b, transition={"duration": 0}))}
    if len(a["data"]) > len(b["data"]):
        empty = {"type": "bar", "y": [], "showlegend": False, "hoverinfo": "skip"}
        padded = [dict(empty)] * (len(a["data"]) - len(b["data"])) + b["data"]
        pairs["as many traces"] = (a, {**b, "data": padded})
    pairs["nothing redrawn"] = (a, {**b, "layout": a["layout"]})
    pairs["t -> t"] = (a, a)
    return {name: (json.dumps(x), json.dumps(y)) for name, (x, y) in pairs.items()}


def print_levers(pg, charts: list, repeat: int) -> None:
    print(f"# --levers: median ms of {repeat} reacts t <-> t + 1, steady margins")
    for page, first, second in charts:
        title = (json.loads(first)["layout"].get("title") or {}).get("text", "")[:44]
        cells = []
        for name, (x, y) in lever_pairs(first, second).items():
            runs = pg.evaluate(REACT, [x, y, repeat, True])
            cells.append(f"{name} {statistics.median(ms for ms, _ in runs):.1f}")
        print(f"{page:8s} {title:44s} " + "; ".join(cells))


if __name__ == "__main__":
    main()
