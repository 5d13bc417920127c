"""Page 2's step parts follow the slider in the browser (ui/stepped.py, issue 24): a key press on
the step slider shows the new step's text, tables, terms chart and the heatmap's box, with the
numbers rnnviz computes for that step, and math drawn by KaTeX; the run that follows keeps the
step in the address. A sentence longer than the window carried: a move past it draws the page,
which then carries the new step."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np

from rnnviz.engine.trace import trace
from rnnviz.explain import hidden as hd
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.browser.conftest import exceptions_on, page_at, wait_ready
from ui.stepped import WINDOW

TEXT = "Arrive Taipei on November 2nd and leave Boston"

PARTS_AT = """step => { const parts = [...document.querySelectorAll('.rnnviz-stepped')];
  return parts.length >= 5 && parts.every(p => p.dataset.step === String(step)); }"""
CHART = """key => { const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  return gd && gd._fullLayout ? {data: gd._fullData.map(d => d.y ? Array.from(d.y) : null),
                                 shapes: (gd.layout.shapes || []).map(s => [s.x0, s.x1]),
                                 step: gd.closest('.rnnviz-chart-frame').dataset.step,
                                 waiting: !!gd.__waiting} : null; }"""


def _terms(step: int) -> dict:
    model, vocab, _ = load_builtin("default")
    ids, targets = lm_pair(list(prepare(TEXT, vocab, "word").ids), vocab)
    return hd.step_terms(model, trace(model, ids, targets), step - 1)


def _press(pg, key: str) -> None:
    slider = pg.locator(".st-key-hid_step").get_by_role("slider").first
    slider.focus()
    pg.keyboard.press(key)


def _chart_at(pg, key: str, step: int) -> dict:
    pg.locator(f".st-key-{key}").scroll_into_view_if_needed()
    # a chart out of sight takes its figure when it comes near: wait until it has drawn it
    pg.wait_for_function(f"() => {{ const c = ({CHART})('{key}'); return c?.step === '{step}' && !c.waiting; }}",
                         timeout=30_000)
    return pg.evaluate(CHART, key)


def test_a_key_press_shows_the_new_step_everywhere(server, browser):
    url = f"{server}/hidden?model=default&text={TEXT.replace(' ', '+')}&hid_step=3"
    with page_at(browser, url) as pg:
        pg.wait_for_function(PARTS_AT, arg=3, timeout=60_000)
        _press(pg, "ArrowRight")
        pg.wait_for_function(PARTS_AT, arg=4, timeout=30_000)  # every text and table part
        text = pg.locator(".rnnviz-stepped").nth(1).inner_text()
        assert "Step 4 of 9" in text and "“on”" in text  # step 1 reads <bos>
        assert pg.locator(".rnnviz-stepped .katex").count() > 5  # $W_x x_{4}$ and the rest, by KaTeX
        assert pg.locator(".rnnviz-stepped .math.inline:not(:has(.katex))").count() == 0
        terms = _terms(4)
        bars = _chart_at(pg, "hid_fig_terms_chart", 4)  # Wx x, Wh h, b, then a_t and h_t
        for k, name in enumerate(("Wx_x", "Wh_h", "b", "a", "h")):
            assert np.allclose(bars["data"][k], terms[name].numpy(), atol=1e-5), name
        heat = _chart_at(pg, "hid_fig_heat_chart", 4)
        assert heat["shapes"][0] == [2.5, 3.5]  # the boxed column is step 4 (0-based 3)
        wait_ready(pg)
        pg.wait_for_function("() => location.search.includes('hid_step=4')", timeout=30_000)
        assert not exceptions_on(pg)
        button = pg.locator(".st-key-hid_fig_terms_html button").first  # the chart as HTML: step 4's
        button.scroll_into_view_if_needed()
        with pg.expect_download(timeout=60_000) as download:
            button.click()
        html = Path(download.value.path()).read_text(encoding="utf-8")
        first_y = json.loads(re.search(r'"y":(\[[^\]]*\])', html).group(1))
        assert np.allclose(first_y, terms["Wx_x"].numpy(), atol=1e-6)
        button = pg.locator(".st-key-hid_fig_heat_html button").first  # the heatmap: step 4's column boxed
        button.scroll_into_view_if_needed()
        with pg.expect_download(timeout=60_000) as download:
            button.click()
        html = Path(download.value.path()).read_text(encoding="utf-8")
        assert re.search(r'"x0":\s*2\.5,\s*"x1":\s*3\.5', html), re.findall(r'"x0":[^,]*,\s*"x1":[^,]*', html)
        pg.reload()  # the address opens step 4 again, drawn by the server
        wait_ready(pg, 120_000)
        pg.wait_for_function(PARTS_AT, arg=4, timeout=60_000)


def test_a_move_past_the_window_draws_the_page_at_the_new_step(server, browser):
    words = "+".join(["the", "cat", "sat", "on", "the", "mat"] * 5)  # 30 words, 31 steps
    with page_at(browser, f"{server}/hidden?model=default&text={words}&hid_step=2") as pg:
        pg.wait_for_function(PARTS_AT, arg=2, timeout=60_000)
        first = pg.evaluate("() => document.querySelectorAll('.rnnviz-stepped').length")
        _press(pg, "End")  # step 31: past the 12 steps carried
        pg.wait_for_function(PARTS_AT, arg=31, timeout=120_000)
        wait_ready(pg)
        text = pg.locator(".rnnviz-stepped").nth(1).inner_text()
        assert "Step 31 of 31" in text
        assert pg.evaluate("() => document.querySelectorAll('.rnnviz-stepped-stale').length") == 0
        assert pg.evaluate("() => document.querySelectorAll('.rnnviz-stepped').length") == first
        assert WINDOW < 31 and not exceptions_on(pg)


def test_page_three_follows_the_slider_with_the_steps_numbers(server, browser):
    from rnnviz.explain import output as out

    url = f"{server}/output?model=default&text={TEXT.replace(' ', '+')}&out_step=3"
    with page_at(browser, url) as pg:
        pg.wait_for_function(PARTS_AT, arg=3, timeout=60_000)
        slider = pg.locator(".st-key-out_step").get_by_role("slider").first
        slider.focus()
        pg.keyboard.press("ArrowRight")
        pg.wait_for_function(PARTS_AT, arg=4, timeout=30_000)
        assert any("Step 4" in pg.locator(".rnnviz-stepped").nth(i).inner_text() for i in range(3))
        model, vocab, _ = load_builtin("default")
        ids, targets = lm_pair(list(prepare(TEXT, vocab, "word").ids), vocab)
        view = out.step_view(trace(model, ids, targets), 3, vocab.itos)
        shown = out.shown_outputs(view, 8)
        bars = _chart_at(pg, "out_fig_step_chart", 4)  # p over the shown outputs, then p - y
        assert np.allclose(bars["data"][0], view.p[shown], atol=1e-6)
        wait_ready(pg)
        pg.wait_for_function("() => location.search.includes('out_step=4')", timeout=30_000)
        assert not exceptions_on(pg)


def test_buttons_and_play_move_the_parts_with_the_slider(server, browser):
    url = f"{server}/hidden?model=default&text={TEXT.replace(' ', '+')}&hid_step=2"
    with page_at(browser, url) as pg:
        pg.wait_for_function(PARTS_AT, arg=2, timeout=60_000)
        pg.locator(".st-key-hid_next button").first.click()  # ▶: the server moves the slider, the parts follow
        pg.wait_for_function(PARTS_AT, arg=3, timeout=30_000)
        wait_ready(pg)
        pg.locator(".st-key-hid_play label").click()  # Play: a step per tick, the parts with it
        seen = set()
        for _ in range(60):
            step = pg.evaluate("""() => { const v = document.querySelector('.st-key-hid_step input[type=range]')?.value;
              const parts = [...document.querySelectorAll('.rnnviz-stepped')].map(p => p.dataset.step);
              return parts.every(s => s === v) ? Number(v) : null; }""")
            if step is not None:
                seen.add(step)
            if len(seen) >= 3:
                break
            pg.wait_for_timeout(250)
        pg.locator(".st-key-hid_play label").click()
        assert len(seen) >= 3, seen  # three steps shown by every part as Play moved the slider
        wait_ready(pg)
        assert not exceptions_on(pg)


def test_page_four_paths_follow_the_slider(server, browser):
    url = f"{server}/bptt?model=default&text={TEXT.replace(' ', '+')}&bptt_step=3"
    with page_at(browser, url) as pg:
        pg.wait_for_function("() => document.querySelector('.rnnviz-stepped')?.dataset.step === '3'",
                             timeout=60_000)
        before = _chart_at(pg, "bptt_paths_chart", 3)
        slider = pg.locator(".st-key-bptt_step").get_by_role("slider").first
        slider.focus()
        pg.keyboard.press("ArrowRight")
        pg.wait_for_function("() => document.querySelector('.rnnviz-stepped')?.dataset.step === '4'",
                             timeout=30_000)
        assert "At step 4 (“on”)" in pg.locator(".rnnviz-stepped").first.inner_text()
        after = _chart_at(pg, "bptt_paths_chart", 4)
        assert after["data"] != before["data"]  # the sources of ∂L/∂h₄, not h₃'s
        wait_ready(pg)
        pg.wait_for_function("() => location.search.includes('bptt_step=4')", timeout=30_000)
        assert not exceptions_on(pg)


TIMELINE = """() => { const t = window.__timeline = [], now = () => Math.round(performance.now()) / 1000;
  document.addEventListener('keydown', () => t.push(['key', now()]), true);
  document.addEventListener('click', e => { if (e.target.closest('.st-key-step_sync_hid_step')) t.push(['sync', now()]); }, true);
  new MutationObserver(rs => rs.forEach(r => r.target.type === 'range' && t.push(['step ' + r.target.value, now()])))
    .observe(document.body, {subtree: true, attributes: true, attributeFilter: ['aria-valuetext']}); }"""


def _is_rerun(payload) -> bool:
    """A frame the page sends: a Streamlit rerun request?"""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    try:
        msg.ParseFromString(payload.encode() if isinstance(payload, str) else payload)
    except Exception:  # noqa: BLE001 - not a Streamlit message
        return False
    return msg.WhichOneof("type") == "rerun_script"


def _reruns(pg) -> list[float]:
    """The times (monotonic s) of every rerun request the page sends from now on."""
    sent: list[float] = []
    pg.on("websocket", lambda ws: ws.on("framesent", lambda payload: _is_rerun(payload) and sent.append(time.monotonic())))
    return sent


class _HeldSocket:
    """The page's messages to the server, held while `held` and then sent together, in order: as a
    busy server takes them, both before its next run begins."""

    def __init__(self, pg) -> None:
        self.held, self.queue = False, []
        pg.route_web_socket(re.compile(r".*/_stcore/stream"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        ws.on_message(lambda msg: self.queue.append((server, msg)) if self.held else server.send(msg))

    def reruns_held(self) -> int:
        return sum(_is_rerun(msg) for _, msg in self.queue)

    def release(self) -> None:
        self.held = False
        for server, msg in self.queue:
            server.send(msg)
        self.queue.clear()


def test_moves_run_nothing_until_the_learner_stops_then_one_run_keeps_the_step(server, browser):
    """The slider sits in a step form (ui/widgets.step_form): three quick presses show steps 3, 4
    and 5 at once and send nothing; one run follows when the learner stops, and keeps step 5 for
    the other pages; a page change right after a move keeps that move too, even when the server
    takes the move's sync and the page change together (they would merge, losing the move)."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 1000})
    try:
        pg = ctx.new_page()
        socket = _HeldSocket(pg)
        sent = _reruns(pg)  # before the socket opens
        pg.goto(f"{server}/hidden?model=default&text={TEXT.replace(' ', '+')}&hid_step=2")
        wait_ready(pg, 180_000)
        pg.wait_for_function(PARTS_AT, arg=2, timeout=60_000)
        before = len(sent)
        pg.evaluate(TIMELINE)  # the browser's own times of keys, drawn steps and the sync's press
        _press(pg, "ArrowRight")
        pg.keyboard.press("ArrowRight")
        pg.keyboard.press("ArrowRight")
        pressed = time.monotonic()
        pg.wait_for_function(PARTS_AT, arg=5, timeout=10_000)
        assert pg.evaluate("() => location.search.includes('hid_step=5')")  # the address has it at once
        pg.wait_for_function("() => !document.documentElement.hasAttribute('data-rnnviz-sync')",
                             timeout=10_000)
        wait_ready(pg)
        assert len(sent) == before + 1  # one run for the three moves ...
        events = pg.evaluate("() => window.__timeline")
        last_key = max(at for what, at in events if what == "key")
        synced = [at for what, at in events if what == "sync"]
        # ... asked for once the learner stopped: SYNC_MS (0.4 s) after the last key, in the browser
        assert len(synced) == 1 and synced[0] - last_key > 0.38, events
        assert sent[before] > pressed
        _press(pg, "ArrowRight")  # step 6, then at once to page 3
        pg.wait_for_function(PARTS_AT, arg=6, timeout=10_000)
        socket.held = True
        pg.locator('[data-testid="stSidebarNav"] a[href*="output"]').first.click()
        pg.wait_for_timeout(300)
        assert socket.reruns_held() == 1  # the click sent the sync; the page change waits for its run
        socket.release()
        pg.wait_for_selector(".st-key-out_step input[type=range]", timeout=60_000)
        wait_ready(pg)
        assert pg.evaluate("() => document.querySelector('.st-key-out_step input[type=range]').value") == "6"
        assert not exceptions_on(pg)
    finally:
        ctx.close()
