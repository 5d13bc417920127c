"""The app's charts are drawn in place (ui/charts.py, ui/plotly_chart.js): in a real browser, a step
move on page 4 updates its step Jacobian chart in the <div> it already has (no chart is torn down
and drawn anew, as st.plotly_chart would), and the chart shows the new step."""
from __future__ import annotations

import pytest

from tests.browser.conftest import exceptions_on, page_at
from tests.browser.test_step_fragment import TEXT, step_right

pytestmark = pytest.mark.browser

TAG_JS = "() => document.querySelectorAll('.rnnviz-chart').forEach(d => { d.__before = 1; })"
CHARTS_JS = """() => [...document.querySelectorAll('.rnnviz-chart')].map(d => ({
  kept: !!d.__before, title: (d._fullLayout && d._fullLayout.title && d._fullLayout.title.text) || ''}))"""
JACOBIAN_AT = "() => [...document.querySelectorAll('.rnnviz-chart')].some(d => d._fullLayout && " \
              "d._fullLayout.title.text.startsWith('Step Jacobian J') && d._fullLayout.title.text.includes(%r))"


def test_a_step_move_updates_the_charts_it_changes_in_place(server, browser):
    with page_at(browser, f"{server}/bptt?model=default&text={TEXT}&bptt_step=2&lang=en") as pg:
        pg.wait_for_function(JACOBIAN_AT % "J₂", timeout=120_000)
        before = pg.evaluate(CHARTS_JS)
        assert len(before) >= 3 and pg.evaluate("() => !!window.Plotly")  # Plotly.js served and loaded
        pg.evaluate(TAG_JS)
        step_right(pg, "bptt_step")
        pg.wait_for_function(JACOBIAN_AT % "J₃", timeout=120_000)
        after = pg.evaluate(CHARTS_JS)
        assert len(after) == len(before)
        assert all(chart["kept"] for chart in after), after  # every chart still the one drawn before
        changed = [b["title"] for b, a in zip(before, after) if a["title"] != b["title"]]
        assert any(title.startswith("Step Jacobian J") for title in changed), changed
        assert not exceptions_on(pg)
