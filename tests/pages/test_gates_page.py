"""AppTest of page 8 (Gates: LSTM and GRU): the three cells' influence maps equal the core's,
the horizons in the prose are the core's, the gated model switch, the step written out, the
long-range findings, the exercise, gated current models and the Chinese page."""
from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rnnviz.engine import jacobians
from rnnviz.engine.trace import trace
from rnnviz.explain import gates, longrange
from rnnviz.explain.exercises import gates as gx
from rnnviz.formatting import num, vector
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from tests.apptest_helpers import (
    figures,
    finish_job,
    no_exception,
    skip_checkpoints,
    stepped_elements,
    stepped_slide,
    table_frame,
)
from tests.conftest import ROOT
from ui.sections.gates.step import GRU_ROWS, LSTM_ROWS, formulas, symbol

PAGE = "pages/gates.py"
SENTENCE = "Arrive Taipei on November 2nd"


def _open(model: str = "default", text: str = SENTENCE, lang: str | None = None, **state):
    """The page on its own with the sidebar's session keys set (as in test_hidden_page._open)."""
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=120)
    skip_checkpoints(at)
    at.session_state["model"] = model
    at.session_state["text"] = text
    if lang:
        at.session_state["lang"] = lang
    for k, v in state.items():
        at.session_state[k] = v
    return at.run()


def _traced(key: str, text: str = SENTENCE):
    model, vocab, _ = load_builtin(key)
    ids, targets = lm_pair(vocab.encode(text.split())[0], vocab)
    return model, trace(model, ids, targets)


def _md(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def _fig(at, start: str) -> dict:
    for f in figures(at):
        if (f["layout"].get("title") or {}).get("text", "").startswith(start):
            return f
    raise AssertionError(f"no figure titled {start!r}")


def test_three_cells_on_one_log_scale_with_the_cores_horizons():
    at = _open()
    no_exception(at)
    fig = _fig(at, "log10 ‖∂hₛ/∂xₜ‖")
    assert [d["type"] for d in fig["data"] if d["type"] == "heatmap"] == ["heatmap"] * 3
    assert fig["data"][3]["type"] == "scatter"  # the clickable layer (issue 28) comes after the maps
    horizons = {}
    for trace_, key in zip(fig["data"], ("default", "lstm", "gru")):
        model, tr = _traced(key)
        N = jacobians.input_jacobian_norms(model, tr).numpy()
        want = np.log10(np.where(N > 0, N, np.nan))
        got = np.asarray(trace_["z"], dtype=float)
        assert np.allclose(got, want, equal_nan=True, atol=1e-9)
        assert trace_["coloraxis"] == "coloraxis"  # one colour scale for the three
        horizons[key] = jacobians.memory_horizon(N)
        reach = gates.first_word_reach(N, 1)
        assert f"{num(reach)} (" in _md(at)
    ca = fig["layout"]["coloraxis"]
    assert ca["cmax"] >= max(np.nanmax(np.asarray(d["z"], float)) for d in fig["data"][:3])
    look = at.markdown[1].value
    assert (f"Elman\n{horizons['default']['horizon']}, LSTM {horizons['lstm']['horizon']}, "
            f"GRU {horizons['gru']['horizon']} steps") in look
    assert "[The gates over the sentence](#sentence)" in _md(at)


def test_step_written_out_is_the_models_own_and_follows_the_slider():
    at = _open()
    assert at.radio(key="gates_cell").value == "lstm"
    model, tr = _traced("lstm")
    at.slider(key="gates_step").set_value(4).run()
    no_exception(at)
    s = gates.gated_step(model, tr, 3)
    u = s["peak"]
    line = next(m.value for m in at.markdown if m.value.startswith("**One unit written out**"))
    assert f"unit {u + 1}" in line and f"= {num(s['c'][u])}" in line and f"= {num(s['h'][u])}$" in line
    rows = at.table[0].value
    assert rows.shape[0] == 11 and "(32,)" in set(rows.iloc[:, 1])
    # each row: the quantity's symbol and its first 8 entries at step 4, from gated_step
    assert list(rows.iloc[:, 0]) == ["$A_i$", "$i$", "$A_f$", "$f$", "$A_g$", "$g$", "$A_o$", "$o$", "$c_{t-1}$",
                                     "$c_t$", "$h_t$"]
    assert list(rows.iloc[:, 2]) == [vector(s[k], shown=8) for k, _ in LSTM_ROWS]
    assert formulas(LSTM_ROWS) in at.latex[0].value  # the formulas once, above the step's numbers
    assert 'Step t = 4, input "' in _md(at)
    heat = _fig(at, "Gate values over the sentence")
    assert len(heat["data"]) == 4
    assert np.allclose(np.asarray(heat["data"][1]["z"], float), tr.gates["f"].numpy().T, atol=1e-6)
    k = gates.kept_cells(tr, 32, start=1)
    assert f"{k['n_kept']} of the 32 units" in _md(at)


def test_the_gru_switch_and_its_link_value():
    at = _open()
    at.radio(key="gates_cell").set_value("gru").run()
    no_exception(at)
    assert len(_fig(at, "Gate values over the sentence")["data"]) == 3
    assert "update gate" in _md(at) and at.table[0].value.shape[0] == 9
    assert formulas(GRU_ROWS) in at.latex[0].value
    from tests.conftest import APP
    linked = AppTest.from_file(APP, default_timeout=120)
    skip_checkpoints(linked)
    linked.query_params["gates_cell"] = "gru"  # a shared link: the URL value is the option value
    linked.switch_page(str(ROOT / PAGE))
    linked.run()
    no_exception(linked)
    assert linked.radio(key="gates_cell").value == "gru" and not linked.warning


@pytest.mark.parametrize("model", ["lstm", "gru"])
def test_a_gated_current_model_is_used_and_named(model):
    at = _open(model)
    no_exception(at)
    assert [r.key for r in at.radio] == ["gates_map"]  # no LSTM/GRU switch (only the map's cell choice)
    assert any("your current model" in c.value for c in at.caption)
    model_, tr = _traced(model)
    sat = gates.gate_saturation(tr, model, 32)
    table = next(d.value for d in at.dataframe if "saturated (%)" in d.value.columns)
    assert [float(v) for v in table.iloc[:, 1]] == pytest.approx([float(num(100 * v)) for v in sat.values()])


def test_notes_and_subword_models_still_compare_the_builtins():
    for key, text in (("notes", "I like cats"), ("subword", "the cat sat on the mat")):
        at = _open(key, text)
        no_exception(at)
        assert [d["type"] for d in _fig(at, "log10 ‖∂hₛ/∂xₜ‖")["data"]].count("heatmap") == 3


def test_long_range_prose_reads_the_shipped_measurements():
    at = _open()
    f = longrange.findings(longrange.load_results())
    text = _md(at)
    assert f"is {num(f['grad_ratio'])} times the Elman's" in text
    assert f"LSTM,\ndistances up to {f['learned']['lstm']}" in text
    assert f"it learns distances up to {f['bias3']}" in text
    # the curriculum's worst accuracy: "100 %" when it is (it read "at least 100 %"), else "at least x %"
    reach = "100 %" if f["curriculum_min"] >= 1 else f"at least {num(100 * f['curriculum_min'])} %"
    assert f"every cell reaches\n{reach} at every distance up to {f['curriculum_max_distance']}" in text
    assert "at least 100 %" not in text
    from ui.sections.gates.task import _reach
    assert (_reach(1.0), _reach(0.975)) == ("100 %", "at least 97.5 %")
    acc = _fig(at, "Accuracy at the training distance")
    names = [d["name"] for d in acc["data"]]
    assert names == ["Elman (tanh)", "LSTM", "GRU", "LSTM, forget bias +3"]
    fixed = {(r["cell"], r["distance"]): r["accuracy"] for r in longrange.load_results()["fixed"]["rows"]}
    assert list(acc["data"][1]["y"]) == [fixed[("lstm", d)] for d in acc["data"][1]["x"]]


def test_exercise_right_and_a_named_slip():
    at = _open()
    ex = gx.make_exercise(1)
    for mistake, words in ((None, "Right"), ("forgot tanh on c", "squash the cell state first")):
        c, h = gx.exercise_answers(ex, mistake)
        for name, v in zip(("c_1", "c_2", "h_1", "h_2"), [*c, *h]):
            at.number_input(key=f"gates_ex_{name}").set_value(float(v))
        at.button(key="gates_ex_check").click().run()
        no_exception(at)
        shown = [m.value for m in at.success] + [m.value for m in at.error]
        assert any(words in s for s in shown), shown


def test_chinese_page_is_mostly_chinese():
    at = _open(lang="zh")
    no_exception(at)
    text = re.sub(r"\$[^$]*\$", "", _md(at))  # formulas stay as they are
    letters = [ch for ch in text if ch.isalpha()]
    cjk = [ch for ch in letters if "\u4e00" <= ch <= "\u9fff"]
    assert len(cjk) > 0.5 * len(letters), (len(cjk), len(letters))
    assert at.title[0].value == "8 · 门控：LSTM 与 GRU"
    assert _fig(at, "log10 ‖∂hₛ/∂xₜ‖：")


def test_train_one_now_shows_the_runs_numbers():
    at = _open()
    at.selectbox(key="gates_now_cell").set_value("gru")
    at.selectbox(key="gates_now_dist").set_value(10)
    at.number_input(key="gates_now_steps").set_value(20)
    at.button(key="gates_now_go").click().run()
    finish_job(at, "gates_now_job")
    no_exception(at)
    want = longrange.train_now(longrange.LongRangeConfig(cell="gru", distance=10, steps=20))
    line = next(m.value for m in at.markdown if m.value.startswith("**GRU at distance 10**"))
    assert f"20 steps: accuracy {num(100 * want['accuracy'])} %" in line
    assert f"after {num(want['grad_first_after'])}." in line


def test_over_budget_maps_show_a_window_of_true_steps(monkeypatch):
    """Issue 17: an own LSTM, a 60-word sentence and a small MAX_JACOBIAN_WORK: the three maps
    show the same last w steps (the core's window), numbered as in the sentence, the message
    says so, and the first word's reach stays exact over the whole sentence."""
    from rnnviz import limits
    from rnnviz.engine import jacwindow
    from rnnviz.engine.model import RNNConfig, RNNModel
    from rnnviz.serve.links import OWN_PREFIX

    _, vocab, _ = load_builtin("lstm")
    model = RNNModel(RNNConfig(len(vocab), 8, 6, cell="lstm"), seed=0)
    monkeypatch.setattr(limits, "MAX_JACOBIAN_WORK", jacwindow.work(15, 12, 8))
    words = [w for w in vocab.itos if w.isalpha()][:12]
    text = " ".join(words[i % len(words)] for i in range(60))
    at = _open(OWN_PREFIX + "big", text, own_models={"big": (model, vocab, {"level": "word"})})
    no_exception(at)
    trs = {"lstm": trace(model, *lm_pair(vocab.encode(text.split())[0], vocab))}
    for key in ("default", "gru"):
        trs[key] = _traced(key, text)[1]
    T = trs["lstm"].T
    models = {"default": load_builtin("default")[0], "lstm": model, "gru": load_builtin("gru")[0]}
    w = min(jacwindow.jacobian_window(T, jacwindow.state_size(m.cfg), k=m.cfg.embed_dim).size
            for m in models.values())
    assert 2 <= w <= 15 and T > 60
    assert any(f"has {T} tokens" in i.value and f"steps {T - w + 1}–{T} (the last {w})" in i.value
               for i in at.info), [i.value for i in at.info]
    fig = _fig(at, "log10 ‖∂hₛ/∂xₜ‖")
    for trace_, key in zip(fig["data"], ("default", "lstm", "gru")):
        N = jacobians.input_jacobian_norms(models[key], trs[key], start=T - w).numpy()  # (w, w)
        got = np.asarray(trace_["z"], dtype=float)
        assert np.allclose(got, np.log10(np.where(N > 0, N, np.nan)), equal_nan=True, atol=1e-9)
        assert list(trace_["x"])[0] == str(T - w + 1) and list(trace_["x"])[-1] == str(T)
        assert list(trace_["y"])[0].startswith(f"{T - w + 1} ")
        full = jacobians.input_jacobian_norms(models[key], trs[key])
        assert f"{num(gates.first_word_reach(full, 1))} (" in _md(at)  # exact, whole sentence
    at.session_state["lang"] = "zh"
    at.run()
    no_exception(at)
    assert any(f"第 {T - w + 1}–{T} 步" in i.value for i in at.info)


def test_start_model_compares_the_subword_trio_on_the_learners_sentence():
    """No model in the link: the start model reads BPE subwords, so the page's Elman, LSTM and GRU
    are the subword family, each reads "the cat sat on the mat" with no <unk>, and the page
    says which tokenizer the three read; the heatmaps are the core's on those tokens."""
    from rnnviz.store.catalog import START_MODEL, SUBWORD_FILES
    from rnnviz.text.tokenize import UNK, prepare
    from tests.conftest import APP
    at = AppTest.from_file(APP, default_timeout=120)
    skip_checkpoints(at)
    at.query_params["text"] = "the cat sat on the mat"  # and no model: the start model
    at.run()  # the app first, as a browser opens it (a page switched to before any run is run alone)
    at.switch_page(str(ROOT / PAGE))
    at.run()
    no_exception(at)
    assert START_MODEL in SUBWORD_FILES
    assert any(c.value == "The three models read your sentence as BPE subwords." for c in at.caption)
    table = next(d.value for d in at.dataframe if "tokens" in d.value.columns)
    fig = _fig(at, "log10 ‖∂hₛ/∂xₜ‖")
    assert len(table) == 3 and [d["type"] for d in fig["data"]].count("heatmap") == 3
    for (_, row), trace_, key in zip(table.iterrows(), fig["data"], ("subword", "subword_lstm", "subword_gru")):
        model, vocab, meta = load_builtin(key)
        assert row["model"].startswith(("Subword English model", "Subword LSTM", "Subword GRU")[
            ("subword", "subword_lstm", "subword_gru").index(key)])
        assert row["tokenizer"] == "BPE subwords"
        ids, targets = lm_pair(list(prepare("the cat sat on the mat", vocab, meta["level"]).ids), vocab)
        tokens = vocab.decode(ids)
        assert row["tokens"] == " · ".join(tokens) and UNK not in row["tokens"].split(" · ")
        N = jacobians.input_jacobian_norms(model, trace(model, ids, targets)).numpy()
        want = np.log10(np.where(N > 0, N, np.nan))
        assert np.allclose(np.asarray(trace_["z"], dtype=float), want, equal_nan=True, atol=1e-9)
    assert at.radio(key="gates_cell").value == "lstm"
    rows = next(d for d in stepped_elements(at) if d["kind"] == "table")  # the step written out
    assert "(96,)" in set(table_frame(stepped_slide(rows)).iloc[:, 0])  # the subword LSTM, H = 96


@pytest.mark.parametrize("key", ["subword_lstm", "subword_gru"])
def test_a_subword_gated_current_model_keeps_the_subword_trio(key):
    at = _open(key, "the cat sat on the mat")
    no_exception(at)
    assert [r.key for r in at.radio] == ["gates_map"]  # no LSTM/GRU switch (only the map's cell choice)
    assert any("your current model" in c.value for c in at.caption)
    table = next(d.value for d in at.dataframe if "tokens" in d.value.columns)
    assert set(table["tokenizer"]) == {"BPE subwords"}
    assert not any("<unk>" in row.split(" · ") for row in table["tokens"])


def test_word_level_model_keeps_the_word_level_trio_and_names_its_tokenizer():
    at = _open()
    table = next(d.value for d in at.dataframe if "tokens" in d.value.columns)
    assert set(table["tokenizer"]) == {"words"}
    assert list(table["model"]) == [i18n_label(k) for k in ("default", "lstm", "gru")]
    assert any(c.value == "The three models read your sentence as words." for c in at.caption)


def i18n_label(key: str) -> str:
    from ui import i18n
    return i18n.text_for("en", f"models.{key}.label", V=len(load_builtin(key)[1]))


def test_the_cells_formulas_pair_each_pre_activation_with_its_gate():
    lstm, gru = formulas(LSTM_ROWS), formulas(GRU_ROWS)
    assert lstm.count("\\\\") == 4 and gru.count("\\\\") == 3  # 5 and 4 lines
    assert r"A_f &= W_{xf} x_t + b_{xf} + W_{hf} h_{t-1} + b_{hf}, &\qquad f &= \sigma(A_f)" in lstm
    assert r"c_t &= f \odot c_{t-1} + i \odot g, &\qquad h_t &= o \odot \tanh(c_t)" in lstm
    assert gru.endswith(r"h_t &= (1 - z) \odot n + z \odot h_{t-1}\end{aligned}")
    assert [symbol(tex) for _, tex in GRU_ROWS][:4] == ["A_r", "r", "A_z", "z"]
