"""Server memory with many sessions open: start `streamlit run app.py` on 127.0.0.1, open N
browser sessions (Playwright, system Chromium) on different pages and sentences, and print the
server's resident memory (VmRSS from /proc) after each step. The target is < 500 MB for 10.

    python bench/bench_memory.py [--sessions 10] [--train]
    python bench/bench_memory.py --class-run 100 [--window 10] [--json]

--train also trains a small model in one session (the page's default corpus, 300 steps).
--class-run N drives the server over Streamlit's websocket protocol instead (bench/stclient.py,
no browser, so it is fast): N sessions opened and closed one after another, at most --window
open at once, each on its own sentence and two pages; every fifth trains a small model (300
steps) and the one in the middle starts the largest training a learner can start (V = 5,000,
d = H = 128, T = 64, batch 64, 5,000 steps on a ~1 MB corpus) and leaves after --heavy-seconds.
It prints the server's RSS after each session and whether it plateaus: the end within 20 % of
the level after the first 10 sessions, and never above 1.5 GB.
Not a test: it prints figures; nothing asserts on them.
"""
from __future__ import annotations

import argparse
import asyncio
import json
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


async def class_session(base: str, i: int, n: int, heavy_seconds: float, window: list) -> str:
    """Session i of a class: its sentence, two pages, maybe a training; kept open in window."""
    from bench import oracle
    from bench.bench_load import HEAVY
    from bench.stclient import Session

    s = Session(base, timeout=600)
    await s.connect()
    await s.rerun("")
    s.set_widget("text", oracle.sentence_for(i))
    await s.rerun("")
    await s.rerun(("hidden", "output", "bptt", "embedding")[i % 4])
    what = "pages"
    if i == n // 2:
        await s.rerun("train")
        s.set_widget("train_text", oracle.heavy_corpus())
        for key, value in HEAVY.items():
            s.set_widget(key, value)
        await s.rerun()
        await s.rerun(click="train_go", wait=False)
        end = time.time() + heavy_seconds
        while time.time() < end:  # read its progress as a browser would
            try:
                await asyncio.wait_for(s.ws.recv(), max(0.1, end - time.time()))
            except TimeoutError:
                break
        what = f"largest training for {heavy_seconds:.0f} s"
    elif i % 5 == 4:
        await s.rerun("train")
        s.set_widget("train_steps", 300)
        await s.rerun()
        await s.rerun(click="train_go")
        what = "trained 300 steps"
    window.append(s)
    return what


def class_run(args) -> dict:
    """N sessions opened and closed; the server's RSS after each (see the module docstring)."""
    from deploy.replicas import Cluster

    async def drive(c) -> list:
        pid, window, rows = c.pids()["r1"], [], []
        for i in range(args.class_run):
            what = await class_session(c.url, i, args.class_run, args.heavy_seconds, window)
            while len(window) > args.window:
                await window.pop(0).close()
            rows.append((i + 1, rss_mb(pid), what))
            print(f"session {i + 1:3d} ({what:28s}) server RSS {rows[-1][1]:6.0f} MB", flush=True)
        for s in window:
            await s.close()
        await asyncio.sleep(args.settle)
        rows.append(("settled", rss_mb(pid), f"all closed, {args.settle:.0f} s later"))
        print(f"all closed, {args.settle:.0f} s later: server RSS {rows[-1][1]:6.0f} MB")
        return rows

    with Cluster(1) as c:
        idle = rss_mb(c.pids()["r1"])
        rows = asyncio.run(drive(c))
    after10 = rows[min(9, len(rows) - 2)][1]
    end, peak = rows[-2][1], max(r[1] for r in rows)
    out = {"sessions": args.class_run, "idle_mb": round(idle), "after_10_mb": round(after10),
           "end_mb": round(end), "settled_mb": round(rows[-1][1]), "peak_mb": round(peak),
           "end_vs_after_10": round(end / after10, 3),
           "plateau": bool(end <= 1.2 * after10 and peak <= 1536)}
    print(f"idle {idle:.0f} MB, after 10 sessions {after10:.0f} MB, after {args.class_run} {end:.0f} MB "
          f"({out['end_vs_after_10']:.2f}x), peak {peak:.0f} MB: "
          f"{'plateau' if out['plateau'] else 'NO plateau'} (target: end <= 1.2x after 10, peak <= 1.5 GB)")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--class-run", type=int, default=0, metavar="N")
    ap.add_argument("--window", type=int, default=10, help="sessions open at once (--class-run)")
    ap.add_argument("--heavy-seconds", type=float, default=30)
    ap.add_argument("--settle", type=float, default=150, help="seconds after the last close "
                    "(Streamlit keeps a closed session 120 s for a reconnect)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.class_run:
        if not 10 <= args.class_run <= 500:
            ap.error("--class-run takes 10 to 500 sessions")
        out = class_run(args)
        if args.json:
            print(json.dumps(out))
        return
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
