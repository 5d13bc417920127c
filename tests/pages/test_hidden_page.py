"""AppTest of the hidden-state page on the default and notes models: step changes, an overlay
sentence, each cell variant, the notes' scalar preset and the hand exercise."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from rnnviz.engine.trace import trace
from rnnviz.explain import hidden as hd
from rnnviz.formatting import plain_math
from rnnviz.store.catalog import NOTES_VOCAB, load_builtin
from rnnviz.text.corpora import lm_pair
from tests.apptest_helpers import figures, move_step, no_exception, skip_checkpoints, stepped_tables
from tests.conftest import ROOT

PAGE = "pages/hidden.py"


def _fig(at, title_start: str) -> dict:
    for f in figures(at):
        if (f["layout"].get("title") or {}).get("text", "").startswith(title_start):
            return f
    raise AssertionError(f"no figure titled {title_start!r}")


FOLDED = ("hid_phi", "hid_params", "hid_variants")  # the page's folded sections, opened (issue 24)


def _open(app, model: str = "default", text: str | None = None):
    """The page on a chosen model and sentence.

    The `app` fixture's switch_page runs pages/hidden.py without app.py's sidebar (AppTest
    sees a pages/ folder next to app.py), and the sidebar's widget state does not survive
    the next run; so for another model the page is opened on its own, with the model and
    sentence in session state, exactly the keys the sidebar would set.
    """
    if model == "default" and text is None:
        return app(PAGE, query=dict.fromkeys(FOLDED, "true"))
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)

    skip_checkpoints(at)
    for key in FOLDED:
        at.session_state[key] = True
    at.session_state["model"] = model
    at.session_state["text"] = text
    return at.run()


def _trace(key: str, text: str):
    model, vocab, meta = load_builtin(key)
    ids, targets = lm_pair(vocab.encode(text.split())[0], vocab)
    return model, trace(model, ids, targets)


def test_default_model_step_change_moves_the_box_and_the_numbers(app):
    at = app(PAGE)
    no_exception(at)
    model, tr = _trace("default", "Arrive Taipei on November 2nd")
    heat = _fig(at, "hₜ: steps across")
    assert np.allclose(heat["data"][0]["z"], tr.h.numpy().T, atol=1e-6)
    assert heat["layout"]["shapes"][0]["x0"] == 0.5  # starts at the first real word, not <bos>
    move_step(at, "hid_step", 3).run()
    no_exception(at)
    heat = _fig(at, "hₜ: steps across")
    assert heat["layout"]["shapes"][0]["x0"] == 1.5
    bar = _fig(at, "The three terms")
    assert np.allclose(bar["data"][3]["y"], tr.a[2].numpy(), atol=1e-6)
    table = stepped_tables(at)[0].astype(float)  # the step-3 equation table (4 significant digits)
    s = hd.step_terms(model, tr, 2)
    assert np.allclose(table[plain_math("W_h h_{t-1}")].to_numpy(), s["Wh_h"].numpy(), rtol=1e-3, atol=1e-8)
    assert np.allclose(table[plain_math("h_t = tanh(a_t)")].to_numpy(), tr.h[2].numpy(), rtol=1e-3, atol=1e-8)
    at.button(key="hid_next").click().run()
    assert at.slider(key="hid_step").value == 4


def test_overlay_sentence_and_reordering(app):
    at = app(PAGE)
    at.text_input(key="hid_overlay").set_value("Leave Taipei on November 2nd").run()
    no_exception(at)
    pca = _fig(at, "Trajectory")
    assert [d.get("name") for d in pca["data"] if d.get("showlegend") is not False] == [
        "your sentence", "second sentence"]
    _, tr_a = _trace("default", "Arrive Taipei on November 2nd")
    _, tr_b = _trace("default", "Leave Taipei on November 2nd")
    dist = float((tr_a.h[-1] - tr_b.h[-1]).norm())
    assert any(f"{dist:.3f}" in m.value for m in at.markdown)
    at.button(key="hid_pair_dog bites man").click().run()
    no_exception(at)
    assert at.session_state["text"] == "dog bites man"
    assert at.text_input(key="hid_overlay").value == "man bites dog"
    text = " ".join(m.value for m in at.markdown)
    assert "“dog bites man” and “man bites dog”" in text and "sums are equal" in text


def test_overlay_with_no_known_word_is_an_error_not_a_crash(app):
    at = app(PAGE)
    at.text_input(key="hid_overlay").set_value("zzzz qqqq").run()
    no_exception(at)
    # the default vocabulary maps unknown words to <unk>: still a trajectory with two paths
    assert len([d for d in _fig(at, "Trajectory")["data"] if d.get("showlegend") is not False]) == 2
    at = _open(app, "notes", "I like cats")
    at.text_input(key="hid_overlay").set_value("zzzz qqqq").run()
    no_exception(at)
    assert any(e.value.startswith("Second sentence: None of these words") for e in at.error)
    assert len([d for d in _fig(at, "Trajectory")["data"] if d.get("showlegend") is not False]) == 1


def test_long_sentence_caps_the_expansion(app):
    at = _open(app, "notes", " ".join(["I", "like", "cats", "dogs"] * 5))
    move_step(at, "hid_step", 20).run()
    no_exception(at)
    lin = [df.value for df in at.dataframe if "sum of the terms" in df.value.columns][0]
    assert plain_math("W_h^4 W_x x_1") in lin.columns and plain_math("W_h^5 h_0") in lin.columns  # h_5, not h_20


@pytest.mark.parametrize("kind", ["elman", "jordan", "bidirectional"])
def test_each_cell_variant(app, kind):
    at = _open(app, "notes", "I like cats")
    at.radio(key="hid_cell").set_value(kind).run()
    no_exception(at)
    model, _ = _trace("notes", "I like cats")
    var, shared, fresh = hd.cell_variant(model, kind)
    tr = trace(var, [0, 1, 2])
    fig = _fig(at, f"{kind.capitalize()} cell")
    assert np.allclose(fig["data"][0]["z"], tr.h.numpy().T, atol=1e-6)
    text = " ".join(m.value for m in at.markdown)
    for name in fresh:
        assert name in text
    if kind == "bidirectional":
        assert len(fig["data"][0]["y"]) == 8 and "forward" in fig["layout"]["title"]["text"]


def test_notes_model_linear_expansion_and_shapes(app):
    at = _open(app, "notes", "I like cats")
    no_exception(at)
    shapes = [df.value for df in at.dataframe if "symbol" in df.value.columns][0]
    assert dict(zip(shapes["symbol"], shapes["shape"]))[plain_math("W_h")] == "4 x 4"
    lin = [df.value for df in at.dataframe if "sum of the terms" in df.value.columns][0]
    model, _ = _trace("notes", "I like cats")
    lin_tr = trace(hd.with_nonlinearity(model, "linear"), [0, 1, 2])
    assert np.allclose(lin["sum of the terms"].to_numpy(), lin_tr.h[1].numpy(), atol=1e-6)
    assert plain_math("W_h W_x x_1") in lin.columns
    params = [df.value for df in at.dataframe if "formula" in df.value.columns][0]
    assert params["count"].sum() == 57


def test_scalar_preset_shows_the_notes_numbers(app):
    at = app(PAGE)
    at.number_input(key="hid_x1").set_value(5.0).run()
    at.button(key="hid_scalar_preset").click().run()
    no_exception(at)
    code = at.code[0].value
    assert "h_2 = 2(3) + 0.5(2) = 7" in code and "h_2 = 2(1) + 0.5(6) = 5" in code


def test_growth_slider(app):
    at = _open(app)
    sat = _fig(at, "Share of hidden units")
    _, tr = _trace("default", "Arrive Taipei on November 2nd")
    assert np.allclose(sat["data"][0]["y"], (tr.h.abs() > 0.95).double().mean(1).numpy())
    at.slider(key="hid_grow_w").set_value(1.5).run()
    no_exception(at)
    g = _fig(at, "hₜ = φ(1.5")
    assert np.allclose(g["data"][0]["y"], [1.5 ** k for k in range(1, 11)])


def test_by_hand_checker_diagnoses_a_missing_bias(app):
    at = app(PAGE)
    ex = hd.make_exercise(0)
    h1, h2 = hd.exercise_answers(ex, "forgot the bias")
    for i, v in enumerate(list(h1) + list(h2)):
        at.number_input(key=f"hid_ex_{i}").set_value(round(float(v), 3))
    at.button(key="hid_ex_check").click().run()
    no_exception(at)
    assert any("without bₕ" in e.value.replace("\\", "") for e in at.error)  # markdown-escaped
    right = hd.exercise_answers(ex)
    for i, v in enumerate(list(right[0]) + list(right[1])):
        at.number_input(key=f"hid_ex_{i}").set_value(round(float(v), 3))
    at.button(key="hid_ex_check").click().run()
    assert any("Right: both steps match" in s.value.replace("\\", "") for s in at.success)  # markdown-escaped


def test_single_token_sentence(app):
    at = _open(app, "notes", "cats")
    no_exception(at)
    assert "hid_step" not in [s.key for s in at.slider]  # no slider over a single step
    assert torch.isfinite(torch.tensor(_fig(at, "hₜ: steps across")["data"][0]["z"])).all()


def test_toggle_to_a_and_play(app, monkeypatch):
    at = app(PAGE)
    at.toggle(key="hid_show_a").set_value(True).run()
    no_exception(at)
    _, tr = _trace("default", "Arrive Taipei on November 2nd")
    assert np.allclose(_fig(at, "aₜ: steps across")["data"][0]["z"], tr.a.numpy().T, atol=1e-6)
    lines = _fig(at, "aₜ of the chosen units")
    assert np.allclose(lines["data"][0]["y"], tr.a[:, 0].numpy(), atol=1e-6)
    from ui.sections.hidden import step as sec
    fake = [1000.0]
    monkeypatch.setattr(sec, "now", lambda: fake[0])  # a steady clock: ticks exactly PLAY_PERIOD apart
    at.toggle(key="hid_play").set_value(True).run()
    no_exception(at)
    start = at.slider(key="hid_step").value
    T = tr.T
    for tick in range(1, T + 2):  # each tick of the clock moves exactly one step, looping
        fake[0] += hd.PLAY_PERIOD
        at.run()
        no_exception(at)
        assert at.slider(key="hid_step").value == (start - 1 + tick) % T + 1
    at.run()  # a redraw between ticks (another widget) does not move it
    assert at.slider(key="hid_step").value == (start - 1 + T + 1) % T + 1
    at.toggle(key="hid_play").set_value(False).run()
    assert "hid_play_clock" not in at.session_state


@pytest.mark.parametrize("cell,bidi", [("jordan", False), ("elman", True)])
def test_page_on_a_jordan_or_bidirectional_current_model(cell, bidi):
    """A session's own model may be Jordan or bidirectional: the page adapts, no crash."""
    from streamlit.testing.v1 import AppTest

    from rnnviz import RNNConfig, RNNModel
    from rnnviz.store.catalog import NOTES_VOCAB
    from rnnviz.text.tokenize import Vocab

    model = RNNModel(RNNConfig(5, 3, 4, cell=cell, bidirectional=bidi), seed=3).eval()
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)
    skip_checkpoints(at)
    for key in FOLDED:
        at.session_state[key] = True
    at.session_state["own_models"] = {"mine": (model, Vocab(NOTES_VOCAB), {})}
    at.session_state["model"] = "own:mine"
    at.session_state["text"] = "I like cats"
    at.run()
    no_exception(at)
    tr = trace(model, [0, 1, 2])
    heat = _fig(at, "hₜ: steps across")
    assert np.allclose(heat["data"][0]["z"], tr.h.numpy().T, atol=1e-6)
    move_step(at, "hid_step", 2).run()
    no_exception(at)
    table = at.dataframe[0].value
    rec = plain_math("W_y y_{t-1}" if cell == "jordan" else "W_h h_{t-1}")
    assert np.allclose(table[rec].to_numpy(), hd.step_terms(model, tr, 1)["Wh_h"].numpy(), atol=1e-6)
    for kind in hd.VARIANTS:
        at.radio(key="hid_cell").set_value(kind).run()
        no_exception(at)


def test_all_unknown_sentence_gets_a_preset_overlay_and_no_error(app):
    at = _open(app, "default", "<script>alert(1)</script>")
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert any("no word the model knows" in i.value for i in at.info)
    overlay = at.text_input(key="hid_overlay").value
    assert overlay in [b for _, b in hd.order_presets(load_builtin("default")[1])]
    names = [d.get("name") for d in _fig(at, "Trajectory")["data"] if d.get("showlegend") is not False]
    assert names == ["your sentence", "second sentence"]


def test_expansion_caption_follows_the_slider_and_the_sentence(app):
    at = _open(app, "notes", "I like cats")
    captions = " ".join(c.value for c in at.caption)
    assert "Step 2: the slider is at step 1" in captions and "step 5" not in captions
    move_step(at, "hid_step", 3).run()
    assert "Step 3, the step slider's step." in " ".join(c.value for c in at.caption)


def test_current_cell_variant_has_no_empty_fresh_clause(app):
    at = _open(app, "notes", "I like cats")
    text = " ".join(m.value for m in at.markdown)
    assert "Taken from the current model" in text and "Fresh (" not in text
    at.radio(key="hid_cell").set_value("jordan").run()
    assert "Fresh (fixed seed 0" in " ".join(m.value for m in at.markdown)


# ---- page 2 rework: language, what to look at, truth for every nonlinearity -----------------

def _cjk_share(text: str) -> float:
    """Share of letters that are CJK ideographs (symbols, numbers and formulas left out)."""
    import re
    text = re.sub(r"\$[^$]*\$|`[^`]*`|\(#[^)]*\)", "", text)  # formulas, code, anchors stay as they are
    letters = [c for c in text if c.isalpha()]
    return sum("\u4e00" <= c <= "\u9fff" for c in letters) / max(1, len(letters))


@pytest.mark.parametrize("model,text", [("default", "Arrive Taipei on November 2nd"), ("notes", "I like cats")])
def test_page_in_chinese(model, text):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)

    skip_checkpoints(at)
    at.session_state["model"], at.session_state["text"], at.session_state["lang"] = model, text, "zh"
    at.run()
    no_exception(at)
    prose_md = [m.value for m in at.markdown if len(m.value) > 80 and not m.value.startswith("|")]  # a number table is no prose
    assert prose_md and all(_cjk_share(m) > 0.5 for m in prose_md), [m[:60] for m in prose_md if _cjk_share(m) <= 0.5]
    assert at.title[0].value.startswith("2 · 隐藏状态")
    assert at.slider(key="hid_step").label == "时间步 t" and at.toggle(key="hid_show_a").label.startswith("显示")
    assert _fig(at, "每个时间步")["layout"]["xaxis"]["title"]["text"] == "时间步 t 与输入词"
    # the same numbers as in English
    _, tr = _trace(model, text)
    assert np.allclose(_fig(at, "每个时间步")["data"][0]["z"], tr.h.numpy().T, atol=1e-6)


def test_what_to_look_at_toc_and_h0():
    at = _open_notes_at_step(1)
    look = at.info[0].value
    model, tr = _trace("notes", "I like cats")
    assert "What to look at" in look and f"{float(tr.h[0].abs().max()):.4g}" in look
    md = " ".join(m.value for m in at.markdown)
    assert "](#hid-step)" in md and "](#hid-byhand)" in md
    assert "fixed zero vector, not a trained parameter" in " ".join(c.value for c in at.caption)


def _open_notes_at_step(step: int):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)

    skip_checkpoints(at)
    at.session_state["model"], at.session_state["text"] = "notes", "I like cats"
    at.session_state["hid_step"] = step
    return at.run()


def test_scalar_equal_orders_are_not_called_different(app):
    at = app(PAGE)
    at.number_input(key="hid_wh").set_value(1.0).run()
    no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    assert "8 and 8" in text and "**same** state" in text and "different states" not in text
    at.number_input(key="hid_wh").set_value(0.5).run()
    text = " ".join(m.value for m in at.markdown)
    assert "7 and 5" in text and "= 2." in text and "different states" in text


@pytest.mark.parametrize("phi", ["relu", "linear"])
def test_relu_and_linear_models_get_true_sentences(phi):
    """On a ReLU or linear model the page never speaks of tanh saturation or (-1, 1)."""
    from streamlit.testing.v1 import AppTest

    from rnnviz import RNNConfig, RNNModel
    from rnnviz.explain.formulas import dead_units
    from rnnviz.text.tokenize import Vocab

    model = RNNModel(RNNConfig(5, 3, 4, nonlinearity=phi), seed=2).eval()
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)
    skip_checkpoints(at)
    at.session_state["own_models"] = {"mine": (model, Vocab(NOTES_VOCAB), {})}
    at.session_state["model"], at.session_state["text"] = "own:mine", "I like cats"
    at.run()
    no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    assert "(-1, 1)" not in text.split("through tanh")[0] and "Saturation." not in text
    tr = trace(model, [0, 1, 2])
    if phi == "relu":
        dead = dead_units(tr.h)
        assert f"{dead['count']} of the {dead['total']} values" in text and "Units that are off" in text
        assert "[0, ∞)" in text
    else:
        assert "No saturation" in text and "all real numbers" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_values_near_one_keep_their_digits_and_the_peak_its_sign(lang):
    """The start model saturates tanh: page 2 said "every value in (-1, 1)" and then "the largest
    |h₂| is 1", and the look-here box gave the sentence's most extreme value as 1 where the heatmap's
    cell is -0.9999999. Each now reads as the trace has it: num_inside of the value, with its sign."""
    import re

    from streamlit.testing.v1 import AppTest

    from rnnviz.formatting import num_inside
    from rnnviz.text.tokenize import prepare

    text = "the cat sat on the mat"
    model, vocab, meta = load_builtin("subword")
    ids, targets = lm_pair(list(prepare(text, vocab, meta.get("level", "word")).ids), vocab)
    h = trace(model, ids, targets).h.double().numpy()  # (T, H)
    t, u = divmod(int(np.abs(h).argmax()), h.shape[1])
    assert 0.9999 < abs(h[t, u]) < 1  # the case: a saturated unit
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)
    skip_checkpoints(at)
    at.session_state["model"], at.session_state["text"], at.session_state["lang"] = "subword", text, lang
    at.session_state["hid_step"] = 2
    at.run()
    no_exception(at)
    neg = h.copy()
    neg[t, u] = -h[t, u]  # the sign is the trace's own: a pure function of h, checked on both
    from rnnviz.explain.home import hidden_peak
    assert hidden_peak(neg)["signed"] == -hidden_peak(h)["signed"] == -h[t, u]
    look = "\n".join(i.value for i in at.info)
    peak = num_inside(h[t, u])
    assert abs(float(peak)) < 1 and f" {peak}" in look, look  # the value as it is, not "1"
    step2 = np.abs(h[1]).max()
    prose = "\n".join(m.value for m in at.markdown)
    said = re.findall(r"\|h_2\|\$ is (\S+) \(unit" if lang == "en" else r"\|h_2\|\$ 的最大值是 ([^（\s]+)（", prose)
    assert said and said[0] == num_inside(step2) != "1", (said, step2)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_intro_says_why_there_is_one_step_more_than_tokens(lang):
    """The sidebar counts the sentence's tokens (8); page 2 steps through 9, the first <bos>: the
    intro says so, with both numbers, on a model with <bos>, and says nothing of it without one."""
    from streamlit.testing.v1 import AppTest

    for model, has_bos in (("subword", True), ("notes", False)):
        at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)
        skip_checkpoints(at)
        at.session_state["model"], at.session_state["text"], at.session_state["lang"] = model, "I like cats", lang
        at.run()
        no_exception(at)
        intro = at.markdown[0].value
        T = int(at.slider(key="hid_step").max)
        said = {"en": f"your {T - 1} tokens: {T - 1} tokens, {T} steps", "zh": f"所以 {T - 1} 个 token 共 {T} 步"}[lang]
        assert (said in intro and "`<bos>`" in intro) == has_bos, (model, intro)


def test_bounded_states_that_float32_rounds_to_one_say_so():
    """'States still stay in (-1, 1) (the largest |hₜ| is 1)': with Wₕ scaled by 3 the start model's
    float32 tanh returns exactly 1.0. The page says that float32 rounded it."""
    import re

    from streamlit.testing.v1 import AppTest

    from rnnviz.explain import bptt as chains
    from rnnviz.text.tokenize import prepare

    text = "the cat sat on the mat"
    model, vocab, meta = load_builtin("subword")
    ids, targets = lm_pair(list(prepare(text, vocab, meta.get("level", "word")).ids), vocab)
    m3 = chains.scaled_model(model, chains.SCALE_PRESETS["explode"])
    h = trace(m3, ids, targets).h
    largest = float(h.abs().max())
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)
    skip_checkpoints(at)
    for key in FOLDED:
        at.session_state[key] = True
    at.session_state["model"], at.session_state["text"] = "subword", text
    at.run()
    no_exception(at)
    said = next(m.value for m in at.markdown if m.value.startswith("**Bounded is not stable.**"))
    shown = re.search(r"the largest \$\|h_t\|\$ is (\S+?)(\)| in float32)", said)
    assert shown, said
    if largest >= 1:  # the case on this sentence: float32 saturates
        assert shown.group(2) == " in float32" and "rounds tanh of a large input to exactly 1" in said
    else:
        assert shown.group(1) != "1"
