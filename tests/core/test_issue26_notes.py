"""Issue 26: the notes' four silent slips, each computed (rnnviz.explain.notes.silent) and
checked against numpy / autograd in float64, and said on its page in both languages."""
import numpy as np
import pytest
import torch

from rnnviz.engine.jacobians import step_jacobians
from rnnviz.engine.trace import trace
from rnnviz.explain.notes import silent
from rnnviz.store.catalog import default_model, load_builtin
from rnnviz.store.prose import sections
from rnnviz.text.tokenize import hash_word, letter_trigrams, prepare

LANGS = ("en", "zh")


@pytest.mark.parametrize("lang", LANGS)
def test_hashing_is_still_sparse(lang):
    z = silent.hashing_nonzeros(["good", "apple", "Taipei"], 1000)
    for w, n in z["rows"]:
        dense = np.array(hash_word(w, 1000))  # (1000,) the count vector itself
        assert n == np.count_nonzero(dense) <= len(letter_trigrams(w))
    assert z["mean"] == 5 and z["share"] == 0.005  # 5 of 1,000 entries: sparse, not "solved"
    text = sections("embedding", lang)["notes-hashing"]
    assert "稀疏" in text and "{mean}" in text and "{share}" in text


@pytest.mark.parametrize("lang", LANGS)
def test_lookup_costs_d_numbers_a_token(lang):
    model, vocab, _ = load_builtin("notes")
    E = model.E.detach()
    c = silent.lookup_cost(E, [0, 1, 2])
    assert c["per_token"] == E[2].numel() == 3 and c["per_sentence"] == 9
    assert c["onehot_per_token"] == torch.nn.functional.one_hot(torch.tensor(2), 5).numel() * 3
    assert "O(d)" in sections("embedding", lang)["notes-lookup"]


@pytest.mark.parametrize("lang", LANGS)
def test_dh_dw_is_a_3_tensor_and_the_boxed_result_holds(lang):
    model, vocab, _ = load_builtin("notes")
    model = model.double()
    tr = trace(model, [0, 1, 2, 4], [1, 2, 4, 1])
    H = model.cfg.hidden_size
    for t in (1, 3):
        d = silent.dh_dW(model, tr, t)
        assert d["shape"] == (H, H, H) and d["entries"] == H ** 3 and d["nonzero"] <= H * H
        assert d["off"] < 1e-14
    # the boxed sum over t of diag(f') delta h_{t-1}^T is autograd's dL/dW_h
    slope = 1 - tr.h ** 2
    h_prev = torch.cat([torch.zeros_like(tr.h[:1]), tr.h[:-1]])
    assert torch.allclose((slope * tr.grad_h).T @ h_prev, tr.grads["W_h"], atol=1e-12)
    text = sections("bptt", lang)["notes-dh-dw"]
    assert "{shape}" in text and "{off}" in text


@pytest.mark.parametrize("lang", LANGS)
def test_product_rate_is_lyapunov_not_gelfand(lang):
    m, vocab, _ = default_model()
    m = m.double()
    tr = trace(m, prepare(" ".join(["Arrive Taipei on November 2nd and leave Boston"] * 8), vocab).ids)
    r = silent.product_rate(m, tr)
    J = step_jacobians(m, tr).double()
    P = torch.eye(J.shape[1], dtype=torch.float64)
    logs = []
    for t in range(1, tr.T):  # plain products in float64 (no renormalisation) as the oracle
        P = J[t] @ P
        logs.append(np.log(float(torch.linalg.matrix_norm(P, 2))))
    slope = np.polyfit(np.arange(1, tr.T), logs, 1)[0]
    assert r["rate"] == pytest.approx(np.exp(slope), rel=1e-8) and r["n"] == tr.T - 1 > 50
    W = m.W_h.detach().numpy()
    assert r["rho_w"] == pytest.approx(max(abs(np.linalg.eigvals(W))), rel=1e-10)
    mean_rho_j = np.mean([max(abs(np.linalg.eigvals(J[t].numpy()))) for t in range(1, tr.T)])
    assert r["rho_j"] == pytest.approx(mean_rho_j, rel=1e-10)
    assert r["rate"] < 1 < r["rho_j"] < r["rho_w"]  # the measured rate is neither
    text = sections("bptt", lang)["notes-lyapunov"]
    assert "Lyapunov" in text and "{rate}" in text and "{rho_j}" in text
