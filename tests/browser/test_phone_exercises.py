"""Issue 26: on a phone (390 px wide) every input of every "try it by hand" exercise lies inside
the viewport, so the exercise can be done without scrolling sideways. An exercise is found by
its Check button (widgets.exercise: key <prefix>_check); its inputs are the number and text
inputs of the main area above that button, scrolled into view one by one."""
from __future__ import annotations

import pytest

from tests.browser.conftest import SHOTS, exceptions_on, skip_checkpoints, wait_for_figure, wait_ready, watch

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
        pg = watch(ctx.new_page())
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


# ---- issue 26's other phone leftovers (pages 2, 8 and the sidebar cue) -----------------------

def _open(browser, server, path: str, lang: str, width: int):
    ctx = browser.new_context(viewport={"width": width, "height": 844})
    pg = watch(ctx.new_page())
    pg.goto(f"{server}/{path}?model=notes&lang={lang}")
    wait_ready(pg)
    skip_checkpoints(pg)
    return ctx, pg


def _inside(pg, locator, width: int) -> bool:
    locator.scroll_into_view_if_needed(timeout=30_000)
    box = locator.bounding_box()
    return box is not None and box["x"] >= -0.5 and box["x"] + box["width"] <= width + 0.5


@pytest.mark.parametrize("lang", ("en", "zh"))
def test_page_two_exercise_vectors_in_a_table_on_a_phone(server, browser, lang):
    ctx, pg = _open(browser, server, "hidden", lang, PHONE["width"])
    try:
        assert not exceptions_on(pg)
        x2 = pg.locator('[data-testid="stMain"] [data-testid="stMarkdown"] td', has_text="x₂").first
        x2.wait_for(state="attached", timeout=180_000)
        row = x2.locator("xpath=..")
        assert _inside(pg, row, PHONE["width"])  # x_2's row and both its entries on screen
        cue = pg.locator('[class*="st-key-phone_only_sidebar_cue"]').first
        assert cue.is_visible() and _inside(pg, cue, PHONE["width"])  # the sidebar is folded: say where
    finally:
        ctx.close()


def _gates_ready(pg) -> None:
    """Page 8 reads three models before its checkpoint appears: skip it once it is there, then
    wait for the compare section's table cue (drawn with the maps)."""
    wait_for_figure(pg, '[class*="st-key-phone_only_gates_table_cue"]', 360_000)


@pytest.mark.parametrize("lang", ("en", "zh"))
def test_page_eight_maps_and_table_cue_on_a_phone(server, browser, lang):
    ctx, pg = _open(browser, server, "gates", lang, PHONE["width"])
    try:
        assert not exceptions_on(pg)
        _gates_ready(pg)
        cue = pg.locator('[class*="st-key-phone_only_gates_table_cue"]').first
        assert cue.is_visible()
        chart = pg.locator('[class*="st-key-gates_influence_chart"] .js-plotly-plot').first
        chart.wait_for(state="attached", timeout=180_000)
        chart.scroll_into_view_if_needed()
        pg.wait_for_timeout(1500)
        widths = chart.evaluate("""g => ['xaxis', 'xaxis2', 'xaxis3'].map(a => g._fullLayout[a]
                                          ? g._fullLayout[a]._length : 0)""")
        assert len(widths) == 3 and min(widths) >= 200, widths  # stacked: 250 px each, not 70 px side by side
    finally:
        ctx.close()


def test_phone_cues_are_hidden_on_a_desktop(server, browser):
    ctx, pg = _open(browser, server, "gates", "en", 1366)
    try:
        _gates_ready(pg)
        cue = pg.locator('[class*="st-key-phone_only_gates_table_cue"]').first
        assert not cue.is_visible()
        assert not pg.locator('[class*="st-key-phone_only_sidebar_cue"]').first.is_visible()
    finally:
        ctx.close()
