"""Property test (hypothesis): random small models of every kind (Elman / Jordan, tanh / relu /
linear, uni / bidirectional, float32 / float64, dead units, huge weights). For each: the trace
equals an independent reference forward and its autograd gradients, the step Jacobians equal
torch.autograd.functional.jacobian of the reference step, and both all-pairs norms equal plain
products' matrix_norm; inf / NaN never crash and the two norms agree on where they are."""
import math

import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rnnviz import RNNConfig, RNNModel
from rnnviz.conventions import IGNORE
from rnnviz.engine.jacobians import SPECTRAL_TOL, jacobian_norms, step_jacobians
from rnnviz.engine.trace import trace

PHI = {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda v: v}


@st.composite
def cases(draw):
    cell = draw(st.sampled_from(["elman", "jordan"]))
    nl = draw(st.sampled_from(["tanh", "relu", "linear"]))
    bi = cell == "elman" and draw(st.booleans())
    dtype = draw(st.sampled_from([torch.float32, torch.float64]))
    V, d, H = draw(st.integers(2, 7)), draw(st.integers(1, 3)), draw(st.integers(1, 5))
    T = draw(st.integers(1, 6))
    ids = draw(st.lists(st.integers(0, V - 1), min_size=T, max_size=T))
    scale = draw(st.sampled_from([0.1, 1.0, 3.0, 30.0, 1e20]))
    shift = draw(st.sampled_from([0.0, -1.0, -5.0]))  # b_h pushed down: dead ReLU units
    seed = draw(st.integers(0, 10_000))
    return cell, nl, bi, dtype, V, d, H, ids, scale, shift, seed


def build(cell, nl, bi, dtype, V, d, H, scale, shift, seed):
    m = RNNModel(RNNConfig(V, d, H, cell=cell, nonlinearity=nl, bidirectional=bi), seed=seed).to(dtype)
    with torch.no_grad():
        (m.W_h if cell == "elman" else m.W_y).mul_(scale)
        m.b_h.add_(shift)
    return m


def reference(m, ids, params):
    """An independent forward (float64 or the model's dtype), returning (a, h, z) fwd only."""
    cfg, phi = m.cfg, PHI[m.cfg.nonlinearity]
    x = params["E"][ids]  # (T, d)
    T, H = len(ids), cfg.hidden_size
    state = x.new_zeros(cfg.K if cfg.cell == "jordan" else H)
    hs, zs = [], []
    for t in range(T):
        rec = params["W_y"] @ state if cfg.cell == "jordan" else params["W_h"] @ state
        h = phi(params["W_x"] @ x[t] + rec + params["b_h"])  # (H,)
        hs.append(h)
        if cfg.cell == "jordan":
            z = params["W_o"] @ h + params["b_o"]
            zs.append(z)
            state = torch.softmax(z, -1)
        else:
            state = h
    h = torch.stack(hs)  # (T, H)
    if cfg.bidirectional:
        back, hb = x.new_zeros(H), [None] * T
        for t in range(T - 1, -1, -1):
            back = phi(params["W_x_rev"] @ x[t] + params["W_h_rev"] @ back + params["b_h_rev"])
            hb[t] = back
        h = torch.cat([h, torch.stack(hb)], -1)  # (T, 2H)
    z = torch.stack(zs) if cfg.cell == "jordan" else h @ params["W_o"].T + params["b_o"]
    return h, z


def step_fn(m, tr, t):
    """h_{t-1} -> h_t of the forward direction, written from the equations (not bptt)."""
    phi = PHI[m.cfg.nonlinearity]
    if m.cfg.cell == "elman":
        return lambda h: phi(m.W_x @ tr.x[t] + m.W_h @ h + m.b_h)
    H = m.cfg.hidden_size
    return lambda h: phi(m.W_x @ tr.x[t] + m.W_y @ torch.softmax(m.W_o[:, :H] @ h + m.b_o, -1) + m.b_h)


def exact_norms(J):
    J = J.double()
    T, H = J.shape[0], J.shape[1]
    fro = torch.full((T, T), math.nan, dtype=torch.float64)
    two = fro.clone()
    for t in range(T):
        P = torch.eye(H, dtype=torch.float64)
        fro[t, t], two[t, t] = H ** 0.5, 1.0
        for s in range(t + 1, T):
            P = J[s] @ P
            fro[s, t] = torch.linalg.matrix_norm(P)
            if bool(torch.isfinite(P).all()):
                two[s, t] = torch.linalg.matrix_norm(P, ord=2)
    return fro, two


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_random_models_against_autograd(case):
    cell, nl, bi, dtype, V, d, H, ids, scale, shift, seed = case
    m = build(cell, nl, bi, dtype, V, d, H, scale, shift, seed)
    tr = trace(m, ids)  # never raises, whatever the weights
    J = step_jacobians(m, tr)
    fro, two = jacobian_norms(m, tr, "fro"), jacobian_norms(m, tr, 2)  # never raise on inf / NaN
    assert torch.equal(torch.isnan(fro), torch.isnan(two)) and torch.equal(torch.isinf(fro), torch.isinf(two))

    finite = bool(torch.isfinite(tr.h).all() and torch.isfinite(tr.z).all() and torch.isfinite(J).all())
    tol = 1e-10 if dtype == torch.float64 else 2e-4
    if not finite or float(tr.h.abs().max()) > 1e6:
        event("exploded: no-crash check only")
        return  # exploded: the property is only "no crash, inf / NaN where Frobenius has them"

    # trace == an independent forward, and its gradients == autograd of that forward
    params = {k: p.detach().clone().requires_grad_(True) for k, p in m.named_parameters()}
    h, z = reference(m, torch.tensor(ids), params)
    torch.testing.assert_close(tr.h, h.detach(), rtol=tol, atol=tol)
    torch.testing.assert_close(tr.z, z.detach(), rtol=tol, atol=tol)
    targets = tr.targets
    if bool((targets != IGNORE).any()):
        loss = F.cross_entropy(z, targets, ignore_index=IGNORE, reduction="sum")
        grads = torch.autograd.grad(loss, list(params.values()), allow_unused=True)
        for (name, _), g in zip(params.items(), grads):
            if g is not None:
                scale_g = 1 + float(g.abs().max())
                torch.testing.assert_close(tr.grads[name], g, rtol=tol, atol=tol * scale_g)

    # step Jacobians == autograd of the step written from the equations
    Hh = m.cfg.hidden_size
    with torch.enable_grad():
        for t in range(1, tr.T):
            Ja = torch.autograd.functional.jacobian(step_fn(m, tr, t), tr.h[t - 1, :Hh].clone())
            torch.testing.assert_close(J[t], Ja.detach(), rtol=tol, atol=tol * (1 + float(Ja.abs().max())))

    event(f"checked against autograd: {nl}, {dtype}")
    # both norms == plain products of those Jacobians, float64
    ef, e2 = exact_norms(J)
    low = torch.tril(torch.ones(tr.T, tr.T, dtype=torch.bool))
    torch.testing.assert_close(fro[low], ef[low], rtol=1e-9, atol=1e-300, equal_nan=True)
    ok = low & torch.isfinite(e2)
    torch.testing.assert_close(two[ok], e2[ok], rtol=3 * SPECTRAL_TOL, atol=1e-300)
