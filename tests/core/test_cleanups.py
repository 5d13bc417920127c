"""Issue 13's core clean-ups: one number formatter, one exercise verdict, generation in its own
module, the model looping over its pure step(), BPTT functions reusing a computed J."""
import math

import numpy as np
import pytest
import torch

import rnnviz.engine.model as model_module
from rnnviz import RNNConfig, RNNModel, formatting, step_jacobians
from rnnviz.engine.generation import Sampling, generate
from rnnviz.engine.jacobians import gradient_flow, jacobian_factors, loss_to_state_grads
from rnnviz.engine.trace import trace
from rnnviz.explain import bptt as chains
from rnnviz.explain import embedding as emb
from rnnviz.explain import hidden as hd
from rnnviz.explain import output as out
from rnnviz.explain.exercises.verdict import Verdict


def test_one_number_format_four_significant_digits():
    assert [formatting.num(v) for v in (0.123456, 1.577e-07, -0.0, 12345.6, math.nan, -math.inf)] == \
        ["0.1235", "1.577e-07", "0", "1.235e+04", "NaN", "-inf"]
    assert emb.num is formatting.num  # old names, one function
    assert formatting.vector(torch.tensor([[0.5, -2.0]])) == "[0.5, -2]"
    assert formatting.vector(np.arange(8.0), shown=3) == "[0, 1, 2, … (8 in all)]"
    assert formatting.vector([0.123456, 1.0]) == emb.vector_text([0.123456, 1.0]) == "[0.1235, 1]"


def test_one_verdict_type_for_every_checker():
    ex = chains.chain_exercise(0)
    v = chains.check_chain(ex, ex["answer"])
    assert isinstance(v, Verdict) and v.ok and v.solution.endswith(f"{ex['answer']:.6g}")
    ok, message = chains.check_chain(ex, -ex["answer"])  # the old tuple protocol still unpacks
    assert not ok and "sign" in message
    assert emb.Verdict is Verdict
    assert out.check_loss(out.make_exercise(0), "").correct is None
    hex_ = hd.make_exercise(0)
    right = hd.exercise_answers(hex_)
    assert hd.check_exercise_verdict(hex_, *right).ok
    wrong = hd.check_exercise_verdict(hex_, right[0], -right[1])
    assert wrong.ok is False and wrong.solution and wrong.message


def test_generation_lives_in_one_module_and_output_does_not_re_export_it():
    # issue 23: no re-export shims (it asserted out.generate is generate before the move)
    assert not hasattr(out, "generate") and not hasattr(out, "Sampling")
    model = RNNModel(RNNConfig(6, 3, 4), seed=0)
    steps = generate(model, [1, 2], Sampling("greedy", max_new=3))
    with torch.no_grad():
        first = int(model(torch.tensor([1, 2]))[-1].argmax())
    assert len(steps) == 3 and steps[0].chosen == first  # oracle: argmax of the model's own logits


@pytest.mark.parametrize("cfg", [RNNConfig(7, 3, 4), RNNConfig(7, 3, 4, bidirectional=True),
                                 RNNConfig(7, 3, 4, cell="jordan")], ids=["elman", "bi", "jordan"])
def test_the_model_loops_over_its_pure_step(cfg, monkeypatch):
    model = RNNModel(cfg, seed=1)
    ids = torch.tensor([1, 4, 2, 6, 0])
    expected = model(ids)
    calls = []
    real = model_module.step

    def counting(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(model_module, "step", counting)
    torch.testing.assert_close(model(ids), expected, rtol=0, atol=0)
    assert len(calls) == len(ids) * (2 if cfg.bidirectional else 1)


def test_a_hook_that_replaces_a_t_still_changes_h_t():
    model = RNNModel(RNNConfig(7, 3, 4), seed=2)
    ids = torch.tensor([1, 2, 3])
    _, c = model.run_with_cache(ids, hooks=[("hook_pre", lambda a, t: torch.zeros_like(a))])
    torch.testing.assert_close(c["hook_hidden"], torch.zeros(3, 4))  # tanh(0) = 0 at every step


def test_bptt_functions_reuse_a_given_J():
    model = RNNModel(RNNConfig(7, 3, 4), seed=3)
    tr = trace(model, [1, 2, 3, 4])
    J = step_jacobians(model, tr)
    torch.testing.assert_close(loss_to_state_grads(model, tr, J), loss_to_state_grads(model, tr))
    torch.testing.assert_close(gradient_flow(model, tr, J), gradient_flow(model, tr), equal_nan=True)
    a, b = jacobian_factors(model, tr, 2, J), jacobian_factors(model, tr, 2)
    torch.testing.assert_close(a["J"], b["J"])
    # the given J is what is used (not recomputed): a zero J leaves only the direct terms
    G0 = loss_to_state_grads(model, tr, torch.zeros_like(J))
    assert torch.count_nonzero(G0[1:, 0]) == 0
