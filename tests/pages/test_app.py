"""The app shell and overview page: every input the sidebar takes, on both built-in models."""
import numpy as np

from rnnviz import limits
from rnnviz.engine.trace import trace
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import no_exception, overview_h


class FakeUpload:
    """What st.file_uploader hands the app (AppTest cannot upload files itself)."""

    def __init__(self, data: bytes, name: str = "sentences.txt"):
        self.data, self.name = data, name

    def getvalue(self):
        return self.data


def upload(monkeypatch, data: bytes):
    import streamlit as st
    real = st.sidebar.file_uploader

    def fake(*args, **kwargs):
        real(*args, **kwargs)  # keep the widget on the page
        return FakeUpload(data)

    monkeypatch.setattr(type(st.sidebar), "file_uploader", lambda self, *a, **k: fake(*a, **k))




def expected_h(key: str, text: str) -> np.ndarray:
    model, vocab, _ = load_builtin(key)
    inp, tgt = lm_pair(list(prepare(text, vocab).ids), vocab)
    return trace(model, inp, tgt).h.numpy()


def test_default_model_and_sentence(app):
    at = app()
    no_exception(at)
    assert at.sidebar.selectbox(key="model").value == "default"
    assert at.sidebar.text_area(key="text").value == "Arrive Taipei on November 2nd"
    df = at.dataframe[0].value
    assert list(df["token"]) == ["<bos>", "Arrive", "Taipei", "on", "November", "2nd"]
    np.testing.assert_allclose(overview_h(at), expected_h("default", "Arrive Taipei on November 2nd"),
                               rtol=1e-6, atol=1e-6)


def test_typed_sentence_changes_the_heatmap(app):
    at = app()
    at.sidebar.text_area(key="text").input("I like cats today").run()
    no_exception(at)
    np.testing.assert_allclose(overview_h(at), expected_h("default", "I like cats today"), atol=1e-6)
    assert "V = 79" in " ".join(m.value for m in at.markdown)


def test_notes_model(app):
    at = app()
    at.sidebar.selectbox(key="model").select("notes").run()
    no_exception(at)
    assert at.sidebar.text_area(key="text").value == "I like cats"
    df = at.dataframe[0].value
    assert list(df["id"]) == [0, 1, 2] and list(df["row of E (1-based)"]) == [1, 2, 3]
    assert df["E[id]"].iloc[2] == "[-0.4, 0.8, 0.1]"  # the notes' row 3, as they print it
    assert overview_h(at).shape == (3, 4)


def test_empty_sentence_keeps_the_last_good_view(app):
    at = app()
    at.sidebar.text_area(key="text").input("I like dogs").run()
    at.sidebar.text_area(key="text").input("   ").run()
    no_exception(at)
    assert "empty" in at.error[0].value
    assert at.sidebar.text_area(key="text").value == "   "  # what the user typed stays
    assert list(at.dataframe[0].value["token"])[1:] == ["I", "like", "dogs"]


def test_unknown_cjk_and_markup_words_are_reported_as_text(app):
    at = app()
    at.sidebar.text_area(key="text").input("Arrive 台北 <script>alert(1)</script> $x$").run()
    no_exception(at)
    warning = at.warning[0].value
    assert "台" in warning and "script" in warning
    assert "<script>" not in warning  # escaped, never rendered as HTML
    assert "<unk>" in list(at.dataframe[0].value["token"])


def test_thousands_of_words_are_cut_with_a_message(app):
    at = app()
    # 3,000 words fit the box (max_chars = MAX_TEXT_CHARS; longer text cannot be typed, and a
    # longer link sentence is cut: test_link_safety) but are far over MAX_TOKENS
    words = "cats " * 3_000
    assert len(words) <= limits.MAX_TEXT_CHARS
    at.sidebar.text_area(key="text").input(words).run()
    no_exception(at)
    assert any(f"first {limits.MAX_TOKENS} tokens" in w.value for w in at.warning)
    assert len(at.dataframe[0].value) == limits.MAX_TOKENS + 1  # plus <bos>


def test_uploaded_file_line_becomes_the_sentence(app, monkeypatch):
    upload(monkeypatch, "I like cats\nyou like dogs today\n".encode())
    at = app()
    no_exception(at)
    picker = at.sidebar.selectbox(key="upload_line")
    assert picker.options == ["I like cats", "you like dogs today"]
    picker.select("you like dogs today").run()
    no_exception(at)
    assert at.sidebar.text_area(key="text").value == "you like dogs today"
    np.testing.assert_allclose(overview_h(at), expected_h("default", "you like dogs today"), atol=1e-6)


def test_binary_and_non_utf8_uploads_are_refused_and_the_view_stays(app, monkeypatch):
    for data, words in ((b"\x00\x01\x02PK", "binary"), ("caf\u00e9".encode("latin-1"), "UTF-8"),
                        (b"a" * (limits.MAX_UPLOAD_BYTES + 1), "limit")):
        upload(monkeypatch, data)
        at = app()
        no_exception(at)
        assert any(words in e.value for e in at.sidebar.error), words
        assert list(at.dataframe[0].value["token"])[1:3] == ["Arrive", "Taipei"]


def test_unknown_model_in_the_url_falls_back_to_the_start_model(app):
    from rnnviz.store.catalog import START_MODEL
    at = app(query={"model": "no-such-model"})
    no_exception(at)
    assert at.sidebar.selectbox(key="model").value == START_MODEL
    assert any("unknown model" in w.value for w in at.sidebar.warning)


def test_token_table_shows_the_word_as_typed_next_to_unk(app):
    at = app()
    at.sidebar.text_area(key="text").input("Arrive Zorblax on November 2nd").run()
    no_exception(at)
    df = at.dataframe[0].value
    model, vocab, _ = load_builtin("default")
    ids = lm_pair(list(prepare("Arrive Zorblax on November 2nd", vocab).ids), vocab)[0]
    assert list(df["token"]) == vocab.decode(ids)  # the model's tokens, unchanged
    assert list(df["you typed"]) == ["", "Arrive", "Zorblax", "on", "November", "2nd"]
    assert df["token"].iloc[2] == "<unk>"
    row = model.E.detach()[ids[2]].tolist()
    assert df["E[id]"].iloc[2] == "[" + ", ".join(f"{v:.4g}" for v in row[:6]) + f", … ({len(row)} in all)]"
    # the notes' vocabulary has no <unk>: unknown words are dropped, the rest stay aligned
    at.sidebar.selectbox(key="model").select("notes").run()
    at.sidebar.text_area(key="text").input("I really like cats").run()
    no_exception(at)
    df = at.dataframe[0].value
    assert list(df["token"]) == ["I", "like", "cats"] and list(df["you typed"]) == ["I", "like", "cats"]


def test_subword_model_shows_the_typed_word_beside_its_pieces(app):
    """The start model reads BPE pieces: the token column keeps the model's pieces ("▁s", "at"),
    "you typed" names the word each piece came from, and a caption explains ▁ and (k/n)."""
    at = app(model=None)
    text = "The cat sat on the mat"
    at.sidebar.text_area(key="text").input(text).run()
    no_exception(at)
    model, vocab, meta = load_builtin("subword")
    pieces = prepare(text, vocab, meta["level"]).tokens
    df = at.dataframe[0].value
    assert list(df["token"])[1:] == list(pieces)  # the model's own tokens, ▁ and all
    typed = list(df["you typed"])
    assert typed[0] == ""  # <bos>
    assert not any("▁" in w for w in typed)
    for piece, word in zip(pieces, typed[1:]):  # every piece sits beside a word of the sentence
        assert word.split(" (")[0] in text.split()
        assert piece.strip("▁") in word
    split = [w for w in typed if "(" in w]
    assert all(w.endswith(")") and "/" in w for w in split)
    assert any("▁ marks a token that starts a word" in c.value for c in at.caption)
