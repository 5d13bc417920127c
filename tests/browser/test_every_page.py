"""Open every page in the navigation in Chromium: no exception box, a screenshot of each."""
from __future__ import annotations

import pytest

from tests.browser.conftest import exceptions_on, screenshot, wait_ready
from ui.navigation import existing_pages

PAGES = existing_pages()


@pytest.mark.parametrize("url_path", [p[2] for p in PAGES])
def test_page_renders_without_exception(server, page, url_path):
    page.goto(f"{server}/{'' if url_path == 'overview' else url_path}")  # the default page is "/"
    wait_ready(page)
    assert not exceptions_on(page), exceptions_on(page)
    screenshot(page, f"page-{url_path}")


@pytest.mark.skipif(len(PAGES) < 2, reason="Streamlit hides the navigation for a single page")
def test_navigation_lists_exactly_the_existing_pages(server, page):
    page.goto(server)
    wait_ready(page)
    links = page.query_selector_all('[data-testid="stSidebarNavLink"]')
    assert len(links) == len(PAGES)
