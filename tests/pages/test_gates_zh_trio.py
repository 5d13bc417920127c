"""Issue 25, page 8 compares three cells that read the current model's text: a first visit in
中文 gets the Chinese character-level Elman, LSTM and GRU (no <unk>, the tokenizer named, the
maps the core's); a Chinese gated built-in keeps that trio; with one's own model the page uses
it, beside own twins of the same vocabulary when there are some, else the built-ins of its
tokenizer, and says so."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rnnviz.engine import jacobians
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.trace import trace
from rnnviz.store.catalog import CELL_FAMILIES, load_builtin
from rnnviz.text.corpora import ZH_DEFAULT_SENTENCE, lm_pair
from rnnviz.text.tokenize import UNK, Vocab, prepare
from tests.apptest_helpers import (
    figures,
    no_exception,
    skip_checkpoints,
    stepped_elements,
    stepped_slide,
    table_frame,
)
from tests.conftest import APP, ROOT
from ui import i18n

PAGE = "pages/gates.py"
ZH_KEYS = ("zh", "zh_lstm", "zh_gru")


def _tokens_table(at):
    return next(d.value for d in at.dataframe if "token 序列" in d.value.columns or "tokens" in d.value.columns)


def _influence(at) -> dict:
    return next(f for f in figures(at) if (f["layout"].get("title") or {}).get("text", "").startswith("log10"))


def _open(model: str | None, text: str, lang: str = "zh", own: dict | None = None):
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=180)
    skip_checkpoints(at)
    if model is not None:
        at.session_state["model"] = model
    at.session_state["text"] = text
    at.session_state["lang"] = lang
    if own is not None:
        at.session_state["own_models"] = own
    return at.run()


def test_a_first_visit_in_zh_compares_the_chinese_trio_without_unk():
    at = AppTest.from_file(APP, default_timeout=180)
    skip_checkpoints(at)
    at.query_params["lang"] = "zh"  # no model in the link: the Chinese start model
    at.run()
    at.switch_page(str(ROOT / PAGE))
    at.run()
    no_exception(at)
    assert at.session_state["model"] == "zh"
    reads = i18n.text_for("zh", "gates.reads_one", tokenizer=i18n.text_for("zh", "tokenizer.zh_char"))
    assert any(c.value == reads for c in at.caption)
    table = _tokens_table(at)
    labels = [i18n.text_for("zh", f"models.{k}.label", V=len(load_builtin(k)[1])) for k in ZH_KEYS]
    assert list(table.iloc[:, 0]) == labels
    fig = _influence(at)
    text = at.session_state["text"]
    for (_, row), trace_, key in zip(table.iterrows(), fig["data"], ZH_KEYS):
        model, vocab, meta = load_builtin(key)
        ids, targets = lm_pair(list(prepare(text, vocab, meta.get("level", "word")).ids), vocab)
        tokens = vocab.decode(ids)
        assert row.iloc[2] == " · ".join(tokens) and UNK not in tokens
        N = jacobians.input_jacobian_norms(model, trace(model, ids, targets)).numpy()
        want = np.log10(np.where(N > 0, N, np.nan))
        assert np.allclose(np.asarray(trace_["z"], dtype=float), want, equal_nan=True, atol=1e-9)
    assert at.radio(key="gates_cell").value == "lstm"
    rows = next(d for d in stepped_elements(at) if d["kind"] == "table")  # the step written out
    assert "(64,)" in set(table_frame(stepped_slide(rows)).iloc[:, 0])  # the Chinese LSTM, H = 64


@pytest.mark.parametrize("key", ["zh_lstm", "zh_gru"])
def test_a_chinese_gated_current_model_keeps_the_chinese_trio(key):
    at = _open(key, ZH_DEFAULT_SENTENCE)
    no_exception(at)
    assert [r.key for r in at.radio] == ["gates_map"]  # the current model is the gated one shown
    table = _tokens_table(at)
    assert set(table.iloc[:, 1]) == {i18n.text_for("zh", "tokenizer.zh_char")}
    assert not any(UNK in row.split(" · ") for row in table.iloc[:, 2])


def _own(cell: str, vocab: Vocab, seed: int) -> RNNModel:
    return RNNModel(RNNConfig(vocab_size=len(vocab), embed_dim=8, hidden_size=6, cell=cell), seed=seed).eval()


def test_an_own_model_is_used_with_its_twins_of_the_same_vocabulary():
    vocab = Vocab.build([list("我喜欢猫也喜欢狗今天天气很好")])
    meta = {"level": "word"}
    own = {"mine": (_own("elman", vocab, 0), vocab, meta), "mine-lstm": (_own("lstm", vocab, 1), vocab, meta),
           "other-gru": (_own("gru", Vocab.build([list("别的字")]), 2), Vocab.build([list("别的字")]), meta)}
    at = _open("own:mine", "我喜欢猫。", own=own)
    no_exception(at)
    table = _tokens_table(at)
    own_label = lambda n: i18n.text_for("zh", "session.own_label", name=n)  # noqa: E731
    gru = i18n.text_for("zh", "models.zh_gru.label", V=len(load_builtin("zh_gru")[1]))
    assert list(table.iloc[:, 0]) == [own_label("mine"), own_label("mine-lstm"), gru]
    fig = _influence(at)
    model = own["mine-lstm"][0]
    ids, targets = lm_pair(list(prepare("我喜欢猫。", vocab, "word").ids), vocab)
    N = jacobians.input_jacobian_norms(model, trace(model, ids, targets)).numpy()
    assert np.allclose(np.asarray(fig["data"][1]["z"], dtype=float), np.log10(np.where(N > 0, N, np.nan)),
                       equal_nan=True, atol=1e-9)
    said = i18n.text_for("zh", "gates.own_builtins", which=gru)
    assert any(c.value == said for c in at.caption)  # the built-in GRU is named as not trained on the corpus


def test_an_english_own_model_gets_the_word_level_builtins():
    vocab = Vocab.build([["Arrive", "Taipei", "on", "November"]])
    at = _open("own:en", "Arrive Taipei on November", lang="en",
               own={"en": (_own("gru", vocab, 0), vocab, {"level": "word"})})
    no_exception(at)
    table = _tokens_table(at)
    fam = CELL_FAMILIES["word"]
    assert list(table["model"]) == [i18n.text_for("en", f"models.{fam['elman']}.label", V=len(load_builtin("default")[1])),
                                    i18n.text_for("en", f"models.{fam['lstm']}.label", V=len(load_builtin("lstm")[1])),
                                    i18n.text_for("en", "session.own_label", name="en")]
