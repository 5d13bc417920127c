"""Core functions of the embedding, hidden, output and BPTT pages on diverged models: they
return arrays that may hold NaN/inf (the lesson) and never raise. Oracles: the same functions
on finite inputs agree with LAPACK; NaN goes exactly where the inputs are not finite."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from rnnviz.engine import generation, jacobians
from rnnviz.engine.finite import norm2, spectral_radius
from rnnviz.engine.trace import trace
from rnnviz.errors import InputError
from rnnviz.explain import bptt as chains
from rnnviz.explain import embedding as emb
from rnnviz.explain import hidden as hd
from rnnviz.explain import output as out
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.diverged_models import MODELS, TEXT, VOCAB


@pytest.fixture(scope="module", params=list(MODELS))
def diverged(request):
    model = MODELS[request.param]()
    ids, tgts = lm_pair(list(prepare(TEXT, VOCAB).ids), VOCAB)
    return model, trace(model, ids, tgts)


def not_finite(x) -> bool:
    return not np.isfinite(np.asarray(x, dtype=float)).all()


def test_the_fixtures_really_diverge(diverged):
    _, tr = diverged
    assert not_finite(tr.h.numpy()) or not_finite(tr.loss_t.numpy())


def test_embedding_page_functions(diverged):
    model, _ = diverged
    E = model.E.detach()
    coords, share = emb.pca_2d(E)
    assert coords.shape == (len(VOCAB), 2) and share.shape == (2,)
    if not_finite(E.numpy()):
        assert torch.isnan(coords).all() and torch.isnan(share).all()
    emb.cosine_matrix(E)
    emb.nearest(E, 4)
    emb.row_cosines(E, E * 2)


def test_output_page_functions(diverged):
    model, tr = diverged
    labels = list(VOCAB.itos)
    out.step_view(tr, 0, labels)
    out.top_k(tr, 3)
    out.target_ranks(tr)
    out.sentence_rows(tr, VOCAB, 3, VOCAB.decode(tr.ids))
    w = out.worst_step(tr)
    loss = tr.loss_t.double().numpy()
    finite = tr.valid.numpy() & np.isfinite(loss)
    assert (w is None) == (not finite.any())
    if w is not None:
        assert loss[w] == loss[finite].max()
    for how in (generation.Sampling("greedy"), generation.Sampling("sample", 1.0, 0, 0, 5)):
        generation.generate(model, list(tr.ids[:2].tolist()), how, VOCAB.stoi["<eos>"])


def test_bptt_page_functions(diverged):
    model, tr = diverged
    J = jacobians.step_jacobians(model, tr)
    for ord_ in (2, "fro"):
        N = jacobians.jacobian_norms(model, tr, ord=ord_)
        assert N.shape == (tr.T, tr.T)
        chains.norm_vs_distance(N, J, model.W_h)
    jacobians.product_chain(J, tr.T - 1, 0)
    f = jacobians.jacobian_factors(model, tr, tr.T - 1)
    assert math.isnan(f["norm_J"]) == not_finite(f["J"].numpy())


def test_hidden_page_functions(diverged):
    model, tr = diverged
    hd.step_terms(model, tr, tr.T - 1)
    hd.saturation(tr.h)
    try:
        hd.pca_2d([tr.h.numpy()])
    except InputError as err:  # the page's own explained message, never a LinAlgError
        assert "NaN or inf" in str(err), err


def test_norm2_and_spectral_radius_match_lapack_and_mark_nan():
    torch.manual_seed(0)
    M = torch.randn(5, 4, 4, dtype=torch.float64)
    np.testing.assert_allclose(norm2(M).numpy(), np.linalg.norm(M.numpy(), ord=2, axis=(1, 2)))
    M[2, 1, 1] = float("inf")
    M[4, 0, 3] = float("nan")
    n = norm2(M)
    assert torch.isnan(n[[2, 4]]).all() and torch.isfinite(n[[0, 1, 3]]).all()
    W = torch.randn(4, 4, dtype=torch.float64)
    assert spectral_radius(W) == pytest.approx(np.abs(np.linalg.eigvals(W.numpy())).max())
    W[0, 0] = float("nan")
    assert math.isnan(spectral_radius(W))


def test_spectral_norms_batch_with_a_non_finite_matrix():
    torch.manual_seed(1)
    Q = torch.randn(4, 5, 5, dtype=torch.float64)
    Q[1] = float("inf")
    V = torch.randn(4, 5, 2, dtype=torch.float64)
    norms, _ = jacobians.spectral_norms(Q, V)
    # a matrix with inf entries gets what the Frobenius path gives (inf here), never an error
    assert norms[1] == torch.linalg.matrix_norm(Q[1]) == float("inf")
    keep = [0, 2, 3]
    np.testing.assert_allclose(norms[keep].numpy(),
                               np.linalg.norm(Q[keep].numpy(), ord=2, axis=(1, 2)), rtol=1e-5)
