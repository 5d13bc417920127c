"""One Jacobian cell opened (rnnviz.engine.cellpath): the product of the strip's factors equals
the cell, against autograd in float64 (the state at t replaced by a leaf through the per-call
hooks) and against the all-pairs map, for every cell type and both directions."""
from __future__ import annotations

import copy
import math

import pytest
import torch

from rnnviz.engine import cellpath
from rnnviz.engine.finite import spectral_radius
from rnnviz.engine.jacobians import backward_jacobian_norms, jacobian_norms, product_chain
from rnnviz.engine.jacwindow import jacobian_window
from rnnviz.engine.model import HookContext, RNNConfig, RNNModel
from rnnviz.engine.trace import trace

pytestmark = pytest.mark.core

CASES = [("elman", False), ("jordan", False), ("lstm", False), ("gru", False),
         ("elman", True), ("lstm", True), ("gru", True)]


def _model(cell: str, bi: bool, H: int = 4, seed: int = 0, gain: float = 2.0) -> RNNModel:
    m = RNNModel(RNNConfig(vocab_size=9, embed_dim=3, hidden_size=H, cell=cell, bidirectional=bi), seed=seed)
    with torch.no_grad():
        for name, p in m.named_parameters():
            if name.startswith("W_h") or name.startswith("W_y"):
                p.mul_(gain)  # away from the trivially contracting regime
    return copy.deepcopy(m).double().eval()


def autograd_cell(model: RNNModel, ids, s: int, t: int, direction: str) -> torch.Tensor:
    """d state_s / d state_t by autograd: the state at t (h, and c for an LSTM) replaced by a leaf
    through the per-call hooks, the state at s recorded. (S, S), float64."""
    suffix = "" if direction == "fwd" else "_rev"
    H, lstm = model.cfg.hidden_size, model.cfg.cell == "lstm"
    _, cache = model.run_with_cache(torch.as_tensor(ids))
    x0 = cache["hook_hidden" + suffix][t]
    if lstm:
        x0 = torch.cat([x0, cache["hook_cell" + suffix][t]])

    def f(leaf):
        seen = {}

        def put(part):
            return lambda x, step: part if step == t else None

        hooks = [("hook_hidden" + suffix, put(leaf[:H]))]
        if lstm:
            hooks.append(("hook_cell" + suffix, put(leaf[H:])))

        def record(name, x, step):
            if step == s and name in ("hook_hidden" + suffix, "hook_cell" + suffix):
                seen[name] = x

        model(torch.as_tensor(ids), HookContext(hooks, record))
        out = seen["hook_hidden" + suffix]
        return torch.cat([out, seen["hook_cell" + suffix]]) if lstm else out

    return torch.autograd.functional.jacobian(f, x0)


@pytest.mark.parametrize("cell,bi", CASES)
def test_strip_product_is_the_cell(cell, bi):
    model = _model(cell, bi)
    ids = [1, 4, 2, 7, 3, 8, 5, 6]
    tr = trace(model, ids)
    for direction in ("fwd", "bwd") if bi else ("fwd",):
        pairs = [(6, 1), (7, 0), (3, 2)] if direction == "fwd" else [(1, 6), (0, 7), (2, 3)]
        for s, t in pairs:
            oracle = autograd_cell(model, ids, s, t, direction)
            for ord_ in (2, "fro"):
                strip = cellpath.cell_strip(model, tr, s, t, direction, ord_)
                P = cellpath.strip_product(strip)
                assert torch.allclose(P, oracle, rtol=1e-9, atol=1e-12 * float(oracle.abs().max()))
                want = float(torch.linalg.matrix_norm(oracle, ord=2 if ord_ == 2 else "fro"))
                assert strip["value"] == pytest.approx(want, rel=1e-9)
                assert len(strip["rows"]) == abs(s - t)
                assert strip["rows"][-1]["log10"] == pytest.approx(math.log10(want), abs=1e-9)


@pytest.mark.parametrize("cell,bi", CASES)
def test_strip_equals_the_all_pairs_map(cell, bi):
    model = _model(cell, bi, seed=3)
    ids = [2, 5, 1, 1, 6, 3, 0, 4, 8]
    tr = trace(model, ids)
    for ord_ in (2, "fro"):
        N = jacobian_norms(model, tr, ord_)
        for s, t in [(8, 0), (5, 2), (4, 3)]:
            strip = cellpath.cell_strip(model, tr, s, t, "fwd", ord_)
            assert strip["value"] == pytest.approx(float(N[s, t]), rel=1e-6 if ord_ == 2 else 1e-9)
        if bi and cell == "elman":
            B = backward_jacobian_norms(model, tr, ord_)
            strip = cellpath.cell_strip(model, tr, 1, 7, "bwd", ord_)
            assert strip["value"] == pytest.approx(float(B[1, 7]), rel=1e-6 if ord_ == 2 else 1e-9)


def test_running_product_and_largest_drop():
    model = _model("elman", False, seed=1)
    ids = [1, 2, 3, 4, 5, 6, 7]
    tr = trace(model, ids)
    strip = cellpath.cell_strip(model, tr, 6, 0, "fwd", 2)
    J = cellpath.direction_jacobians(model, tr)
    P = torch.eye(4, dtype=torch.float64)
    logs = []
    for k in range(1, 7):
        P = J[k] @ P
        logs.append(math.log10(float(torch.linalg.matrix_norm(P, ord=2))))
    assert [r["log10"] for r in strip["rows"]] == pytest.approx(logs, abs=1e-6)  # certified to 1e-6
    assert strip["rows"][-1]["log10"] == pytest.approx(logs[-1], abs=1e-12)  # the cell: exact
    drops = [b - a for a, b in zip([0.0] + logs, logs)]
    assert strip["largest_drop"] == min(range(6), key=drops.__getitem__)
    slope = (1 - torch.tanh(tr.a.double()) ** 2).mean(1)
    assert [r["slope"] for r in strip["rows"]] == pytest.approx(slope[1:7].tolist())
    assert [r["factor"] for r in strip["rows"]] == pytest.approx(
        [float(torch.linalg.matrix_norm(J[k], ord=2)) for k in range(1, 7)], rel=1e-6)


def test_what_if_variants():
    model = _model("elman", False, seed=2)
    ids = [3, 1, 4, 1, 5, 2, 6]
    tr = trace(model, ids)
    W = model.W_h.detach()
    flat = cellpath.cell_strip(model, tr, 5, 1, unsaturated=True)
    assert torch.allclose(cellpath.strip_product(flat), torch.linalg.matrix_power(W, 4), rtol=1e-12)
    rho = spectral_radius(W)
    unit = cellpath.cell_strip(model, tr, 5, 1, unit_radius=True)
    plain = cellpath.cell_strip(model, tr, 5, 1)
    assert torch.allclose(cellpath.strip_product(unit), cellpath.strip_product(plain) / rho ** 4,
                          rtol=1e-10)
    both = cellpath.cell_strip(model, tr, 5, 1, unsaturated=True, unit_radius=True)
    assert torch.allclose(cellpath.strip_product(both), torch.linalg.matrix_power(W / rho, 4), rtol=1e-10)
    with pytest.raises(ValueError):
        cellpath.cell_strip(_model("gru", False), trace(_model("gru", False), ids), 5, 1, unit_radius=True)


def test_gated_no_saturation_uses_the_largest_slopes():
    """An LSTM whose gates sit at 1/2 and whose tanh arguments are 0 has sigma' = 1/4 and
    tanh' = 1 already: there "no saturation" changes nothing."""
    model = _model("lstm", False, seed=4)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    ids = [1, 2, 3, 4]
    tr = trace(model, ids)
    a = cellpath.cell_strip(model, tr, 3, 0)
    b = cellpath.cell_strip(model, tr, 3, 0, unsaturated=True)
    assert torch.allclose(cellpath.strip_product(a), cellpath.strip_product(b))
    model2 = _model("lstm", False, seed=4, gain=4.0)
    tr2 = trace(model2, ids)
    assert not torch.allclose(cellpath.direction_jacobians(model2, tr2),
                              cellpath.direction_jacobians(model2, tr2, unsaturated=True))


def test_one_cell_at_512_steps_outside_the_window():
    model = _model("elman", False, H=64, seed=5, gain=1.0)
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 9, (512,), generator=g).tolist()
    tr = trace(model, ids)
    win = jacobian_window(512, 64)
    assert not win.full  # the map is windowed at this size
    strip = cellpath.cell_strip(model, tr, 511, 0, "fwd", "fro")
    J = cellpath.direction_jacobians(model, tr)
    P, logs = torch.eye(64, dtype=torch.float64), 0.0
    for k in range(1, 512):  # the plain product, renormalised by hand every 64 steps
        P = J[k] @ P
        if k % 64 == 0:
            size = float(torch.linalg.matrix_norm(P))
            P, logs = P / size, logs + math.log10(size)
    assert strip["log10"] == pytest.approx(logs + math.log10(float(torch.linalg.matrix_norm(P))), abs=1e-9)
    near = cellpath.cell_strip(model, tr, 40, 30, "fwd", "fro")  # a short one: against product_chain
    want = float(torch.linalg.matrix_norm(product_chain(J, 40, 30)["product"]))
    assert near["value"] == pytest.approx(want, rel=1e-9)


def test_bad_cells_are_refused():
    model = _model("elman", False)
    tr = trace(model, [1, 2, 3])
    with pytest.raises(ValueError):
        cellpath.cell_strip(model, tr, 0, 2)
    with pytest.raises(ValueError):
        cellpath.cell_strip(model, tr, 2, 0, "bwd")


def _spectrum(S: int, sv: torch.Tensor, seed: int) -> torch.Tensor:
    """A (S, S) float64 matrix with singular values sv, random singular vectors."""
    g = torch.Generator().manual_seed(seed)
    U = torch.linalg.qr(torch.randn(S, S, dtype=torch.float64, generator=g)).Q
    V = torch.linalg.qr(torch.randn(S, S, dtype=torch.float64, generator=g)).Q
    return U @ torch.diag(sv) @ V.T


def test_lanczos_norms_against_matrix_norm():
    """The strip's spectral norms (Lanczos on Q^T Q as matrix-vector products, the exact value
    where the gap is too small) against torch.linalg.matrix_norm(ord=2): random, graded, nearly
    flat and exactly tied spectra, tiny and huge scales, zero and non-finite matrices."""
    S = 48
    g = torch.Generator().manual_seed(7)
    batch = [torch.randn(S, S, dtype=torch.float64, generator=g) for _ in range(3)]
    batch.append(_spectrum(S, 0.9 ** torch.arange(S, dtype=torch.float64), 1))  # graded
    batch.append(_spectrum(S, 1 - 1e-5 * torch.arange(S, dtype=torch.float64), 2))  # nearly flat
    batch.append(_spectrum(S, torch.tensor([3.0, 3.0] + [1.0] * (S - 2), dtype=torch.float64), 3))  # tied top
    batch.append(1e-200 * batch[0])
    batch.append(1e200 * batch[1])
    M = torch.stack(batch)
    norms = cellpath._Norms(2, S)
    got = norms(M)
    want = torch.linalg.matrix_norm(M, ord=2)
    assert torch.allclose(got, want, rtol=cellpath.SPECTRAL_TOL, atol=0)
    assert norms.exact >= 2  # the flat and the tied spectra had too small a gap: exact there
    assert norms.exact < len(batch)  # ... and Lanczos took the others
    tight = cellpath._Norms(2, S, cellpath.CELL_TOL)(M)
    assert torch.allclose(tight, want, rtol=1e-12, atol=0)
    odd = torch.stack([torch.zeros(S, S, dtype=torch.float64), torch.full((S, S), float("inf"), dtype=torch.float64)])
    out = cellpath._Norms(2, S)(odd)
    assert out[0] == 0 and math.isinf(out[1])


def test_lanczos_one_matrix_reports_when_it_cannot_accept():
    S = 32
    A = _spectrum(S, torch.ones(S, dtype=torch.float64), 4).numpy()  # every singular value 1: no gap
    v0 = torch.randn(S, dtype=torch.float64, generator=torch.Generator().manual_seed(0)).numpy()
    norm, _, _ = cellpath.lanczos_norm2(A, v0)
    assert norm is None
    B = _spectrum(S, 0.5 ** torch.arange(S, dtype=torch.float64), 5)
    norm, _, steps = cellpath.lanczos_norm2(B.numpy(), v0)
    assert norm == pytest.approx(float(torch.linalg.matrix_norm(B, ord=2)), rel=1e-9)
    assert steps < S


def test_a_strip_from_the_callers_step_jacobians_is_the_same_strip():
    """cell_strip(J=...) (the page passes the J it already has) gives the strip it computes itself;
    a what-if or the backward direction ignores the given J."""
    from rnnviz.engine.jacobians import step_jacobians

    model = _model("elman", True)
    tr = trace(model, torch.tensor([1, 2, 3, 4, 5, 6, 7]))
    J = step_jacobians(model, tr)
    for kw in ({}, {"unsaturated": True}):
        own, given = cellpath.cell_strip(model, tr, 5, 1, **kw), cellpath.cell_strip(model, tr, 5, 1, J=J, **kw)
        assert given["rows"] == own["rows"] and given["log10"] == own["log10"]
    wrong = 2 * J  # read for the forward direction; never for the backward one
    assert cellpath.cell_strip(model, tr, 5, 1, J=wrong)["log10"] != cellpath.cell_strip(model, tr, 5, 1)["log10"]
    assert cellpath.cell_strip(model, tr, 1, 5, "bwd", J=wrong)["rows"] == \
        cellpath.cell_strip(model, tr, 1, 5, "bwd")["rows"]
