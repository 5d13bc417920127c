"""Backpropagation through time, made visible: step Jacobians, all-pairs Jacobian norms,
gradient flow from each loss to each step, and the notes' hand BPTT recursion.

Time is 0-based in code: J[t] = dh_t/dh_{t-1}, with h_{-1} the zero initial state
(the screen calls it J_{t+1} = dh_{t+1}/dh_t, t = 1..T). For a bidirectional
model everything here is about the forward direction (the first H units).
"""
from __future__ import annotations

import torch

from .model import IGNORE, RNNModel, activation_slope
from .trace import Trace


def output_error(tr: Trace) -> torch.Tensor:
    """dL_t/dz_t through the output only: (p_t - y_t), scaled for a mean, 0 where ignored. (T, K)"""
    valid = tr.valid
    y = torch.zeros_like(tr.p)
    y[valid, tr.targets[valid]] = 1.0
    err = (tr.p - y) * valid[:, None]
    if tr.reduction == "mean":
        err = err / valid.sum().clamp(min=1)
    return err


def step_jacobians(model: RNNModel, tr: Trace) -> torch.Tensor:
    """J[t] = dh_t/dh_{t-1}, (T, H, H).

    Elman: diag(phi'(a_t)) W_h. Jordan: h_{t-1} reaches a_t through y_{t-1} =
    softmax(W_o h_{t-1} + b_o), so J[t] = diag(phi'(a_t)) W_y (diag(p) - p p^T) W_o,
    and J[0] = 0 (y_0 is a constant zero, not computed from h_0).
    """
    H = model.cfg.hidden_size
    with torch.no_grad():
        slope = activation_slope(tr.a[:, :H], model.cfg.nonlinearity)  # (T, H)
        if model.cfg.cell == "elman":
            return slope[:, :, None] * model.W_h[None]  # (T, H, H)
        p_prev = torch.cat([torch.zeros_like(tr.p[:1]), tr.p[:-1]])  # (T, K), row 0 unused
        soft = torch.diag_embed(p_prev) - p_prev[:, :, None] * p_prev[:, None, :]  # (T, K, K)
        J = slope[:, :, None] * (model.W_y @ soft @ model.W_o[:, :H])  # (T, H, H)
        J[0] = 0
        return J


def jacobian_norms(model: RNNModel, tr: Trace, ord="fro", progress=None) -> torch.Tensor:
    """N[s, t] = ||dh_s/dh_t|| for t <= s (diagonal ||I||, above it NaN), float64, (T, T).

    Products are built incrementally: P_{s,t} = J_s P_{s-1,t} for all t at once.
    ord: "fro" (exact) or 2 (spectral).
    """
    if ord not in ("fro", 2):
        raise ValueError("ord must be 'fro' or 2")
    J = step_jacobians(model, tr).double()  # (T, H, H)
    T, H = J.shape[0], J.shape[1]
    out = torch.full((T, T), float("nan"), dtype=torch.float64)
    eye = torch.eye(H, dtype=torch.float64)[None]  # (1, H, H)
    P = eye[:0]  # (0, H, H): dh_{s-1}/dh_t for t < s
    for s in range(T):
        P = torch.cat([J[s] @ P, eye])  # (s+1, H, H): dh_s/dh_t, t = 0..s
        out[s, : s + 1] = torch.linalg.matrix_norm(P, ord=ord)
        if progress is not None:
            progress(s + 1, T)
    return out


def loss_to_state_grads(model: RNNModel, tr: Trace) -> torch.Tensor:
    """G[s, t] = dL_s/dh_t as vectors, (T, T, H); zero for t > s (no path back in time).

    Summing over s gives the total dL/dh_t of a unidirectional model (tr.grad_h).
    """
    H = model.cfg.hidden_size
    J = step_jacobians(model, tr)  # (T, H, H)
    direct = output_error(tr) @ model.W_o[:, :H].detach()  # (T, H): W_o^T e_s, as rows
    T = tr.T
    G = torch.zeros(T, T, H, dtype=direct.dtype)
    for s in range(T):
        g = direct[s]
        for t in range(s, -1, -1):
            G[s, t] = g
            g = g @ J[t]  # row form of J_t^T g
    return G


def gradient_flow(model: RNNModel, tr: Trace) -> torch.Tensor:
    """F[s, t] = ||dL_s/dh_t|| for t <= s, NaN above the diagonal. (T, T)"""
    G = loss_to_state_grads(model, tr)
    norms = G.norm(dim=-1)
    upper = torch.triu(torch.ones_like(norms, dtype=torch.bool), diagonal=1)
    return norms.masked_fill(upper, float("nan"))


def hand_bptt(model: RNNModel, tr: Trace) -> dict:
    """The notes' recursion for a unidirectional Elman model, written out by hand.

    e_t = dL_t/dz_t, delta_t = phi'(a_t) * (W_o^T e_t + W_h^T delta_{t+1});
    dW_h = sum_t delta_t h_{t-1}^T, dW_x = sum_t delta_t x_t^T, db_h = sum_t delta_t,
    dW_o = sum_t e_t h_t^T, db_o = sum_t e_t, dE[id_t] += W_x^T delta_t.
    Returns the parameter gradients and "delta" (T, H).
    """
    if model.cfg.cell != "elman" or model.cfg.bidirectional:
        raise ValueError("hand_bptt follows the notes: a unidirectional Elman model")
    with torch.no_grad():
        e = output_error(tr)  # (T, K)
        slope = activation_slope(tr.a, model.cfg.nonlinearity)  # (T, H)
        T, H = tr.h.shape
        delta = torch.zeros_like(tr.h)
        nxt = torch.zeros(H, dtype=tr.h.dtype)
        for t in range(T - 1, -1, -1):
            delta[t] = slope[t] * (e[t] @ model.W_o + nxt @ model.W_h)  # (H,)
            nxt = delta[t]
        h_prev = torch.cat([torch.zeros_like(tr.h[:1]), tr.h[:-1]])  # (T, H)
        dE = torch.zeros_like(model.E)
        dE.index_add_(0, tr.ids, delta @ model.W_x)  # (T, d) rows added per id
        return {"E": dE, "W_x": delta.T @ tr.x, "W_h": delta.T @ h_prev, "b_h": delta.sum(0),
                "W_o": e.T @ tr.h, "b_o": e.sum(0), "delta": delta}
