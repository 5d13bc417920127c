"""Issue 26: on a phone (390 px wide) every input of every "try it by hand" exercise lies inside
the viewport, so the exercise can be done without scrolling sideways. An exercise is found by
its Check button (widgets.exercise: key <prefix>_check); its inputs are the number and text
inputs of the main area above that button, scrolled into view one by one."""
from __future__ import annotations

import pytest

from tests.browser.conftest import SHOTS, exceptions_on, wait_ready

PHONE = {"width": 390, "height": 844}
PAGES = ("embedding", "hidden", "output", "bptt")


def outside(pg) -> list[str]:
    """Inputs of the main area whose box leaves [0, 390] horizontally, as 'label: x..right'."""
    bad = []
    for el in pg.locator('[data-testid="stMain"] input[type="number"], '
                         '[data-testid="stMain"] [data-testid="stTextInput"] input').all():
        el.scroll_into_view_if_needed(timeout=10_000)
        box = el.bounding_box()
        if box is None or box["width"] == 0:
            continue
        if box["x"] < -0.5 or box["x"] + box["width"] > PHONE["width"] + 0.5:
            label = el.get_attribute("aria-label") or el.get_attribute("name") or "?"
            bad.append(f"{label}: {box['x']:.0f}..{box['x'] + box['width']:.0f}")
    return bad


@pytest.mark.parametrize("lang", ("en", "zh"))
@pytest.mark.parametrize("url_path", PAGES)
def test_exercise_inputs_fit_a_phone(server, browser, url_path, lang):
    ctx = browser.new_context(viewport=PHONE)
    try:
        pg = ctx.new_page()
        pg.goto(f"{server}/{url_path}?model=notes&lang={lang}")
        wait_ready(pg)
        assert not exceptions_on(pg)
        checks = pg.locator('[data-testid="stMain"] [class*="st-key-"][class*="_check"] button')
        checks.first.wait_for(state="attached", timeout=180_000)  # the page has its exercise (drawn last)
        wait_ready(pg)
        bad = outside(pg)
        if bad:
            SHOTS.mkdir(parents=True, exist_ok=True)
            pg.screenshot(path=str(SHOTS / f"phone-{url_path}-{lang}.png"))
        assert not bad, bad
    finally:
        ctx.close()
