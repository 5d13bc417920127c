"""Links reproduce a view: a URL with ?model=&text= opened in a fresh browser shows that model and
sentence; the sidebar's share link, opened elsewhere, shows the same page text; a hostile link
falls back to the defaults with a message."""
from __future__ import annotations

from tests.browser.conftest import ROOT, exceptions_on, screenshot, wait_ready, watch
from ui.navigation import existing_pages

URLS = [p[2] for p in existing_pages()]
PATH = "embedding" if "embedding" in URLS else ""


def fresh(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    return ctx, watch(ctx.new_page())


def open_view(pg, url: str) -> None:
    pg.goto(url)
    pg.wait_for_selector('[data-testid="stSidebar"] textarea', timeout=90_000)
    wait_ready(pg)


def sidebar_state(pg) -> tuple[str, str]:
    sb = pg.locator('[data-testid="stSidebar"]')
    model = sb.locator('[data-testid="stSelectbox"] input[role="combobox"]').first.input_value()
    return model, sb.locator("textarea").first.input_value()


def main_text(pg) -> str:
    """The page's text once it has stopped changing (a rerun redraws in several passes), every
    chart drawn with its newest figure: a chart out of sight waits until it is scrolled to or the
    page is printed (ui/plotly_chart.js), so the text is read as printing would draw it."""
    last = None
    wait_ready(pg)
    pg.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    for _ in range(20):
        now = pg.locator('[data-testid="stMain"]').inner_text()
        if now == last and not pg.locator('[data-stale="true"]').count():
            return now
        last = now
        pg.wait_for_timeout(500)
    return last


def share_link(pg) -> str:
    """The sidebar's share link as a learner gets it: open the box (if closed), which computes it."""
    box = pg.locator('[data-testid="stSidebar"] [data-testid="stExpander"]', has_text="Share this view").first
    if box.locator("details[open]").count() == 0:
        box.locator("summary").first.click()
        pg.wait_for_timeout(300)
        wait_ready(pg)
    code = pg.locator('[data-testid="stSidebar"] [data-testid="stCode"] code').first
    code.wait_for(timeout=10_000)
    return code.inner_text().strip()


def test_query_link_opens_that_model_and_sentence(server, browser):
    ctx, pg = fresh(browser)
    try:
        open_view(pg, f"{server}/{PATH}?model=notes&text=I+like+dogs")
        assert not exceptions_on(pg), exceptions_on(pg)
        model, text = sidebar_state(pg)
        assert "Notes example" in model and text == "I like dogs"
        shown = main_text(pg)
        if PATH == "embedding":
            assert "Notes example (V=5, d=3, H=4) reads your sentence as T = 3 tokens" in shown
        else:
            assert "Your sentence became 3 tokens" in shown
        assert "model=notes" in pg.url and "text=I+like+dogs" in pg.url
        screenshot(pg, "link-notes")
    finally:
        ctx.close()


def test_share_link_reproduces_what_is_shown(server, browser):
    ctx, pg = fresh(browser)
    try:
        open_view(pg, f"{server}/{PATH}")
        sb = pg.locator('[data-testid="stSidebar"]')
        sb.locator('[data-testid="stSelectbox"] input[role="combobox"]').first.click()
        pg.get_by_role("option", name="Notes example (V=5, d=3, H=4)").click()
        wait_ready(pg)
        box = sb.locator("textarea").first
        box.fill("you like cats")
        box.press("Control+Enter")
        wait_ready(pg)
        before = main_text(pg)
        assert "sentence of T = 3" in before or "3 tokens" in before
        link = share_link(pg)
        assert link.startswith(server) and "model=notes" in link and "text=you+like+cats" in link
    finally:
        ctx.close()
    ctx2, pg2 = fresh(browser)
    try:
        open_view(pg2, link)
        assert sidebar_state(pg2) == ("Notes example (V=5, d=3, H=4)", "you like cats")
        after = main_text(pg2)
        if after != before:
            (ROOT / "artifacts" / "link-before.txt").write_text(before)
            (ROOT / "artifacts" / "link-after.txt").write_text(after)
        assert after == before
    finally:
        ctx2.close()


def test_hostile_links_fall_back_with_a_message(server, browser):
    ctx, pg = fresh(browser)
    try:
        for query, words in (("model=no-such-model&text=I+like+cats", "unknown model"),
                             ("model=own%3Asomeone&text=I+like+cats", "another session"),
                             ("text=" + "cats+" * 6000, "Only the first 200 tokens are used")):
            open_view(pg, f"{server}/{PATH}?{query}")
            assert not exceptions_on(pg), exceptions_on(pg)
            alerts = pg.locator('[data-testid="stAlert"]').all_inner_texts()
            assert any(words in a for a in alerts), (words, alerts)
            assert "Subword English model" in sidebar_state(pg)[0]  # the start model
        if "train" in URLS:  # a page's own bound widgets: Streamlit drops bad values silently
            open_view(pg, f"{server}/train?train_steps=abc&train_H=99999&train_cell=transformer")
            assert not exceptions_on(pg), exceptions_on(pg)
            alerts = " ".join(pg.locator('[data-testid="stSidebar"] [data-testid="stAlert"]')
                              .all_inner_texts())
            for name in ("train_steps", "train_H", "train_cell"):
                assert f"for “{name}” is not valid here" in alerts, (name, alerts)
    finally:
        ctx.close()
