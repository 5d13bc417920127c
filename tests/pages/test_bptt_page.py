"""The BPTT page in AppTest: numbers on screen against rnnviz recomputed independently."""
import numpy as np
import torch

from rnnviz.engine.trace import trace
from rnnviz.explain import bptt as chains
from rnnviz.formatting import num
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import figures, move_step, no_exception, skip_checkpoints
from tests.conftest import ROOT


def fig_by_title(at, start):
    return [f for f in figures(at) if (f["layout"].get("title") or {}).get("text", "").startswith(start)]


FOLDED = ("bptt_recursion", "bptt_shared", "bptt_notation", "bptt_vector", "bptt_cost", "bptt_flow",
          "bptt_precision", "bptt_sweep_open", "bptt_errata")


def page(app, text, model="notes"):
    """The page on its own (AppTest's switch_page drops app.py's sidebar state), with the
    model and sentence in session state: exactly the keys the sidebar sets."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages/bptt.py"), default_timeout=120)

    skip_checkpoints(at)
    for key in FOLDED:  # the page's folded sections, opened (issue 24)
        at.session_state[key] = True
    at.session_state["model"] = model
    at.session_state["text"] = text
    at.run()
    no_exception(at)
    return at


def reference_norms(text, ord_, scale=1.0):
    model, vocab, meta = load_builtin("notes")
    model = model.double()
    with torch.no_grad():
        model.W_h.mul_(scale)
    ids, targets = lm_pair(list(prepare(text, vocab, meta.get("level", "word")).ids), vocab)
    tr = trace(model, ids, targets)
    T, H = tr.T, 4
    N = np.full((T, T), np.nan)
    for s in range(T):  # independent: explicit products of diag(1 - h^2) W_h
        P = torch.eye(H, dtype=torch.float64)
        for t in range(s, -1, -1):
            N[s, t] = torch.linalg.matrix_norm(P, ord=ord_)
            P = P @ (torch.diag(1 - tr.h[t] ** 2) @ model.W_h.detach())
    return N


def test_heatmap_is_the_all_pairs_norm_and_scale_reruns(app):
    text = "I like cats you like dogs"
    at = page(app, text)
    [hm] = fig_by_title(at, "log10 ‖∂hₛ/∂hₜ‖ (spectral")
    np.testing.assert_allclose(hm["data"][0]["z"], np.log10(reference_norms(text, 2)), rtol=1e-5, atol=1e-6)
    at.radio(key="bptt_ord").set_value("fro")
    at.select_slider(key="bptt_scale").set_value(3.0).run()
    no_exception(at)
    [hm] = fig_by_title(at, "log10 ‖∂hₛ/∂hₜ‖ (Frobenius")
    np.testing.assert_allclose(hm["data"][0]["z"], np.log10(reference_norms(text, "fro", 3.0)), rtol=1e-5, atol=1e-6)
    [flow] = fig_by_title(at, "Gradient flow") or [None]  # only at scale 1
    assert flow is None


def test_shared_weight_sum_matches_autograd_and_presets(app):
    at = page(app, "I like cats")
    assert any("equals autograd's gradient up to" in m.value for m in at.markdown)
    assert any("$h_2$ gets nothing from $L_1$" in m.value for m in at.markdown)
    for key, value in (("w = 0.5, 3 steps", "0.125"), ("w = 2, 10 steps", "1024"), ("w = 0.2, 5 steps", "0.00032")):
        at.selectbox(key="bptt_chain").set_value(key).run()
        assert any(f"= {value}." in m.value for m in at.markdown), key
    assert any("1.19e-09" in m.value and "1.18e+08" in m.value for m in at.markdown)


def test_precision_gradcheck_clipping_and_exercise(app):
    at = page(app, "I like cats")
    at.select_slider(key="bptt_pw").set_value(2.0).run()
    assert any("at k = 128" in m.value for m in at.markdown)  # 2^128 overflows float32
    nan_table = [d.value for d in at.dataframe if "w^n - w^n" in d.value.columns][0]
    assert nan_table["w^n - w^n"].tolist() == ["NaN", "0"]
    gc = [d.value for d in at.dataframe if "rel. error numerical" in d.value.columns][0]
    assert gc["pass"].all() and list(gc["parameter"]) == ["Wₓ", "Wₕ", "bₕ", "Wₒ", "bₒ"]
    at.radio(key="bptt_gc").set_value("model").run()
    gc = [d.value for d in at.dataframe if "rel. error numerical" in d.value.columns][0]
    assert gc["pass"].all() and "E" in set(gc["parameter"])
    at.select_slider(key="bptt_maxnorm").set_value(5.0).run()
    steps = [d.value for d in at.dataframe if "step size ‖Δθ‖" in d.value.columns][0]
    assert abs(steps["gradient norm used"].iloc[1] - 5.0) < 1e-4
    assert list(steps["update"]) == ["no clipping", "clipped to 5"]
    ex = chains.chain_exercise(0)  # exercise 1
    at.number_input(key="bptt_answer").set_value(ex["answer"])
    at.button(key="bptt_ex_check").click().run()
    assert at.success and not at.error
    at.number_input(key="bptt_answer").set_value(ex["w"] ** ex["n"])
    at.button(key="bptt_ex_check").click().run()
    assert at.error and "w^n alone" in at.error[0].value.replace("\\", "")  # shown markdown-escaped
    no_exception(at)


def test_long_sentence_on_the_default_model(app):
    long = " ".join(["Arrive Taipei on November 2nd and leave Boston"] * 12)  # ~90 tokens
    at = page(app, long, model="default")
    [hm] = fig_by_title(at, "log10 ‖∂hₛ/∂hₜ‖")
    T = hm["data"][0]["z"].shape[0]
    assert T > 80
    assert np.isnan(hm["data"][0]["z"][0, 1:]).all()


def test_step_sliders_survive_a_shorter_sentence(app):
    at = page(app, "Arrive Taipei on November 2nd", model="default")
    move_step(at, "bptt_step", 6)
    at.number_input(key="bptt_cell_t").set_value(5).run()
    at.session_state["model"], at.session_state["text"] = "notes", "I like cats"
    at.run()
    no_exception(at)
    assert at.slider(key="bptt_step").value == 3 and at.number_input(key="bptt_cell_t").value == 3


def paths_text(at):
    return next(m.value for m in at.markdown if r"$\partial L/\partial h_t$ is a sum over losses" in m.value)


def test_paths_count_only_later_steps_with_a_loss(app):
    at = page(app, "I like cats")  # notes model: step 3 has no target, so no L_3
    move_step(at, "bptt_step", 2).run()
    shown = paths_text(at)
    assert "no later step has a loss" in shown and "later loss" not in shown
    [bar] = fig_by_title(at, "∂L/∂h₂")
    names = [d["name"] for d in bar["data"]]
    assert names == ["from L₂ (direct)", "total ∂L/∂hₜ"] and not any("L₃" in n for n in names)
    move_step(at, "bptt_step", 1).run()  # step 1: L_2 exists and arrives through J_2
    shown = paths_text(at)
    assert "the 1 later loss ($L_{2}$) adds a part" in shown and "L_{3}" not in shown
    move_step(at, "bptt_step", 3).run()  # step 3: no loss of its own either
    shown = paths_text(at)
    assert "step 3 has no target, so there is no loss $L_{3}$" in shown and "no later step has a loss" in shown
    [bar] = fig_by_title(at, "∂L/∂h₃")
    assert [d["name"] for d in bar["data"]] == ["total ∂L/∂hₜ"]


def test_one_word_sentences(app):
    at = page(app, "cats")  # notes: one step, no target at all
    shown = paths_text(at)
    assert "step 1 has no target" in shown and "no later step has a loss" in shown
    assert "0 later loss" not in shown and "$h_2$ gets nothing" not in shown
    at = page(app, "cats", model="default")  # <bos> cats: step 2 predicts <eos>
    shown = paths_text(at)
    assert "the direct part from the loss $L_{2}$" in shown and "no later step has a loss" in shown
    assert "0 later loss" not in shown


def test_scale_presets_and_live_verdict_match_the_product(app):
    """The vanish / explode presets set the W_h scale; the verdict beside it is the largest
    ||dh_T/dh_1||_2 of the scaled model, computed independently here."""
    text = "I like cats you like dogs"
    at = page(app, text)
    for name, scale in chains.SCALE_PRESETS.items():
        at.button(key=f"bptt_preset_{name}").click().run()
        no_exception(at)
        assert at.select_slider(key="bptt_scale").value == scale
        N = reference_norms(text, 2, scale)
        factor = N[-1, 0]
        [label] = [c.value for c in at.caption if "Wₕ ×" in c.value]
        assert label.endswith(f"×{scale:g}")
        from rnnviz.formatting import num
        verdict = f"×{num(factor)} over {N.shape[0] - 1} steps**"
        assert any(m.value.startswith("**") and m.value.endswith(verdict) for m in at.markdown), verdict
        # the top "What to look at" box reads the same current scale and factor (issue 26)
        assert any(f"With $W_h$ ×{scale:g}" in m.value and f"×{num(factor)} over" in m.value
                   for m in at.markdown), scale


def test_what_to_look_at_toc_and_errata(app):
    at = page(app, "I like cats you like dogs")
    md = [m.value for m in at.markdown]
    assert any("What to look at" in m for m in md) and any("(#bptt-paths)" in m for m in md)
    from rnnviz.explain.notes import errata
    model, vocab, meta = load_builtin("notes")
    ids, targets = lm_pair(list(prepare("I like cats you like dogs", vocab, "word").ids), vocab)
    tr = trace(model, ids, targets)
    rec = errata.note002_recursion(model, tr)
    from rnnviz.formatting import num
    assert any("What note 002 writes" in m and num(rec["off_literal"]) in m for m in md)
    claim = errata.note002_eigen_claim(model, tr)
    assert not claim["above_one"]  # rho(W_h) = 0.5489: the shrinking branch, with ||W_h^n|| beside rho^n
    assert any("Eigenvalues below 1 vanish" in m and num(claim["rho_w"]) in m and num(claim["norm_power"]) in m
               for m in md)
    assert not any("Eigenvalues above 1 explode" in m for m in md)
    assert any("does not run" in m and "dtype" in m for m in md)
    assert any("$O(T H^2)$" in m for m in md)


def test_long_sentence_groups_the_legend(app):
    long = " ".join(["Arrive Taipei on November 2nd and leave Boston"] * 8)
    at = page(app, long, model="default")
    [bar] = fig_by_title(at, "∂L/∂h₂")
    shown = [d for d in bar["data"] if d.get("showlegend", True)]
    assert len(shown) <= 4 and any("later losses" in d["name"] for d in shown)


def _own(cell, bidi):
    from rnnviz import RNNConfig, RNNModel
    from rnnviz.store.catalog import NOTES_VOCAB
    from rnnviz.text.tokenize import Vocab
    return RNNModel(RNNConfig(5, 3, 4, cell=cell, bidirectional=bidi), seed=3).eval(), Vocab(NOTES_VOCAB)


def test_bidirectional_heatmap_offers_both_directions():
    from streamlit.testing.v1 import AppTest

    from rnnviz.engine.jacobians import backward_jacobian_norms
    model, vocab = _own("elman", True)
    at = AppTest.from_file(str(ROOT / "pages/bptt.py"), default_timeout=120)
    skip_checkpoints(at)
    at.session_state["own_models"] = {"mine": (model, vocab, {})}
    at.session_state["model"], at.session_state["text"] = "own:mine", "I like cats you"
    at.run()
    no_exception(at)
    assert any("forward" in m.value and "bidirectional" in m.value for m in at.markdown)
    at.radio(key="bptt_dir").set_value("bwd").run()
    no_exception(at)
    assert any("backward (right to left)" in m.value for m in at.markdown)
    tr = trace(model, [0, 1, 2, 4])
    [hm] = fig_by_title(at, "log10 ‖∂hₛ/∂hₜ‖")
    np.testing.assert_allclose(hm["data"][0]["z"], np.log10(backward_jacobian_norms(model, tr, 2).numpy()),
                               rtol=1e-5, atol=1e-6)


def test_jordan_model_says_what_is_not_shown():
    from streamlit.testing.v1 import AppTest
    model, vocab = _own("jordan", False)
    at = AppTest.from_file(str(ROOT / "pages/bptt.py"), default_timeout=120)
    skip_checkpoints(at)
    at.session_state["own_models"] = {"mine": (model, vocab, {})}
    at.session_state["model"], at.session_state["text"] = "own:mine", "I like cats"
    at.run()
    no_exception(at)
    assert any("jordan RNN" in i.value for i in at.info)


def test_chinese_page_is_mostly_chinese(app):
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "pages/bptt.py"), default_timeout=120)
    skip_checkpoints(at)
    at.session_state["model"], at.session_state["text"], at.session_state["lang"] = "notes", "I like cats", "zh"
    at.run()
    no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    han = sum("\u4e00" <= ch <= "\u9fff" for ch in text)
    latin = sum(ch.isascii() and ch.isalpha() for ch in text)
    assert han > latin, (han, latin)
    steps = [d.value for d in at.dataframe if "步长 ‖Δθ‖" in d.value.columns][0]
    assert list(steps.iloc[:, 0]) == ["不裁剪", "裁剪到 1"]  # the clipping table's rows, in Chinese


def test_links_made_before_the_option_codes_still_open(app):
    """Old links carry the English option labels: they still pick the same options. (The fixture
    opens the link on the home page before switching, so the home page's "unused parameter"
    notice is not this page's: it is not checked here.)"""
    at = app("pages/bptt.py", query={"bptt_ord": "Frobenius ||.||_F", "bptt_gc": "The current model and sentence",
                                     "bptt_chain": "w = 2, 10 steps"})
    no_exception(at)
    assert at.radio(key="bptt_ord").value == "fro"  # a link made before codes: its label read
    assert at.radio(key="bptt_gc").value == "model"
    assert any("(Frobenius)" in (f["layout"].get("title") or {}).get("text", "") for f in figures(at))
    assert at.selectbox(key="bptt_chain").value == "w = 2, 10 steps"


def test_fits_a_phone_titles_legends_and_digits(app):
    """Issue 18 on a 390 px screen: every chart title fits on one line (<= 48 characters), legends
    sit below the plot (a side legend squeezed the plot), numbers in the prose have at most 4
    significant digits (the clipping cosine was 1.000000000000) and one e-notation style."""
    import re

    at = page(app, "I like cats you like dogs")
    for f in figures(at):
        title = (f["layout"].get("title") or {}).get("text", "")
        assert 0 < len(title) <= 48, title
        if any(d.get("showlegend", True) and d.get("name") for d in f["data"]) and f["layout"].get("showlegend", True):
            assert (f["layout"].get("legend") or {}).get("orientation") == "h", title
    md = " ".join(m.value for m in at.markdown)
    assert "the cosine between before and after is 1 (direction unchanged)" in " ".join(md.split())
    decimals = re.findall(r"(?<![\w.])\d+\.\d+", md)
    assert all(len(d.replace(".", "").lstrip("0")) <= 4 for d in decimals), decimals  # no 1.000000000000
    assert not re.findall(r"\de-[1-9]\b", md)  # 1e-07, not 1e-7


# ---- issue 17: an own model over the all-pairs budget is shown on a window of its last steps ----

def _own_over_budget(monkeypatch, cell, H, steps=20, bidirectional=False):
    """An own model of the default vocabulary, a 60-word sentence, and MAX_JACOBIAN_WORK
    patched down so that only the last `steps` steps fit."""
    from streamlit.testing.v1 import AppTest

    from rnnviz import limits
    from rnnviz.engine import jacwindow
    from rnnviz.engine.model import RNNConfig, RNNModel
    from rnnviz.serve.links import OWN_PREFIX

    _, vocab, _ = load_builtin("default")
    model = RNNModel(RNNConfig(len(vocab), 8, H, cell=cell, bidirectional=bidirectional), seed=0)
    S = jacwindow.state_size(model.cfg)
    monkeypatch.setattr(limits, "MAX_JACOBIAN_WORK", jacwindow.work(steps, S))
    words = [w for w in vocab.itos if w.isalpha()][:12]
    text = " ".join(words[i % len(words)] for i in range(60))
    at = AppTest.from_file(str(ROOT / "pages/bptt.py"), default_timeout=120)
    skip_checkpoints(at)
    at.session_state["own_models"] = {"big": (model, vocab, {"level": "word"})}
    at.session_state["model"] = OWN_PREFIX + "big"
    at.session_state["text"] = text
    at.run()
    no_exception(at)
    ids, targets = lm_pair(list(prepare(text, vocab, "word").ids), vocab)
    return at, model, trace(model, ids, targets), S


def test_over_budget_heatmap_is_the_window_of_true_steps(monkeypatch):
    at, model, tr, S = _own_over_budget(monkeypatch, "elman", 12)
    T = tr.T
    first = T - 20 + 1
    assert T > 60
    infos = [i.value for i in at.info]
    assert any(f"has {T} tokens and the model's state has {S} numbers" in v and f"steps {first}–{T} " in v
               and "(the last 20 steps)" in v for v in infos), infos
    [hm] = fig_by_title(at, "log10 ‖∂hₛ/∂hₜ‖ (spectral")
    from rnnviz.engine.jacobians import jacobian_norms
    want = jacobian_norms(model, tr, 2, start=T - 20).numpy()  # == the full matrix's block (core test)
    np.testing.assert_allclose(hm["data"][0]["z"], np.log10(want), rtol=1e-5, atol=1e-6)
    ys = list(hm["data"][0]["y"])
    assert len(ys) == 20 and ys[0].startswith(f"{first} ") and ys[-1].startswith(f"{T} ")
    assert list(hm["data"][0]["x"]) == ys
    # the verdict next to the slider is over the window's longest distance, and says so
    assert any(f"over {20 - 1} steps" in m.value for m in at.markdown)
    assert any(f"steps {first}–{T} only (the last 20 of {T}): here \"the first step\" is step {first}" in c.value
               for c in at.caption)
    # the chain stays exact for a cell before the window, and says it lies outside
    at.number_input(key="bptt_cell_t").set_value(1).run()
    no_exception(at)
    assert any("outside the heatmap's window" in c.value for c in at.caption)
    # the scaled-W_h recomputation uses the same window
    at.select_slider(key="bptt_scale").set_value(3.0).run()
    no_exception(at)
    [hm] = fig_by_title(at, "log10 ‖∂hₛ/∂hₜ‖ (spectral")
    assert len(hm["data"][0]["z"]) == 20


def test_over_budget_lstm_and_chinese_say_so(monkeypatch):
    at, model, tr, S = _own_over_budget(monkeypatch, "lstm", 6, steps=12)
    assert S == 12
    assert any(f"steps {tr.T - 11}–{tr.T}" in i.value for i in at.info)
    [hm] = fig_by_title(at, "log10 ‖∂hₛ/∂hₜ‖ (spectral")
    assert np.asarray(hm["data"][0]["z"]).shape == (12, 12)
    at.session_state["lang"] = "zh"
    at.run()
    no_exception(at)
    assert any(f"第 {tr.T - 11}–{tr.T} 步" in i.value and "最后 12 步" in i.value for i in at.info)


def test_over_budget_bidirectional_backward_map_is_windowed(monkeypatch):
    at, model, tr, S = _own_over_budget(monkeypatch, "elman", 6, steps=15, bidirectional=True)
    at.radio(key="bptt_dir").set_value(at.radio(key="bptt_dir").options[1]).run()
    no_exception(at)
    [hm] = fig_by_title(at, "log10 ‖∂hₛ/∂hₜ‖")
    from rnnviz.engine.jacobians import backward_jacobian_norms
    want = backward_jacobian_norms(model, tr, 2, start=tr.T - 15).numpy()
    np.testing.assert_allclose(hm["data"][0]["z"], np.log10(want), rtol=1e-5, atol=1e-6)
    assert list(hm["data"][0]["y"])[0].startswith(f"{tr.T - 14} ")


def by_panels(at, titles):
    return [f for f in figures(at) if [a.get("text") for a in f["layout"].get("annotations") or []] == titles]


def test_step_jacobian_row_is_autograd_and_the_weights_chart_stays(app):
    """J_t's row of two charts (issue 24: W_h in a chart of its own, sent once): W_h, then the
    slopes and J_t, against autograd's dh_t/dh_{t-1} in float64; a step move changes the second
    chart, never W_h's (its figure is the same, so the browser keeps its copy)."""
    at = page(app, "I like cats you", model="default")
    model, vocab, meta = load_builtin("default")
    ids, _ = lm_pair(list(prepare("I like cats you", vocab, meta.get("level", "word")).ids), vocab)
    W = model.W_h.detach().double()
    x = model.E.detach().double()[torch.tensor(ids)]  # (T, d)
    W_x, b = model.W_x.detach().double(), model.b_h.detach().double()
    before = None
    for step in (2, 3):
        move_step(at, "bptt_step", step).run()
        no_exception(at)
        [weights] = fig_by_title(at, "Wₕ")
        [jac] = by_panels(at, [f"1 - h{'₂₃'[step - 2]}²", f"J{'₂₃'[step - 2]} (own scale)"])
        h = torch.zeros(W.shape[0], dtype=torch.float64)
        for t in range(step - 1):  # h_{step-1}, by hand
            h = torch.tanh(W_x @ x[t] + W @ h + b)
        prev = h.clone().requires_grad_(True)
        x_t = x[step - 1]
        J = torch.autograd.functional.jacobian(lambda p, x_t=x_t: torch.tanh(W_x @ x_t + W @ p + b), prev)
        h_t = torch.tanh(W_x @ x_t + W @ h + b)
        np.testing.assert_allclose(jac["data"][0]["x"], (1 - h_t ** 2).numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(jac["data"][1]["z"], J.numpy(), rtol=1e-5, atol=1e-6)  # float32 on the wire
        np.testing.assert_allclose(weights["data"][0]["z"], W.numpy(), rtol=1e-6, atol=1e-7)
        if before is not None:  # the same figure at the next step
            assert weights["layout"] == before["layout"]
            np.testing.assert_array_equal(weights["data"][0]["z"], before["data"][0]["z"])
        before = weights


def test_double_count_quotes_the_sum_above(app):
    """'Don't double-count' compares its wrong sum with the sum above: the number it quotes for that
    sum is the one the paragraph above and the table's W_h row give (the start model, float32, where
    two ways of summing round differently: it quoted another parameter's figure), in both languages."""
    import re

    for lang, up_to, against in (("en", r"autograd's gradient up to (\S+)\s+\(", r"against (\S+) for the\s+sum above"),
                                 ("zh", r"autograd 的梯度相差不超过 ([^（]+)（", r"上面的求和只差 ([^。]+)。")):
        at = page(app, "the cat sat on the mat", model="subword")
        if lang == "zh":
            at.session_state["lang"] = "zh"
            at.run()
            no_exception(at)
        text = "\n".join(m.value for m in at.markdown)
        [above] = re.findall(up_to, text)
        [quoted] = re.findall(against, text)
        assert quoted == above, (lang, above, quoted)
        shared = next(d.value for d in at.dataframe if d.value.shape == (5, 5) and "δₜ xₜᵀ" in d.value.astype(str).values)
        w_h = shared.iloc[0]
        assert w_h.iloc[0] == "Wₕ" and num(float(w_h.iloc[-1])) == above, (lang, w_h.tolist(), above)
        assert shared.iloc[:, 0].tolist() == ["Wₕ", "Wₓ", "bₕ", "Wₒ", "bₒ"]  # as the prose writes them
