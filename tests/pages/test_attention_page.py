"""AppTest of page 9 (Attention: a short path back): it runs in English and 中文 with the
heatmap of the attention model's own weights, reads five everyday sentences per language without
<unk>, says which model reads the sentence, shows the core's path split, and checks the exercise."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rnnviz.engine.trace import trace
from rnnviz.explain import attention as ax
from rnnviz.explain.train import ATTENTION_CELL, build_model
from rnnviz.formatting import num
from rnnviz.store.catalog import attention_twin, load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import figures, no_exception
from tests.conftest import ROOT

pytestmark = pytest.mark.pages
PAGE = "pages/attention.py"
EN = ("the cat sat on the mat", "can you help me find the station", "i would like a cup of coffee please",
      "we are going to the beach tomorrow", "my phone battery died this morning")
ZH = ("我今天很高兴", "明天我们去北京", "你喜欢喝茶吗", "这本书很好看", "周末我们一起去公园散步")


def _open(model: str, text: str, lang: str | None = None, **state):
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=300)
    at.session_state["model"] = model
    at.session_state["text"] = text
    if lang:
        at.session_state["lang"] = lang
    for k, v in state.items():
        at.session_state[k] = v
    return at.run()


def _heatmap(at) -> dict:
    heat = [f for f in figures(at) if f["data"] and f["data"][0].get("type") == "heatmap"]
    assert len(heat) == 1, "the attention weights heatmap"
    return heat[0]


def _core(key: str, text: str):
    model, vocab, meta = attention_twin(key)
    ids, targets = lm_pair(list(prepare(text, vocab, meta.get("level", "word")).ids), vocab)
    return model, vocab, ids, targets


@pytest.mark.parametrize("model,lang,sentences,twin", [("subword", None, EN, "subword"),
                                                       ("zh", "zh", ZH, "zh")])
def test_everyday_sentences_without_unk_in_both_languages(model, lang, sentences, twin):
    for text in sentences:
        at = _open(model, text, lang)
        no_exception(at)
        fig = _heatmap(at)
        labels = list(fig["data"][0]["y"])
        assert not any("<unk>" in str(lab) for lab in labels), (text, labels)
        _, vocab, ids, _ = _core(twin, text)
        assert len(labels) == len(ids)


def test_heatmap_and_path_split_are_the_cores():
    text = EN[1]
    at = _open("subword", text)
    no_exception(at)
    model, vocab, ids, targets = _core("subword", text)
    tr = trace(model, ids, targets)
    z = np.asarray(_heatmap(at)["data"][0]["z"], dtype=float)
    assert np.allclose(z, ax.weights_matrix(tr), equal_nan=True, atol=1e-6)
    split = ax.path_split(model, *ax.last_loss(tr), source=1)  # the first word after <bos>
    md = "\n".join(m.value for m in at.markdown)
    for key in ("recurrent_norm", "attention_norm", "direct_norm", "total_norm"):
        assert f"**{num(split[key])}**" in md or num(split[key]) in md, key
    # the norms of the parts do not add up to the whole's (the prose once said "the parts sum to"
    # the total's norm): it says the vectors add, and names the norm of their sum
    assert abs(split["recurrent_norm"] + split["attention_norm"] - split["total_norm"]) > 1e-3
    assert f"whose norm is **{num(split['total_norm'])}**" in md and "The parts sum to" not in md
    assert "attention twin" in "\n".join(i.value for i in at.info)
    titles = [(f["layout"].get("title") or {}).get("text", "") for f in figures(at)]
    assert "‖∂L_T/∂h_s‖ over sentence length T" in titles


def test_model_without_twin_says_so_and_chinese_page():
    at = _open("default", "Arrive Taipei on November 2nd")
    no_exception(at)
    assert any("has no attention twin" in w.value for w in at.warning)
    at = _open("zh", ZH[0], "zh")
    no_exception(at)
    assert "注意力" in at.title[0].value
    assert any("孪生" in i.value for i in at.info)


def test_row_choice_and_exercise_checker():
    at = _open("subword", EN[0], attention_row=3)
    no_exception(at)
    model, vocab, ids, targets = _core("subword", EN[0])
    w = ax.step_weights(trace(model, ids, targets), 2)
    bars = [f for f in figures(at) if f["data"] and f["data"][0].get("type") == "bar"][0]
    assert np.allclose(np.asarray(bars["data"][0]["y"], float), w["weights"].numpy(), atol=1e-9)
    ex = ax.make_exercise(1)
    slip = ax.exercise_answers(ex, "forgot the mask")
    for k, v in zip(("a1", "a2", "c1", "c2"), (0.5, 0.5, *slip["context"])):
        at.number_input(key=f"attention_ex_{k}").set_value(float(v))
    at.button(key="attention_ex_check").click().run()
    assert any("h₃" in e.value for e in at.error)


@pytest.mark.parametrize("page", ["pages/output.py", "pages/bptt.py", "pages/hidden.py", "pages/gates.py",
                                  PAGE])
def test_an_attention_model_trained_on_page_6_is_read_by_every_page(page):
    """Page 6's cell choice "elman_attention" builds an Elman with attention; as the current
    model the other pages run (page 4 says where its recursion stops) and page 9 reads it itself."""
    _, vocab, _ = load_builtin("default")
    model = build_model(len(vocab), 8, 12, ATTENTION_CELL, "tanh", 0).eval()
    assert model.cfg.attention and model.cfg.cell == "elman"
    at = AppTest.from_file(str(ROOT / page), default_timeout=300)
    at.session_state["own_models"] = {"att": (model, vocab, {})}
    at.session_state["model"] = "own:att"
    at.session_state["text"] = "Arrive Taipei on November 2nd"
    at.run()
    no_exception(at)
    if page == PAGE:
        assert any("has attention itself" in i.value for i in at.info)
