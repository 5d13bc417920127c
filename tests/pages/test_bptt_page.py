"""The BPTT page in AppTest: numbers on screen against rnnviz recomputed independently."""
import numpy as np
import torch

from rnnviz import chains, trace
from rnnviz.catalog import load_builtin
from rnnviz.data import lm_pair
from rnnviz.text import prepare
from tests.apptest_helpers import figures, no_exception
from tests.conftest import ROOT


def fig_by_title(at, start):
    return [f for f in figures(at) if (f["layout"].get("title") or {}).get("text", "").startswith(start)]


def page(app, text, model="notes"):
    """The page on its own (AppTest's switch_page drops app.py's sidebar state), with the
    model and sentence in session state: exactly the keys the sidebar sets."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages/bptt.py"), default_timeout=120)
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
    [hm] = fig_by_title(at, "log10 ||dh_s/dh_t|| (spectral")
    np.testing.assert_allclose(hm["data"][0]["z"], np.log10(reference_norms(text, 2)), rtol=1e-5, atol=1e-6)
    at.radio(key="bptt_ord").set_value("Frobenius ||.||_F")
    at.select_slider(key="bptt_scale").set_value(3.0).run()
    no_exception(at)
    [hm] = fig_by_title(at, "log10 ||dh_s/dh_t|| (Frobenius")
    np.testing.assert_allclose(hm["data"][0]["z"], np.log10(reference_norms(text, "fro", 3.0)), rtol=1e-5, atol=1e-6)
    [flow] = fig_by_title(at, "Gradient flow") or [None]  # only at scale 1
    assert flow is None


def test_shared_weight_sum_matches_autograd_and_presets(app):
    at = page(app, "I like cats")
    assert any("equals autograd's gradient up to" in m.value for m in at.markdown)
    assert any("h_2 gets nothing from L_1" in m.value for m in at.markdown)
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
    assert gc["pass"].all() and list(gc["parameter"]) == ["W_x", "W_h", "b_h", "W_o", "b_o"]
    at.radio(key="bptt_gc").set_value("The current model and sentence").run()
    gc = [d.value for d in at.dataframe if "rel. error numerical" in d.value.columns][0]
    assert gc["pass"].all() and "E" in set(gc["parameter"])
    at.select_slider(key="bptt_maxnorm").set_value(5.0).run()
    steps = [d.value for d in at.dataframe if "step size ||delta theta||" in d.value.columns][0]
    assert abs(steps["gradient norm used"].iloc[1] - 5.0) < 1e-4
    ex = chains.chain_exercise(0)
    at.number_input(key="bptt_answer").set_value(ex["answer"]).run()
    assert at.success and not at.error
    at.number_input(key="bptt_answer").set_value(ex["w"] ** ex["n"]).run()
    assert at.error
    no_exception(at)


def test_long_sentence_on_the_default_model(app):
    long = " ".join(["Arrive Taipei on November 2nd and leave Boston"] * 12)  # ~90 tokens
    at = page(app, long, model="default")
    [hm] = fig_by_title(at, "log10 ||dh_s/dh_t||")
    T = hm["data"][0]["z"].shape[0]
    assert T > 80
    assert np.isnan(hm["data"][0]["z"][0, 1:]).all()


def test_step_sliders_survive_a_shorter_sentence(app):
    at = page(app, "Arrive Taipei on November 2nd", model="default")
    at.slider(key="bptt_step").set_value(6)
    at.slider(key="bptt_cell_t").set_value(5).run()
    at.session_state["model"], at.session_state["text"] = "notes", "I like cats"
    at.run()
    no_exception(at)
    assert at.slider(key="bptt_step").value == 3 and at.slider(key="bptt_cell_t").value == 3


def paths_text(at):
    return next(m.value for m in at.markdown if "dL/dh_t is a sum over losses" in m.value)


def test_paths_count_only_later_steps_with_a_loss(app):
    at = page(app, "I like cats")  # notes model: step 3 has no target, so no L_3
    shown = paths_text(at)
    assert "no later step has a loss" in shown and "later loss(es)" not in shown
    [bar] = fig_by_title(at, "dL/dh_2")
    names = [d["name"] for d in bar["data"]]
    assert names == ["from L_2 (direct)", "total dL/dh_t"] and not any("L_3" in n for n in names)
    at.slider(key="bptt_step").set_value(1).run()  # step 1: L_2 exists and arrives through J_2
    shown = paths_text(at)
    assert "the 1 later loss(es) (L_2) add a part" in shown and "L_3" not in shown
    at.slider(key="bptt_step").set_value(3).run()  # step 3: no loss of its own either
    shown = paths_text(at)
    assert "step 3 has no target, so there is no loss L_3" in shown and "no later step has a loss" in shown
    [bar] = fig_by_title(at, "dL/dh_3")
    assert [d["name"] for d in bar["data"]] == ["total dL/dh_t"]


def test_one_word_sentences(app):
    at = page(app, "cats")  # notes: one step, no target at all
    shown = paths_text(at)
    assert "step 1 has no target" in shown and "no later step has a loss" in shown
    assert "0 later loss" not in shown and "h_2 gets nothing" not in shown
    at = page(app, "cats", model="default")  # <bos> cats: step 2 predicts <eos>
    shown = paths_text(at)
    assert "the direct part from the loss L_2" in shown and "no later step has a loss" in shown
    assert "0 later loss" not in shown
