"""Start the app for a browser: `streamlit run app.py` on 127.0.0.1 and a free port, and wait
for a page to finish its run. Shared by the browser tests (tests/browser/conftest.py) and the
benchmarks (bench/bench_memory.py), so a benchmark never imports the tests. Knows nothing of
rnnviz or pytest.
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROME_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def app_process(log_name: str = "streamlit-browser.log", script: Path | None = None):
    """`streamlit run app.py` (or `script`) on 127.0.0.1 and a free port; yields (base URL,
    process), then stops it. Used by the browser tests and the benchmarks."""
    (ROOT / "artifacts").mkdir(exist_ok=True)
    port = free_port()
    with open(ROOT / "artifacts" / log_name, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script or ROOT / "app.py"), "--server.address",
             "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
             "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.time() + 60
            while time.time() < deadline:
                try:
                    if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                        break
                except OSError:
                    time.sleep(0.3)
            else:
                raise RuntimeError("streamlit did not become healthy in 60 s")
            yield url, proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


QUIET_S = 0.4  # s: a run's frames come closer together than this, and so does a run asked for as one ends
FIRST_S = 0.6  # s: the least wait_ready waits (a move is sent 0.15 s after the key press; a step form: 0.4 s)
BLIND_S = 3.0  # s: a watched page whose socket has said nothing by then is waited for as an unwatched one


class RunWatch:
    """What a page's websocket says of its script runs, for wait_ready: when the page last asked
    for a run (BackMsg rerun_script), when a run last finished (ForwardMsg script_finished, not
    one cut short for the next), and when the last frame came or went. Heartbeats are not
    counted. A fragment's rerun shows no status widget, so only the socket tells its end."""

    def __init__(self):
        self.asked = 0.0
        self.done = 0.0
        self.last = 0.0

    def attach(self, pg) -> None:
        pg.on("websocket", self._on_socket)

    def _on_socket(self, ws) -> None:
        ws.on("framereceived", self._received)
        ws.on("framesent", self._sent)

    def _received(self, payload) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = _parsed(ForwardMsg, payload)
        kind = msg.WhichOneof("type") if msg is not None else None
        if kind == "heartbeat_ack":
            return
        now = time.monotonic()
        self.last = now
        if kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            self.done = now

    def _sent(self, payload) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = _parsed(BackMsg, payload)
        if msg is not None and msg.WhichOneof("type") == "rerun_script":
            self.asked = self.last = time.monotonic()

    def settled(self, now: float) -> bool:
        """Every run asked for has finished, and the socket has been quiet for QUIET_S."""
        return self.done > 0 and self.done >= self.asked and now - self.last >= QUIET_S


def _parsed(kind, payload):
    msg = kind()
    try:
        msg.ParseFromString(payload.encode() if isinstance(payload, str) else payload)
    except Exception:  # noqa: BLE001 - not a Streamlit message
        return None
    return msg


def watch(pg):
    """Watch pg's script runs from here on (before its first goto), so that wait_ready(pg) ends
    as soon as the run has finished and the socket is quiet instead of after a fixed 1.4 s.
    Returns pg."""
    pg._rnnviz_runs = RunWatch()
    pg._rnnviz_runs.attach(pg)
    return pg


IDLE_JS = """() => !document.querySelector('[data-testid="stStatusWidget"]')
                   && !!document.querySelector('[data-testid="stMain"]')"""
# A step form's sync waits to be sent (ui/stepped.js: the learner's move has not reached the server yet)
SYNC_PENDING_JS = "() => document.documentElement.hasAttribute('data-rnnviz-sync')"
IDLE_SENT_JS = f"() => ({IDLE_JS})() && !({SYNC_PENDING_JS})()"  # idle, and every move sent
TWO_FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))"


def wait_ready(pg, timeout_ms: int = 90_000) -> None:
    """Wait until the script run has finished: the app is drawn and the status widget
    (the running-man icon with "Stop") is gone. On a watched page (watch) until every run it
    asked for has finished and its socket has been quiet for QUIET_S (at least FIRST_S in all,
    then two frames drawn); otherwise until the status widget stays gone for a moment (1.4 s)."""
    start = time.monotonic()
    pg.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    runs = getattr(pg, "_rnnviz_runs", None)
    if runs is not None:
        deadline = start + timeout_ms / 1000
        while time.monotonic() < deadline:
            now = time.monotonic()
            if now - start >= FIRST_S and pg.evaluate(IDLE_SENT_JS) and runs.settled(now):  # browser first
                pg.evaluate(TWO_FRAMES_JS)
                return
            if runs.last == 0 and now - start >= BLIND_S:
                break  # the socket said nothing yet: wait as for an unwatched page
            pg.wait_for_timeout(50)
        else:
            raise TimeoutError(f"the page's run did not finish in {timeout_ms / 1000:.0f} s")
    for _ in range(2):
        pg.wait_for_timeout(700)
        pg.wait_for_function(IDLE_SENT_JS, timeout=timeout_ms)
