"""chains.growth_verdict: the factor over the longest distance, against explicit products."""
import math

import torch

from rnnviz.engine.jacobians import jacobian_norms
from rnnviz.engine.trace import trace
from rnnviz.explain import bptt as chains
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare


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
