"""Predict-then-reveal checkpoints: every answer is computed live and checked against an
independent oracle (torch.nn.RNN + autograd in float64, torch's cross-entropy and cosine)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine.jacobians import jacobian_norms
from rnnviz.engine.trace import trace
from rnnviz.explain import checkpoints as cp
from tests.oracles import torch_rnn_like


def model_and_trace(seed=0, T=7, scale=1.0):
    model = RNNModel(RNNConfig(11, 3, 4), seed=seed).double()
    with torch.no_grad():
        model.W_h.mul_(scale)
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 11, (T,), generator=g)
    return model, ids, trace(model, ids)


def test_embedding_question_names_the_largest_cosine():
    g = torch.Generator().manual_seed(1)
    E = torch.randn(9, 4, generator=g, dtype=torch.float64)
    ids = [3, 5, 3, 7, 1]
    q = cp.embedding_question(E, ids, 0, [f"w{i}" for i in range(9)])
    oracle = {i: float(torch.nn.functional.cosine_similarity(E[3], E[i], dim=0)) for i in (5, 7, 1)}
    best = max(oracle, key=oracle.get)
    assert q.key == "checkpoint_embedding_1" and q.options == ("w5", "w7", "w1")  # distinct, in order
    assert q.right == (f"w{best}",) and cp.grade(q, f"w{best}") and not cp.grade(q, None)
    assert q.label_of(f"w{best}") == f"w{best}"
    assert cp.embedding_question(E, [2, 2], 0, list("abcdefghi")) is None  # no other word


def test_hidden_question_is_the_step_of_the_largest_abs_h():
    model, ids, tr = model_and_trace()
    with torch.no_grad():
        h_ref, _ = torch_rnn_like(model)(model.E[ids][None])
    h = h_ref[0].numpy()
    t_ref = int(np.abs(h).max(axis=1).argmax())
    q = cp.hidden_question(tr.h.numpy(), [f"tok{i}" for i in range(tr.T)])
    assert q.right == (f"t{t_ref}",) and q.why["t"] == t_ref + 1
    assert q.label_of(f"t{t_ref}") == f"{t_ref + 1} · tok{t_ref}"


def test_hidden_question_on_a_long_sentence_keeps_the_answer_among_its_options():
    h = np.zeros((30, 2))
    h[25, 1] = -0.9
    q = cp.hidden_question(h, [str(i) for i in range(30)])
    assert len(q.options) == cp.MAX_STEP_OPTIONS and q.right == ("t25",) and "t25" in q.options


def test_a_diverged_model_asks_nothing_it_cannot_answer():
    assert cp.hidden_question(np.full((3, 2), np.nan), ["a", "b", "c"]) is None
    h = np.array([[np.nan, 0.1], [np.inf, 0.2], [0.3, np.nan]])
    assert cp.hidden_question(h, ["a", "b", "c"]).right == ("t2",)


def test_output_question_is_the_largest_cross_entropy():
    model, ids, tr = model_and_trace(seed=2)
    targets = tr.targets
    ce = torch.nn.functional.cross_entropy(tr.z.double(), targets, reduction="none", ignore_index=-100)
    valid = targets >= 0
    t_ref = int(torch.where(valid, ce, torch.tensor(-np.inf, dtype=torch.float64)).argmax())
    toks = [f"x{i}" for i in range(tr.T)]
    q = cp.output_question(tr.loss_t.numpy(), tr.valid.numpy(), toks, [f"y{i}" for i in range(tr.T)])
    assert q.right == (f"t{t_ref}",) and f"t{tr.T - 1}" not in q.options  # the last step has no target
    assert float(q.why["loss"]) == pytest.approx(float(ce[t_ref]), rel=1e-3)
    assert cp.output_question([float("nan")] * 3, [True] * 3, toks[:3], toks[:3]) is None


def autograd_norm(model, ids, s, t):
    """||dh_s/dh_t|| (spectral) by autograd through torch.nn.RNN from h_t on, float64."""
    rnn = torch_rnn_like(model)
    x = model.E[ids].detach()[None]
    with torch.no_grad():
        h, _ = rnn(x)
    h_t = h[0, t].clone()

    def forward(h0):
        out, _ = rnn(x[:, t + 1:s + 1], h0[None, None])
        return out[0, -1]

    J = torch.autograd.functional.jacobian(forward, h_t)
    return float(torch.linalg.matrix_norm(J, ord=2))


@pytest.mark.parametrize("scale", [0.25, 1.0, 3.0])
def test_bptt_question_is_a_number_graded_against_autograd(scale):
    model, ids, tr = model_and_trace(seed=3, T=8, scale=scale)
    N = jacobian_norms(model, tr, 2)
    q = cp.bptt_question(N, 1, scale)
    ref = autograd_norm(model, ids, tr.T - 1, 0)
    log = math.log10(ref)
    assert q.kind == "number" and q.options == ()
    assert q.target == pytest.approx(log, abs=1e-6)
    assert q.tol == max(0.5, 0.1 * abs(q.target))  # computed live from the value
    assert float(q.why["value"]) == pytest.approx(ref, rel=1e-3)
    assert float(q.why["log"]) == pytest.approx(log, abs=2e-3)
    assert q.values["T"] == 8 and q.values["first"] == 1
    assert cp.grade(q, cp.number_text(log)) and cp.grade(q, log + 0.95 * q.tol) and cp.grade(q, log - 0.95 * q.tol)
    assert not cp.grade(q, log + 1.05 * q.tol) and not cp.grade(q, log - 1.05 * q.tol)
    assert not cp.grade(q, None) and not cp.grade(q, "ten") and not cp.grade(q, "nan") and not cp.grade(q, "inf")
    assert q.truth == cp.number_text(q.target) and float(q.truth) == pytest.approx(log, abs=1e-3)


def test_bptt_question_follows_the_scale_and_refuses_what_has_no_log():
    targets = {}
    for scale in (0.25, 3.0):
        model, ids, tr = model_and_trace(seed=4, T=12, scale=scale)
        targets[scale] = cp.bptt_question(jacobian_norms(model, tr, 2), 1, scale).target
    assert targets[0.25] < -3 <= targets[3.0]  # below 10^-3 shrunk, above it grown
    assert cp.bptt_question(torch.ones(1, 1), 1, 1.0) is None  # one step: no product
    assert cp.bptt_question(torch.zeros(2, 2), 1, 1.0) is None  # log10 0
    assert cp.bptt_question(torch.tensor([[1.0, 0.0], [float("inf"), 1.0]]), 1, 1.0) is None


def test_a_long_product_gets_a_tolerance_a_tenth_of_its_exponent():
    N = torch.tensor([[1.0, 0.0], [1e-40, 1.0]], dtype=torch.float64)
    q = cp.bptt_question(N, 1, 0.25)
    assert q.target == pytest.approx(-40.0) and q.tol == pytest.approx(4.0)
    assert cp.grade(q, "-37") and not cp.grade(q, "-35")
    assert cp.log_tolerance(-2.0) == 0.5 and cp.log_tolerance(-7.0) == pytest.approx(0.7)


def test_gates_question_and_ties():
    q = cp.gates_question({"elman": 0.01, "lstm": 0.4, "gru": 0.2})
    assert q.right == ("lstm",) and cp.grade(q, "lstm") and not cp.grade(q, "gru")
    tie = cp.gates_question({"elman": 0.01, "lstm": 0.4, "gru": 0.4})
    assert tie.right == ("lstm", "gru") and cp.grade(tie, "gru")
    assert cp.gates_question({c: float("nan") for c in cp.CELLS}) is None
