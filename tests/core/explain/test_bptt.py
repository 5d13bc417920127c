"""chains.growth_verdict: the factor over the longest distance, against explicit products."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rnnviz.conventions import IGNORE
from rnnviz.engine.jacobians import (
    delta_steps,
    jacobian_factors,
    jacobian_norms,
    loss_to_state_grads,
    shared_weight_summary,
    state_grad_sources,
)
from rnnviz.engine.trace import trace
from rnnviz.explain import bptt as chains
from rnnviz.explain.bptt import precision_chain
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.oracles import NUM_IDS, NUM_TARGETS, loss_grad_at


def _setup(scale):
    model, vocab, meta = load_builtin("notes")
    model = chains.scaled_model(model.double(), scale)
    ids, targets = lm_pair(list(prepare("I like cats you like dogs", vocab, "word").ids), vocab)
    return model, trace(model, ids, targets)


def test_factor_is_the_product_over_the_whole_sentence():
    for scale in (0.5, 1.0, 3.0):
        model, tr = _setup(scale)
        P = torch.eye(4, dtype=torch.float64)
        for t in range(tr.T - 1, 0, -1):  # dh_T/dh_1 = J_T ... J_2 (explicit, independent)
            P = P @ (torch.diag(1 - tr.h[t] ** 2) @ model.W_h.detach())
        expected = float(torch.linalg.matrix_norm(P, ord=2))
        v = chains.growth_verdict(jacobian_norms(model, tr, 2))
        assert v["n"] == tr.T - 1
        assert math.isclose(v["factor"], expected, rel_tol=1e-5)


def test_kinds_and_one_step():
    N = torch.tensor([[1.0, float("nan")], [50.0, 1.0]])
    assert chains.growth_verdict(N)["kind"] == "grows"
    assert chains.growth_verdict(N * 0 + torch.tensor([[1.0, 0], [0.001, 1]]))["kind"] == "shrinks"
    assert chains.growth_verdict(torch.tensor([[1.0, 0], [2.0, 1]]))["kind"] == "grows"  # x2 is growth
    assert chains.growth_verdict(torch.tensor([[1.0, 0], [1.1, 1]]))["kind"] == "neutral"
    one = chains.growth_verdict(torch.ones(1, 1))
    assert one == {"n": 0, "factor": 1.0, "kind": "neutral"}










def test_slope_range_is_the_extremes_of_tanh_prime(num_mt):
    m, tr = num_mt
    for t in range(tr.T):
        a = tr.a[t].clone().requires_grad_(True)
        (slope,) = torch.autograd.grad(torch.tanh(a).sum(), a)  # autograd: d tanh(a_i) / d a_i
        lo, hi = chains.slope_range(jacobian_factors(m, tr, t)["slope"])
        assert lo == pytest.approx(float(slope.min()), rel=1e-12) and hi == pytest.approx(float(slope.max()), rel=1e-12)


def test_map_counts_counts_zeros_and_infs_but_not_nan():
    N = torch.tensor([[1.0, math.nan, math.nan], [0.0, math.inf, math.nan], [0.0, 2.0, -math.inf]])
    assert chains.map_counts(N) == {"zeros": 2, "infs": 2}
    assert chains.map_counts(torch.ones(2, 2)) == {"zeros": 0, "infs": 0}




def test_paths_norms_against_autograd(num_mt):
    m, tr = num_mt
    G = loss_to_state_grads(m, tr)
    for t in range(tr.T):
        n = chains.paths_norms(state_grad_sources(G, tr, t), tr.grad_h[t])
        valid = [s for s in range(t, tr.T) if NUM_TARGETS[s] != IGNORE]
        assert n["total"] == pytest.approx(float(loss_grad_at(m, tr, t, valid).norm()), rel=1e-9)
        if NUM_TARGETS[t] == IGNORE:
            assert n["direct"] is None
        else:
            assert n["direct"] == pytest.approx(float(loss_grad_at(m, tr, t, [t]).norm()), rel=1e-9)


def test_recursion_rows_against_autograd(num_mt):
    m, tr = num_mt
    rows = chains.recursion_rows(delta_steps(m, tr))
    assert [r["step"] for r in rows] == list(range(tr.T - 1, -1, -1))
    for r in rows:
        t = r["step"]
        slope = 1 - torch.tanh(tr.a[t]) ** 2
        assert r["delta"] == pytest.approx(float((slope * tr.grad_h[t]).norm()), rel=1e-9)  # dL/da_t
        assert r["slope"] == pytest.approx(float(slope.mean()), rel=1e-12)
        own = loss_grad_at(m, tr, t, [t]).norm() if NUM_TARGETS[t] != IGNORE else torch.tensor(0.0)
        assert r["own"] == pytest.approx(float(own), rel=1e-9, abs=1e-15)
        later = tr.grad_h[t] - (loss_grad_at(m, tr, t, [t]) if NUM_TARGETS[t] != IGNORE else 0)
        assert r["later"] == pytest.approx(float(later.norm()), rel=1e-9, abs=1e-15)


def test_shared_param_rows_against_autograd(num_mt):
    m, tr = num_mt
    rows = chains.shared_param_rows(shared_weight_summary(m, tr)["params"])
    assert [r["param"] for r in rows] == ["W_h", "W_x", "b_h", "W_o", "b_o"]
    m.zero_grad()
    z = m(torch.tensor(NUM_IDS))
    F.cross_entropy(z, torch.tensor(NUM_TARGETS), ignore_index=IGNORE, reduction="sum").backward()
    for r in rows:
        auto = float(getattr(m, r["param"]).grad.norm())
        assert r["auto_norm"] == pytest.approx(auto, rel=1e-9)
        assert r["sum_norm"] == pytest.approx(auto, rel=1e-9) and r["max_diff"] < 1e-12


def float32_oracle(w, n):
    """Step-by-step float32 products with torch scalars (a different library from the code's)."""
    p, out = torch.tensor(1.0, dtype=torch.float32), [1.0]
    wt = torch.tensor(w, dtype=torch.float32)
    for _ in range(n):
        p = p * wt
        out.append(float(p))
    return np.array(out)


def test_precision_chain_float32_is_real_float32_arithmetic():
    r = precision_chain(0.9, 1000)
    assert r["zero"] is None  # cumprod in double said 0 at k = 987
    np.testing.assert_array_equal(r["float32"], float32_oracle(0.9, 1000))
    smallest = float(torch.finfo(torch.float32).tiny) * float(torch.finfo(torch.float32).eps)
    assert r["float32"][-1] > 0 and r["float32"][-1] == 4 * smallest  # 0.9 x 4 ulps rounds back to 4


@pytest.mark.parametrize("w", [0.6, 0.75, -0.95])
def test_float32_chain_never_reaches_zero_for_w_between_half_and_one(w):
    r = precision_chain(w, 2000)
    assert r["zero"] is None and r["subnormal"] is not None
    np.testing.assert_array_equal(r["float32"], float32_oracle(w, 2000))


def test_float32_chain_below_half_does_reach_zero_and_overflow_gives_inf():
    assert precision_chain(0.4, 200)["zero"] is not None
    r = precision_chain(3.0, 200)
    assert r["inf"] == int(np.argmax(np.isinf(float32_oracle(3.0, 200))))
