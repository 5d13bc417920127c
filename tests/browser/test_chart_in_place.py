"""The app's charts are drawn in place (ui/charts.py, ui/plotly_chart.js): in a real browser, a step
move on page 4 updates its step Jacobian chart in the <div> it already has (no chart is torn down
and drawn anew, as st.plotly_chart would), and the chart shows the new step. A chart far out of
sight keeps its drawing until it is scrolled to (or the page is printed), then shows the newest
step."""
from __future__ import annotations

import pytest

from tests.browser.conftest import exceptions_on, page_at
from tests.browser.test_step_fragment import TEXT, step_left, step_right

pytestmark = pytest.mark.browser

TAG_JS = "() => document.querySelectorAll('.rnnviz-chart').forEach(d => { d.__before = 1; })"
CHARTS_JS = """() => [...document.querySelectorAll('.rnnviz-chart')].map(d => ({
  kept: !!d.__before, title: (d._fullLayout && d._fullLayout.title && d._fullLayout.title.text) || ''}))"""
JACOBIAN_AT = "() => [...document.querySelectorAll('.rnnviz-chart')].some(d => d._fullLayout && " \
              "d._fullLayout.title.text.startsWith('Step Jacobian J') && d._fullLayout.title.text.includes(%r))"


JACOBIAN = ".st-key-bptt_jacobian_chart"
WAITING = "() => !!document.querySelector('%s .rnnviz-chart').__waiting"


def test_a_step_move_updates_the_charts_it_changes_in_place(server, browser):
    with page_at(browser, f"{server}/bptt?model=default&text={TEXT}&bptt_step=2&lang=en") as pg:
        pg.wait_for_function(JACOBIAN_AT % "J₂", timeout=120_000)
        before = pg.evaluate(CHARTS_JS)
        assert len(before) >= 3 and pg.evaluate("() => !!window.Plotly")  # Plotly.js served and loaded
        pg.evaluate(TAG_JS)
        step_right(pg, "bptt_step")  # the slider in view, far above the step Jacobian chart
        pg.wait_for_function(WAITING % JACOBIAN, timeout=60_000)  # out of sight: J₃ waits ...
        assert pg.evaluate(JACOBIAN_AT % "J₂")  # ... and the chart still shows its last drawing
        pg.locator(JACOBIAN).scroll_into_view_if_needed()
        pg.wait_for_function(JACOBIAN_AT % "J₃", timeout=120_000)  # in sight: the new step
        step_right(pg, "bptt_step")  # out of sight again, J₄ waits; printing draws it
        pg.wait_for_function(WAITING % JACOBIAN, timeout=60_000)
        pg.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
        pg.wait_for_function(JACOBIAN_AT % "J₄", timeout=60_000)
        after = pg.evaluate(CHARTS_JS)
        assert len(after) == len(before)
        assert all(chart["kept"] for chart in after), after  # every chart still the one drawn before
        changed = [b["title"] for b, a in zip(before, after) if a["title"] != b["title"]]
        assert any(title.startswith("Step Jacobian J") for title in changed), changed
        assert not exceptions_on(pg)


FULL = "() => { const d = document.querySelector('.st-key-hid_fig_terms_chart .rnnviz-chart'); " \
       "return d && d._fullLayout ? [d.getBoundingClientRect().width, d._fullLayout.width, " \
       "d._fullLayout.height, window.innerWidth, window.innerHeight] : null; }"


def test_a_chart_drawn_in_place_has_streamlits_full_screen_button(server, browser):
    """As st.plotly_chart's toolbar has it: on hover above the chart, a button (labelled from the
    catalogue) makes the chart fill the window, its height too; the button or Escape brings it back."""
    with page_at(browser, f"{server}/hidden?model=default&text={TEXT}&lang=zh") as pg:
        box = pg.locator(".st-key-hid_fig_terms_chart")
        box.scroll_into_view_if_needed()
        pg.wait_for_function(FULL, timeout=120_000)
        # mid-window: the button sits above the chart, and the sticky header covers a chart's top
        box.evaluate("b => b.scrollIntoView({block: 'center'})")
        width, drawn_width, height, _, _ = pg.evaluate(FULL)
        button = box.locator(".rnnviz-chart-full")
        assert button.get_attribute("aria-label") == "全屏查看"
        shown = "(b) => [getComputedStyle(b).opacity, getComputedStyle(b).pointerEvents]"
        pg.mouse.move(1, 1)  # the pointer off the chart (it stayed where page_at clicked Skip)
        assert button.evaluate(shown) == ["0", "none"]  # hidden until the pointer is on the chart
        box.hover()
        assert button.evaluate(shown) == ["1", "auto"]
        button.click()
        pg.wait_for_function(f"() => ({FULL})()[1] > {drawn_width + 100}", timeout=30_000)
        _, full_width, full_height, window_width, window_height = pg.evaluate(FULL)
        assert full_width >= window_width - 100 and full_height >= window_height - 100 > height
        assert button.get_attribute("aria-label") == "退出全屏"
        pg.keyboard.press("Escape")
        pg.wait_for_function(f"() => ({FULL})()[2] === {height}", timeout=30_000)
        assert pg.evaluate(FULL)[:3] == [width, drawn_width, height]
        assert button.get_attribute("aria-label") == "全屏查看"
        box.hover()
        button.click()  # and the button itself brings it back
        pg.wait_for_function(f"() => ({FULL})()[2] > {height}", timeout=30_000)
        button.click()
        pg.wait_for_function(f"() => ({FULL})()[2] === {height}", timeout=30_000)
        assert not exceptions_on(pg)


PATHS = ".st-key-bptt_paths_chart .rnnviz-chart"
COUNT_DRAWS = f"""() => {{ const d = document.querySelector('{PATHS}');
  d.__draws = 0; d.on('plotly_beforeplot', () => {{ d.__draws += 1; }}); }}"""
DRAWS_AND_MARGINS = f"""() => {{ const d = document.querySelector('{PATHS}'), s = d._fullLayout._size;
  const n = d.__draws; d.__draws = 0; return [n, [s.l, s.b], d._fullLayout.title.text]; }}"""


def test_step_moves_keep_a_charts_margins_and_draw_it_once(server, browser):
    """Steady margins (ui/plotly_chart.js, ui/charts.steady_margins): on the start sentence, page 4's
    chart of dL/dh_t by source loss has y tick labels of another width at steps 2 and 3. Plotly's
    automargin then drew it twice per move (the margin changed, so the whole chart again: Plotly's
    "plotly_beforeplot" fires for each draw) and slid the plot area sideways. Now a move starts
    from the chart's left and bottom margins, which only grow: back and forth between the two
    steps, each move draws the chart once and its plot area stays put."""
    with page_at(browser, f"{server}/bptt?bptt_step=2&lang=en") as pg:
        pg.wait_for_function(JACOBIAN_AT % "J₂", timeout=120_000)
        pg.locator(PATHS).scroll_into_view_if_needed()
        pg.evaluate(COUNT_DRAWS)
        seen = []
        for move in (step_right, step_left, step_right, step_left, step_right):
            move(pg, "bptt_step")
            pg.wait_for_function(f"() => document.querySelector('{PATHS}').__draws > 0", timeout=60_000)
            seen.append(pg.evaluate(DRAWS_AND_MARGINS))
        titles = [title for _, _, title in seen]
        assert [t.startswith("∂L/∂h₃") for t in titles] == [True, False, True, False, True], titles
        margins = [m for _, m, _ in seen]
        assert all(all(b >= a for a, b in zip(m0, m1)) for m0, m1 in zip(margins, margins[1:])), margins
        assert margins[2:] == [margins[2]] * 3, margins  # grown to both steps' labels, then put
        assert [n for n, _, _ in seen[2:]] == [1, 1, 1], seen  # one draw per move
        assert not exceptions_on(pg)


TERMS = ".st-key-hid_fig_terms_chart .rnnviz-chart"
WIDTHS = f"""() => {{ const d = document.querySelector('{TERMS}');
  return d && d._fullLayout ? [Math.round(d.getBoundingClientRect().width), d._fullLayout.width] : null; }}"""


def test_a_chart_drawn_in_place_follows_its_width(server, browser):
    """The chart is drawn at the width Streamlit gives it, and drawn again when that changes (the
    window resized, the sidebar closed): ui/plotly_chart.js compares the <div>'s new width with the
    width Plotly drew at."""
    with page_at(browser, f"{server}/hidden?model=default&text={TEXT}&lang=en") as pg:
        pg.locator(TERMS).scroll_into_view_if_needed()
        pg.wait_for_function(WIDTHS, timeout=120_000)
        box, drawn = pg.evaluate(WIDTHS)
        assert abs(box - drawn) <= 1, (box, drawn)
        pg.set_viewport_size({"width": 1766, "height": 1000})
        pg.wait_for_function(f"() => ({WIDTHS})()[1] > {drawn + 200}", timeout=30_000)
        wide_box, wide = pg.evaluate(WIDTHS)
        assert abs(wide_box - wide) <= 1, (wide_box, wide)
        pg.set_viewport_size({"width": 1366, "height": 1000})
        pg.wait_for_function(f"() => ({WIDTHS})()[1] < {wide - 200}", timeout=30_000)
        assert abs(pg.evaluate(WIDTHS)[1] - drawn) <= 1
        assert not exceptions_on(pg)
