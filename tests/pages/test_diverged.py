"""Every page on a diverged model (SGD lr 10, no clipping) and on finite weights whose forward
pass overflows: no exception, no generic error box; the page says the numbers are not finite."""
from __future__ import annotations

import pytest

from tests.apptest_helpers import no_exception, skip_checkpoints
from tests.conftest import ROOT
from tests.diverged_models import MODELS, TEXT, VOCAB

PAGES = ["pages/embedding.py", "pages/hidden.py", "pages/output.py",
         "pages/bptt.py"]


@pytest.fixture(scope="module")
def models():
    return {k: f() for k, f in MODELS.items()}


@pytest.mark.parametrize("kind", list(MODELS))
@pytest.mark.parametrize("page", PAGES)
def test_page_shows_a_diverged_model_without_crashing(models, page, kind):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / page), default_timeout=120)

    skip_checkpoints(at)
    at.session_state["own_models"] = {"blown": (models[kind], VOCAB, {"level": "word"})}
    at.session_state["model"] = "own:blown"
    at.session_state["text"] = TEXT
    at.run()
    no_exception(at)
    assert at.session_state["model"] == "own:blown"
    errors = [e.value for e in at.error]  # only messages that explain the NaN/inf
    assert all("NaN" in e or "inf" in e for e in errors), errors
