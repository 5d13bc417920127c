"""One cell of the all-pairs map ||dh_s/dh_t||, opened: the factors J_s ... J_{t+1} between t and s.

Why one cell is cheap where the map is not: the map multiplies every pair (S^3 T^2 work, hence
jacwindow's windows); one cell multiplies only its own s - t factors (S^3 (s - t) work), so it is
exact at any T <= limits.MAX_JACOBIAN_T, inside or outside the window.

Per step k the strip shows ||J_k|| (spectral norms by Lanczos to a relative 1e-6, the cell
itself to 1e-13; the exact eigenvalue where the gap is too small), the mean slope that shrank
it (Elman / Jordan: mean phi'(a_k); LSTM: mean forget gate f_k, the carry of c; GRU: mean
update gate z_k, the carry of h) and the running product log10 ||J_k ... J_{t+1}||, whose
largest one-step fall is marked. The running product is renormalised at every step (its log
scale kept), so a product far below 1e-308 still has an exact log10.

Time is 0-based here, as in jacobians.py. direction "bwd" (a bidirectional model's right-to-left
half): the cell (s, t) has t > s and its factors are J<-_k = dh<-_k / dh<-_{k+1}, k = t-1 .. s.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from rnnviz import limits
from rnnviz.engine.cells import GATED
from rnnviz.engine.finite import spectral_radius
from rnnviz.engine.jacobians import SPECTRAL_TOL, exact_norm2, gated_jacobians, step_jacobians
from rnnviz.engine.model import RNNModel, activation_slope
from rnnviz.engine.trace import Trace
from rnnviz.errors import InputError

DIRECTIONS = ("fwd", "bwd")
_NORM_CHUNK = 64  # running products whose spectral norms are taken in one batch
CELL_TOL = 1e-13  # the clicked cell's own spectral norm: Lanczos residual, relative


def reading_order(tr: Trace, direction: str) -> list[int]:
    """Sentence positions in the order the direction reads them."""
    return list(range(tr.T)) if direction == "fwd" else list(range(tr.T - 1, -1, -1))


def direction_jacobians(model: RNNModel, tr: Trace, direction: str = "fwd", unsaturated: bool = False,
                        unit_radius: bool = False) -> torch.Tensor:
    """J in the direction's READING order, float64: row r = d state_r / d state_{r-1} of the r-th
    step read (r = 0: the first step, from the zero state). (T, S, S).

    unsaturated: every slope at its largest (phi' = 1; gated: tanh' = 1, sigma' = 1/4).
    unit_radius: W_h divided by its spectral radius rho(W_h) (Elman only), slopes kept."""
    cfg, H = model.cfg, model.cfg.hidden_size
    if direction not in DIRECTIONS:
        raise ValueError("direction must be 'fwd' or 'bwd'")
    if direction == "bwd" and not cfg.bidirectional:
        raise ValueError("only a bidirectional model has a backward direction")
    if unit_radius and cfg.cell != "elman":
        raise ValueError("rho(W_h) = 1 is defined for an Elman cell's square W_h")
    if direction == "fwd" and not (unsaturated or unit_radius):
        return step_jacobians(model, tr).to(torch.float64)
    half = slice(0, H) if direction == "fwd" else slice(H, 2 * H)
    order = reading_order(tr, direction)
    suffix = "" if direction == "fwd" else "_rev"
    with torch.no_grad():
        if cfg.cell in GATED:
            G = {k: v[order, half].double() for k, v in tr.gates.items()}  # (T, H) each, read order
            c = tr.c[order, half].double() if tr.c is not None else None
            return gated_jacobians(cfg.cell, G, tr.h[order, half].double(), c,
                                   getattr(model, "W_h" + suffix).double(),
                                   getattr(model, "b_h" + suffix).double(), unsaturated)
        slope = activation_slope(tr.a[order, half].double(), cfg.nonlinearity)  # (T, H)
        if unsaturated:
            slope = torch.ones_like(slope)
        if cfg.cell == "jordan":  # one direction only: reading order is sentence order
            return slope[:, :, None] * _jordan_feedback(model, tr)
        W = getattr(model, "W_h" + suffix).detach().double()  # (H, H)
        if unit_radius:
            rho = spectral_radius(W)
            W = W / rho if rho > 0 else W
        return slope[:, :, None] * W[None]  # (T, H, H)


def _jordan_feedback(model: RNNModel, tr: Trace) -> torch.Tensor:
    """M_t = W_y (diag(p) - p p^T) W_o with p = y_{t-1} (M_0 = 0): Jordan's J_t before the slopes."""
    H = model.cfg.hidden_size
    p_prev = torch.cat([torch.zeros_like(tr.p[:1]), tr.p[:-1]]).double()  # (T, K)
    soft = torch.diag_embed(p_prev) - p_prev[:, :, None] * p_prev[:, None, :]  # (T, K, K)
    M = model.W_y.detach().double() @ soft @ model.W_o.detach().double()[:, :H]  # (T, H, H)
    M[0] = 0
    return M


def mean_slopes(model: RNNModel, tr: Trace, direction: str = "fwd") -> torch.Tensor:
    """The mean slope of each step in sentence order: Elman / Jordan mean phi'(a_k); LSTM mean
    forget gate f_k; GRU mean update gate z_k (the share of h_{k-1} carried over). (T,)"""
    cfg, H = model.cfg, model.cfg.hidden_size
    half = slice(0, H) if direction == "fwd" else slice(H, 2 * H)
    if cfg.cell == "lstm":
        return tr.gates["f"][:, half].double().mean(1)
    if cfg.cell == "gru":
        return tr.gates["z"][:, half].double().mean(1)
    return activation_slope(tr.a[:, half].double(), cfg.nonlinearity).mean(1)


def slope_name(cell: str) -> str:
    """Which mean the strip's slope row is: 'phi', 'forget' (LSTM) or 'update' (GRU)."""
    return {"lstm": "forget", "gru": "update"}.get(cell, "phi")


GAP = 1e-3  # relative gap (theta_1 - theta_2) / theta_1 below which Lanczos hands over to the exact value
_LANCZOS_STEPS = 48  # most Krylov vectors per matrix before the exact fallback
_CHECK = 4  # steps between convergence checks (a small tridiagonal eigenproblem each)


def lanczos_norm2(Q: np.ndarray, v0: np.ndarray, tol: float = SPECTRAL_TOL,
                  steps: int = _LANCZOS_STEPS) -> tuple[float | None, np.ndarray, int]:
    """||Q||_2 of one (S, S) float64 matrix by Lanczos on A = Q^T Q, applied as matrix-vector
    products (Q v, then Q^T of that), never forming A; full reorthogonalisation.

    Accepted when the top Ritz value theta_1 has a residual r <= tol * theta_1 (then an eigenvalue
    of A lies within r of theta_1, so sqrt(theta_1) is within a relative tol / 2 of a singular
    value) and is separated from the next Ritz value by GAP * theta_1 (a second value next to
    the first is where Lanczos can mistake one for the other). Otherwise None: the caller takes
    the exact value. Returns (norm or None, the top Ritz vector: the next warm start, steps)."""
    S = Q.shape[0]
    m = min(steps, S)
    V = np.zeros((m + 1, S))
    V[0] = v0 / np.linalg.norm(v0)
    alpha, beta = np.zeros(m), np.zeros(m)
    Qt, y = Q.T, V[0]
    for j in range(m):
        w = Qt @ (Q @ V[j])  # A v_j
        alpha[j] = w @ V[j]
        basis = V[:j + 1]
        w -= (basis @ w) @ basis
        w -= (basis @ w) @ basis  # full reorthogonalisation, twice (Kahan)
        beta[j] = np.linalg.norm(w)
        V[j + 1] = w / max(beta[j], 1e-300)
        if (j + 1) % _CHECK and j + 1 < m:
            continue
        Tm = torch.diag(torch.from_numpy(alpha[:j + 1]))
        if j:
            off = torch.from_numpy(beta[:j])
            Tm += torch.diag(off, 1) + torch.diag(off, -1)
        ev, U = (x.numpy() for x in torch.linalg.eigh(Tm))  # small; torch keeps to one thread
        theta = float(ev[-1])
        y = U[:, -1] @ basis
        r = beta[j] * abs(U[-1, -1])
        gap = theta - (float(ev[-2]) if j else 0.0)
        if theta > 0 and r <= tol * theta and gap >= GAP * theta:
            return math.sqrt(theta), y, j + 1
    return None, y, m


class _Norms:
    """Norms of a stream of (n, S, S) batches: Frobenius, or spectral to a relative
    jacobians.SPECTRAL_TOL by Lanczos (lanczos_norm2) warm-started from the top right singular
    vector of the matrix before, which a running product J_k P keeps and which neighbouring
    factors nearly share, with a random part mixed in (so no direction is missing from the
    start); the exact value (exact_norm2) where the gap is too small to accept. S^2 work per
    Lanczos step against S^3 for the exact value."""

    def __init__(self, ord_, S: int, tol: float = SPECTRAL_TOL):
        self.ord_, self.tol = ord_, tol
        self.gen = torch.Generator().manual_seed(0)
        self.v = torch.randn(S, dtype=torch.float64, generator=self.gen).numpy()
        self.exact = self.steps = 0  # matrices that needed the exact value; Lanczos steps (tests, bench)

    def __call__(self, M: torch.Tensor) -> torch.Tensor:
        if self.ord_ != 2:
            return torch.linalg.matrix_norm(M)
        out = torch.linalg.vector_norm(M, dim=(1, 2))  # zero, inf and NaN keep their Frobenius value
        big = M.abs().amax(dim=(1, 2)).tolist()  # (n,): each matrix divided by its largest |entry|,
        noise = torch.randn(M.shape[0], M.shape[1], dtype=torch.float64, generator=self.gen).numpy()
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        finite = torch.isfinite(M).all(dim=(1, 2)).tolist()
        Ms, todo = M.numpy(), []
        for i, a in enumerate(big):  # so A = Q^T Q neither overflows nor underflows (1e-200 or 1e200)
            if not (finite[i] and a > 0):
                continue
            start = self.v / max(float(np.linalg.norm(self.v)), 1e-300) + 0.1 * noise[i]
            norm, self.v, n = lanczos_norm2(Ms[i] / a, start, self.tol)
            self.steps += n
            if norm is None:
                todo.append(i)
            else:
                out[i] = norm * a
        if todo:
            self.exact += len(todo)
            out[todo] = exact_norm2(M[todo])
        return out


def cell_strip(model: RNNModel, tr: Trace, s: int, t: int, direction: str = "fwd", ord_=2,
               unsaturated: bool = False, unit_radius: bool = False, J: torch.Tensor | None = None) -> dict:
    """The factor strip of the cell (s, t), 0-based sentence positions. J: the model's step
    Jacobians on tr (step_jacobians, (T, H, H)) when the caller has them; used for the forward
    direction without a what-if (else the factors are computed here).

    Returns {"rows": [{k, factor, slope, log10, drop}], "product" (S, S) = J_s ... J_{t+1}
    (float64, scaled by 10^-log10_scale), "log10" = log10 ||product|| (the cell), "value" (the
    cell's norm, 0 / inf when beyond float64), "largest_drop" (the row index of the largest
    one-step fall of log10, None when nothing falls), "start" = log10 ||I||}.
    """
    if ord_ not in (2, "fro"):
        raise ValueError("ord_ must be 2 or 'fro'")
    T = tr.T
    if T > limits.MAX_JACOBIAN_T:
        raise InputError(f"One Jacobian cell takes up to {limits.MAX_JACOBIAN_T} steps; "
                         f"this sentence has {T}.")
    if not (0 <= s < T and 0 <= t < T):
        raise ValueError("s and t must be positions of the sentence")
    if (direction == "fwd" and t >= s) or (direction == "bwd" and t <= s):
        raise ValueError("the cell needs t < s (forward) or t > s (backward)")
    plain = J is not None and direction == "fwd" and not (unsaturated or unit_radius)
    J = J.to(torch.float64) if plain else direction_jacobians(model, tr, direction, unsaturated, unit_radius)
    # J: (T, S, S) in reading order
    order = reading_order(tr, direction)
    rs, rt = order.index(s), order.index(t)  # reading positions, rt < rs
    factors = J[rt + 1:rs + 1]  # (n, S, S)
    S = J.shape[1]
    factor_norms = _Norms(ord_, J.shape[1])
    fnorm = torch.cat([factor_norms(factors[a:a + _NORM_CHUNK]) for a in range(0, len(factors), _NORM_CHUNK)]
                      ).tolist()
    slopes = mean_slopes(model, tr, direction)  # (T,) sentence order
    start = 0.0 if ord_ == 2 else 0.5 * math.log10(S)  # ||I||
    P, scale, logs = torch.eye(S, dtype=torch.float64), 0.0, []
    pending = []  # (scale, normalised P) waiting for one batched norm
    running = _Norms(ord_, S)
    for F in factors:
        P = F @ P  # (S, S)
        size = float(torch.linalg.matrix_norm(P))
        if size > 0 and math.isfinite(size):
            P, scale = P / size, scale + math.log10(size)
        pending.append((scale, P))
        if len(pending) == _NORM_CHUNK:
            logs += _flush(pending, running)
    logs += _flush(pending, running)
    if ord_ == 2:  # the cell itself to a relative 1e-13 (Lanczos again, the exact value if it cannot)
        cell_norm = _Norms(2, S, CELL_TOL)
        cell_norm.v = running.v  # the last running product's top vector: P's own
        logs[-1] = scale + math.log10(float(cell_norm(P[None])[0]))
    rows, prev = [], start
    for r, f, lg in zip(range(rt + 1, rs + 1), fnorm, logs):
        k = order[r]
        rows.append({"k": k, "factor": f, "slope": float(slopes[k]), "log10": lg, "drop": lg - prev})
        prev = lg
    drops = [row["drop"] for row in rows]
    worst = min(range(len(drops)), key=drops.__getitem__) if drops and min(drops) < 0 else None
    value = 10.0 ** logs[-1] if math.isfinite(logs[-1]) and abs(logs[-1]) < 308 else (
        0.0 if logs[-1] < 0 else math.inf)
    return {"rows": rows, "product": P, "log10_scale": scale, "log10": logs[-1], "value": value,
            "largest_drop": worst, "start": start, "S": S}


def _flush(pending: list, norms: _Norms) -> list[float]:
    """log10 of the running products' norms (their log scales added), then empty the list."""
    if not pending:
        return []
    scales = torch.tensor([sc for sc, _ in pending], dtype=torch.float64)
    sizes = norms(torch.stack([M for _, M in pending]))  # (n,)
    pending.clear()
    return (torch.log10(sizes) + scales).tolist()


def strip_product(strip: dict) -> torch.Tensor:
    """The product of the shown factors, J_s ... J_{t+1}, at its true scale. (S, S)"""
    return strip["product"] * 10.0 ** strip["log10_scale"]
