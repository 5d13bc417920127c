"""Hostile sessions against one server, over Streamlit's own websocket protocol (issue 22 item 7).

    python bench/bench_abuse.py [--seconds 20] [--hostile 8] [--scenarios bigmodel,sentences,...]

Starts `streamlit run app.py` on 127.0.0.1 (tools/server.py), or drives `--url` (loopback only).
For each scenario: one normal learner (Overview -> Hidden -> Output -> BPTT, every rerun timed)
runs alone for --seconds ("before"); then 8 hostile sessions of one kind set up (not timed: a
maximal model trained, at most --setup s) and work for --lead s before the learner runs beside
them for --seconds ("during"); then the learner runs alone again after they have left
("after"). The server's RSS (VmRSS) and peak (VmHWM) are read from /proc/<pid>/status twice a
second; after the hostile sessions leave, the bench waits --recover seconds (60) for RSS
to come back to the scenario's baseline + 256 MB and says whether it did.

Scenarios (each hostile session, bounded in count and time):
- bigmodel: trains a V = 5,000, d = H = 128 model for 1 step on page 6 (the issue's way to get a
  maximal model), then reruns page 1 (embedding lookup) on it;
- sentences: the same maximal model, then page 4 (BPTT) with up to 80 new 200-token sentences;
- paste: page 7 with a 990 KB pasted corpus (Word2Vec's pairs), rerun with a new paste;
- training: page 6's largest training (V = 5,000, d = H = 128, T = 64, batch 64, 5,000 steps),
  kept open (it holds a long-lane slot);
- upload: PUTs up to 20 files of 5 MB to the session's upload URL without any widget;
- mix: the kinds above in turn.

Not a test: it prints figures, and nothing asserts on them. Stops by itself: at most 16 hostile
sessions, 600 s per phase.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import oracle  # noqa: E402
from bench.bench_load import HEAVY, pct  # noqa: E402
from bench.stclient import RunError, Session, check_loopback  # noqa: E402

MAX_HOSTILE, MAX_PHASE_S = 16, 600
KINDS = ("bigmodel", "sentences", "paste", "training", "upload")
PLAN = ("", "hidden", "output", "bptt")
BIG = {"train_vocab": 5000, "train_d": 128, "train_H": 128, "train_batch": 64, "train_steps": 1}
UPLOADS, UPLOAD_BYTES = 20, 5_000_000
MB = 1 << 20


# ---- the server's memory ------------------------------------------------------------------------

def rss_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MB, from /proc/<pid>/status."""
    got = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                got[key] = int(rest.split()[0]) / 1024
    return got.get("VmRSS", float("nan")), got.get("VmHWM", float("nan"))


class Memory:
    """Samples the server's RSS twice a second in a thread; peak() since the last mark()."""

    def __init__(self, pid: int):
        self.pid, self._stop = pid, threading.Event()
        self.samples: list[tuple[float, float]] = []
        self._mark = 0
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self):
        while not self._stop.wait(0.5):
            try:
                self.samples.append((time.time(), rss_mb(self.pid)[0]))
            except OSError:
                return

    def mark(self) -> None:
        self._mark = len(self.samples)

    def now(self) -> float:
        return rss_mb(self.pid)[0]

    def peak(self) -> float:
        tail = [r for _, r in self.samples[self._mark:]]
        return max(tail) if tail else self.now()

    def stop(self):
        self._stop.set()


# ---- the normal learner -------------------------------------------------------------------------

async def learner(base: str, seconds: float, sentence: str) -> tuple[list[float], list[str]]:
    """Page visits for `seconds`; returns (seconds per rerun, errors)."""
    times, errors = [], []
    s = Session(base, timeout=max(60.0, seconds + 60))
    deadline = time.time() + seconds
    try:
        await s.connect()
        times.append((await s.rerun("")).seconds)  # the first page load counts too: under a
        s.set_widget("text", sentence)             # heavy load it may take the whole phase
        while time.time() < deadline:
            for page in PLAN:
                if time.time() >= deadline:
                    break
                try:
                    times.append((await s.rerun(page)).seconds)
                except RunError as err:
                    errors.append(f"/{page}: {err}")
    except RunError as err:
        errors.append(f"start: {err}")
    finally:
        await s.close()
    return times, errors


# ---- hostile sessions ---------------------------------------------------------------------------

async def big_model(s: Session) -> None:
    """A V = 5,000, d = H = 128 model trained 1 step on page 6: the session's current model."""
    await s.rerun("train")
    s.set_widget("train_text", oracle.heavy_corpus(max_bytes=200_000))  # > 5,000 distinct words
    for key, value in BIG.items():
        s.set_widget(key, value)
    await s.rerun()
    await s.rerun(click="train_go")


def long_sentence(i: int, n: int = 200) -> str:
    words = oracle.heavy_corpus(max_bytes=20_000).split()
    return " ".join(words[(i * 37 + k * 11) % len(words)] for k in range(n))


async def hostile(kind: str, i: int, base: str, clock: dict, ready: asyncio.Event, log: dict) -> None:
    """One hostile session: its setup (a maximal model, the training page...), then it signals
    `ready` and works until clock["deadline"] (set once every hostile is ready, or the setup
    time is up)."""
    query = "model=default&origins_source=paste" if kind == "paste" else "model=default"
    s = Session(base, timeout=MAX_PHASE_S, query=query)
    done = 0
    try:
        await s.connect()
        await s.rerun("")
        if kind in ("bigmodel", "sentences"):
            await big_model(s)
    except (RunError, OSError) as err:
        log.setdefault("errors", []).append(f"{kind} {i} setup: {err}"[:300])
    finally:
        ready.set()
    await clock["go"].wait()
    deadline = clock["deadline"]
    try:
        if s.ws is None:
            return
        if kind == "training":
            await s.rerun("train")
            s.set_widget("train_text", oracle.heavy_corpus())
            for key, value in HEAVY.items():
                s.set_widget(key, value)
            await s.rerun()
            await s.rerun(click="train_go", wait=False)
            while time.time() < deadline:  # keep the page open, reading its progress
                try:
                    await asyncio.wait_for(s.ws.recv(), max(0.1, deadline - time.time()))
                except TimeoutError:
                    break
            done = 1
        elif kind == "upload":
            done = await asyncio.to_thread(upload_flood, base, s.session_id, deadline, log, i)
        else:
            page = {"bigmodel": "embedding", "sentences": "bptt", "paste": "origins"}[kind]
            while time.time() < deadline and done < 80:
                if kind == "sentences":
                    s.set_widget("text", long_sentence(done))
                elif kind == "paste":
                    s.set_widget("origins_text", oracle.heavy_corpus(per_line=30 + done % 7,
                                                                     max_bytes=990_000))
                await s.rerun(page)
                done += 1
    except (RunError, OSError) as err:
        log.setdefault("errors", []).append(f"{kind} {i}: {err}"[:300])
    finally:
        log.setdefault("done", {})[f"{kind} {i}"] = done
        await s.close()


def upload_flood(base: str, session_id: str, deadline: float, log: dict, i: int) -> int:
    """PUT up to UPLOADS files to this session's upload URL (no widget names them)."""
    jar = urllib.request.HTTPCookieProcessor()
    opener = urllib.request.build_opener(jar)
    opener.open(base + "/_stcore/health", timeout=10).read()  # sets the XSRF cookie
    xsrf = next((c.value for c in jar.cookiejar if c.name == "_streamlit_xsrf"), "")
    sent = 0
    for _ in range(UPLOADS):
        if time.time() >= deadline:
            break
        boundary = uuid.uuid4().hex
        head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.pt\"\r\n"
                "Content-Type: application/octet-stream\r\n\r\n")
        body = head.encode() + os.urandom(UPLOAD_BYTES) + f"\r\n--{boundary}--\r\n".encode()
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": xsrf}
        req = urllib.request.Request(f"{base}/_stcore/upload_file/{session_id}/{uuid.uuid4()}", data=body,
                                     method="PUT", headers=headers)
        try:
            opener.open(req, timeout=60).read()
            sent += 1
        except OSError as err:
            log.setdefault("upload_refused", []).append(f"{i}: {err}"[:200])
            break
    return sent


# ---- one scenario -------------------------------------------------------------------------------

async def scenario(kind: str, base: str, mem: Memory, args) -> dict:
    sentence = oracle.sentence_for(1)
    base_rss = mem.now()
    before, e0 = await learner(base, args.seconds, sentence)
    mem.mark()
    log: dict = {}
    kinds = KINDS if kind == "mix" else (kind,)
    clock, ready = {"go": asyncio.Event()}, [asyncio.Event() for _ in range(args.hostile)]
    tasks = [asyncio.create_task(hostile(kinds[i % len(kinds)], i, base, clock, ready[i], log))
             for i in range(args.hostile)]
    t0 = time.time()
    try:  # every hostile session set up (a maximal model trained...), at most --setup seconds
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in ready)), args.setup)
    except TimeoutError:
        log.setdefault("errors", []).append(f"not all set up within {args.setup:g} s")
    setup_s = time.time() - t0
    clock["deadline"] = time.time() + args.seconds + args.lead
    clock["go"].set()
    await asyncio.sleep(args.lead)  # the hostile sessions are at work before the learner comes
    during, e1 = await learner(base, args.seconds, sentence)
    await asyncio.gather(*tasks)
    peak = mem.peak()
    left = time.time()
    back = None
    while time.time() - left < args.recover:  # the whole wait: RSS at its end is reported too
        if back is None and mem.now() <= base_rss + 256:
            back = time.time() - left
        await asyncio.sleep(0.5)
    waited_mb = mem.now()
    after, e2 = await learner(base, args.seconds, sentence)
    return {"scenario": kind, "setup_s": round(setup_s, 1), "baseline_mb": round(base_rss),
            "peak_mb": round(peak),
            "end_mb": round(mem.now()), "after_wait_mb": round(waited_mb),
            "back_within_s": None if back is None else round(back, 1),
            "recovered": back is not None,
            **{f"{name}_p50_s": round(pct(v, 0.5), 3) for name, v in (("before", before), ("during", during),
                                                                     ("after", after))},
            **{f"{name}_p95_s": round(pct(v, 0.95), 3) for name, v in (("before", before), ("during", during),
                                                                     ("after", after))},
            "runs": [len(before), len(during), len(after)], "learner_errors": (e0 + e1 + e2)[:3],
            "hostile_done": log.get("done", {}), "hostile_errors": log.get("errors", [])[:3],
            "upload_refused": log.get("upload_refused", [])[:2]}


def show(r: dict) -> None:
    back = f"back to baseline+256 MB in {r['back_within_s']} s" if r["recovered"] else \
        "NOT back to baseline+256 MB within the wait"
    print(f"{r['scenario']:10s} learner p50/p95  before {r['before_p50_s']:.2f}/{r['before_p95_s']:.2f} s  "
          f"during {r['during_p50_s']:.2f}/{r['during_p95_s']:.2f} s  after {r['after_p50_s']:.2f}/"
          f"{r['after_p95_s']:.2f} s  | RSS baseline {r['baseline_mb']} MB, peak {r['peak_mb']} MB, "
          f"after the wait {r['after_wait_mb']} MB, end {r['end_mb']} MB, {back}", flush=True)
    for key in ("learner_errors", "hostile_errors", "upload_refused"):
        for e in r[key]:
            print(f"    {key}: {e}")
    print(f"    hostile setup {r['setup_s']} s; work done: {r['hostile_done']}", flush=True)


async def run_all(base: str, pid: int, args) -> list[dict]:
    mem, out = Memory(pid), []
    await learner(base, 1, oracle.sentence_for(1))  # warm-up (imports, caches): not timed
    try:
        for kind in args.scenarios:
            r = await scenario(kind, base, mem, args)
            r["server_hwm_mb"] = round(rss_mb(pid)[1])
            show(r)
            out.append(r)
    finally:
        mem.stop()
    return out


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60, help="seconds of each phase (before, during, after)")
    ap.add_argument("--setup", type=float, default=180,
                    help="at most this many seconds for the hostile sessions' setup (not timed)")
    ap.add_argument("--lead", type=float, default=5,
                    help="seconds the hostile sessions work before the learner comes")
    ap.add_argument("--recover", type=float, default=60, help="seconds to wait for RSS to come back")
    ap.add_argument("--hostile", type=int, default=8)
    ap.add_argument("--scenarios", default=",".join(KINDS + ("mix",)))
    ap.add_argument("--url", default=None, help="a running loopback server (needs --pid)")
    ap.add_argument("--pid", type=int, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    args.scenarios = [k for k in args.scenarios.split(",") if k]
    if not 1 <= args.hostile <= MAX_HOSTILE or not 0 < max(args.seconds, args.setup) <= MAX_PHASE_S:
        ap.error(f"--hostile must be 1..{MAX_HOSTILE} and --seconds 1..{MAX_PHASE_S}")
    if any(k not in KINDS + ("mix",) for k in args.scenarios):
        ap.error(f"scenarios: {', '.join(KINDS + ('mix',))}")
    print(f"bench_abuse: {args.hostile} hostile sessions per scenario, phases of {args.seconds:g} s "
          f"(hostile setup up to {args.setup:g} s, lead {args.lead:g} s), RSS recovery wait "
          f"{args.recover:g} s", flush=True)
    if args.url:
        check_loopback(args.url)
        if args.pid is None:
            ap.error("--url needs --pid (the server's process id, for its RSS)")
        out = asyncio.run(run_all(args.url, args.pid, args))
    else:
        from tools.server import app_process
        with app_process("streamlit-abuse.log") as (url, proc):
            out = asyncio.run(run_all(url, proc.pid, args))
    if args.json:
        print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
