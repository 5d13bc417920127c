"""Two bench_pages.py JSON files side by side, root by root: run (a) measured the "before"
checkout first, run (b) the current one first (on this machine whichever root runs first is
often faster), so a figure that holds in both is no order effect.

    python bench/pair_tables.py bench/results/pages_s5a.json bench/results/pages_s5b.json

The root named "main" is the current checkout, every other root the "before". Prints a table;
nothing asserts."""
from __future__ import annotations

import json
import sys

ORDER = ["home", "embedding", "hidden", "output", "bptt", "slots", "train", "origins", "gates", "glossary",
         "(server)"]


def _place(key: tuple) -> tuple:
    page, what, lang = key
    return (ORDER.index(page) if page in ORDER else len(ORDER), what, lang)


def _times(rows: list[dict], field: str) -> str:
    return ", ".join(f"{r[field]:.3f}" for r in rows)


def _kb(rows: list[dict]) -> int:
    return max((r["bytes_max"] or 0) for r in rows) // 1024 if rows else 0


def main(files: list[str]) -> None:
    rows: dict[tuple, dict[str, list]] = {}
    for name in files:  # run (a), run (b)
        for r in json.load(open(name))["rows"]:
            rows.setdefault((r["page"], r["what"], r["lang"]), {}).setdefault(r["root"], []).append(r)
    print(f"{'page':10} {'what':26} {'lang':4} | {'before p50 (a, b)':>22} {'p95 (a, b)':>16} {'KB':>5} | "
          f"{'now p50 (a, b)':>20} {'p95 (a, b)':>16} {'KB max':>6}")
    for key in sorted(rows, key=_place):
        by = rows[key]
        now = by.get("main", [])
        before = [r for root, rs in by.items() if root != "main" for r in rs]
        page, what, lang = key
        print(f"{page:10} {what:26} {lang:4} | {_times(before, 'p50_s'):>22} {_times(before, 'p95_s'):>16} "
              f"{_kb(before):>5} | {_times(now, 'p50_s'):>20} {_times(now, 'p95_s'):>16} {_kb(now):>6}")


if __name__ == "__main__":
    main(sys.argv[1:])
