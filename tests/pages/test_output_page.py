"""The output-and-loss page on both built-in models: step change, the notes preset, generation,
a padded batch, the gradient step and the exercise checker. Numbers are checked against rnnviz
computed outside the page (and that, in tests/core/explain/test_output.py, against its oracles)."""
import math

import numpy as np
import pytest

from rnnviz.engine import generation
from rnnviz.engine.trace import trace
from rnnviz.explain import output as out
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import EOS, prepare
from tests.apptest_helpers import (
    figures,
    html_text,
    move_step,
    no_exception,
    page_text,
    skip_checkpoints,
    stepped_elements,
    stepped_slide,
)

PAGE = "pages/output.py"


def open_on(model: str, sentence: str):
    """The page alone, with the model and sentence in session state (the keys the sidebar sets):
    under AppTest, switch_page runs the page without app.py's sidebar, whose state would not
    survive the next run."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT

    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)

    skip_checkpoints(at)
    at.session_state["model"] = model
    at.session_state["text"] = sentence
    return at.run()


def fig(at, starts: str) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(starts))


def lm_trace(key, text):
    model, vocab, _ = load_builtin(key)
    inp, tgt = lm_pair(list(prepare(text, vocab).ids), vocab)
    return model, vocab, trace(model, inp, tgt)


def text(at) -> str:
    return page_text(at).replace("\n", " ")  # the markdown and the step's parts (ui/stepped.py)


def test_default_model_step_change(app):
    at = app(PAGE)
    no_exception(at)
    model, vocab, tr = lm_trace("default", "Arrive Taipei on November 2nd")
    f = fig(at, "Step 2")
    p_shown = np.asarray(f["data"][0]["y"], dtype=float)
    labels = f["data"][0]["x"]
    assert np.allclose(p_shown, [float(tr.p[1, vocab.stoi[w]]) for w in labels], atol=1e-6)
    assert f"{float(tr.loss_t[1]):.4g}" in text(at)
    loss = fig(at, "Per-token loss")
    assert np.allclose(np.asarray(loss["data"][0]["y"], float), tr.loss_t.numpy(), atol=1e-6)
    move_step(at, "out_step", 4).run()
    no_exception(at)
    f = fig(at, "Step 4")
    grads = np.asarray(f["data"][1]["y"], dtype=float)
    tgt = int(tr.targets[3])
    expect = tr.p[3].numpy().copy()
    expect[tgt] -= 1
    assert np.allclose(grads, [expect[vocab.stoi[w]] for w in f["data"][1]["x"]], atol=1e-6)
    assert "Sum or mean?" in text(at) and f"{float(tr.loss) / tr.T:.4g}" in text(at)


def test_notes_model_and_notes_preset(app):
    at = open_on("notes", "I like cats")
    no_exception(at)
    assert "has no next token" not in text(at)
    move_step(at, "out_step", 3).run()
    assert "has no next token" in text(at)  # the notes model has no <eos>: the last step has no target
    no_exception(at)  # no page-level switch: the notes model shows the notes' example by itself
    assert "out_src" not in [r.key for r in at.radio]
    assert "0.916" in text(at) and "[0.1, 0.1, -0.6, 0.3, 0.1]" not in text(at)  # the vector: in the table
    notes = next(d.value for d in at.dataframe if "pₖ - yₖ" in d.value.columns
                 and list(d.value["output"]) == ["I", "like", "cats", "dogs", "you"])
    assert list(notes["pₖ - yₖ"]) == ["0.1", "0.1", "-0.6", "0.3", "0.1"]
    f = fig(at, "Notes example")
    assert f["data"][1]["x"] == ["I", "like", "cats", "dogs", "you"]  # the notes' order
    shown = dict(zip(f["data"][1]["x"], np.asarray(f["data"][1]["y"], float)))
    assert shown == pytest.approx({"I": 0.1, "like": 0.1, "cats": -0.6, "dogs": 0.3, "you": 0.1}, abs=1e-12)
    probs = dict(zip(f["data"][0]["x"], np.asarray(f["data"][0]["y"], float)))
    assert probs == pytest.approx({"I": 0.1, "like": 0.1, "cats": 0.4, "dogs": 0.3, "you": 0.1}, abs=1e-12)
    assert f"{-math.log(0.4):.4g}" in text(at)  # L_t = -ln 0.4 in the softmax / loss lines


def test_generation_greedy_and_seeded_sampling(app):
    at = app(PAGE)
    model, vocab, tr = lm_trace("default", "Arrive Taipei on November 2nd")
    prefix = vocab.decode(tr.ids[:1])
    greedy = generation.generate(model, tr.ids[:1].tolist(), generation.Sampling(max_new=12), vocab.stoi[EOS])
    assert at.code[0].value == " ".join(prefix + [vocab.itos[s.chosen] for s in greedy])
    said = "\n".join(m.value for m in at.markdown)
    assert "the seed changes nothing" in said and "same seed always" not in said  # greedy: no seed
    at.radio(key="out_strategy").set_value("sample").run()
    said = "\n".join(m.value for m in at.markdown)
    assert "same seed always" in said and "the seed changes nothing" not in said
    at.number_input(key="out_seed").set_value(5).run()
    at.slider(key="out_prefix").set_value(3).run()
    no_exception(at)
    how = generation.Sampling("sample", 1.0, 0, 5, 12)
    sampled = generation.generate(model, tr.ids[:3].tolist(), how, vocab.stoi[EOS])
    expect = " ".join(vocab.decode(tr.ids[:3]) + [vocab.itos[s.chosen] for s in sampled])
    assert at.code[0].value == expect
    at.run()
    assert at.code[0].value == expect  # same seed, same continuation


def test_padded_batch_and_gradient_step(app):
    at = app(PAGE)
    at.text_input(key="out_batch2").input("Leave Boston").run()
    no_exception(at)
    model, vocab, tr = lm_trace("default", "Arrive Taipei on November 2nd")
    _, _, tr_b = lm_trace("default", "Leave Boston")
    f = fig(at, "Loss per position")
    z = np.asarray(f["data"][0]["z"], float)
    assert z.shape == (2, tr.T)
    assert np.allclose(z[0], tr.loss_t.numpy(), atol=1e-5)
    assert np.allclose(z[1, :tr_b.T], tr_b.loss_t.numpy(), atol=1e-5) and (z[1, tr_b.T:] == 0).all()
    assert f"{float(tr.loss + tr_b.loss):.4g}" in text(at)
    at.radio(key="out_batch_red").set_value("mean").run()
    n_valid = int(tr.valid.sum() + tr_b.valid.sum())
    assert f"**{float(tr.loss + tr_b.loss) / n_valid:.4g}**" in text(at) and f"the {n_valid}" in text(at)
    at.slider(key="out_lr").set_value(1.5).run()
    no_exception(at)
    res = out.output_layer_step(model, tr, 1, 1.5)
    ba = fig(at, "pₜ at step 2 before and after")
    after = dict(zip(ba["data"][1]["x"], np.asarray(ba["data"][1]["y"], float)))
    assert after == pytest.approx({w: float(res.p_after[1, vocab.stoi[w]]) for w in after}, abs=1e-6)


def test_bad_batch_sentence_is_a_message(app):
    at = open_on("notes", "I like cats")
    at.text_input(key="out_batch2").input("zebra quokka").run()
    no_exception(at)
    assert any("vocabulary" in e.value for e in at.error)
    assert fig(at, "Per-token loss")  # the rest of the page is still there


def test_one_word_sentence(app):
    at = open_on("notes", "cats")
    no_exception(at)
    assert "has no next token" in text(at)


def test_exercise_checker_and_new_exercise(app):
    at = app(PAGE)
    ex = out.make_exercise(0)  # exercise 1
    at.text_input(key="out_ex_loss").input(f"{ex.view.loss:.2f}").run()
    at.text_input(key="out_ex_grad").input(", ".join(f"{-g:.2f}" for g in ex.view.p_minus_y))
    at.button(key="out_ex_check").click().run()
    no_exception(at)
    assert any("y - p" in e.value.replace("\\", "") for e in at.error) and not at.success  # L right, p - y flipped
    at.text_input(key="out_ex_grad").input(", ".join(f"{g:.2f}" for g in ex.view.p_minus_y))
    at.button(key="out_ex_check").click().run()
    assert any("Right" in s.value for s in at.success) and not at.error
    at.toggle(key="out_ex_solution").set_value(True).run()
    assert any(f"{ex.view.loss:.4g}" in i.value.replace("\\", "") for i in at.info)
    at.button(key="out_ex_new").click().run()
    no_exception(at)
    assert at.number_input(key="out_ex_n").value == 2


def test_default_model_has_no_notes_example(app):
    at = app(PAGE)
    assert not [f for f in figures(at) if f["layout"]["title"]["text"].startswith("Notes example")]


def test_rank_column_is_one_type_and_old_exercise_links_open():
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT

    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)

    skip_checkpoints(at)
    at.session_state["model"] = "notes"
    at.session_state["text"] = "I like cats"
    at.query_params["out_ex_seed"] = "4"  # a link made before the shared exercise widget
    at.run()
    no_exception(at)
    ranks = tables_with(at, "rank of target")[0]["rank of target"]
    assert {type(v) for v in ranks} == {str} and list(ranks)[-1] == ""  # the last step has no target
    assert at.number_input(key="out_ex_n").value == 5


@pytest.mark.parametrize("kind", ["jordan", "bidirectional"])
def test_own_jordan_and_bidirectional_models(kind):
    """A session's own model of either other shape: the page explains, never crashes."""
    from streamlit.testing.v1 import AppTest

    from rnnviz import RNNConfig, RNNModel
    from tests.conftest import ROOT

    _, vocab, _ = load_builtin("default")
    cfg = RNNConfig(vocab_size=len(vocab), embed_dim=4, hidden_size=5,
                    cell="jordan" if kind == "jordan" else "elman", bidirectional=kind == "bidirectional")
    model = RNNModel(cfg, seed=1).eval()
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)
    skip_checkpoints(at)
    at.session_state["own_models"] = {"mine": (model, vocab, {"description": "test"})}
    at.session_state["model"] = "own:mine"
    at.session_state["text"] = "Leave Boston at 5 pm"
    at.run()
    no_exception(at)
    assert ("feeds pₜ back" in text(at)) == (kind == "jordan")
    assert ("bidirectional" in text(at)) == (kind == "bidirectional")
    ids, tgt = lm_pair(list(prepare("Leave Boston at 5 pm", vocab).ids), vocab)
    tr = trace(model, ids, tgt)
    f = fig(at, "Per-token loss")
    assert np.allclose(np.asarray(f["data"][0]["y"], float), tr.loss_t.numpy(), atol=1e-6)


# ---- reviewer findings ---------------------------------------------------------------------

def tables_with(at, column: str) -> list:
    return [df.value for df in at.dataframe if column in df.value.columns]


def test_title_shift_table_once_and_tiny_p_formatting(app):
    at = app(PAGE)
    no_exception(at)
    assert at.title[0].value == "3 · Output and loss"  # the page title is its navigation name
    shift = tables_with(at, "context seen so far")
    assert len(shift) == 2  # the model's own shift once, the other convention once
    _, vocab, tr = lm_trace("default", "Arrive Taipei on November 2nd")
    assert list(shift[0]["input token"]) == vocab.decode(tr.ids)  # with <bos>: this model's table
    assert list(shift[1]["input token"]) == "Arrive Taipei on November".split()
    assert "the exp(zₖ - max z) column" in text(at)
    sent = tables_with(at, "p(target)")[0]
    from rnnviz.formatting import num
    assert list(sent["p(target)"]) == [num(float(tr.p[t, tr.targets[t]])) for t in range(tr.T)]


def test_notes_model_says_why_today_has_no_target(app):
    at = open_on("notes", "I like cats")
    assert "[like, cats, today]" in text(at) and "no `<eos>`" in text(at)
    shift = tables_with(at, "context seen so far")
    assert len(shift) == 2 and list(shift[0]["target (next token)"])[-1].startswith("(none")
    at = app(PAGE)
    assert "[like, cats, today]" not in text(at)  # the default model has <eos>


def test_padded_sum_adds_up_as_shown_and_second_warning_is_labelled():
    import re
    from decimal import Decimal

    at = open_on("default", "Arrive Taipei on November 2nd")
    at.text_input(key="out_batch2").input("Leave Zorglub now").run()
    no_exception(at)
    assert any(w.value.replace("\\", "").startswith("Second sentence: ") for w in at.warning)  # markdown-escaped
    m = re.search(r"summed losses, (\d+\.\d+) \+ (\d+\.\d+) = (\d+\.\d+)", text(at))
    assert m and Decimal(m[1]) + Decimal(m[2]) == Decimal(m[3])


def test_long_sentence_heatmap_is_a_labelled_window(app):
    words = ("Leave Boston at 5 pm and arrive in Paris on November 2nd " * 6).split()[:60]
    at = open_on("default", " ".join(words))
    move_step(at, "out_step", 30).run()
    no_exception(at)
    f = fig(at, "Top ")
    assert "steps 20–39 of 61 (around step 30" in f["layout"]["title"]["text"]
    assert len(f["data"][0]["y"]) == out.MAX_HEATMAP_STEPS and f["data"][0]["texttemplate"] == "%{text}"
    assert f["data"][0]["y"][0].startswith("20 ")


# ---- page 3 rework: language, what to look at -----------------------------------------------

def _cjk_share(text: str) -> float:
    import re
    text = re.sub(r"\$[^$]*\$|`[^`]*`|\(#[^)]*\)", "", text)  # formulas, code, anchors stay as they are
    letters = [c for c in text if c.isalpha()]
    return sum("\u4e00" <= c <= "\u9fff" for c in letters) / max(1, len(letters))


@pytest.mark.parametrize("model,sentence", [("default", "Arrive Taipei on November 2nd"), ("notes", "I like cats")])
def test_page_in_chinese(model, sentence):
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT

    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)

    skip_checkpoints(at)
    at.session_state["model"], at.session_state["text"], at.session_state["lang"] = model, sentence, "zh"
    at.run()
    no_exception(at)
    prose_md = [m.value for m in at.markdown if len(m.value) > 80]
    assert _cjk_share(" ".join(prose_md)) > 0.6  # mostly Chinese; tokens such as "Taipei" stay as typed
    assert all(_cjk_share(m) > 0.3 for m in prose_md), [m[:60] for m in prose_md if _cjk_share(m) <= 0.3]
    assert at.title[0].value.startswith("3 · 输出与损失")
    assert at.slider(key="out_step").label == "时间步 t"
    assert "目标的名次" in tables_with(at, "目标的名次")[0].columns
    _, _, tr = lm_trace(model, sentence)
    f = fig(at, "逐词损失")
    expect = np.where(tr.valid.numpy(), tr.loss_t.numpy(), np.nan)  # no target: no bar
    assert np.allclose(np.asarray(f["data"][0]["y"], float), expect, atol=1e-6, equal_nan=True)
    if model == "notes":
        assert "0.9163" in text(at) and fig(at, "讲义中的例子")


def test_what_to_look_at_and_contents(app):
    at = app(PAGE)
    _, _, tr = lm_trace("default", "Arrive Taipei on November 2nd")
    look = html_text(stepped_slide(next(d for d in stepped_elements(at) if d["kind"] == "info")))
    worst = out.worst_step(tr)
    assert "What to look at" in look and f"{float(tr.loss):.4g}" in look and f"step {worst + 1}" in look
    assert "](#out-labels)" in text(at) and "](#out-byhand)" in text(at)
