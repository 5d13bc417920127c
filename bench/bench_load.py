"""Load on the server, not on browsers: N learners over Streamlit's own websocket protocol.

    python bench/bench_load.py --sessions 8 --seconds 60 [--replicas K] [--heavy M] [--json]

Starts K replicas of the app behind HAProxy on 127.0.0.1 (deploy/replicas.py; K = 1 is one
process behind the same balancer), or drives `--url http://127.0.0.1:PORT` if given. Each
learner sets its own sentence, visits Overview -> Hidden states (moves the step slider) ->
Output (moves the step slider) -> BPTT (moves the step slider) -> Overview ..., and waits for
every run to finish (ForwardMsg script_finished). It acts as a browser's page does
(stclient.Session(browser=True)): a slider drawn in a fragment reruns that fragment alone, and
messages it holds in its cache come back as references. With replicas it starts itself, it
also prints the servers' own CPU time per run. On each Overview it checks cross-talk: the
token table must show the learner's own words and ids, and the largest |h| and its step must
equal rnnviz computed directly (bench/oracle.py). --heavy M adds M learners who each start the
largest training allowed (V = 5,000, d = H = 128, T = 64, batch 64, 5,000 steps on a ~1 MB
corpus) and keep their page open; they are not timed. --kill-replica-after S stops replica r1
after S seconds (failover: its learners reconnect through the balancer and must be told).

Bounded: at most 300 sessions and 3,600 s; it stops by itself. With --json the last line is one
JSON object: sessions, replicas, reruns, reruns_per_s, p50_s, p95_s, errors, crosstalk, pages.
Not a test: it prints figures; nothing asserts on them.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import time
import urllib.parse
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench import oracle
from bench.stclient import RunError, Session, overview_numbers

MAX_SESSIONS, MAX_SECONDS = 300, 3600
PLAN = (("hidden", "hid_step"), ("output", "out_step"), ("bptt", "bptt_step"), ("", None))
HEAVY = {"train_vocab": 5000, "train_d": 128, "train_H": 128, "train_batch": 64,
         "train_steps": 5000}
MOVED = "you were moved"
STEP = re.compile(r"step ([\d,]+) /")


def pct(values, q: float) -> float:
    """The q-quantile (nearest rank) of values; NaN if none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


class Stats:
    def __init__(self):
        self.times = defaultdict(list)   # page label -> seconds to script_finished
        self.errors, self.crosstalk, self.checks = [], [], 0
        self.failovers, self.moved_told = 0, 0
        self.heavy_steps = {}            # heavy learner -> last training step seen

    def add(self, label: str, run) -> None:
        self.times[label].append(run.seconds)

    def summary(self, sessions: int, replicas: int, seconds: float) -> dict:
        every = [t for v in self.times.values() for t in v]
        pages = {k or "overview": {"runs": len(v), "p50_s": round(pct(v, 0.5), 3),
                                   "p95_s": round(pct(v, 0.95), 3)}
                 for k, v in sorted(self.times.items())}
        return {"sessions": sessions, "replicas": replicas, "seconds": round(seconds, 1),
                "reruns": len(every), "reruns_per_s": round(len(every) / seconds, 2),
                "p50_s": round(pct(every, 0.5), 3), "p95_s": round(pct(every, 0.95), 3),
                "errors": len(self.errors), "crosstalk": len(self.crosstalk),
                "crosstalk_checks": self.checks, "failovers": self.failovers,
                "failovers_told": self.moved_told, "heavy_steps": self.heavy_steps, "pages": pages,
                "error_samples": self.errors[:5], "crosstalk_samples": self.crosstalk[:5]}


def check_overview(run, sentence: str, who: int, stats: Stats) -> None:
    """Cross-talk check: this learner's words and ids, and rnnviz's own numbers."""
    want = oracle.overview(sentence)
    stats.checks += 1
    table = next((t for t in run.tables if "you typed" in t.columns), None)
    got = None
    if table is not None:
        got = {"typed": [str(x) for x in table["you typed"]], "ids": [int(x) for x in table["id"]]}
    shown = overview_numbers(run)
    ok = (got is not None and got["typed"] == want["typed"] and got["ids"] == want["ids"]
          and shown == (want["hmax"], want["hmax_step"]))
    if not ok:
        stats.crosstalk.append({"session": who, "want": want, "got": got, "hmax": shown})


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds the process has used so far (Linux /proc), None if unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def dropped(err: RunError) -> bool:
    """The connection (or the replica behind it) went away, as opposed to a slow or bad run."""
    text = str(err).lower()
    return "connection" in text or "closed" in text or "cannot connect" in text


async def start(s: Session, sentence: str, i: int, stats: Stats) -> None:
    """Open the session and set this learner's sentence (first a plain run to learn widget ids)."""
    await s.connect()
    await s.rerun("")
    s.set_widget("text", sentence)
    run = await s.rerun("")
    stats.add("overview", run)
    check_overview(run, sentence, i, stats)


async def learner(i: int, base: str, deadline: float, stats: Stats, cookie_log: dict,
                  think: float = 0.0) -> None:
    """One learner's loop; think > 0 waits a random time (mean think s) before each page."""
    sentence, rng = oracle.sentence_for(i), random.Random(i)
    s = Session(base, timeout=max(30.0, deadline - time.time() + 60), browser=True)
    try:
        try:
            await start(s, sentence, i, stats)
        except RunError as err:
            stats.errors.append(f"session {i} start: {err}")
            if not (dropped(err) and s.cookie and await failover(s, sentence, i, stats)):
                return
        cookie_log[i] = s.cookie
        T, k = oracle.overview(sentence)["T"], 0
        while time.time() < deadline:
            for page, slider in PLAN:
                if time.time() >= deadline:
                    break
                if think:
                    await asyncio.sleep(rng.expovariate(1 / think))  # the learner reads
                try:
                    run = await s.rerun(page)
                    stats.add(page or "overview", run)
                    if page == "":
                        check_overview(run, sentence, i, stats)
                    if slider and slider in s.seen:
                        k += 1
                        s.set_widget(slider, [1 + k % T])
                        stats.add(f"{page} slider", await s.rerun())
                except RunError as err:
                    stats.errors.append(f"session {i} on /{page}: {err}")
                    if dropped(err) and not await failover(s, sentence, i, stats):
                        return
    finally:
        await s.close()


async def failover(s: Session, sentence: str, i: int, stats: Stats) -> bool:
    """Reconnect as the browser does (same cookie, the link's query string) and check that the
    new replica says what happened and shows this learner's own sentence."""
    stats.failovers += 1
    await s.close()
    for _ in range(20):
        try:
            await s.connect(cookie=s.cookie, resume=True)
            s.query = urllib.parse.urlencode({"text": sentence})  # the browser's address bar
            run = await s.rerun("")
            stats.add("overview after failover", run)
            if MOVED in run.text():
                stats.moved_told += 1
            check_overview(run, sentence, i, stats)
            return True
        except (RunError, OSError) as err:
            last = err
            await asyncio.sleep(0.5)
    stats.errors.append(f"session {i}: no live replica after failover ({last})")
    return False


def training_step(raw: bytes) -> int | None:
    """The step number of a training progress bar in a ForwardMsg, if it is one."""
    fwd = ForwardMsg()
    fwd.ParseFromString(raw)
    if fwd.WhichOneof("type") == "delta" and fwd.delta.new_element.WhichOneof("type") == "progress":
        m = STEP.match(fwd.delta.new_element.progress.text)
        return int(m.group(1).replace(",", "")) if m else None
    return None


async def heavy_trainer(i: int, base: str, deadline: float, stats: Stats) -> None:
    """Start the largest training allowed and keep the page open (reading its progress)."""
    s = Session(base, timeout=120)
    try:
        await s.connect()
        await s.rerun("train")
        s.set_widget("train_text", oracle.heavy_corpus())
        for key, value in HEAVY.items():
            s.set_widget(key, value)
        await s.rerun()
        await s.rerun(click="train_go", wait=False)
        stats.heavy_steps[i] = 0
        while time.time() < deadline:
            try:
                raw = await asyncio.wait_for(s.ws.recv(), max(0.1, deadline - time.time()))
            except TimeoutError:
                break
            step = training_step(raw)
            if step is not None:
                stats.heavy_steps[i] = step
    except Exception as err:  # noqa: BLE001 - a heavy learner's failure is reported, not raised
        stats.errors.append(f"heavy {i}: {type(err).__name__}: {err}")
    finally:
        await s.close()


async def drive(base: str, args, stats: Stats, cookie_log: dict, on_start=None) -> float:
    start = time.time()
    deadline = start + args.seconds
    heavy = [asyncio.create_task(heavy_trainer(j, base, deadline, stats)) for j in range(args.heavy)]
    if heavy:
        await asyncio.sleep(args.heavy_lead)  # the training is running before learners arrive
        deadline += args.heavy_lead
    tasks = []
    for i in range(args.sessions):
        tasks.append(asyncio.create_task(learner(i, base, deadline, stats, cookie_log, args.think)))
        await asyncio.sleep(args.ramp / max(1, args.sessions))
    if on_start is not None:
        tasks.append(asyncio.create_task(on_start()))
    await asyncio.gather(*tasks, *heavy)
    return time.time() - start - (args.heavy_lead if heavy else 0)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--replicas", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--heavy", type=int, default=0, help="learners running the largest training")
    ap.add_argument("--heavy-lead", type=float, default=20, help="seconds the training runs first")
    ap.add_argument("--think", type=float, default=0.0,
                    help="mean seconds a learner reads before the next page (0: click at once)")
    ap.add_argument("--ramp", type=float, default=5, help="seconds over which learners arrive")
    ap.add_argument("--kill-replica-after", type=float, default=None)
    ap.add_argument("--url", default=None, help="drive a running loopback server instead")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not 1 <= args.sessions <= MAX_SESSIONS or not 0 < args.seconds <= MAX_SECONDS:
        ap.error(f"--sessions must be 1..{MAX_SESSIONS} and --seconds 1..{MAX_SECONDS}")
    for i in range(args.sessions):
        oracle.overview(oracle.sentence_for(i))  # oracle first: not timed
    stats, cookies = Stats(), {}
    if args.url:
        elapsed = asyncio.run(drive(args.url, args, stats, cookies))
    else:
        from deploy.replicas import Cluster
        t0 = time.perf_counter()
        with Cluster(args.replicas) as c:
            cold = time.perf_counter() - t0

            async def killer():
                await asyncio.sleep(args.kill_replica_after)
                c.stop_replica("r1")

            on_start = killer if args.kill_replica_after is not None else None
            pids = [proc.pid for proc, _ in c.replicas.values()]
            before = [cpu_seconds(p) for p in pids]
            elapsed = asyncio.run(drive(c.url, args, stats, cookies, on_start))
            after = [cpu_seconds(p) for p in pids]
            if None not in before + after:  # the servers' own CPU: what one run costs under load
                stats.server_cpu_s = sum(after) - sum(before)
        stats.cold_start_s = cold
    out = stats.summary(args.sessions, args.replicas, elapsed)
    if hasattr(stats, "cold_start_s"):
        out["cold_start_s"] = round(stats.cold_start_s, 1)
    if getattr(stats, "server_cpu_s", None) is not None and out["reruns"]:
        out["server_cpu_s"] = round(stats.server_cpu_s, 1)
        out["server_cpu_ms_per_run"] = round(1000 * stats.server_cpu_s / out["reruns"], 1)
    out["heavy"], out["think_s"] = args.heavy, args.think
    for page, row in out["pages"].items():
        print(f"{page:24s} runs {row['runs']:5d}   p50 {row['p50_s']:7.3f} s   p95 {row['p95_s']:7.3f} s")
    print(f"{args.sessions} sessions, {args.replicas} replica(s), {args.heavy} heavy: "
          f"{out['reruns']} reruns in {out['seconds']} s = {out['reruns_per_s']}/s; p50 {out['p50_s']} s, "
          f"p95 {out['p95_s']} s; errors {out['errors']}, cross-talk {out['crosstalk']} "
          f"of {out['crosstalk_checks']} checks")
    if "server_cpu_s" in out:
        print(f"server CPU {out['server_cpu_s']} s over {out['seconds']} s "
              f"({out['server_cpu_s'] / out['seconds']:.2f} cores): {out['server_cpu_ms_per_run']} ms a run")
    for e in out["error_samples"]:
        print("  error:", e)
    if args.json:
        print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
