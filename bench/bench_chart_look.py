"""What putting a page's charts in Streamlit's look costs on the server when they are built anew
(a figure-cache miss: a new sentence or step, as under a class's load): the figures one cold
AppTest run of a page hands ui/charts.streamlit_look, timed again here, and the part that
computes `layout.datarevision`, by ui/charts.data_revision (the traces pickled and hashed) against
the baseline rnnviz.serve.bytecache.value_digest (what it was before: every listed number hashed
from Python), on the same traces in the same run.

    python bench/bench_chart_look.py [--pages home,hidden,output,bptt,gates] [--repeat 20]

Prints per page: figures, ms per page for streamlit_look, for data_revision and for value_digest,
and the ratio value_digest / data_revision (> 1: data_revision faster). Not a test: it asserts
nothing (tests/pages/test_chart_look.py holds what the revision must do).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def looked_inputs(page: str) -> list[dict]:
    """The figure dicts one cold run of `page` (after the overview) hands streamlit_look."""
    from streamlit.testing.v1 import AppTest

    from rnnviz.explain.checkpoints import KEYS
    from ui import cache, charts
    seen, real = [], charts.streamlit_look

    def record(fig: dict) -> dict:
        seen.append(fig)
        return real(fig)
    charts.streamlit_look = cache.streamlit_look = record
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.session_state["text"] = "Arrive Boston on the morning of November 2nd"  # not the start sentence
        for key in KEYS:  # every predict-first checkpoint skipped: the figures they guard are drawn
            at.session_state[f"_{key}_done"] = {"skipped": True, "question": ""}
        seen.clear()
        at.run()
        if page != "home":
            seen.clear()
            at.switch_page(f"pages/{page}.py")
            at.run()
    finally:
        charts.streamlit_look = cache.streamlit_look = real
    return list(seen)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="home,hidden,output,bptt,gates")
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    from bench.bench_chart_json import per_call_ms
    from rnnviz.serve.bytecache import value_digest
    from ui.charts import data_revision, streamlit_look
    print(f"{'page':9s} {'figures':>7s} {'look ms':>8s} {'data_revision ms':>16s} {'value_digest ms':>15s} "
          f"{'ratio':>6s}")
    total = {"look": 0.0, "new": 0.0, "old": 0.0}
    for page in [p for p in args.pages.split(",") if p]:
        figs = looked_inputs(page)
        traces = [streamlit_look(f)["data"] for f in figs]
        ms = {"look": sum(per_call_ms(lambda f=f: streamlit_look(f), args.repeat) for f in figs),
              "new": sum(per_call_ms(lambda d=d: data_revision(d), args.repeat) for d in traces),
              "old": sum(per_call_ms(lambda d=d: value_digest(d), args.repeat) for d in traces)}
        for k in total:
            total[k] += ms[k]
        ratio = ms["old"] / ms["new"] if ms["new"] else float("nan")
        print(f"{page:9s} {len(figs):7d} {ms['look']:8.2f} {ms['new']:16.2f} {ms['old']:15.2f} {ratio:6.1f}")
    ratio = total["old"] / total["new"] if total["new"] else float("nan")
    print(f"{'all':9s} {'':7s} {total['look']:8.2f} {total['new']:16.2f} {total['old']:15.2f} {ratio:6.1f}")
    print("streamlit_look with value_digest would take about "
          f"{total['look'] - total['new'] + total['old']:.1f} ms for these figures")


if __name__ == "__main__":
    main()
