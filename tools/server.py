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


def wait_ready(pg, timeout_ms: int = 90_000) -> None:
    """Wait until the script run has finished: the app is drawn and the status widget
    (the running-man icon with "Stop") is gone, and stays gone for a moment."""
    pg.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    for _ in range(2):
        pg.wait_for_timeout(700)
        pg.wait_for_function(
            """() => !document.querySelector('[data-testid="stStatusWidget"]')
                     && document.querySelector('[data-testid="stMain"]')""", timeout=timeout_ms)
