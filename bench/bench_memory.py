"""Server memory with many sessions open: start `streamlit run app.py` on 127.0.0.1, open N
browser sessions (Playwright, system Chromium) on different pages and sentences, and print the
server's resident memory (VmRSS from /proc) after each step. The target is < 500 MB for 10.

    python bench/bench_memory.py [--sessions 10] [--train]

--train also trains a small model in one session (the page's default corpus, 300 steps).
Not a test: it prints figures; nothing asserts on them.
"""
from __future__ import annotations

import argparse
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.server import CHROME_ARGS, CHROMIUM, app_process, wait_ready  # noqa: E402
from ui.navigation import existing_pages  # noqa: E402

SENTENCES = ("Arrive Taipei on November 2nd", "I like cats today", "Leave Boston at 5 pm",
             "you like dogs", "Fly from Paris to Tokyo on May 3rd", "dog bites man",
             "Book a flight to Seoul at 9 am", "we feed fish now", "I want to leave Denver",
             "man bites dog")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def open_session(browser, base: str, i: int):
    urls = [p[2] for p in existing_pages()]
    path = urls[i % len(urls)]
    model = "notes" if i % 3 == 2 else "default"
    text = "I like cats" if model == "notes" else SENTENCES[i % len(SENTENCES)]
    query = urllib.parse.urlencode({"model": model, "text": text})
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    pg.goto(f"{base}/{'' if path == 'overview' else path}?{query}")
    pg.wait_for_selector('[data-testid="stSidebar"] textarea', timeout=120_000)
    wait_ready(pg, timeout_ms=120_000)
    return ctx, pg, path


def train_once(pg, base: str) -> None:
    pg.goto(f"{base}/train?train_steps=300")
    pg.wait_for_selector('[data-testid="stSidebar"] textarea', timeout=120_000)
    wait_ready(pg)
    pg.get_by_role("button", name="Train").first.click()
    pg.wait_for_selector("text=Result.", timeout=300_000)
    wait_ready(pg)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--train", action="store_true")
    args = ap.parse_args()
    with app_process("streamlit-bench-memory.log") as (base, proc):
        print(f"server pid {proc.pid}, idle after start: {rss_mb(proc.pid):.0f} MB")
        measure(args, base, proc)


def measure(args, base: str, proc) -> None:
    from playwright.sync_api import sync_playwright

    opened = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        for i in range(args.sessions):
            ctx, pg, path = open_session(browser, base, i)
            opened.append((ctx, pg))
            print(f"session {i + 1:2d} open on /{path:10s} server RSS {rss_mb(proc.pid):6.0f} MB")
        if args.train:
            train_once(opened[0][1], base)
            print(f"after training one model        server RSS {rss_mb(proc.pid):6.0f} MB")
        time.sleep(3)
        peak = rss_mb(proc.pid)
        print(f"{args.sessions} sessions open, settled:         server RSS {peak:6.0f} MB "
              f"(target < 500 MB: {'OK' if peak < 500 else 'OVER'})")
        for ctx, _ in opened:
            ctx.close()
        browser.close()


if __name__ == "__main__":
    main()
