"""Server time of each page: its first load and one typical widget change (AppTest, in process).

Why: the issue-13 restructure must not make pages slower, and a BPTT slider move must not
recompute the step Jacobians. AppTest runs the app's script in this process, so the time of
`at.run()` is the server's time for that run (no browser, no network). Every page's first load
starts with empty st.cache_data (the shared built-in models, st.cache_resource, stay loaded, as on
a warm server). Not a test: it prints a table (or JSON with --json).

    python bench/bench_pages.py [--repeat 3] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")

# page file -> (what the widget change does, function applying it to the AppTest)
CHANGES = {
    "pages/home.py": ("type a new sentence",
                      lambda at: at.sidebar.text_area(key="text").input("I like cats today")),
    "pages/embedding.py": ("step slider t -> 2", lambda at: at.slider(key="emb_step").set_value(2)),
    "pages/hidden.py": ("step slider t -> 2", lambda at: at.slider(key="hid_step").set_value(2)),
    "pages/output.py": ("step slider t -> 3", lambda at: at.slider(key="out_step").set_value(3)),
    "pages/bptt.py": ("step slider t -> 3", lambda at: at.slider(key="bptt_step").set_value(3)),
    "pages/slots.py": ("confusion matrix of -> 2nd tagger",
                       lambda at: at.selectbox(key="slot_cm_tagger").set_value(
                           at.selectbox(key="slot_cm_tagger").options[1])),
    "pages/train.py": ("tokens -> characters", lambda at: at.radio(key="train_level").set_value("char")),
}


def timed_run(at) -> float:
    start = time.perf_counter()
    at.run()
    return time.perf_counter() - start


def measure(page: str) -> tuple[float, float]:
    """(first load, widget change) in seconds for one fresh session on `page`."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest
    st.cache_data.clear()
    at = AppTest.from_file(APP, default_timeout=300)
    if page == "pages/home.py":
        first = timed_run(at)
    else:
        at.run()
        at.switch_page(str(ROOT / page))
        first = timed_run(at)
    if at.exception:
        raise RuntimeError(f"{page}: {[e.value for e in at.exception]}")
    CHANGES[page][1](at)
    change = timed_run(at)
    if at.exception:
        raise RuntimeError(f"{page} after change: {[e.value for e in at.exception]}")
    return first, change


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="sessions per page; the median is shown")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")
    sys.path.insert(0, str(ROOT))
    from streamlit.testing.v1 import AppTest
    AppTest.from_file(APP, default_timeout=300).run()  # warm-up: imports and built-in models
    rows = []
    for page, (what, _) in CHANGES.items():
        if not (ROOT / page).exists():
            continue
        runs = [measure(page) for _ in range(args.repeat)]
        rows.append({"page": page, "first_load_s": statistics.median(r[0] for r in runs),
                     "change": what, "change_s": statistics.median(r[1] for r in runs)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'page':<20} {'first load (s)':>15} {'widget change (s)':>18}  change")
    for r in rows:
        print(f"{r['page']:<20} {r['first_load_s']:>15.3f} {r['change_s']:>18.3f}  {r['change']}")


if __name__ == "__main__":
    main()
