"""What handing a cached figure to st.plotly_chart costs on the server: ui/cache.figure's
CachedFigure (st.plotly_chart reads the cached dict as it is) against the way before it (a
go.Figure built from the cached dict without validation, which st.plotly_chart copies back to a
dict with `to_dict`), for the figures one warm run of each page shows, in the same run.

    python bench/bench_chart_copy.py [--pages home,embedding,hidden,output,bptt,gates] [--repeat 20]

Prints per page: the figures shown, how many came from the cache, and the ms per page run of
each way for those (the JSON written afterwards is the same for both: bench/bench_chart_json.py),
and the ratio before / now (> 1: now faster). Not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_chart_json import page_figures, per_call_ms  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="home,embedding,hidden,output,bptt,gates")
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args(argv)
    import plotly.graph_objects as go
    import plotly.tools

    from ui.cache import CachedFigure
    read = plotly.tools.return_figure_from_figure_or_data  # what st.plotly_chart calls first
    print(f"{'page':9s} {'figures':>7s} {'cached':>6s} {'before ms':>9s} {'now ms':>7s} {'before/now':>10s}")
    total = {"before": 0.0, "now": 0.0}
    for page in [p for p in args.pages.split(",") if p]:
        figs = page_figures(page)
        plains = [f.to_dict() for f in figs if isinstance(f, CachedFigure)]
        ms = {"before": per_call_ms(lambda ps=plains: [read(go.Figure(p, _validate=False), True) for p in ps],
                                    args.repeat),
              "now": per_call_ms(lambda ps=plains: [read(CachedFigure(p), True) for p in ps], args.repeat)}
        for k in ms:
            total[k] += ms[k]
        ratio = ms["before"] / ms["now"] if ms["now"] else float("nan")
        print(f"{page:9s} {len(figs):7d} {len(plains):6d} {ms['before']:9.2f} {ms['now']:7.3f} {ratio:10.0f}")
    print(f"{'all':9s} {'':7s} {'':6s} {total['before']:9.2f} {total['now']:7.3f} "
          f"{total['before'] / total['now']:10.0f}")


if __name__ == "__main__":
    main()
