"""The app draws its charts itself in Streamlit's look (ui/charts.py, issue 24: a changed chart is
drawn once, not twice, and in place), so that look must be the one Streamlit's theme gave: in
Chromium, each figure of tests/browser/apps/chart_look.py drawn by ui.charts.chart (in place,
with plotly.py's Plotly.js) and by st.plotly_chart in the look the app writes (its fallback) is
pixel for pixel the same as the same figure drawn by st.plotly_chart with the theme (but for
anti-aliasing where lines cross: a few pixels in 10,000). Run again after a Streamlit or plotly
upgrade: a theme or a Plotly.js that changed shows here."""
from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from tests.browser.conftest import SHOTS, require_browser, wait_ready, watch
from tools.server import ROOT, app_process
from ui.charts import served_files

pytestmark = pytest.mark.browser
APP = ROOT / "tests" / "browser" / "apps" / "chart_look.py"
FIGURES = ("picked", "bars", "shared", "lines")
# a chart is drawn once its title and every annotation (subplot titles) are in its SVG: the themed
# chart's first pass has the plot without them
DRAWN_JS = """sel => {
  const g = document.querySelector(sel + ' .js-plotly-plot'), full = g && g._fullLayout;
  if (!full) return false;
  const title = full.title && full.title.text;
  return (!title || !!g.querySelector('.gtitle'))
    && g.querySelectorAll('.annotation').length === (full.annotations || []).length;
}"""


@pytest.fixture(scope="module")
def look_server():
    require_browser()
    with app_process("streamlit-chart-look.log", script=APP) as (url, _proc):
        yield url


def _shot(pg, key: str) -> Image.Image:
    box = pg.locator(f".st-key-{key}").first
    box.evaluate("e => e.scrollIntoView({block: 'center'})")  # not under Streamlit's fixed header
    box.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=60_000)
    pg.wait_for_function(DRAWN_JS, arg=f".st-key-{key}", timeout=60_000)
    shot = box.screenshot()
    for _ in range(20):  # until drawn: the same picture 300 ms apart (the themed chart's second pass)
        pg.wait_for_timeout(300)
        shot, before = box.screenshot(), shot
        if shot == before:
            break
    return Image.open(io.BytesIO(shot)).convert("RGB")


def test_charts_drawn_by_the_app_look_as_streamlits_theme_drew_them(look_server, chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = chromium.new_context(viewport={"width": 1000, "height": 1000})
    try:
        pg = watch(ctx.new_page())
        pg.goto(look_server)
        wait_ready(pg)
        for name, way in ((name, way) for name in FIGURES for way in ("looked", "in_place")):
            themed, drawn = _shot(pg, f"themed_{name}"), _shot(pg, f"{way}_{name}")
            assert themed.size == drawn.size, (name, way, themed.size, drawn.size)
            diff = ImageChops.difference(themed, drawn)
            changed = sum(1 for px in diff.getdata() if max(px) > 24)
            if changed:  # for the failure: both pictures, to look at
                themed.save(SHOTS / f"chart-look-{name}-themed.png")
                drawn.save(SHOTS / f"chart-look-{name}-{way}.png")
            # at most 1 pixel in 10,000: the anti-aliasing where two lines cross may differ
            assert changed <= themed.width * themed.height // 10_000, \
                f"{name}, {way}: {changed} pixels differ, in {diff.getbbox()}"
        assert pg.locator(".rnnviz-chart").count() == len(FIGURES)  # ui.charts.chart drew in place
        # ... with the Plotly.js the page served (plotly.py's), not the copy Streamlit's own chart
        # code puts in window.Plotly
        drew = pg.evaluate("() => [...document.querySelectorAll('.rnnviz-chart')].map(d => d.__plotly.version)")
        served = next(iter(served_files())).removeprefix("plotly-").removesuffix(".min.js")
        assert drew == [served] * len(FIGURES), drew
    finally:
        ctx.close()
