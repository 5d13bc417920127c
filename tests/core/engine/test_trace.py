"""trace() against an independent float64 computation written from the raw weights."""
import dataclasses

import pytest
import torch
import torch.nn.functional as F

from rnnviz import RNNConfig, RNNModel
from rnnviz.conventions import IGNORE
from rnnviz.engine.jacobians import (
    output_error,
)
from rnnviz.engine.trace import TRACE_FIELDS, next_token_targets, trace


def reference(model, ids, targets, reduction):
    """Plain loop on leaf copies of the weights; total dL/dh_t via autograd.grad on each h_t."""
    P = {k: v.detach().clone().requires_grad_(True) for k, v in model.named_parameters()}
    act = {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda a: a}[model.cfg.nonlinearity]
    x = P["E"][ids]
    x.retain_grad()
    h = torch.zeros(model.cfg.hidden_size, dtype=torch.float64)
    a_s, h_s = [], []
    for t in range(len(ids)):
        a = P["W_x"] @ x[t] + P["W_h"] @ h + P["b_h"]
        h = act(a)
        a_s.append(a)
        h_s.append(h)
    z = torch.stack(h_s) @ P["W_o"].T + P["b_o"]
    loss_t = F.cross_entropy(z, targets, ignore_index=IGNORE, reduction="none")
    loss = loss_t.sum() if reduction == "sum" else loss_t.sum() / (targets != IGNORE).sum()
    inputs = [x, z] + a_s + h_s + list(P.values())
    g = torch.autograd.grad(loss, inputs)
    T = len(ids)
    return dict(x=x.detach(), a=torch.stack(a_s).detach(), h=torch.stack(h_s).detach(),
                z=z.detach(), p=torch.softmax(z, -1).detach(), loss_t=loss_t.detach(),
                loss=loss.detach(), grad_x=g[0], grad_z=g[1], delta=torch.stack(g[2:2 + T]),
                grad_h=torch.stack(g[2 + T:2 + 2 * T]), grads=dict(zip(P, g[2 + 2 * T:])))


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu", "linear"])
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_trace_equals_independent_float64_autograd(nonlinearity, reduction):
    model = RNNModel(RNNConfig(12, 4, 6, nonlinearity=nonlinearity), seed=5).double()
    ids = torch.tensor([2, 7, 7, 1, 11, 3])          # a repeated token on purpose
    targets = torch.tensor([7, 7, 1, IGNORE, 3, 0])  # one step without a target
    tr = trace(model, ids, targets, reduction)
    ref = reference(model, ids, targets, reduction)
    for name in ("x", "a", "h", "z", "p", "loss_t", "loss", "grad_x", "grad_z", "delta", "grad_h"):
        torch.testing.assert_close(getattr(tr, name), ref[name], rtol=1e-10, atol=1e-12, msg=name)
    assert set(tr.grads) == set(ref["grads"])
    for name, g in ref["grads"].items():
        torch.testing.assert_close(tr.grads[name], g, rtol=1e-10, atol=1e-12, msg=name)
    assert tr.loss_t[3] == 0


def test_loss_equals_f_cross_entropy_and_grad_z_is_p_minus_y():
    model = RNNModel(RNNConfig(8, 3, 5), seed=0).double()
    ids = torch.tensor([1, 2, 3, 4])
    tr = trace(model, ids)  # next-token targets, last step ignored
    valid = tr.targets != IGNORE
    expected = F.cross_entropy(tr.z[valid], tr.targets[valid], reduction="sum")
    torch.testing.assert_close(tr.loss, expected)
    y = F.one_hot(tr.targets[valid], 8).double()
    torch.testing.assert_close(tr.grad_z[valid], tr.p[valid] - y)
    assert torch.all(tr.grad_z[~valid] == 0)


def test_next_token_targets_shift_left():
    assert next_token_targets(torch.tensor([4, 5, 6])).tolist() == [5, 6, IGNORE]


def test_model_parameters_grad_untouched_by_trace():
    model = RNNModel(RNNConfig(8, 3, 5), seed=0)
    trace(model, [1, 2, 3])
    assert all(p.grad is None for p in model.parameters())


def test_trace_fields_frozen():
    assert TRACE_FIELDS == ("ids", "targets", "x", "a", "h", "z", "p", "loss_t", "loss", "reduction",
                            "grad_z", "grad_h", "delta", "grad_x", "grads", "c", "gates",
                            "attn_scores", "attn_weights", "context", "grad_context")
    tr = trace(RNNModel(RNNConfig(8, 3, 5), seed=0), [1, 2])
    with pytest.raises(dataclasses.FrozenInstanceError):
        tr.loss = 0  # frozen


def test_bidirectional_trace_gradients_match_autograd():
    model = RNNModel(RNNConfig(9, 3, 4, bidirectional=True), seed=4).double()
    ids = torch.tensor([1, 5, 2, 8])
    tr = trace(model, ids)
    params = list(model.parameters())
    loss = F.cross_entropy(model(ids)[:-1], ids[1:], reduction="sum")
    for (name, _), g in zip(model.named_parameters(), torch.autograd.grad(loss, params)):
        torch.testing.assert_close(tr.grads[name], g, msg=name)
    assert tr.h.shape == (4, 8) and tr.grad_h.shape == (4, 8)


def test_grad_z_is_p_minus_y_for_elman_but_not_for_jordan():
    for cell, equal in (("elman", True), ("jordan", False)):
        m = RNNModel(RNNConfig(8, 3, 5, cell=cell), seed=2).double()
        with torch.no_grad():
            m.W_o.mul_(4)
        tr = trace(m, [1, 5, 2, 7, 3])
        diff = float((tr.grad_z - output_error(tr)).abs().max())
        assert (diff < 1e-12) == equal, diff
    # the feedback path's share is the gradient that reaches z_t through y_t -> a_{t+1}
    zs = tr.z.detach().clone().requires_grad_(True)
    p = torch.softmax(zs, -1)
    (g,) = torch.autograd.grad((tr.delta[1:] * (p[:-1] @ m.W_y.T)).sum(), zs)
    torch.testing.assert_close(tr.grad_z - output_error(tr), g, rtol=0, atol=1e-12)
