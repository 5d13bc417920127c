"""A learner's own sentence just works: on the start model (a fresh session, no model in the
link), "the cat sat on the mat" and a sentence of our own, typed into the sidebar on every
page, never show <unk>."""
from __future__ import annotations

import pytest

from rnnviz.catalog import START_MODEL
from tests.browser.conftest import exceptions_on, wait_ready
from ui.navigation import existing_pages

SENTENCES = ("the cat sat on the mat",
             "My grandmother's bakery sells warm croissants every Sunday morning!")
PAGES = [p[2] for p in existing_pages() if p[2] != "glossary"]


def type_sentence(pg, text: str) -> None:
    box = pg.locator('[data-testid="stSidebar"] textarea').first
    box.fill(text)
    box.press("Control+Enter")
    pg.wait_for_timeout(800)
    wait_ready(pg)


@pytest.mark.parametrize("url_path", PAGES)
def test_own_sentences_have_no_unknown_token(server, browser, url_path):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        pg = ctx.new_page()
        pg.goto(f"{server}/{url_path}")
        pg.wait_for_selector('[data-testid="stSidebar"] textarea', timeout=90_000)
        wait_ready(pg)
        assert f"model={START_MODEL}" in pg.url
        for text in SENTENCES:
            type_sentence(pg, text)
            assert not exceptions_on(pg), (url_path, text, exceptions_on(pg))
            assert pg.locator('[data-testid="stSidebar"] textarea').first.input_value() == text
            shown = pg.locator('[data-testid="stApp"]').inner_text()
            assert "<unk>" not in shown, (url_path, text)
    finally:
        ctx.close()
