"""Every page opens on the built-in LSTM and GRU models without an exception (issue 15), by a
link (?model=lstm), as a learner would; and page 6 trains gated models. A view that is for
Elman/Jordan cells only must say so (a message), never crash."""
from __future__ import annotations

import pytest

from tests.apptest_helpers import finish_job, no_exception
from tests.conftest import ROOT
from ui.navigation import PAGES

PAGE_FILES = [path for path, *_ in PAGES if (ROOT / path).exists()]


@pytest.mark.parametrize("model", ["lstm", "gru", "subword_lstm"])
@pytest.mark.parametrize("page", PAGE_FILES)
def test_every_page_opens_on_a_gated_model(app, page, model):
    text = "the cat sat on the mat" if model.startswith("subword") else "Arrive Taipei on November 2nd"
    at = app(page, query={"model": model, "text": text})
    assert at.session_state["model"] == model
    no_exception(at)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_page6_offers_and_trains_gated_cells(app, cell):
    at = app("pages/train.py")
    assert {"LSTM", "GRU"} <= set(at.selectbox(key="train_cell").options)  # labels; the values are codes
    at.selectbox(key="train_cell").set_value(cell)
    at.number_input(key="train_steps").set_value(5)
    finish_job(at.button(key="train_go").click().run(), "train_job")  # it trains in a worker thread
    no_exception(at)
    models = at.session_state["own_models"]
    assert models and all(m.cfg.cell == cell for m, _, _ in models.values())


def test_page6_says_why_a_gated_cell_refuses_relu(app):
    at = app("pages/train.py")
    at.selectbox(key="train_cell").set_value("lstm")
    at.selectbox(key="train_nonlin").set_value("relu")
    at.button(key="train_go").click().run()
    no_exception(at)
    assert any("tanh" in e.value for e in at.error), [e.value for e in at.error]
