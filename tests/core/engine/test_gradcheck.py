"""Gradient checking and clipping against finite differences, autograd and clip_grad_norm_."""
import math

import pytest
import torch
import torch.nn as nn

from rnnviz import InputError, RNNConfig, RNNModel
from rnnviz.engine import gradcheck as gc
from rnnviz.engine.trace import next_token_targets


def test_notes_setting_shapes_and_order():
    params, x, y = gc.notes_setting()
    assert x.shape == (4, 32, 8) and y.shape == (4, 32) and x.dtype == torch.float64
    assert params["W_x"].shape == (16, 8) and params["W_h"].shape == (16, 16)
    assert params["W_o"].shape == (3, 16) and int(y.max()) <= 2
    torch.manual_seed(0)  # the notes' own order of draws
    torch.testing.assert_close(x, torch.randn(4, 32, 8, dtype=torch.float64))


def test_seeded_linear_is_nn_linear_after_the_same_seed_and_leaves_the_global_generator():
    state = torch.random.get_rng_state()
    lin = gc.seeded_linear(24, 16, torch.Generator().manual_seed(3))
    assert torch.equal(state, torch.random.get_rng_state())  # drew from its own generator only
    torch.manual_seed(3)
    ref = nn.Linear(24, 16)
    assert torch.equal(lin.weight, ref.weight) and torch.equal(lin.bias, ref.bias)
    assert lin.weight.device.type == "cpu" and lin.weight.requires_grad


def test_forward_equals_notes_combined_linear_cell():
    params, x, y = gc.notes_setting()
    W = torch.cat([params["W_x"], params["W_h"]], 1)
    h = torch.zeros(4, 16, dtype=torch.float64)
    for t in range(5):
        h = torch.tanh(torch.cat([x[:, t], h], -1) @ W.T + params["b_h"])
    hs, _ = gc.forward(params, x[:, :5])
    torch.testing.assert_close(hs[:, -1], h)


def test_gradient_check_passes_for_the_notes_setting():
    params, x, y = gc.notes_setting()
    rows = gc.gradient_check(params, x[:, :4], y[:, :4])
    assert [r["parameter"] for r in rows] == list(gc.PARAMS)
    for r in rows:
        assert r["pass"], r
        assert r["rel. error numerical"] < 1e-7 and r["rel. error hand BPTT"] < 1e-12


def test_gradient_check_fails_for_a_wrong_gradient(monkeypatch):
    params, x, y = gc.notes_setting()
    real = gc.hand_grads

    def wrong(p, x_, y_):  # the classic slip: forgetting the tanh slope
        g = real(p, x_, y_)
        g["W_h"] = g["W_h"] * 1.01
        return g

    monkeypatch.setattr(gc, "hand_grads", wrong)
    rows = {r["parameter"]: r for r in gc.gradient_check(params, x[:, :3], y[:, :3])}
    assert not rows["W_h"]["pass"] and rows["W_x"]["pass"]


def test_input_weight_norms_are_autograd_norms_and_shrink_here():
    params, x, y = gc.notes_setting()
    rows = gc.input_weight_norms(params, x, y)
    assert [r["T"] for r in rows] == [4, 8, 16, 32]
    g = gc.autograd_grads(params, x[:, :8], y[:, :8])
    assert rows[1]["||dL/dW_x||"] == pytest.approx(float(g["W_x"].norm()), rel=1e-12)
    with pytest.raises(InputError):
        gc.input_weight_norms(params, x, y, Ts=(64,))


def test_model_gradient_check_on_an_rnnmodel():
    model = RNNModel(RNNConfig(9, 3, 5), seed=2)
    ids = torch.tensor([1, 4, 4, 2, 8])
    rows = gc.model_gradient_check(model, ids, next_token_targets(ids))
    assert {r["parameter"] for r in rows} == {"E", "W_x", "W_h", "b_h", "W_o", "b_o"}
    assert all(r["pass"] for r in rows), rows
    assert model.W_h.dtype == torch.float32  # the model given was not changed


@pytest.mark.parametrize("max_norm", [0.1, 1.0, 1e6])
def test_clip_demo_equals_clip_grad_norm(max_norm):
    gen = torch.Generator().manual_seed(1)
    grads = {"a": torch.randn(3, 4, generator=gen, dtype=torch.float64) * 5,
             "b": torch.randn(7, generator=gen, dtype=torch.float64)}
    out = gc.clip_demo(grads, max_norm)
    ps = [nn.Parameter(torch.zeros_like(g)) for g in grads.values()]
    for p, g in zip(ps, grads.values()):
        p.grad = g.clone()
    ref = nn.utils.clip_grad_norm_(ps, max_norm)
    total = math.sqrt(sum(float((g ** 2).sum()) for g in grads.values()))
    assert out["norm before"] == pytest.approx(float(ref)) == pytest.approx(total)
    for p, k in zip(ps, grads):
        torch.testing.assert_close(out["clipped"][k], p.grad)
    assert out["norm after"] == pytest.approx(min(total, max_norm), rel=1e-5)
    assert out["cosine"] == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(InputError):
        gc.clip_demo(grads, 0.0)


def test_sgd_step_equals_torch_optim_sgd():
    params, x, y = gc.exploding_setting(3.0)
    grads = gc.autograd_grads(params, x, y)
    leaves = {k: torch.nn.Parameter(v.detach().clone()) for k, v in params.items()}
    for k, p in leaves.items():
        p.grad = grads[k].clone()
    torch.optim.SGD(leaves.values(), lr=0.5).step()
    ours = gc.sgd_step(params, grads, 0.5)
    for k in params:
        torch.testing.assert_close(ours[k], leaves[k].detach(), rtol=0, atol=0)


def test_clipping_tames_the_exploding_step():
    params, x, y = gc.exploding_setting()
    free, clipped = gc.step_with_and_without_clipping(params, x, y, max_norm=1.0, lr=0.5)
    assert free["gradient norm used"] > 10 and clipped["gradient norm used"] == pytest.approx(1.0, rel=1e-5)
    assert clipped["step size ||delta theta||"] == pytest.approx(0.5, rel=1e-5)
    assert free["step size ||delta theta||"] == pytest.approx(0.5 * free["gradient norm used"])
    assert clipped["loss after"] < clipped["loss before"] < free["loss after"]


def test_the_notes_draws_come_from_a_generator_and_match_the_notes_global_seed():
    """notes_setting and note 003's check draw from a torch.Generator: the same numbers as the
    notes' torch.manual_seed(0) code (run here as the oracle inside fork_rng), and the global
    generator is left as it was (a shared server's other sessions see no reseed)."""
    from rnnviz.explain.notes import errata
    before = torch.random.get_rng_state()
    params, x, y = gc.notes_setting()
    fixed = errata.note003_gradient_check(True)
    assert torch.equal(torch.random.get_rng_state(), before)
    with torch.random.fork_rng():
        torch.manual_seed(0)  # the notes' own code, as printed
        x0, y0 = torch.randn(4, 32, 8, dtype=torch.float64), torch.randint(0, 3, (4, 32))
        W, out = nn.Linear(24, 16), nn.Linear(16, 3)
    assert torch.equal(x, x0) and torch.equal(y, y0)
    assert torch.equal(params["W_x"], W.weight.detach().double()[:, :8])
    assert torch.equal(params["W_h"], W.weight.detach().double()[:, 8:])
    assert torch.equal(params["b_h"], W.bias.detach().double()) and torch.equal(params["b_o"], out.bias.detach().double())
    with torch.random.fork_rng():
        torch.manual_seed(0)
        xs, ys = torch.randn(4, 32, 8, dtype=torch.float64), torch.randint(0, 3, (4, 32))
        W, out = nn.Linear(24, 16).double(), nn.Linear(16, 3).double()
    h, zs = torch.zeros(4, 16, dtype=torch.float64), []
    for t in range(4):
        h = torch.tanh(W(torch.cat([xs[:, t], h], -1)))
        zs.append(out(h))
    loss = nn.functional.cross_entropy(torch.stack(zs, 1).reshape(-1, 3), ys[:, :4].reshape(-1))
    assert fixed["ok"] and fixed["loss"] == float(loss.detach())
    other = gc.notes_setting(gen=torch.Generator().manual_seed(1))[1]
    assert not torch.equal(other, x)  # the generator passed in is the one drawn from
