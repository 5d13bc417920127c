"""Where the course notes are wrong: what they wrote, computed literally, next to the correct
form, so a page can say "the notes write ...; that would give ... because ...".

Why compute it: a learner who copies the notes' formula gets a number; showing that number
beside the right one (and by how much they differ) explains the error better than a remark.
Every function is pure and checked against autograd in tests/core/explain/test_formulas.py.
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from rnnviz.engine import gradcheck
from rnnviz.engine.finite import norm2, spectral_radius
from rnnviz.engine.jacobians import hand_bptt, jacobian_norms, output_error, step_jacobians
from rnnviz.engine.model import RNNModel, activation_slope
from rnnviz.engine.trace import Trace
from rnnviz.explain.hidden import SATURATION

# ---- note 002: the BPTT recursion ----------------------------------------------------------


def _recursion_dW_h(model: RNNModel, tr: Trace, literal: bool) -> torch.Tensor:
    """dL/dW_h from note 002's recursion, correct or as printed (tanh / relu / linear).

    The notes: delta_{h,t} = delta_{o,t} V^T + delta_{h,t+1} W^T diag(f'(h_{t+1})) and
    dL/dW = sum_t diag(f'(h_t)) delta_{h,t} h_{t-1}^T, where f'(h_t) is the notes' name for the
    slope at step t, phi'(a_t) (1 - h_t^2 for tanh): the app reads it so everywhere. The slip is
    the vector side. The second term conforms only as a row product, delta^T W^T diag(f');
    transposed to the notes' column convention it is diag(f') W delta: W where W^T belongs and
    the slope on the wrong side of it. The first term, delta_o V^T, conforms in neither reading
    ((K x 1)(H x K) or (1 x K)(H x K)); both variants use its right form V^T delta_o. (H, H)
    """
    with torch.no_grad():
        e = output_error(tr)  # (T, K)
        T, H = tr.h.shape
        slope = activation_slope(tr.a, model.cfg.nonlinearity)  # (T, H): phi'(a_t)
        W = model.W_h
        g = torch.zeros_like(tr.h)  # (T, H): delta_{h,t} = dL/dh_t (column vectors, as rows here)
        nxt = torch.zeros(H, dtype=tr.h.dtype)
        for t in range(T - 1, -1, -1):
            g[t] = model.W_o.T @ e[t]  # (H,) V^T delta_o
            if t + 1 < T:
                s_next = slope[t + 1]  # (H,)
                g[t] += s_next * (W @ nxt) if literal else W.T @ (s_next * nxt)
            nxt = g[t]
        h_prev = torch.cat([torch.zeros_like(tr.h[:1]), tr.h[:-1]])  # (T, H)
        return (slope * g).T @ h_prev  # sum_t diag(f'_t) delta_{h,t} h_{t-1}^T


def note002_recursion(model: RNNModel, tr: Trace) -> dict:
    """note 002's BPTT recursion read literally vs the correct one, on a unidirectional Elman
    model. Returns dW_h "correct" (hand BPTT, equal to autograd), "recursion" (the notes' own
    recursion with the vector side put right: equal to autograd, so the boxed formula and the
    reading f'(h_t) = phi'(a_t) are right), "literal" (its second term as printed, transposed
    to columns) (H, H), and the largest |entry| difference of each from autograd
    ("off_correct", "off_recursion", "off_literal")."""
    if model.cfg.cell != "elman" or model.cfg.bidirectional:
        raise ValueError("note 002's recursion is for a unidirectional Elman model")
    auto = tr.grads["W_h"]
    out = {"correct": hand_bptt(model, tr)["W_h"], "autograd": auto,
           "recursion": _recursion_dW_h(model, tr, False), "literal": _recursion_dW_h(model, tr, True)}
    for key in ("correct", "recursion", "literal"):
        out["off_" + key] = float((out[key] - auto).abs().max())
    return out


# ---- note 002: "eigenvalues > 1 explode" ---------------------------------------------------

def step_radii(J: torch.Tensor) -> torch.Tensor:
    """Spectral radius of each step Jacobian J[1:] (J[0] starts no product), (T-1,); a single 0
    for a one-step sentence. The "distance" section's rho_j is their mean. Non-finite J give NaN."""
    J = J.detach().double()[1:]  # (T-1, H, H)
    if J.shape[0] == 0:
        return torch.zeros(1, dtype=torch.float64)
    ok = torch.isfinite(J).all(dim=(1, 2))  # eigvals raises on inf / NaN
    out = torch.full((J.shape[0],), float("nan"), dtype=torch.float64)
    if bool(ok.any()):
        out[ok] = torch.linalg.eigvals(J[ok]).abs().amax(-1)
    return out


def note002_eigen_claim(model: RNNModel, tr: Trace, threshold: float = SATURATION, start: int = 0,
                        N: torch.Tensor | None = None, J: torch.Tensor | None = None) -> dict:
    """Does rho(W_h) decide how this model's gradients grow or shrink, as note 002 says
    ("eigenvalues above 1 explode, below 1 vanish")? The products are of the step Jacobians
    J_t = diag(phi'(a_t)) W_h, whose slopes shrink where units saturate or are off; and even for
    W_h alone, rho^n is only the long-run rate: a non-normal W_h has ||W_h^n||_2 > rho^n.

    Keys are the placeholders of prose/bptt.md "notes-eigen" / "notes-eigen-below": rho_w
    (spectral radius of W_h), norm_w = ||W_h||_2, norm_power = ||W_h^n||_2, rho_j / rho_j_max
    (mean / largest spectral radius of the J_t), saturated (share of slopes phi'(a_t) below
    slope_thr = 1 - thr^2: |h| > thr for tanh, a dead unit for ReLU, none for a linear RNN),
    peak (largest ||dh_s/dh_t||_2 over all pairs) at distance peak_d, n = T - 1 (the longest
    distance), last (the largest norm at distance n), rho_power = rho_w^n (what the notes'
    reading predicts), by_distance (the largest norm at each distance), and above_one
    (rho_w >= 1: the notes predict growth, else shrinking).
    start: only steps start..T-1 (a jacwindow.Window of a long sentence): the norms, the J_t
    and the distances are the window's, n = its number of steps - 1. N: jacobian_norms(model, tr,
    2, start=start) and J: step_jacobians(model, tr) (all T steps) if the caller has them already
    (the BPTT page computes each once)."""
    if model.cfg.cell != "elman":
        raise ValueError("the notes' claim is about W_h: an Elman model")
    H = model.cfg.hidden_size
    with torch.no_grad():
        W = model.W_h.detach().double()  # (H, H)
        rho_W = spectral_radius(W)
        J = (step_jacobians(model, tr) if J is None else J).double()[start:]  # (w, H, H)
        rho_J = step_radii(J)  # (w-1,)
        N = jacobian_norms(model, tr, 2, start=start) if N is None else N  # (w, w)
        T = N.shape[0]
        by_distance = [float(torch.diagonal(N, -d).max()) for d in range(1, T)]
        peak_d = int(torch.tensor(by_distance).argmax()) + 1 if by_distance else 0
        slope = activation_slope(tr.a[start:, :H].double(), model.cfg.nonlinearity)  # (w, H)
        norm_power = float(norm2(torch.linalg.matrix_power(W, T - 1)))  # NaN on a diverged model
    return {"rho_w": rho_W, "rho_j": float(rho_J.mean()), "rho_j_max": float(rho_J.max()),
            "saturated": float((slope < 1 - threshold ** 2).double().mean()), "thr": threshold,
            "slope_thr": 1 - threshold ** 2, "norm_w": float(norm2(W)),
            "norm_power": norm_power, "above_one": rho_W >= 1,
            "peak": max(by_distance) if by_distance else 1.0, "peak_d": peak_d, "n": T - 1,
            "by_distance": by_distance, "last": by_distance[-1] if by_distance else 1.0,
            "rho_power": rho_W ** (T - 1)}  # what rho(W_h)^(s-t) would predict at the longest distance


# ---- note 003: the gradient-check code -----------------------------------------------------

class NotesRNNCell(nn.Module):
    """note 003's RNNCellManual as printed: one nn.Linear over [x_t; h_{t-1}], tanh, output
    layer. Its parameters are float32 (nn.Linear's default), while the notes' x is float64."""

    def __init__(self, d_x: int, d_h: int, d_y: int, gen: torch.Generator):
        super().__init__()
        self.W = gradcheck.seeded_linear(d_x + d_h, d_h, gen)  # nn.Linear(..., bias=True), drawn from gen
        self.out = gradcheck.seeded_linear(d_h, d_y, gen)

    def forward(self, x, h=None):
        B, T, _ = x.shape
        h = torch.zeros(B, self.W.out_features, dtype=x.dtype) if h is None else h  # (B, H)
        hs = []
        for t in range(T):
            h = torch.tanh(self.W(torch.cat([x[:, t], h], dim=-1)))  # (B, H)
            hs.append(h)
        return self.out(torch.stack(hs, dim=1)), h  # (B, T, K), (B, H)


def note003_gradient_check(corrected: bool, seed: int = 0, steps: int = 4) -> dict:
    """Run note 003's gradient-check block: as printed (float32 model, float64 x: a dtype
    error) or corrected (the model in float64, `.double()`), where the autograd gradient is
    then checked against central finite differences (torch.autograd.gradcheck).
    Returns ok, error (the message, if it failed), gradcheck (bool), the loss, and the notes'
    own `assert torch.isfinite(g).all()` over autograd's gradients: finite (bool) and
    entries (how many gradient numbers it checked). The notes' torch.manual_seed(seed) becomes a
    torch.Generator seeded with it (the same draws)."""
    gen = torch.Generator().manual_seed(seed)
    B, T, d_x, d_h = 4, 32, 8, 16
    x = torch.randn(B, T, d_x, dtype=torch.float64, generator=gen)
    y = torch.randint(0, 3, (B, T), generator=gen)
    model = NotesRNNCell(d_x, d_h, 3, gen)
    if corrected:
        model = model.double()
    x_small = x[:, :steps].clone()
    try:
        logits, _ = model(x_small)
    except RuntimeError as err:
        return {"ok": False, "error": str(err).splitlines()[0], "gradcheck": False, "loss": None,
                "finite": False, "entries": 0}
    loss = F.cross_entropy(logits.reshape(-1, 3), y[:, :steps].reshape(-1))
    grads = torch.autograd.grad(loss, list(model.parameters()))  # the notes' line, then its assert
    finite = all(bool(torch.isfinite(g).all()) for g in grads)
    names = [n for n, _ in model.named_parameters()]
    leaves = tuple(p.detach().clone().requires_grad_(True) for p in model.parameters())

    def loss_of(*params):
        out = torch.func.functional_call(model, dict(zip(names, params)), (x_small,))[0]
        return F.cross_entropy(out.reshape(-1, 3), y[:, :steps].reshape(-1))

    passed = torch.autograd.gradcheck(loss_of, leaves, eps=1e-6, atol=1e-7, rtol=1e-5, raise_exception=False)
    return {"ok": True, "error": None, "gradcheck": bool(passed), "loss": float(loss.detach()),
            "finite": finite, "entries": sum(g.numel() for g in grads)}


# ---- note 003: "the first layer is farthest from the loss" ---------------------------------

def _last_loss_to_first_input(params: dict, x: torch.Tensor, y: torch.Tensor) -> float:
    """||dL_T/dx_1||: the last step's loss (summed over the batch) against the first input."""
    x = x.detach().clone().requires_grad_(True)
    _, z = gradcheck.forward(params, x)  # (B, T, K)
    last = F.cross_entropy(z[:, -1], y[:, -1], reduction="sum")
    (g,) = torch.autograd.grad(last, x)
    return float(g[:, 0].norm())


def note003_first_layer(Ts=gradcheck.NOTES_T_SWEEP, seed: int = 0) -> list[dict]:
    """note 003's sweep, taken apart. For each T: ||dL/dW_x|| with the notes' mean loss (it
    falls), with a sum over steps (it grows: more steps, more terms), and ||dL_T/dx_1||, the
    last loss's gradient to the first input: the long-range part that really vanishes."""
    params, x, y = gradcheck.notes_setting(seed)
    rows = []
    for T in Ts:
        xs, ys = x[:, :T], y[:, :T]
        mean = gradcheck.autograd_grads(params, xs, ys)["W_x"]  # (H, d)
        total = mean * (xs.shape[0] * T)  # the sum over B*T terms: mean times their count
        rows.append({"T": T, "mean": float(mean.norm()), "sum": float(total.norm()),
                     "long_range": _last_loss_to_first_input(params, xs, ys)})
    return rows


# ---- note 003: the 1e-7 "floor" -------------------------------------------------------------

def float32_floor() -> dict:
    """1e-7 is float32's relative precision (eps), not a smallest value: 1 + 1e-8 == 1 in
    float32, yet 1e-30 is stored to 7 digits; only below ~1.2e-38 (subnormal) and ~1.4e-45
    (zero) does the size itself run out. Keys are prose/bptt.md "notes-floor"'s placeholders
    (plus one_plus_1e-8_is_one)."""
    f = torch.finfo(torch.float32)
    one_plus = torch.tensor(1.0, dtype=torch.float32) + torch.tensor(1e-8, dtype=torch.float32)
    small = torch.tensor(1e-30, dtype=torch.float32)
    return {"eps": float(f.eps), "tiny": float(f.tiny), "subnormal": float(f.smallest_normal * f.eps),
            "one_plus_1e-8_is_one": bool(one_plus == 1), "small_stored": float(small),
            "small_err": abs(float(small) - 1e-30) / 1e-30}
