"""The notes' smaller claims against oracles: the vector chain (autograd of L_3 alone), h_0 as a
constant, nn.Embedding == bias-free nn.Linear on one-hot (torch's own modules), the # marks of
word hashing (hand-listed trigrams), and the backward FLOP count (torch's FLOP counter)."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine.jacobians import loss_to_state_grads
from rnnviz.engine.trace import trace
from rnnviz.errors import InputError
from rnnviz.explain.notes import facts
from rnnviz.explain.notes import facts as nf
from rnnviz.store.catalog import NOTES_E
from tests.oracles import loss_grad_at


def _model(nonlinearity="tanh", seed=2):
    return RNNModel(RNNConfig(12, 4, 5, nonlinearity=nonlinearity), seed=seed).double()


def _grad_of_one_loss(model, ids, s, t):
    """Oracle: d L_s / d h_t by autograd, with h_t a leaf and the recurrence re-run from it."""
    x = model.E[ids].detach()
    h = torch.zeros(model.cfg.hidden_size, dtype=torch.float64)
    for k in range(t + 1):
        h = torch.tanh(model.W_x @ x[k] + model.W_h @ h + model.b_h)
    leaf = h.detach().requires_grad_(True)
    h = leaf
    for k in range(t + 1, s + 1):
        h = torch.tanh(model.W_x @ x[k] + model.W_h @ h + model.b_h)
    z = model.W_o @ h + model.b_o
    loss = -torch.log_softmax(z, 0)[ids[s + 1]]
    (g,) = torch.autograd.grad(loss, leaf)
    return g


@pytest.mark.parametrize("s,t", [(2, 0), (3, 1), (4, 0)])
def test_vector_chain_equals_autograd_and_the_wrong_orders_do_not(s, t):
    model = _model()
    ids = torch.tensor([1, 4, 2, 7, 3, 5])
    tr = trace(model, ids)
    out = nf.vector_chain(model, tr, s, t)
    oracle = _grad_of_one_loss(model, ids, s, t)
    torch.testing.assert_close(out["right"], oracle, rtol=1e-10, atol=1e-13)
    torch.testing.assert_close(out["right"], loss_to_state_grads(model, tr)[s, t])
    assert (out["swapped"] - oracle).abs().max() > 1e-4
    assert (out["no_transpose"] - oracle).abs().max() > 1e-4
    assert sorted(out["factors"]) == list(range(t + 1, s + 1))
    assert out["off_by"]["swapped"] == pytest.approx(float((out["swapped"] - oracle).norm()), rel=1e-8)
    for bad in ((0, 0), (1, 2), (6, 0)):
        with pytest.raises(InputError):
            nf.vector_chain(model, tr, *bad)


def test_h0_is_a_constant_zero_not_a_parameter():
    model = _model()
    fact = nf.initial_state(model)
    assert fact["is_parameter"] is False and not fact["h0"].any()
    names = [n for n, _ in model.named_parameters()]
    assert fact["parameters"] == names and not any("h0" in n or "h_0" in n or "init" in n for n in names)
    assert sum(p.numel() for p in model.parameters()) == sum(
        v for v in model.param_counts().values())  # nothing hidden besides the listed ones
    assert fact["params_if_learned"] == 5
    for nl in ("tanh", "relu", "linear"):
        m = _model(nl)
        tr = trace(m, torch.tensor([3, 1, 2]))
        torch.testing.assert_close(nf.first_step_without_h0(m, tr), tr.h[0], rtol=0, atol=0)


def test_embedding_is_a_bias_free_linear_on_one_hot():
    ids = [2, 0, 2, 4]
    g = torch.tensor([[2.0, -1.0, 3.0], [0.5, 0.0, 1.0], [1.0, 1.0, 1.0], [0.0, -2.0, 0.5]])
    out = nf.embedding_as_linear(NOTES_E, ids, g)
    assert out["max_diff"] == 0.0 and not out["linear_has_bias"] and out["linear_params"] == 15
    assert out["lookup"][0].tolist() == [-0.4, 0.8, 0.1]  # cats, "row 3" of the notes
    torch.testing.assert_close(out["product"], out["lookup"])
    torch.testing.assert_close(out["grad_embedding"], out["grad_linear_T"])
    expected = torch.zeros(5, 3, dtype=torch.float64)
    for i, row in zip(ids, g.double()):
        expected[i] += row  # repeated rows add up: x^T g
    torch.testing.assert_close(out["grad_embedding"], expected)
    with pytest.raises(InputError):
        nf.embedding_as_linear(NOTES_E, [5])


def test_why_words_are_wrapped_in_marks():
    assert nf.trigrams("good") == ["#go", "goo", "ood", "od#"]
    assert nf.trigrams("apple") == ["#ap", "app", "ppl", "ple", "le#"]
    assert nf.trigrams("good", marks=False) == ["goo", "ood"]
    assert nf.trigrams("a", marks=False) == [] and nf.trigrams("a") == ["#a#"]
    assert nf.trigrams("to") == ["#to", "to#"]
    out = nf.why_marks("good", "goods")
    assert out["without"]["a_inside_b"] and out["without"]["only_a"] == []
    assert not out["with"]["a_inside_b"] and out["with"]["only_a"] == ["od#"]
    assert out["with"]["only_b"] == ["ds#", "ods"] and out["with"]["shared"] == ["#go", "goo", "ood"]
    assert out["with"]["jaccard"] == pytest.approx(3 / 6) and out["without"]["jaccard"] == pytest.approx(2 / 3)
    from rnnviz.text.tokenize import trigram_bucket
    assert out["with"]["buckets_a"] == sorted({trigram_bucket(x, 1000) for x in ["#go", "goo", "ood", "od#"]})


@pytest.mark.parametrize("T,H", [(1, 3), (5, 4), (9, 7)])
def test_backward_flops_equal_a_count_of_the_matmuls(T, H):
    model = RNNModel(RNNConfig(15, 3, H), seed=1).double()
    ids = torch.randint(0, 15, (T,), generator=torch.Generator().manual_seed(T))
    tr = trace(model, ids)
    with FlopCounterMode(display=False) as counter:
        grads = nf.counted_backward(model, tr)
    flops = nf.backward_flops(T, 3, H, 15)
    assert counter.get_total_flops() == flops["total"]
    for name in ("W_o", "W_h", "W_x"):  # and it is a real backward pass
        torch.testing.assert_close(grads[name], tr.grads[name], rtol=1e-10, atol=1e-13)
    torch.testing.assert_close(grads["grad_x"], tr.grad_x, rtol=1e-10, atol=1e-13)
    assert flops["recurrent"] == 4 * T * H * H - 2 * H * H and flops["sequential_steps"] == T
    with pytest.raises(InputError):
        nf.backward_flops(0, 3, H, 15)












def test_vector_chain_norms_against_autograd(num_mt):
    m, tr = num_mt
    v = facts.vector_chain(m, tr, 3, 0)  # L_4 (step 3 has a target) back to h_1
    h3 = tr.h[3].detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(F.cross_entropy((m.W_o @ h3 + m.b_o)[None], tr.targets[3:4]), h3)
    assert v["norms"]["grad_h_s"] == pytest.approx(float(g.norm()), rel=1e-9)
    assert v["norms"]["right"] == pytest.approx(float(loss_grad_at(m, tr, 0, [3]).norm()), rel=1e-9)
