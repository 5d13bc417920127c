"""A learner's own sentence just works: on the start model (a fresh session, no model in the
link), "the cat sat on the mat" and a sentence of our own, typed into the sidebar on every
page, never show <unk>. The check runs in test_every_page's laptop visit of each page."""
from __future__ import annotations

from rnnviz.store.catalog import START_MODEL
from tests.browser.conftest import exceptions_on, wait_ready
from ui.i18n import text_for

SENTENCES = ("the cat sat on the mat",
             "My grandmother's bakery sells warm croissants every Sunday morning!")


def stem(key: str) -> str:
    """The catalogue's English words of `key` up to its first placeholder: what the page shows
    whatever the tokens (read from locales/en.toml, so a rewording moves the test with it)."""
    cut = "\x00"
    text = text_for("en", key, n=cut, tokens=cut).split(cut)[0].strip()
    assert len(text) >= 10, (key, text)  # a key that is gone (or starts with its tokens) fails here
    return text


SIDEBAR_UNKNOWN = stem("words.unknown")  # "This model does not know"
PAGE_UNKNOWN = stem("notices.unknown")   # "Not in the model's vocabulary:"


def type_sentence(pg, text: str) -> None:
    box = pg.locator('[data-testid="stSidebar"] textarea').first
    box.fill(text)
    box.press("Control+Enter")
    pg.wait_for_timeout(800)
    wait_ready(pg)


def unknown_shown(pg) -> list[str]:
    """Where the app says a token is unknown: <unk> among the sidebar's tokens, the sidebar's
    "does not know" warning, or the page's "Not in the model's vocabulary" notice. (The prose
    names <unk> when it explains it, and page 5 tags with its own taggers, not the sidebar's
    model: both are no sign of an unknown token of this model.)"""
    sb = pg.locator('[data-testid="stSidebar"]')
    found = [c for c in sb.locator("code").all_inner_texts() if "<unk>" in c]
    found += [a for a in sb.locator('[data-testid="stAlert"]').all_inner_texts() if SIDEBAR_UNKNOWN in a]
    main = pg.locator('[data-testid="stMain"] [data-testid="stAlert"]').all_inner_texts()
    return found + [a for a in main if PAGE_UNKNOWN in a]


def own_sentences_just_work(pg, url_path: str) -> None:
    """On a page opened on the start model (a fresh session, no model in the link): each of
    SENTENCES typed into the sidebar shows no exception, stays in the box and has no <unk>.
    Called by tests/browser/test_every_page.py on its laptop visit of each page (one visit a
    page for both checks: CI time)."""
    assert f"model={START_MODEL}" in pg.url
    for text in SENTENCES:
        type_sentence(pg, text)
        assert not exceptions_on(pg), (url_path, text, exceptions_on(pg))
        assert pg.locator('[data-testid="stSidebar"] textarea').first.input_value() == text
        assert not unknown_shown(pg), (url_path, text, unknown_shown(pg))
