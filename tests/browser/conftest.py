"""Browser fixtures: `streamlit run` on 127.0.0.1 (a free port) and the system Chromium.

Without Chromium or Playwright these tests skip, except under CI (CI set), where they fail.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "artifacts" / "screenshots"
CHROME_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def _missing_browser() -> str | None:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        return f"no Chromium at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require_browser() -> None:
    """Skip without Chromium or Playwright, except under CI, where that is a failure."""
    reason = _missing_browser()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"Browser tests cannot run in CI: {reason}")
        pytest.skip(reason)


@contextlib.contextmanager
def app_process(log_name: str = "streamlit-browser.log"):
    """`streamlit run app.py` on 127.0.0.1 and a free port; yields (base URL, process), then
    stops it. Used by the browser tests and by bench/bench_memory.py."""
    (ROOT / "artifacts").mkdir(exist_ok=True)
    port = _free_port()
    with open(ROOT / "artifacts" / log_name, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.address",
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


@contextlib.contextmanager
def running_app(log_name: str = "streamlit-browser.log"):
    """The app's base URL while it runs (a start-up failure fails the test)."""
    try:
        with app_process(log_name) as (url, _):
            yield url
    except RuntimeError as err:
        pytest.fail(str(err))


@pytest.fixture(scope="session")
def server():
    """Base URL of a running app, shared by the browser tests; stopped at the end."""
    require_browser()
    with running_app() as url:
        yield url


@pytest.fixture(scope="session")
def browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    yield pg
    ctx.close()


def wait_ready(pg, timeout_ms: int = 90_000) -> None:
    """Wait until the script run has finished: the app is drawn and the status widget
    (the running-man icon with "Stop") is gone, and stays gone for a moment."""
    pg.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    for _ in range(2):
        pg.wait_for_timeout(700)
        pg.wait_for_function(
            """() => !document.querySelector('[data-testid="stStatusWidget"]')
                     && document.querySelector('[data-testid="stMain"]')""", timeout=timeout_ms)


def exceptions_on(pg) -> list[str]:
    return [e.inner_text() for e in pg.query_selector_all('[data-testid="stException"]')]


def screenshot(pg, name: str) -> Path:
    """The whole page: Streamlit's main area scrolls on its own, so grow the viewport to it,
    again until the height stops changing (lazily drawn parts add height as they load)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    width = pg.viewport_size["width"] if pg.viewport_size else 1400
    last = -1
    for _ in range(6):
        height = pg.evaluate("""() => { const m = document.querySelector('[data-testid="stMain"]');
                                       return m ? m.scrollHeight : 1000; }""")
        if height == last:
            break
        last = height
        pg.set_viewport_size({"width": width, "height": min(max(int(height) + 40, 800), 16000)})
        try:  # lazily drawn elements show grey skeletons until they are in view and loaded
            pg.wait_for_function("""() => !document.querySelector('[data-testid^="stSkeleton"]')""",
                                 timeout=30_000)
        except Exception:
            pass
        pg.wait_for_timeout(1500)
    pg.screenshot(path=str(path), full_page=True)
    return path
