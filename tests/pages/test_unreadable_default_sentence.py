"""A model file whose default sentence cannot be read (no <unk> and unknown words; only
zero-width characters), loaded the way the train page loads an upload, then every page on it:
no exception and no message about the sentence, the one made from the vocabulary shown
(issue 22, R8)."""
from __future__ import annotations

import pytest

from rnnviz.explain.upload import read_model_file
from tests.apptest_helpers import no_exception
from tests.conftest import APP, ROOT
from tests.core.store.test_model_sentence import NO_UNK, WITH_UNK, ZERO_WIDTH, bundle
from ui.navigation import existing_pages

PAGES = [p[0] for p in existing_pages()]
FILES = {"no_unk": (NO_UNK, "zebras graze quietly"), "zero_width": (WITH_UNK, ZERO_WIDTH)}


def session_with(at, case: str):
    model, vocab, meta = read_model_file(bundle(*FILES[case]), f"{case}.pt")
    at.session_state["own_models"] = {meta["name"]: (model, vocab, meta)}
    at.session_state["model"] = f"own:{meta['name']}"
    return meta


@pytest.mark.parametrize("case", list(FILES))
@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_on_a_model_whose_sentence_was_unreadable(page, case):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=30)
    meta = session_with(at, case)
    at.run()
    no_exception(at)
    at.switch_page(str(ROOT / page))
    at.run()
    no_exception(at)
    assert at.session_state["model"] == f"own:{meta['name']}"
    errors = [e.value for e in at.error]   # page 7 may say a word is not in its own corpus
    assert not [e for e in errors if "sentence" in e or "None of these words" in e], errors
    assert not [i.value for i in at.info if "last sentence that worked" in i.value]
    assert meta["default_sentence"] != FILES[case][1]


def test_the_whole_app_opens_on_the_made_up_sentence():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=30)
    meta = session_with(at, "no_unk")
    at.run()
    no_exception(at)
    assert not [e.value for e in at.error]
    assert at.sidebar.text_area(key="text").value == meta["default_sentence"]
