"""The app draws its charts itself in Streamlit's look (ui/charts.py, issue 24: a changed chart is
drawn once, not twice), so that look must be the one Streamlit's theme gave: in Chromium, each
figure of tests/browser/apps/chart_look.py drawn by ui.charts.chart is pixel for pixel the same
as the same figure drawn by st.plotly_chart with the theme (but for anti-aliasing where lines
cross: a few pixels in 10,000). Run again after a Streamlit upgrade:
a theme that changed shows here."""
from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from tests.browser.conftest import SHOTS, require_browser, wait_ready, watch
from tools.server import ROOT, app_process

pytestmark = pytest.mark.browser
APP = ROOT / "tests" / "browser" / "apps" / "chart_look.py"
FIGURES = ("picked", "bars", "shared", "lines")


@pytest.fixture(scope="module")
def look_server():
    require_browser()
    with app_process("streamlit-chart-look.log", script=APP) as (url, _proc):
        yield url


def _shot(pg, key: str) -> Image.Image:
    box = pg.locator(f".st-key-{key}").first
    box.scroll_into_view_if_needed()
    box.locator(".js-plotly-plot").wait_for(timeout=60_000)
    pg.wait_for_timeout(300)  # the component's second pass (the themed chart's copy)
    return Image.open(io.BytesIO(box.screenshot())).convert("RGB")


def test_charts_drawn_by_the_app_look_as_streamlits_theme_drew_them(look_server, chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = chromium.new_context(viewport={"width": 1600, "height": 1000})
    try:
        pg = watch(ctx.new_page())
        pg.goto(look_server)
        wait_ready(pg)
        for name in FIGURES:
            themed, looked = _shot(pg, f"themed_{name}"), _shot(pg, f"looked_{name}")
            assert themed.size == looked.size, (name, themed.size, looked.size)
            diff = ImageChops.difference(themed, looked)
            changed = sum(1 for px in diff.getdata() if max(px) > 24)
            if changed:  # for the failure: both pictures, to look at
                themed.save(SHOTS / f"chart-look-{name}-themed.png")
                looked.save(SHOTS / f"chart-look-{name}-looked.png")
            # at most 1 pixel in 10,000: the anti-aliasing where two lines cross may differ
            assert changed <= themed.width * themed.height // 10_000, \
                f"{name}: {changed} pixels differ, in {diff.getbbox()}"
    finally:
        ctx.close()
