"""Many users at once: N concurrent browser sessions, each with its own sentence and page;
every fourth session trains its own model on page 6 meanwhile.

Every session must show its own correct numbers (compared with rnnviz computed directly) and none
may show another's sentence. Reports p50 / p95 page-ready times and the server's peak RSS.
Bounded: N sessions (LOAD_SESSIONS, default 8; the full run is 20), one visit each, 180 s cap.

    LOAD_SESSIONS=20 python -m pytest tests/browser/test_load.py -s
"""
from __future__ import annotations

import os
import re
import statistics
import threading
import time
import urllib.parse

import numpy as np

from rnnviz.engine.trace import trace
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.browser.conftest import exceptions_on

N = int(os.environ.get("LOAD_SESSIONS", "8"))
SUBJECTS = ("I", "you", "we", "they")
OBJECTS = ("cats", "dogs", "birds", "fish")
CITIES = ("Taipei", "Boston", "Tokyo", "Paris", "London")


def sentence(i: int) -> str:
    if i % 2:
        return f"Arrive {CITIES[i % 5]} on November 2nd and leave {CITIES[(i + 2) % 5]}"
    return f"{SUBJECTS[i % 4]} like {OBJECTS[(i // 4) % 4]} today {'and ' * (i % 3)}now"


def expected_max_h(text: str) -> tuple[float, int, int]:
    model, vocab, _ = load_builtin("default")
    inp, tgt = lm_pair(list(prepare(text, vocab).ids), vocab)
    h = np.abs(trace(model, inp, tgt).h.numpy())
    t, u = divmod(int(h.argmax()), h.shape[1])
    return float(h.max()), t + 1, u + 1


def server_pid(port: int) -> str | None:
    """The streamlit process serving this port (from /proc)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "streamlit" in cmd and f"--server.port {port}" in cmd:
            return pid
    return None


def server_rss_mb(port: int) -> float:
    """Resident memory of the server, MB."""
    pid = server_pid(port)
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    except (OSError, TypeError):
        pass
    return float("nan")


def server_cpu_s(port: int) -> float:
    """CPU seconds (user + system) the server has used so far."""
    try:
        fields = open(f"/proc/{server_pid(port)}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, TypeError, IndexError):
        return float("nan")


TRAINS = int(os.environ.get("LOAD_TRAIN_EVERY", "4"))  # every TRAINS-th session trains (0: none)


def idle(pg) -> bool:
    return pg.query_selector('[data-testid="stStatusWidget"]') is None


def ready(pg, trainer: bool) -> bool:
    if not idle(pg):
        return False
    return ("perplexity is now" if trainer else "largest |h| is") in pg.inner_text('[data-testid="stMain"]')


def test_concurrent_sessions_each_see_their_own_sentence(server, browser):
    port = int(server.rsplit(":", 1)[1])
    peak = {"rss": server_rss_mb(port)}
    cpu_before, wall_before = server_cpu_s(port), time.perf_counter()
    stop = threading.Event()

    def watch():
        while not stop.wait(0.5):
            peak["rss"] = max(peak["rss"], server_rss_mb(port))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    sessions = []
    try:
        for i in range(N):
            ctx = browser.new_context(viewport={"width": 1200, "height": 900})
            pg = ctx.new_page()
            text = sentence(i)
            trainer = TRAINS > 0 and i % TRAINS == TRAINS - 1
            path = "train" if trainer else ""
            query = f"model=default&text={urllib.parse.quote(text)}" + ("&train_steps=150" if trainer else "")
            pg.goto(f"{server}/{path}?{query}", wait_until="commit")
            sessions.append({"ctx": ctx, "page": pg, "text": text, "trainer": trainer,
                             "start": time.perf_counter(), "clicked": not trainer})
        deadline = time.perf_counter() + 180
        pending = list(sessions)
        while pending and time.perf_counter() < deadline:
            for s in list(pending):
                try:
                    if not s["clicked"] and idle(s["page"]) and s["page"].get_by_role(
                            "button", name="Train", exact=True).is_enabled():
                        s["page"].get_by_role("button", name="Train", exact=True).click()
                        s["clicked"] = True
                    elif s["clicked"] and ready(s["page"], s["trainer"]):
                        s["ready"] = time.perf_counter() - s["start"]
                        pending.remove(s)
                except Exception:  # page still loading
                    pass
            time.sleep(0.2)
        assert not pending, f"{len(pending)} of {N} sessions were not ready in 180 s"
        for s in sessions:
            pg = s["page"]
            assert not exceptions_on(pg)
            body = pg.inner_text('[data-testid="stMain"]')
            others = {o["text"] for o in sessions} - {s["text"]}
            assert not any(o in body for o in others)
            if s["trainer"]:
                assert "model=own" in pg.url  # its trained model became the current one
                continue
            hmax, t, u = expected_max_h(s["text"])
            m = re.search(r"largest \|h\| is ([0-9.]+), at step (\d+) .*unit (\d+)", body)
            assert m, body[:500]
            shown = (float(m.group(1)), int(m.group(2)), int(m.group(3)))
            assert abs(shown[0] - hmax) < 1e-3 and shown[1:] == (t, u), (s["text"], shown, (hmax, t, u))
            assert pg.locator('textarea[aria-label="Sentence"]').input_value() == s["text"]
    finally:
        stop.set()
        watcher.join()
        for s in sessions:
            s["ctx"].close()
    cpu = server_cpu_s(port) - cpu_before
    wall = time.perf_counter() - wall_before
    times = sorted(s["ready"] for s in sessions if not s["trainer"])
    trained = sorted(s["ready"] for s in sessions if s["trainer"])
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    print(f"\nload: {N} sessions ({len(trained)} training 150 steps), page-ready p50 "
          f"{statistics.median(times):.2f} s, p95 {p95:.2f} s, max {times[-1]:.2f} s; "
          f"trained in {', '.join(f'{t:.1f}' for t in trained)} s; "
          f"server peak RSS {peak['rss']:.0f} MB; server CPU {cpu:.1f} s in {wall:.1f} s wall "
          f"(the rest of the 2 cores went to the {N} Chromium pages on the same machine)")
