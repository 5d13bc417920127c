"""Page 6's Stop in a real browser: Train starts the run in a worker thread (ui.running), the
polling fragment shows the live bar and the Stop button, Stop ends the run and the page then
shows the model kept with the steps it had done (issue 23: one runner, no Streamlit internals)."""
from __future__ import annotations

import re

from tests.browser.conftest import SHOTS, exceptions_on, wait_ready, watch

STOP = ".st-key-train_job_stop button"


def test_stop_ends_a_page6_training_and_keeps_the_model(browser, server):
    pg = watch(browser.new_page(viewport={"width": 1366, "height": 900}))
    try:
        pg.goto(f"{server}/train?train_steps=5000")
        wait_ready(pg)
        pg.get_by_role("button", name="Train", exact=True).click()
        pg.wait_for_selector(STOP, timeout=60_000)
        bar = pg.locator('[data-testid="stProgress"]')
        bar.filter(has_text=re.compile(r"step [1-9][\d,]* / 5,000")).wait_for(timeout=60_000)  # it trains
        SHOTS.mkdir(parents=True, exist_ok=True)
        pg.locator(STOP).scroll_into_view_if_needed()
        pg.screenshot(path=str(SHOTS / "train_stop_running.png"))
        pg.locator(STOP).click()
        done = pg.get_by_text(re.compile(r"of 5,000 steps \(stopped early\)"))
        done.wait_for(timeout=60_000)
        wait_ready(pg)
        assert pg.locator(STOP).count() == 0        # the poller is gone with the run
        shown = done.inner_text()
        steps = int(re.search(r"([\d,]+) of 5,000 steps", shown).group(1).replace(",", ""))
        assert 0 < steps < 5000
        done.scroll_into_view_if_needed()
        pg.screenshot(path=str(SHOTS / "train_stop_stopped.png"))
        assert not exceptions_on(pg)
    finally:
        pg.close()
