"""Four slips of the notes that the app used to repeat without saying so, each with the number
that shows it (issue 26): word hashing is still sparse (note 004), a lookup costs O(d) per
token (004), dh_t/dW is a 3-tensor (002), and ||prod J_k||^(1/n) is a Lyapunov rate, not
Gelfand's rho(J) (003). Pure functions; tests/core/test_issue26_notes.py checks each against
numpy or autograd in float64.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from rnnviz.engine.finite import norm2, spectral_radius
from rnnviz.engine.jacobians import step_jacobians
from rnnviz.engine.model import RNNModel, activation_slope
from rnnviz.engine.trace import Trace
from rnnviz.explain.embedding import hash_signature
from rnnviz.explain.notes.errata import step_radii

# ---- note 004: "word hashing solved the sparsity problem" ----------------------------------


def hashing_nonzeros(words, buckets: int) -> dict:
    """Non-zero entries of each word's hashed vector (one per distinct bucket hit) out of
    `buckets`: note 004 says hashing "solved" sparsity, yet calls the result a low-dimensional
    *sparse* vector. rows [(word, non-zeros)], mean, largest and share = mean / buckets."""
    rows = [(w, len(hash_signature(w, buckets))) for w in words]
    counts = [n for _, n in rows] or [0]
    mean = float(np.mean(counts))
    return {"rows": rows, "buckets": buckets, "mean": mean, "max": max(counts),
            "share": mean / buckets, "zeros": buckets - mean}


# ---- note 004: "the lookup is O(1)" --------------------------------------------------------

def lookup_cost(E: torch.Tensor, ids) -> dict:
    """What E[id] really touches: finding the row is O(1), but copying it out reads d numbers,
    so a token costs O(d) and a sentence T d. The one-hot route, x E, costs V d multiply-adds a
    token. Counted from the tensors: the row's numel, the sentence's, the one-hot product's."""
    ids = torch.as_tensor(list(ids), dtype=torch.long)
    rows = E[ids]  # (T, d)
    V, d = E.shape
    return {"d": d, "V": V, "T": int(ids.numel()), "per_token": int(rows[0].numel()) if len(ids) else d,
            "per_sentence": int(rows.numel()), "onehot_per_token": V * d}


# ---- note 002: "dh_t/dW = diag(f'(h_t)) h_{t-1}^T" -----------------------------------------

def dh_dW(model: RNNModel, tr: Trace, t: int) -> dict:
    """The Jacobian of h_t with respect to W_h through step t alone (h_{t-1} held fixed), by
    autograd: shape (H, H, H), a 3-tensor, not the (H x H) matrix diag(f') h_{t-1}^T note 002
    writes. Its entries are f'_i [i = j] h_{t-1,k}: H*H of the H^3 can be non-zero. Contracted
    with a gradient g at h_t it gives diag(f') g h_{t-1}^T, so the boxed results stay right:
    "off" is the largest |difference|, for g = the trace's dL/dh_t."""
    x_t = tr.x[t].detach().double()
    h_prev = (tr.h[t - 1] if t > 0 else torch.zeros_like(tr.h[0])).detach().double()  # (H,)
    W_x, b = model.W_x.detach().double(), model.b_h.detach().double()
    nl = model.cfg.nonlinearity

    def h_of(W):  # (H,)
        a = W_x @ x_t + W @ h_prev + b
        return {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda v: v}[nl](a)

    J = torch.autograd.functional.jacobian(h_of, model.W_h.detach().double())  # (H, H, H)
    g = tr.grad_h[t].detach().double()  # (H,)
    slope = activation_slope(tr.a[t].detach().double(), nl)  # (H,)
    boxed = torch.outer(slope * g, h_prev)  # (H, H) diag(f') g h_{t-1}^T
    contracted = torch.einsum("i,ijk->jk", g, J)  # (H, H)
    return {"shape": tuple(J.shape), "nonzero": int((J != 0).sum()), "entries": J.numel(),
            "off": float((contracted - boxed).abs().max())}


# ---- note 003 (2): "||prod J_k||^(1/n) -> rho(J)" ------------------------------------------

def product_rate(model: RNNModel, tr: Trace, J: torch.Tensor | None = None) -> dict:
    """The measured growth rate of P_n = J_n ... J_1 (step Jacobians of this sentence, n up to
    T - 1): a least-squares line through log ||P_n||_2 against n, rate = exp(slope). For a fixed
    J Gelfand's formula gives rho(J); for J_k that change every step the limit is a Lyapunov
    exponent, which neither rho(W_h) nor the mean rho(J_t) equals. P_n is renormalised at each
    step (log norms summed), so a long sentence neither underflows nor overflows.
    Keys: n, rate, root (||P_n||^(1/n) at the end), rho_w, rho_j (mean), log_norms [(n, log)].
    J: step_jacobians(model, tr) if the caller has it already."""
    J = (step_jacobians(model, tr) if J is None else J).detach().double()  # (T, H, H)
    T, H = J.shape[0], J.shape[1]
    P, total, logs = torch.eye(H, dtype=torch.float64), 0.0, []
    for t in range(1, T):
        P = J[t] @ P  # (H, H)
        c = float(norm2(P))  # NaN where a diverged model made P non-finite: the fit stops there
        if not (c > 0 and math.isfinite(c)):
            break
        total += math.log(c)
        P = P / c
        logs.append((t, total))
    rho_w = spectral_radius(model.W_h.detach().double())
    rho_j = float(step_radii(J).mean())
    if len(logs) < 2:
        return {"n": len(logs), "rate": float("nan"), "root": float("nan"), "rho_w": rho_w, "rho_j": rho_j,
                "log_norms": logs}
    n, y = np.array([p[0] for p in logs], float), np.array([p[1] for p in logs])
    slope = float(np.polyfit(n, y, 1)[0])
    return {"n": int(n[-1]), "rate": math.exp(slope), "root": math.exp(y[-1] / n[-1]), "rho_w": rho_w,
            "rho_j": rho_j, "log_norms": logs}
