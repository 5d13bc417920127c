"""The numbers the pages quote, computed in rnnviz (the ui does no maths), against oracles:
autograd in float64, torch.nn.functional, numpy's SVD, hand-counted arrays."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rnnviz import RNNConfig, RNNModel
from rnnviz.conventions import IGNORE, TAGS
from rnnviz.engine.jacobians import (
    delta_steps,
    jacobian_factors,
    loss_to_state_grads,
    shared_weight_summary,
    state_grad_sources,
)
from rnnviz.engine.model import activate
from rnnviz.engine.trace import trace
from rnnviz.explain import bptt as chains
from rnnviz.explain import hidden as hd
from rnnviz.explain import output as out
from rnnviz.explain import slots
from rnnviz.explain.notes import facts
from rnnviz.text.tokenize import Vocab


def _model(H=5, seed=7, nonlinearity="tanh"):
    return RNNModel(RNNConfig(9, 3, H, nonlinearity=nonlinearity), seed=seed).double()


IDS = [1, 4, 2, 7, 3, 5]
TARGETS = [4, 2, IGNORE, 3, 5, 8]


@pytest.fixture(scope="module")
def mt():
    m = _model()
    return m, trace(m, IDS, TARGETS)


def test_slope_range_is_the_extremes_of_tanh_prime(mt):
    m, tr = mt
    for t in range(tr.T):
        a = tr.a[t].clone().requires_grad_(True)
        (slope,) = torch.autograd.grad(torch.tanh(a).sum(), a)  # autograd: d tanh(a_i) / d a_i
        lo, hi = chains.slope_range(jacobian_factors(m, tr, t)["slope"])
        assert lo == pytest.approx(float(slope.min()), rel=1e-12) and hi == pytest.approx(float(slope.max()), rel=1e-12)


def test_map_counts_counts_zeros_and_infs_but_not_nan():
    N = torch.tensor([[1.0, math.nan, math.nan], [0.0, math.inf, math.nan], [0.0, 2.0, -math.inf]])
    assert chains.map_counts(N) == {"zeros": 2, "infs": 2}
    assert chains.map_counts(torch.ones(2, 2)) == {"zeros": 0, "infs": 0}


def _loss_grad_at(m, tr, t, s_list):
    """autograd: d(sum of L_s for s in s_list)/dh_t, re-running the recurrence from a leaf h_t."""
    h_t = tr.h[t].detach().clone().requires_grad_(True)
    h, total = h_t, 0.0
    for k in range(t, tr.T):
        if k > t:
            h = activate(m.W_x @ tr.x[k] + m.W_h @ h + m.b_h, "tanh")
        if k in s_list:
            z = m.W_o @ h + m.b_o
            total = total + F.cross_entropy(z[None], tr.targets[k:k + 1])
    (g,) = torch.autograd.grad(total, h_t)
    return g


def test_paths_norms_against_autograd(mt):
    m, tr = mt
    G = loss_to_state_grads(m, tr)
    for t in range(tr.T):
        n = chains.paths_norms(state_grad_sources(G, tr, t), tr.grad_h[t])
        valid = [s for s in range(t, tr.T) if TARGETS[s] != IGNORE]
        assert n["total"] == pytest.approx(float(_loss_grad_at(m, tr, t, valid).norm()), rel=1e-9)
        if TARGETS[t] == IGNORE:
            assert n["direct"] is None
        else:
            assert n["direct"] == pytest.approx(float(_loss_grad_at(m, tr, t, [t]).norm()), rel=1e-9)


def test_recursion_rows_against_autograd(mt):
    m, tr = mt
    rows = chains.recursion_rows(delta_steps(m, tr))
    assert [r["step"] for r in rows] == list(range(tr.T - 1, -1, -1))
    for r in rows:
        t = r["step"]
        slope = 1 - torch.tanh(tr.a[t]) ** 2
        assert r["delta"] == pytest.approx(float((slope * tr.grad_h[t]).norm()), rel=1e-9)  # dL/da_t
        assert r["slope"] == pytest.approx(float(slope.mean()), rel=1e-12)
        own = _loss_grad_at(m, tr, t, [t]).norm() if TARGETS[t] != IGNORE else torch.tensor(0.0)
        assert r["own"] == pytest.approx(float(own), rel=1e-9, abs=1e-15)
        later = tr.grad_h[t] - (_loss_grad_at(m, tr, t, [t]) if TARGETS[t] != IGNORE else 0)
        assert r["later"] == pytest.approx(float(later.norm()), rel=1e-9, abs=1e-15)


def test_shared_param_rows_against_autograd(mt):
    m, tr = mt
    rows = chains.shared_param_rows(shared_weight_summary(m, tr)["params"])
    assert [r["param"] for r in rows] == ["W_h", "W_x", "b_h", "W_o", "b_o"]
    m.zero_grad()
    z = m(torch.tensor(IDS))
    F.cross_entropy(z, torch.tensor(TARGETS), ignore_index=IGNORE, reduction="sum").backward()
    for r in rows:
        auto = float(getattr(m, r["param"]).grad.norm())
        assert r["auto_norm"] == pytest.approx(auto, rel=1e-9)
        assert r["sum_norm"] == pytest.approx(auto, rel=1e-9) and r["max_diff"] < 1e-12


def test_vector_chain_norms_against_autograd(mt):
    m, tr = mt
    v = facts.vector_chain(m, tr, 3, 0)  # L_4 (step 3 has a target) back to h_1
    h3 = tr.h[3].detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(F.cross_entropy((m.W_o @ h3 + m.b_o)[None], tr.targets[3:4]), h3)
    assert v["norms"]["grad_h_s"] == pytest.approx(float(g.norm()), rel=1e-9)
    assert v["norms"]["right"] == pytest.approx(float(_loss_grad_at(m, tr, 0, [3]).norm()), rel=1e-9)


def test_term_norms_by_hand(mt):
    m, tr = mt
    with torch.no_grad():
        for t in (0, 3):
            n = hd.term_norms(hd.step_terms(m, tr, t))
            h_prev = tr.h[t - 1] if t else torch.zeros(5, dtype=torch.float64)
            assert n["Wx_x"] == pytest.approx(float(np.linalg.norm(m.W_x.numpy() @ tr.x[t].numpy())), rel=1e-12)
            assert n["Wh_h"] == pytest.approx(float(np.linalg.norm(m.W_h.numpy() @ h_prev.numpy())), rel=1e-12)
            assert n["b"] == pytest.approx(float(np.linalg.norm(m.b_h.numpy())), rel=1e-12)


def test_pca_numbers_against_numpy_svd(mt):
    m, tr = mt
    tr2 = trace(m, IDS[::-1], TARGETS)
    _, share = hd.pca_2d([tr.h.numpy(), tr2.h.numpy()])
    n = hd.pca_numbers(share, tr.h, tr2.h)
    X = np.concatenate([tr.h.numpy(), tr2.h.numpy()])
    s = np.linalg.svd(X - X.mean(0), compute_uv=False)
    assert n["share"] == pytest.approx(float((s[:2] ** 2).sum() / (s ** 2).sum()), rel=1e-9)
    assert n["dist"] == pytest.approx(float(np.linalg.norm(tr.h[-1].numpy() - tr2.h[-1].numpy())), rel=1e-12)
    assert hd.pca_numbers(share, tr.h, tr.h)["dist"] == 0.0


def test_expansion_check_rebuilds_the_linear_state():
    lin = _model(nonlinearity="linear")
    tr = trace(lin, IDS, TARGETS)
    for k in (0, 2, 4):
        total, err = hd.expansion_check(hd.linear_expansion(lin, tr.x, k), tr.h[k])
        assert torch.allclose(total, tr.h[k].double(), atol=1e-12) and err < 1e-12
    total, err = hd.expansion_check([("a", torch.ones(3, dtype=torch.float64))], torch.zeros(3))
    assert err == 1.0


def test_output_step_numbers_against_cross_entropy(mt):
    m, tr = mt
    assert out.valid_count(tr) == sum(t != IGNORE for t in TARGETS) == 5
    v = out.step_view(tr, 1, [str(i) for i in range(9)])
    assert v.zmax == float(tr.z[1].max())
    z = tr.z[1].detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(F.cross_entropy(z[None], tr.targets[1:2]), z)
    y = F.one_hot(torch.tensor(TARGETS[1]), 9).double()
    assert v.autograd_diff == pytest.approx(float((torch.softmax(tr.z[1], -1) - y - g).abs().max()), abs=1e-15)
    assert v.autograd_diff < 1e-12


def test_gradient_step_numbers_against_a_hand_sgd_step(mt):
    m, tr = mt
    t, lr = 0, 0.5
    res = out.output_layer_step(m, tr, t, lr)
    g = out.gradient_step_numbers(res, tr.targets)
    assert g["loss_before"] == pytest.approx(float(F.cross_entropy(tr.z[t:t + 1], tr.targets[t:t + 1])), rel=1e-12)
    with torch.no_grad():
        e = torch.softmax(tr.z[t], -1) - F.one_hot(tr.targets[t], 9).double()   # dL_t/dz_t
        W, b = m.W_o - lr * torch.outer(e, tr.h[t]), m.b_o - lr * e
        z_after = tr.h @ W.T + b
    assert g["loss_after"] == pytest.approx(float(F.cross_entropy(z_after[t:t + 1], tr.targets[t:t + 1])), rel=1e-9)
    p_b, p_a = torch.softmax(tr.z, -1), torch.softmax(z_after, -1)
    moved = 0.5 * (p_a - p_b).abs().sum(-1)
    o = max((s for s in range(tr.T) if s != t), key=lambda s: float(moved[s]))
    assert g["other"] == o
    assert np.allclose(g["moved"], moved.numpy(), atol=1e-12)
    if TARGETS[o] == IGNORE:
        assert g["other_dp"] is None
    else:
        assert g["other_dp"] == pytest.approx(float(p_a[o, TARGETS[o]] - p_b[o, TARGETS[o]]), abs=1e-12)
    assert np.isnan(g["dp"][2]) and not np.isnan(g["dp"][0])  # step 3 has no target


def test_index_words_and_top_tags():
    vocab = Vocab(["a", "b", "c"])
    assert out.index_words(vocab, np.array([[0, 2], [1, 1]])).tolist() == [[vocab.itos[0], vocab.itos[2]],
                                                                            [vocab.itos[1], vocab.itos[1]]]
    p = np.full((3, len(TAGS)), 0.1)
    p[0, 2], p[1, 0], p[2, len(TAGS) - 1] = 0.9, 0.5, 0.7
    assert slots.top_tags(p) == [TAGS[2], TAGS[0], TAGS[-1]]

