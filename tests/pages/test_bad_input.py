"""Every page against hostile input: a clear message or a bounded result, never an exception.

Sentences: empty, whitespace, 100,000 characters, one token 5,000 times, emoji / CJK /
right-to-left / zero-width / control characters, HTML and Markdown / LaTeX injection.
Query parameters: every widget key a page binds, set to garbage, negative, NaN and huge values.
"""
import pytest

from tests.apptest_helpers import no_exception
from ui.navigation import existing_pages

PAGES = [p[0] for p in existing_pages()]

SENTENCES = {
    "empty": "",
    "whitespace": " \t \n ",
    "100k characters": "Arrive Taipei " * 7143,
    "one token 5000 times": "cats " * 5000,
    "emoji cjk rtl": "I like 🐱 猫 ネコ 고양이 مرحبا שלום",
    "zero-width and control": "I\u200b like\u200d\u0007 cats\u202e\ufeff\x1b[31m",
    "html": "<script>alert('x')</script><img src=x onerror=alert(1)>",
    "markdown and latex": "**bold** [link](http://x) $\\frac{1}{0}$ $$x$$ # heading `code`",
}

HOSTILE_VALUES = ("abc", "-1", "NaN", "1e309", "999999999", "", "<script>")


def rendered_text(at) -> str:
    parts = [m.value for m in at.markdown] + [e.value for e in at.error]
    parts += [w.value for w in at.warning] + [i.value for i in at.info]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("case", list(SENTENCES))
def test_hostile_sentence(app, page, case):
    at = app(page)
    at.sidebar.text_area(key="text").input(SENTENCES[case]).run()
    no_exception(at)
    shown = rendered_text(at)
    assert "<script>" not in shown and "<img" not in shown  # never rendered as raw HTML
    if case in ("empty", "whitespace"):
        assert any("empty" in e.value for e in at.error)
        assert any("last sentence that worked" in i.value for i in at.info)


@pytest.mark.parametrize("page", PAGES)
def test_hostile_query_params(app, page):
    at = app(page)
    keys = {w.key for kind in ("slider", "select_slider", "number_input", "selectbox", "radio",
                               "checkbox", "toggle", "text_input", "multiselect", "segmented_control",
                               "pills")
            for w in at.get(kind) if getattr(w, "key", None) and not w.key.startswith("$$")}
    assert keys, "the page has no keyed widgets"
    for value in HOSTILE_VALUES:
        at = app(page, query={k: value for k in keys} | {"model": value, "text": value or "x"})
        no_exception(at)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("model", ["default", "notes"])
@pytest.mark.parametrize("text", ["cats", "cats cats", "I"])
def test_one_and_two_token_sentences_on_both_models(app, page, model, text):
    """T = 1 or 2 makes sliders with min = max; every page must still draw."""
    at = app(page, query={"model": model, "text": text})
    no_exception(at)
