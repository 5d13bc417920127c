"""Browser fixtures: `streamlit run` on 127.0.0.1 (a free port) and the system Chromium.

Without Chromium or Playwright these tests skip, except under CI (CI set), where they fail.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

import pytest

from tools.server import CHROME_ARGS, CHROMIUM, ROOT, app_process, wait_ready, watch  # noqa: F401 (fixtures' API)

SHOTS = ROOT / "artifacts" / "screenshots"


def _missing_browser() -> str | None:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        return f"no Chromium at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed"
    return None


def require_browser() -> None:
    """Skip without Chromium or Playwright, except under CI, where that is a failure."""
    reason = _missing_browser()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"Browser tests cannot run in CI: {reason}")
        pytest.skip(reason)


@contextlib.contextmanager
def running_app(log_name: str = "streamlit-browser.log"):
    """The app's base URL while it runs (a start-up failure fails the test)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # pytest -n 2: one server per worker, one log each
    if worker:
        log_name = log_name.replace(".log", f"-{worker}.log")
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
def chromium():
    """The one Playwright (sync API) of a pytest worker: a second sync_playwright() in the same
    thread fails ("Sync API inside the asyncio loop"), so tests with a server of their own use it too."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def browser(server, chromium):
    warm = watch(chromium.new_page())  # a fresh server's first request runs in pages/-folder mode, where
    warm.goto(server)           # /overview is "not found" until app.py has run once (test_deep_link)
    wait_ready(warm)
    warm.close()
    return chromium


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = watch(ctx.new_page())
    yield pg
    ctx.close()


def exceptions_on(pg) -> list[str]:
    return [e.inner_text() for e in pg.query_selector_all('[data-testid="stException"]')]


def screenshot(pg, name: str) -> Path:
    """The whole page: Streamlit's main area scrolls on its own, so grow the viewport to it,
    again until the height stops changing (lazily drawn parts add height as they load; three
    passes at most: each costs a render of the whole tall page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    width = pg.viewport_size["width"] if pg.viewport_size else 1400
    last = -1
    for _ in range(3):
        height = pg.evaluate("""() => { const m = document.querySelector('[data-testid="stMain"]');
                                       return m ? m.scrollHeight : 1000; }""")
        if height == last:
            break
        last = height
        pg.set_viewport_size({"width": width, "height": min(max(int(height) + 40, 800), 16000)})
        try:  # lazily drawn elements show grey skeletons until they are in view and loaded
            pg.wait_for_function("""() => !document.querySelector('[data-testid^="stSkeleton"]')""",
                                 timeout=15_000)
        except Exception:
            pass
        pg.wait_for_timeout(300)
    pg.screenshot(path=str(path), full_page=True)
    return path


@contextlib.contextmanager
def page_at(browser, url: str):
    """A new 1366 x 1000 browser context on `url`, drawn, its predict-first checkpoints skipped;
    closed afterwards."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 1000})
    try:
        pg = watch(ctx.new_page())
        pg.goto(url)
        wait_ready(pg, 180_000)
        skip_checkpoints(pg)
        yield pg
    finally:
        ctx.close()


def skip_checkpoints(pg, rounds: int = 4) -> None:
    """Click every predict-first checkpoint's Skip: the figures they guard are what a browser test
    looks at (tests/pages/test_checkpoints_page.py tests the checkpoints themselves)."""
    for _ in range(rounds):
        drawn(pg)  # a button still drawn as a skeleton is not there to count yet
        buttons = pg.locator('[class*="st-key-checkpoint_"][class*="_skip"] button')
        if buttons.count() == 0:
            return
        wait_ready(pg)  # a long first run redraws the button until it ends: click it once still
        buttons.first.click(timeout=120_000)
        wait_ready(pg)


def drawn(pg, timeout_ms: int = 15_000) -> None:
    """Wait (at most timeout_ms) until no element is drawn as a skeleton: Streamlit 1.67 shows one
    while an element's code loads, for up to a second after the run has finished."""
    try:
        pg.wait_for_function("""() => !document.querySelector('[data-testid^="stSkeleton"]')""",
                             timeout=timeout_ms)
    except Exception:  # noqa: BLE001 - still drawing: count what is there
        pass


def wait_for_figure(pg, selector: str, timeout_ms: int = 180_000) -> None:
    """Wait until `selector` is drawn, clicking a checkpoint's Skip whenever one stands in the way.
    A checkpoint can appear after skip_checkpoints has looked (on a loaded machine the first run
    is drawn in parts, and the status widget can vanish between two runs), and the figure it
    guards is then never drawn: look again until the figure is there."""
    from playwright.sync_api import Error as PlaywrightError

    skip = '[class*="st-key-checkpoint_"][class*="_skip"] button'
    deadline = time.monotonic() + timeout_ms / 1000
    while pg.locator(selector).count() == 0:
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector} not drawn in {timeout_ms / 1000:.0f} s; "
                                 f"checkpoints waiting: {pg.locator(skip).count()}")
        buttons = pg.locator(skip)
        if buttons.count():
            try:
                buttons.first.click(timeout=30_000)
            except PlaywrightError:  # redrawn by the run under way: look again
                pass
        pg.wait_for_timeout(1_000)
    wait_ready(pg, timeout_ms)
