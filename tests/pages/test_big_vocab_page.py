"""Page 1 with an own V = 5,000, d = H = 128 model (issue 22, R2): it runs with no exception,
nothing on it has a row per vocabulary word beyond the bounds of rnnviz.limits, and the word
picker offers a bounded list. bench/bench_big_vocab.py prints its CPU, RSS and bytes."""
import pytest

from rnnviz import limits
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.explain import embedding as emb
from rnnviz.text.tokenize import SPECIALS, Vocab
from tests.apptest_helpers import figures, no_exception, skip_checkpoints
from tests.conftest import ROOT

V, D = 5000, 128


@pytest.fixture(scope="module")
def big_page():
    from streamlit.testing.v1 import AppTest
    words = SPECIALS + tuple(f"w{k:04d}" for k in range(V - len(SPECIALS)))
    model, vocab = RNNModel(RNNConfig(V, D, D), seed=0).eval(), Vocab(words)
    at = AppTest.from_file(str(ROOT / "pages/embedding.py"), default_timeout=300)
    at.session_state["own_models"] = {"big": (model, vocab, {"level": "word"})}
    sentence = [words[4000], words[10], words[2500], words[10]]
    at.session_state["model"], at.session_state["text"] = "own:big", " ".join(sentence)
    skip_checkpoints(at)  # the figures a checkpoint guards are what this test reads
    at.run()
    return at, model, vocab


def test_page_runs_and_bounds_every_vocabulary_view(big_page):
    at, model, vocab = big_page
    no_exception(at)
    for d in at.dataframe:                      # no table has a row per word
        assert len(d.value) <= limits.MAX_SHOWN_ROWS + limits.MAX_TOKENS
    for f in figures(at):
        for trace in f["data"]:  # no axis has a point per word (d = 128 columns, T steps are fine)
            for axis in ("x", "y"):
                n = len(trace.get(axis, []) if trace.get(axis) is not None else [])
                assert n <= max(limits.MAX_SHOWN_ROWS, limits.MAX_TOKENS, D), (f["layout"].get("title"), axis, n)
            if trace.get("type") == "heatmap":
                z = trace["z"]
                assert len(z) * len(z[0]) <= max(limits.MAX_SHOWN_CELLS, limits.MAX_TOKENS * D)
    assert any(limits.MAX_SHOWN_ROWS == int(c.value.split()[0]) for c in at.caption
               if c.value.split()[0].isdigit()), "the page says how many rows it draws"


def test_word_picker_is_bounded_and_starts_with_the_sentence(big_page):
    at, model, vocab = big_page
    pick = at.selectbox(key="emb_word")
    assert len(pick.options) <= limits.MAX_PICKER_OPTIONS
    assert {"w3996", "w0006", "w2496"} <= set(pick.options)
    k = vocab.stoi[pick.value]
    near = ", ".join(f"“{vocab.itos[j]}”" for j, _ in emb.nearest(model.E, k, 5))
    assert any(near.split(",")[0] in m.value for m in at.markdown), "nearest words computed on all of E"
