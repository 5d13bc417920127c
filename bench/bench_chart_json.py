"""What writing a page's charts costs on the server, per JSON engine: the figures a page hands
st.plotly_chart (collected from one AppTest run of the page), timed the way Streamlit 1.67 writes
them (`fig.to_dict()`, then `plotly.io.to_json(..., validate=False)`), with the standard library's
json (what app.py sets, ui/widgets.plotly_json_settings) against orjson (plotly's "auto" default
when orjson is installed), in the same run.

    python bench/bench_chart_json.py [--pages home,hidden,output,bptt,gates] [--repeat 30]

Prints per page: figures, their JSON size, ms per page for to_dict and for each engine, and the
ratio orjson / json (> 1: json faster). Not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def page_figures(page: str) -> list:
    """The figures one warm run of `page` hands st.plotly_chart (a go.Figure, or ui/cache's
    CachedFigure), recorded where Streamlit 1.67 reads them:
    plotly.tools.return_figure_from_figure_or_data."""
    import plotly.tools
    from streamlit.testing.v1 import AppTest
    seen, real = [], plotly.tools.return_figure_from_figure_or_data

    def record(fig, validate_figure):
        seen.append(fig)
        return real(fig, validate_figure)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    if page != "home":
        at.switch_page(f"pages/{page}.py")
        at.run()
    plotly.tools.return_figure_from_figure_or_data = record
    try:
        at.run()  # the page again, warm: the figures it draws
    finally:
        plotly.tools.return_figure_from_figure_or_data = real
    return seen


def per_call_ms(fn, repeat: int) -> float:
    fn()
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat * 1000


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="home,hidden,output,bptt,gates")
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args(argv)
    import plotly.io as pio
    try:
        import orjson  # noqa: F401
    except ImportError:
        sys.exit("orjson is not installed: nothing to compare (pip install orjson)")
    print(f"{'page':9s} {'figures':>7s} {'KB':>6s} {'to_dict ms':>10s} {'json ms':>8s} "
          f"{'orjson ms':>9s} {'orjson/json':>11s}")
    total = {"json": 0.0, "orjson": 0.0}
    for page in [p for p in args.pages.split(",") if p]:
        figs = page_figures(page)
        dicts = [f.to_dict() for f in figs]
        kb = sum(len(pio.to_json(d, validate=False, engine="json")) for d in dicts) / 1000
        to_dict = sum(per_call_ms(f.to_dict, args.repeat) for f in figs)
        ms = {e: sum(per_call_ms(lambda d=d, e=e: pio.to_json(d, validate=False, engine=e), args.repeat)
                     for d in dicts) for e in ("json", "orjson")}
        for e in ms:
            total[e] += ms[e]
        ratio = ms["orjson"] / ms["json"] if ms["json"] else float("nan")
        print(f"{page:9s} {len(figs):7d} {kb:6.1f} {to_dict:10.2f} {ms['json']:8.2f} "
              f"{ms['orjson']:9.2f} {ratio:11.2f}")
    print(f"{'all':9s} {'':7s} {'':6s} {'':10s} {total['json']:8.2f} {total['orjson']:9.2f} "
          f"{total['orjson'] / total['json']:11.2f}")


if __name__ == "__main__":
    main()
