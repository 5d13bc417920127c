"""A kept slider value (from the session or a link) must survive a shorter sentence.

Each page: a long sentence, every step-like slider pushed to its maximum, then a one-word
sentence. Streamlit raises if a kept value is above a slider's new maximum; the pages clamp.
"""
import pytest

from tests.apptest_helpers import no_exception
from ui.navigation import existing_pages

PAGES = [p[0] for p in existing_pages()]
LONG = "I like cats today and you like dogs now and we see birds"


@pytest.mark.parametrize("page", PAGES)
def test_sliders_at_max_then_a_one_word_sentence(app, page):
    at = app(page)
    at.sidebar.text_area(key="text").input(LONG).run()
    no_exception(at)
    moved = 0
    for s in at.slider:
        if s.key and float(s.max).is_integer() and 1 < s.max <= 64 and float(s.min) == 1:
            s.set_value(int(s.max))
            moved += 1
    at.run()
    no_exception(at)
    if page.endswith(("hidden.py", "output.py", "embedding.py", "bptt.py")):
        assert moved, "no step slider found"
    at.sidebar.text_area(key="text").input("cats").run()
    no_exception(at)
    at.sidebar.text_area(key="text").input(LONG).run()
    no_exception(at)
