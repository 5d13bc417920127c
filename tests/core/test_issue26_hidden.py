"""Issue 26, page 2's half-taught ideas made live (both languages), each number against an
independent oracle: x_t = E[id]^T is a column; h_t is a learned summary (the first word's reach
on the last state, by autograd in float64); the best affine fit of h_2 (numpy lstsq in float64
on torch.nn.RNN's states) leaves a residual above 0 with tanh and about 0 for the linear RNN."""
import numpy as np
import pytest
import torch

from rnnviz.engine.trace import trace
from rnnviz.explain import hidden as hd
from rnnviz.formatting import plain_math, sub
from rnnviz.store.catalog import load_builtin
from rnnviz.store.prose import section, sections
from tests.oracles import notes_float64_trace as notes  # the notes' model, float64
from tests.oracles import num_model, torch_rnn_like

LANGS = ("en", "zh")


@pytest.mark.parametrize("lang", LANGS)
def test_x_t_is_a_column_of_E(lang):
    model, vocab, tr = notes()
    for t in range(tr.T):
        col = hd.input_column(model, tr, t)
        i = int(tr.ids[t])
        assert col["id"] == i and col["err"] == 0.0
        assert torch.equal(tr.x[t], model.E.detach()[i])  # the input IS that row of E ...
        assert col["wx_shape"] == (model.cfg.hidden_size, 1)  # ... stood up: W_x (H x d) times (d x 1)
    onehot = torch.zeros(1, model.cfg.vocab_size, dtype=torch.float64)  # page 1: x is a 1 x V row
    onehot[0, col["id"]] = 1
    assert torch.equal((onehot @ model.E.detach())[0], tr.x[tr.T - 1])
    text = section("hidden", "column", lang, t=2, id=col["id"], d=3, H=4, V=5, err="0")
    assert f"E[{col['id']}]^\\top" in text and "3 × 1" in text and "1 × 5" in text


def autograd_reach(model, tr, start):
    """||dh_T/dx_start|| / ||dh_T/dx_T|| by autograd in float64, the recurrence rerun from the
    embeddings as leaves (torch.nn.RNN carries the weights)."""
    rnn = torch_rnn_like(model).double()
    x = tr.x.detach().double().clone()

    def last(xs):
        return rnn(xs[None])[0][0, -1]

    J = torch.autograd.functional.jacobian(last, x)  # (H, T, d)
    return float(J[:, start].norm() / J[:, -1].norm())


@pytest.mark.parametrize("lang", LANGS)
def test_the_first_words_reach_on_the_last_state(lang):
    model, vocab, tr = notes()
    start = 1 if vocab.has_specials else 0
    reach = hd.first_word_reach(model, tr, start)
    assert reach == pytest.approx(autograd_reach(model, tr, start), rel=1e-9)
    assert 0 < reach < 1  # the notes model's first word fades
    m = num_model()
    tr2 = trace(m, [1, 4, 2, 7, 3, 5, 6, 8], [4, 2, 7, 3, 5, 6, 8, 1])
    assert hd.first_word_reach(m, tr2, 0) == pytest.approx(autograd_reach(m, tr2, 0), rel=1e-9)
    text = sections("hidden", lang)["summary"]
    assert "{reach}" in text and "(/gates#compare)" in text


def lstsq_residual(X, Y):
    A = np.hstack([X, np.ones((X.shape[0], 1))])
    B, *_ = np.linalg.lstsq(A, Y, rcond=None)
    return np.linalg.norm(Y - A @ B) / np.linalg.norm(Y - Y.mean(0))


@pytest.mark.parametrize("model_name", ("notes", "num"))
def test_best_affine_fit_of_h2(model_name):
    model = load_builtin("notes")[0].double() if model_name == "notes" else num_model()
    fit = hd.affine_fit_h2(model, torch.Generator().manual_seed(0), n=60)
    pairs = fit["pairs"].numpy()
    V, d = model.cfg.vocab_size, model.cfg.embed_dim
    assert fit["n"] == len(pairs) and fit["params"] == 2 * d + 1
    if V * V <= 60:
        assert sorted(map(tuple, pairs.tolist())) == [(i, j) for i in range(V) for j in range(V)]
    E = model.E.detach().double().numpy()
    X = np.hstack([E[pairs[:, 0]], E[pairs[:, 1]]])
    xs = torch.from_numpy(np.stack([E[pairs[:, 0]], E[pairs[:, 1]]], 1))  # (N, 2, d)
    for phi, key in (("tanh", "rel_phi"), ("linear", None)):
        m = hd.with_nonlinearity(model, phi) if phi == "linear" else model
        rnn = torch_rnn_like(m) if phi == "tanh" else None
        if rnn is not None:
            h2 = rnn.double()(xs)[0][:, 1].detach().numpy()
        else:  # torch.nn.RNN has no linear φ: the affine recurrence written out
            W_x, W_h, b = (p.detach().double().numpy() for p in (m.W_x, m.W_h, m.b_h))
            h2 = (E[pairs[:, 1]] @ W_x.T + (E[pairs[:, 0]] @ W_x.T + b) @ W_h.T + b)
        oracle = lstsq_residual(X, h2)
        if key:
            assert fit[key] == pytest.approx(oracle, rel=1e-6) and fit[key] > 1e-3
        else:
            assert oracle < 1e-12 and fit["rel_linear"] < 1e-12


@pytest.mark.parametrize("lang", LANGS)
def test_affine_fit_text(lang):
    text = sections("hidden", lang)["affine"]
    assert "{res}" in text and "{lin}" in text and "MLP" in text


def test_plain_subscripts():
    assert plain_math("h_{t-1}") == "hₜ₋₁" and plain_math("W_h h_{t-1} + b_h") == "Wₕ hₜ₋₁ + bₕ"
    assert sub(12) == "₁₂" and sub("T") == "₍T₎"
