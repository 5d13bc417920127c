"""Every page opens on the built-in LSTM and GRU models without an exception (issue 15).

Each page runs on its own with the model and sentence in session state, exactly the keys the
sidebar sets (as in test_hidden_page._open). A view that is for Elman/Jordan cells only must
say so (a message), never crash."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import no_exception
from tests.conftest import ROOT
from ui.navigation import PAGES

PAGE_FILES = [path for path, *_ in PAGES if (ROOT / path).exists()]


@pytest.mark.parametrize("model", ["lstm", "gru"])
@pytest.mark.parametrize("page", PAGE_FILES)
def test_every_page_opens_on_a_gated_model(page, model):
    at = AppTest.from_file(str(ROOT / page), default_timeout=120)
    at.session_state["model"] = model
    at.session_state["text"] = "Arrive Taipei on November 2nd"
    at.run()
    no_exception(at)
