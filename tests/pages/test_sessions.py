"""No state is shared between sessions except read-only caches.

Session A trains its own model, edits weights on every page that can (update rules, an output
gradient step, a scaled W_h, a retrained tagger); session B, opened afterwards in the same
process (so the same st.cache_resource), still sees the untouched built-in model and none of
A's text or models.
"""
import numpy as np

from rnnviz.engine.trace import trace
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import finish_job, no_exception, overview_h

SECRET = "you like birds tomorrow"


# every built-in model, as the sidebar lists them (none of session A's own models)
EXPECTED_MODEL_LABELS = ["Word-level travel model (79 words)", "Notes example (V=5, d=3, H=4)",
                         "LSTM language model (79 words, H = 32)", "GRU language model (79 words, H = 32)",
                         "Subword English model (BPE, 1155 tokens)",
                         "Subword LSTM (BPE, 1155 tokens, H = 96)", "Subword GRU (BPE, 1155 tokens, H = 96)",
                         "Chinese language model (per character, 1718 tokens)",
                         "Chinese LSTM (per character, 1718 tokens, H = 64)",
                         "Chinese GRU (per character, 1718 tokens, H = 64)"]


def pristine_h(text: str) -> np.ndarray:
    model, vocab, _ = load_builtin("default")  # read from disk, not from any cache
    inp, tgt = lm_pair(list(prepare(text, vocab).ids), vocab)
    return trace(model, inp, tgt).h.numpy()




def edit_everything(app):
    """Session A: every page that changes weights, on the shared default model."""
    a = app("pages/embedding.py")
    a.sidebar.text_area(key="text").input(SECRET).run()
    for radio in a.radio:
        if radio.key and radio.key.startswith("emb_"):
            for option in radio.options:
                radio.set_value(option).run()
                no_exception(a)
    a.switch_page("pages/output.py").run()
    a.slider(key="out_lr").set_value(2.0).run()
    a.switch_page("pages/bptt.py").run()
    a.select_slider(key="bptt_scale").set_value(5.0).run()
    no_exception(a)
    a.switch_page("pages/train.py").run()
    a.number_input(key="train_steps").set_value(20)
    finish_job(a.button(key="train_go").click().run(), "train_job")  # it trains in a worker thread
    no_exception(a)
    assert a.session_state["own_models"], "session A has its own model"
    return a


def test_edits_and_training_in_one_session_do_not_reach_another(app):
    edit_everything(app)
    b = app()
    no_exception(b)
    assert b.sidebar.text_area(key="text").value == "Arrive Taipei on November 2nd"
    assert b.sidebar.selectbox(key="model").options == EXPECTED_MODEL_LABELS
    np.testing.assert_allclose(overview_h(b), pristine_h("Arrive Taipei on November 2nd"), atol=1e-6)
    b.sidebar.text_area(key="text").input(SECRET).run()
    np.testing.assert_allclose(overview_h(b), pristine_h(SECRET), atol=1e-6)
    assert "own_models" not in b.session_state or not b.session_state["own_models"]
