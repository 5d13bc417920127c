"""formulas.py against the real step Jacobians and autograd; prose true for every
nonlinearity; notes_errata against autograd and the notes' own code."""
import re

import numpy as np
import pytest
import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine.jacobians import jacobian_norms, step_jacobians
from rnnviz.engine.trace import trace
from rnnviz.explain.formulas import (
    activation_name,
    dead_units,
    derivative_name,
    jacobian_formula,
    jacobian_from_formula,
    prose_values,
    repeat_example,
    step_formula,
    value_range,
)
from rnnviz.explain.notes.errata import (
    float32_floor,
    note002_eigen_claim,
    note002_recursion,
    note003_first_layer,
    note003_gradient_check,
    step_radii,
)
from rnnviz.store.catalog import default_model
from rnnviz.store.prose import sections
from rnnviz.text.tokenize import prepare

COMBOS = [("elman", nl, bi) for nl in ("tanh", "relu", "linear") for bi in (False, True)] + \
         [("jordan", nl, False) for nl in ("tanh", "relu", "linear")]


def model_for(cell, nl, bi, seed=1):
    m = RNNModel(RNNConfig(9, 3, 5, cell=cell, nonlinearity=nl, bidirectional=bi), seed=seed).double()
    with torch.no_grad():
        m.b_h.sub_(0.3)  # some ReLU units off
    return m


def autograd_step_jacobian(m, tr, t):
    """dh_t/dh_{t-1} by autograd of the model's own step, float64 (0-based t >= 1)."""
    H = m.cfg.hidden_size
    if m.cfg.cell == "elman":
        def f(h):
            a = tr.x[t] @ m.W_x.T + h @ m.W_h.T + m.b_h
            return {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda v: v}[m.cfg.nonlinearity](a)
    else:
        def f(h):
            y = torch.softmax(h @ m.W_o.T + m.b_o, -1)
            a = tr.x[t] @ m.W_x.T + y @ m.W_y.T + m.b_h
            return {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda v: v}[m.cfg.nonlinearity](a)
    return torch.autograd.functional.jacobian(f, tr.h[t - 1, :H])


@pytest.mark.parametrize("cell,nl,bi", COMBOS)
def test_formula_matrix_equals_step_jacobians_and_autograd(cell, nl, bi):
    m = model_for(cell, nl, bi)
    tr = trace(m, [1, 2, 3, 4, 5, 6])
    F = jacobian_from_formula(m, tr)
    torch.testing.assert_close(F, step_jacobians(m, tr), rtol=0, atol=1e-14)
    for t in range(1, tr.T):
        torch.testing.assert_close(F[t], autograd_step_jacobian(m, tr, t), rtol=0, atol=1e-14)


@pytest.mark.parametrize("cell,nl,bi", COMBOS)
def test_formula_text_names_this_model(cell, nl, bi):
    cfg = RNNConfig(9, 3, 5, cell=cell, nonlinearity=nl, bidirectional=bi)
    latex, step = jacobian_formula(cfg), step_formula(cfg)
    assert ("1 - h_t" in latex) == (nl == "tanh") and ("a_t > 0" in latex) == (nl == "relu")
    assert (r"\tanh" in step) == (nl == "tanh") and ("ReLU" in step) == (nl == "relu")
    assert ("W_y" in latex) == (cell == "jordan") and ("W_h" in step) == (cell == "elman")
    assert ("overleftarrow" in step) == bi


def test_value_range_and_derivative_are_what_the_model_does():
    """The stated range holds on a model with huge weights; the stated derivative is the slope."""
    for nl, inside in (("tanh", lambda h: bool((h.abs() < 1).all())),
                       ("relu", lambda h: bool((h >= 0).all()) and float(h.max()) > 1),
                       ("linear", lambda h: float(h.min()) < -1 and float(h.max()) > 1)):
        cfg = RNNConfig(9, 3, 5, nonlinearity=nl)
        m = RNNModel(cfg, seed=0).double()
        with torch.no_grad():
            m.W_x.mul_(5)
        h = trace(m, [1, 2, 3, 4, 5, 6, 7]).h
        assert inside(h), (nl, value_range(cfg))
    assert derivative_name(RNNConfig(9, 3, 5, nonlinearity="relu")) == "1[a_t > 0]"
    assert activation_name(RNNConfig(9, 3, 5, nonlinearity="linear")).startswith("the identity")


# ---- prose --------------------------------------------------------------------------------

FIELDS = re.compile(r"\{(\w+)[^}]*\}")


@pytest.mark.parametrize("nl", ["relu", "linear"])
def test_model_dependent_prose_has_no_tanh_claims_on_other_models(nl):
    vals = prose_values(RNNConfig(9, 3, 5, nonlinearity=nl))
    for page, key in (("home", "heatmap"), ("hidden", "intro"), ("hidden", "step"),
                      ("hidden", "heatmap"), ("bptt", "jacobian"), ("bptt", "distance")):
        text = sections(page)[key]
        filled = text.format(**{**{f: 0 for f in FIELDS.findall(text)}, **vals})
        assert "tanh" not in filled.replace("tanh slope", ""), (page, key, filled)
        assert "(-1, 1)" not in filled and "1 - h" not in filled


def test_prose_placeholders_from_formulas_are_all_provided():
    vals = prose_values(RNNConfig(9, 3, 5))
    model_keys = {"activation", "derivative", "value_range", "slope_range", "range_sentence",
                  "saturation_hint", "pre_text", "act_text", "jacobian", "spectral_tol"}
    # the prose writes J_t in LaTeX (jacobian); jacobian_text is the same formula for figures/tables
    assert model_keys | {"jacobian_text"} <= set(vals)
    used = set()
    for page in ("home", "hidden", "bptt", "embedding"):
        for text in sections(page).values():
            used |= set(FIELDS.findall(text))
    assert model_keys <= used  # every value is used somewhere, so none is dead


def test_repeat_example_repeats_a_word_from_the_sentence():
    assert repeat_example(["cats", "like"]) == "cats like cats"
    assert repeat_example(["I"]) == "I I"
    assert repeat_example([]) == ""


def test_dead_units_counts_exact_zeros():
    h = torch.tensor([[0.0, 1.5], [0.0, 0.0]])
    assert dead_units(h) == {"count": 3, "total": 4, "share": 0.75}


# ---- note 002 --------------------------------------------------------------------------------

@pytest.mark.parametrize("nl", ["tanh", "relu", "linear"])
def test_note002_recursion_literal_vs_correct(nl):
    m = RNNModel(RNNConfig(6, 3, 4, nonlinearity=nl), seed=0).double()
    with torch.no_grad():
        m.W_h.mul_(3)
    tr = trace(m, [1, 2, 3, 4, 5, 0, 1])
    r = note002_recursion(m, tr)
    assert r["off_correct"] < 1e-12  # the correct recursion is autograd
    assert r["off_literal"] > 0.1  # the row form's column transpose: W where W^T belongs
    assert r["off_recursion"] < 1e-12  # f'(h_t) read as phi'(a_t): the boxed formula is right


def test_note002_eigen_claim_on_the_default_model():
    m, vocab, _ = default_model()
    tr = trace(m, prepare("Arrive Taipei on November 2nd", vocab).ids)
    r = note002_eigen_claim(m, tr)
    W = m.W_h.detach().double()
    assert r["rho_w"] == pytest.approx(float(torch.linalg.eigvals(W).abs().max()), rel=1e-12)
    assert r["rho_w"] > 3  # "eigenvalue > 1": the notes would predict explosion
    N = jacobian_norms(m, tr, 2)
    J = step_jacobians(m, tr).double()
    for d in range(1, tr.T):  # by_distance against plain products
        exact = max(float(torch.linalg.matrix_norm(torch.linalg.multi_dot([J[t + k] for k in range(d, 0, -1)])
                                                   if d > 1 else J[t + 1], 2)) for t in range(tr.T - d))
        assert r["by_distance"][d - 1] == pytest.approx(exact, rel=1e-5)
    assert r["last"] < r["rho_power"] / 10 and r["peak"] == pytest.approx(float(N[~torch.eye(tr.T, dtype=bool)].nan_to_num(0).max()))
    assert 0.3 < r["saturated"] < 1 and r["rho_j"] < r["rho_w"]


# ---- note 003 --------------------------------------------------------------------------------

def test_note003_code_crashes_as_printed_and_runs_corrected():
    printed = note003_gradient_check(corrected=False)
    assert not printed["ok"] and "dtype" in printed["error"]
    fixed = note003_gradient_check(corrected=True)
    assert fixed["ok"] and fixed["gradcheck"] and fixed["error"] is None


def test_note003_first_layer_mean_falls_sum_grows_long_range_vanishes():
    rows = note003_first_layer()
    assert [r["T"] for r in rows] == [4, 8, 16, 32]
    assert rows[0]["mean"] == pytest.approx(0.372, abs=1e-3) and rows[-1]["mean"] == pytest.approx(0.080, abs=1e-3)
    assert rows[-1]["sum"] > rows[0]["sum"]  # under a sum the norm grows
    assert rows[0]["long_range"] == pytest.approx(1.5e-2, rel=0.05)
    assert rows[-1]["long_range"] < 1e-12  # 2e-13: the part that really vanishes
    for r in rows:  # sum = mean x (B T), checked against autograd of the summed loss
        from rnnviz.engine import gradcheck
        params, x, y = gradcheck.notes_setting()
        leaves = {k: v.clone().requires_grad_(True) for k, v in params.items()}
        _, z = gradcheck.forward(leaves, x[:, :r["T"]])
        total = torch.nn.functional.cross_entropy(z.reshape(-1, 3), y[:, :r["T"]].reshape(-1), reduction="sum")
        (g,) = torch.autograd.grad(total, leaves["W_x"])
        assert r["sum"] == pytest.approx(float(g.norm()), rel=1e-10)


def test_float32_floor_is_relative():
    f = float32_floor()
    assert f["one_plus_1e-8_is_one"] and f["small_err"] < f["eps"]
    assert f["subnormal"] == pytest.approx(1.401298464324817e-45) and f["tiny"] == pytest.approx(1.1754943508222875e-38)
    text = sections("bptt")["notes-floor"].format(**f)  # the section's placeholders are these keys
    assert "1e-30" in text


def test_step_radii_against_numpy_and_non_finite():

    J = torch.randn(5, 3, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    want = [max(abs(np.linalg.eigvals(J[t].numpy()))) for t in range(1, 5)]
    np.testing.assert_allclose(step_radii(J).numpy(), want, rtol=1e-12)
    J[2, 0, 0] = float("inf")
    r = step_radii(J)
    assert torch.isnan(r[1]) and bool(torch.isfinite(r[[0, 2, 3]]).all())
    assert step_radii(J[:1]).tolist() == [0.0]
