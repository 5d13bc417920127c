"""Open every page in Chromium, in English and 中文, on a laptop (1366x768) and a phone (390x844):
no exception box, a full-page screenshot of each (artifacts/screenshots/<lang>/<size>/<page>.png),
navigation names equal page titles, /overview opens the overview; on the laptop in English, the
same visit types a learner's own sentences (tests/browser/own_sentence.py)."""
from __future__ import annotations

import pytest

from tests.browser.conftest import SHOTS, exceptions_on, screenshot, wait_ready, watch
from tests.browser.own_sentence import own_sentences_just_work
from ui.i18n import text_for
from ui.navigation import PAGES as NAV_KEYS
from ui.navigation import existing_pages

PAGES = existing_pages()
NAV_KEY = {url: key for _, key, url, _ in NAV_KEYS}  # url path -> catalogue key of its name
SIZES = {"1366x768": (1366, 768), "390x844": (390, 844)}


@pytest.fixture
def sized(browser, request):
    ctx = browser.new_context(viewport=dict(zip(("width", "height"), SIZES[request.param])),
                              locale="en-US")
    yield watch(ctx.new_page())
    ctx.close()


# Each page in English on a desktop and in 中文 on a phone: both languages and both widths, and
# the longer words on the narrower screen together (English on a phone is covered by the phone
# tests of the exercises, the cell clicks and the sentence box): two renders a page (CI time).
VIEWS = [("1366x768", "en"), ("390x844", "zh")]


@pytest.mark.parametrize(("sized", "lang"), VIEWS, indirect=["sized"])
@pytest.mark.parametrize("url_path", [p[2] for p in PAGES])
def test_page_renders_without_exception(server, sized, url_path, lang, request):
    size = request.node.callspec.params["sized"]
    sized.goto(f"{server}/{url_path}?lang={lang}")
    wait_ready(sized)
    assert "Page not found" not in sized.locator("body").inner_text()
    assert not exceptions_on(sized), exceptions_on(sized)
    # the navigation name equals the page's title, in this language (on a phone the folded
    # sidebar's links are in the page, only off screen)
    key = NAV_KEY[url_path]
    nav = sized.locator('[data-testid="stSidebarNavLink"]', has_text=text_for(lang, key))
    assert nav.count() >= 1, (url_path, lang)
    assert sized.locator("h1").first.inner_text().strip() == text_for(lang, key), (url_path, lang)
    screenshot(sized, f"{lang}/{size}/{url_path}")
    assert (SHOTS / lang / size / f"{url_path}.png").exists()
    if lang == "en" and url_path != "glossary":  # the same visit: a learner's own sentences (CI time)
        own_sentences_just_work(sized, url_path)


@pytest.mark.skipif(len(PAGES) < 2, reason="Streamlit hides the navigation for a single page")
def test_navigation_lists_exactly_the_existing_pages(server, page):
    page.goto(server)
    wait_ready(page)
    links = page.query_selector_all('[data-testid="stSidebarNavLink"]')
    assert len(links) == len(PAGES)


def test_overview_has_its_own_address(server, page):
    page.goto(f"{server}/overview")
    wait_ready(page)
    assert "Page not found" not in page.locator("body").inner_text()
    assert page.locator("h1").first.inner_text().strip() == text_for("en", "nav.overview")


def test_browser_language_chooses_chinese_on_a_first_visit(browser, server):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, locale="zh-CN")
    try:
        pg = watch(ctx.new_page())
        pg.goto(server)
        wait_ready(pg)
        assert pg.locator("h1").first.inner_text().strip() == text_for("zh", "nav.overview")
    finally:
        ctx.close()


def test_phone_sentence_box_is_reachable(browser, server):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        pg = watch(ctx.new_page())
        pg.goto(server)
        wait_ready(pg)
        box = pg.locator('[data-testid="stSidebar"] textarea').first
        bb = box.bounding_box()
        if not bb or bb["x"] < 0:  # the sidebar starts collapsed on a phone: open it
            pg.locator('[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"] button'
                       ).first.click()
            pg.wait_for_timeout(800)
        box.scroll_into_view_if_needed()
        box.fill("the cat sat on the mat")
        bb = box.bounding_box()
        assert bb and 0 <= bb["x"] and bb["x"] + bb["width"] <= 390 and 0 <= bb["y"] <= 844, bb
    finally:
        ctx.close()


def test_share_link_keeps_the_open_page_and_names_the_model(server, page):
    url = "train" if any(p[2] == "train" for p in PAGES) else "glossary"
    page.goto(f"{server}/{url}")
    wait_ready(page)
    page.locator('[data-testid="stSidebar"] [data-testid="stExpander"] summary').first.click()
    code = page.locator('[data-testid="stSidebar"] [data-testid="stCode"] code').first
    code.wait_for(timeout=10_000)
    link = code.inner_text().strip()
    assert f"/{url}?" in link and "model=" in link, link


def test_a_chinese_link_shares_a_chinese_link(server, page):
    """Opened with ?lang=zh, the page's share link keeps lang=zh (a radio bound to the URL wrote
    its label, 中文, and dropped the code: the shared view opened in English, with a warning)."""
    page.goto(f"{server}/glossary?lang=zh")
    wait_ready(page)
    assert "lang=zh" in page.url, page.url
    page.locator('[data-testid="stSidebar"] [data-testid="stExpander"] summary').first.click()
    code = page.locator('[data-testid="stSidebar"] [data-testid="stCode"] code').first
    code.wait_for(timeout=10_000)
    assert "lang=zh" in code.inner_text(), code.inner_text()
    assert not page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]').count()
