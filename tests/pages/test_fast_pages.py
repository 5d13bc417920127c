"""Issue 24 in AppTest: page 1 on the start model sends the rows its views need (every row in
the CSV downloads), and a closed expander computes nothing until it is opened.
Oracles: the model's own E and autograd dL/dE (rnnviz.engine.trace), rnnviz.explain.embedding."""
import numpy as np
import pytest

from rnnviz.engine.trace import trace
from rnnviz.store.catalog import START_MODEL, load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import figures, no_exception

PAGE = "pages/embedding.py"


@pytest.fixture(scope="module")
def start():
    from ui.session import START_TEXT
    model, vocab, meta = load_builtin(START_MODEL)
    inp, tgt = lm_pair(list(prepare(START_TEXT, vocab, meta.get("level", "word")).ids), vocab)
    return model, vocab, trace(model, inp, tgt)


@pytest.fixture
def csvs(monkeypatch):
    """Every CSV download page 1 offers: file name -> the dataframe it would hold."""
    from ui.sections.embedding import common
    seen, real = {}, common.download_csv

    def record(df, name, key=None, label=None):
        seen[name] = df
        return real(df, name, key=key, label=label)
    monkeypatch.setattr(common, "download_csv", record)
    return seen


def _fig(at, starts: str) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(starts))


def test_start_model_page1_sends_a_bounded_view_and_full_csvs(app, start, csvs):
    from ui.sections.embedding.common import VIEW_ROWS
    model, vocab, tr = start
    V, d = model.E.shape
    assert V > VIEW_ROWS  # the start model is the case this test is about
    at = app(PAGE, model=None)
    no_exception(at)
    for f in figures(at):  # no heatmap or bar chart has a row per vocabulary word (the PCA keeps
        for trace_ in f["data"]:  # every word: a cloud of points, one pair of numbers each)
            if trace_.get("type") == "scatter":
                continue
            for axis in ("x", "y"):
                assert len(trace_.get(axis) if trace_.get(axis) is not None else []) <= max(VIEW_ROWS, d)
    for d_ in at.dataframe:
        assert len(d_.value) <= VIEW_ROWS
    E = model.E.detach().double().numpy()
    G = tr.grads["E"].double().numpy()
    ids = set(int(i) for i in tr.ids)
    for title, M in (("E (", E), ("∂L/∂E", G)):
        fig = _fig(at, title)
        z = np.asarray(fig["data"][0]["z"], dtype=float)
        rows = [int(lab.split(" ", 1)[0]) for lab in fig["data"][0]["y"]]
        assert ids <= set(rows) and len(rows) <= VIEW_ROWS
        np.testing.assert_allclose(z, M[rows], atol=1e-6)
    full = {name: df for name, df in csvs.items() if len(df) == V}
    mats = [df for df in full.values() if df.shape[1] == d + 1]
    assert len(mats) == 2, list(csvs)  # E and dL/dE, every row, every dimension
    got = sorted((df.iloc[:, 1:].to_numpy(dtype=float) for df in mats), key=lambda m: -np.abs(m).max())
    want = sorted((E, G), key=lambda m: -np.abs(m).max())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=1e-6)
    assert any(df.shape[1] == 4 for df in full.values())  # the vocabulary: id, row, token, used at
    assert any(c.value.startswith(f"{VIEW_ROWS} of the {V} rows") for c in at.caption)


def _counting(monkeypatch, module, name: str) -> list:
    calls, real = [], getattr(module, name)

    def counted(*args, **kw):
        calls.append(1)
        return real(*args, **kw)
    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_closed_expander_computes_nothing_until_opened(app, monkeypatch):
    import importlib
    lookup = importlib.import_module("ui.sections.embedding.lookup")  # the package names a function
    words = importlib.import_module("ui.sections.embedding.words")  # lookup too
    linear = _counting(monkeypatch, lookup, "embedding_as_linear")
    collide = _counting(monkeypatch, words.emb, "hash_collisions")
    marks = _counting(monkeypatch, words, "why_marks")
    at = app(PAGE)
    no_exception(at)
    assert (len(linear), len(collide), len(marks)) == (0, 0, 0)
    assert not any("xₜ Wᵀ" in d.value.columns for d in at.dataframe)
    at = app(PAGE, query={"emb_linear": "true", "emb_collisions": "true", "emb_marks": "true"})
    no_exception(at)
    assert len(linear) >= 1 and len(collide) >= 1 and len(marks) >= 1
    assert any("xₜ Wᵀ" in d.value.columns for d in at.dataframe)


def test_an_opened_expander_stays_in_the_link(app):
    at = app(PAGE, query={"emb_linear": "true"})
    no_exception(at)
    assert at.query_params.get("emb_linear") in (["true"], "true")


def _fragment_script():
    import streamlit as st

    from ui import widgets
    st.session_state["model"] = "notes"  # the sidebar's choice now
    st.session_state["runs"] = st.session_state.get("runs", 0) + 1
    captured = st.session_state.get("captured")  # what the step fragment was drawn with

    def draw():
        st.session_state["drawn"] = st.session_state.get("drawn", 0) + 1
        st.markdown(f"drawn for {st.session_state['model']}")
    if captured is not None and st.session_state["runs"] == 1:
        widgets._step_view(draw, captured, ())  # as a fragment rerun would call it
    else:
        widgets.step_view(draw)


@pytest.mark.parametrize("captured, runs", [(("default", None, None), 2), (("notes", None, None), 1)])
def test_a_step_fragment_with_stale_inputs_reruns_the_whole_page(captured, runs):
    """A step fragment drawn for another model (the sidebar changed since the last full run)
    does not draw: the whole page reruns and draws it for the model chosen now."""
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_function(_fragment_script, default_timeout=30)
    at.session_state["captured"] = captured
    at.run()
    no_exception(at)
    assert at.session_state["runs"] == runs
    assert at.session_state["drawn"] == 1  # drawn once, never with the stale inputs
    assert [m.value for m in at.markdown] == ["drawn for notes"]

