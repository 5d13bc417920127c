"""Gradient checking and clipping, as in note 003: central finite differences in float64
against autograd and against the hand BPTT recursion, the input-weight gradient norm for
growing T, and clip_grad_norm_ with one optimizer step with and without clipping.

The notes' setting is a batched RNN on continuous inputs (B=4, d_x=8, d_h=16, 3 classes,
a 4-step slice for the check); `notes_setting` rebuilds it from seed 0 in the notes' order (x, y,
then the combined nn.Linear W = [W_x W_h] and the output layer). The notes call
torch.manual_seed(0); here every draw comes from a torch.Generator passed in (the same numbers,
and a shared server's global generator is left alone).
"""
from __future__ import annotations

import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from rnnviz.engine.jacobians import hand_bptt
from rnnviz.engine.model import RNNModel
from rnnviz.engine.trace import trace
from rnnviz.errors import InputError

PARAMS = ("W_x", "W_h", "b_h", "W_o", "b_o")
PASS_MARK = 1e-6  # relative error below this in float64: the gradient is right
NOTES_T_SWEEP = (4, 8, 16, 32)


def seeded_linear(n_in: int, n_out: int, gen: torch.Generator) -> nn.Linear:
    """nn.Linear(n_in, n_out) initialised as nn.Linear.reset_parameters does (kaiming-uniform
    weight, uniform bias in +-1/sqrt(n_in)), every draw from `gen`: after torch.manual_seed(s),
    nn.Linear(...) gives the same weights as seeded_linear(..., torch.Generator().manual_seed(s))."""
    lin = nn.Linear(n_in, n_out, device="meta")  # no draw from the global generator, no storage
    # (not nn.utils.skip_init: its to_empty imports sympy, 0.3-0.5 s of page 4's first visit)
    lin.weight, lin.bias = nn.Parameter(torch.empty(n_out, n_in)), nn.Parameter(torch.empty(n_out))
    nn.init.kaiming_uniform_(lin.weight, a=math.sqrt(5), generator=gen)
    bound = 1 / math.sqrt(n_in) if n_in > 0 else 0.0
    nn.init.uniform_(lin.bias, -bound, bound, generator=gen)
    return lin


def notes_setting(seed: int = 0, B: int = 4, T: int = 32, d_x: int = 8, d_h: int = 16, K: int = 3,
                  gen: torch.Generator | None = None):
    """(params, x (B, T, d_x), y (B, T)) in float64, drawn in the notes' order from `gen`
    (a fresh generator seeded with `seed` if none is given)."""
    gen = torch.Generator().manual_seed(seed) if gen is None else gen
    x = torch.randn(B, T, d_x, dtype=torch.float64, generator=gen)
    y = torch.randint(0, K, (B, T), generator=gen)
    W, out = seeded_linear(d_x + d_h, d_h, gen), seeded_linear(d_h, K, gen)
    w = W.weight.detach().double()
    params = {"W_x": w[:, :d_x].clone(), "W_h": w[:, d_x:].clone(), "b_h": W.bias.detach().double(),
              "W_o": out.weight.detach().double(), "b_o": out.bias.detach().double()}
    return params, x, y


def forward(params: dict, x: torch.Tensor):
    """h (B, T, H) and logits (B, T, K) of the batched tanh RNN, h_0 = 0."""
    B, T, _ = x.shape
    h = x.new_zeros(B, params["W_h"].shape[0])  # (B, H)
    hs = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ params["W_x"].T + h @ params["W_h"].T + params["b_h"])  # (B, H)
        hs.append(h)
    hs = torch.stack(hs, 1)  # (B, T, H)
    return hs, hs @ params["W_o"].T + params["b_o"]  # (B, T, K)


def loss_fn(params: dict, x, y) -> torch.Tensor:
    """Mean cross-entropy over all B*T positions, as F.cross_entropy does by default."""
    _, z = forward(params, x)
    return F.cross_entropy(z.reshape(-1, z.shape[-1]), y.reshape(-1))


def autograd_grads(params: dict, x, y) -> dict:
    leaves = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
    g = torch.autograd.grad(loss_fn(leaves, x, y), list(leaves.values()))
    return dict(zip(leaves, g))


def hand_grads(params: dict, x, y) -> dict:
    """The notes' BPTT by hand, batched: e = (p - y)/(B T), delta_t = (1 - h_t^2) *
    (W_o^T e_t + W_h^T delta_{t+1}), dW_h = sum_t delta_t h_{t-1}^T, ..."""
    with torch.no_grad():
        h, z = forward(params, x)  # (B, T, H), (B, T, K)
        B, T, H = h.shape
        e = torch.softmax(z, -1) - F.one_hot(y, z.shape[-1]).to(z.dtype)  # (B, T, K)
        e = e / (B * T)
        delta = torch.zeros_like(h)
        nxt = h.new_zeros(B, H)
        for t in range(T - 1, -1, -1):
            delta[:, t] = (1 - h[:, t] ** 2) * (e[:, t] @ params["W_o"] + nxt @ params["W_h"])
            nxt = delta[:, t]
        h_prev = torch.cat([h.new_zeros(B, 1, H), h[:, :-1]], 1)  # (B, T, H)
        flat = lambda a: a.reshape(B * T, -1)  # noqa: E731
        return {"W_x": flat(delta).T @ flat(x), "W_h": flat(delta).T @ flat(h_prev),
                "b_h": flat(delta).sum(0), "W_o": flat(e).T @ flat(h), "b_o": flat(e).sum(0)}


def numerical_grads(params: dict, x, y, eps: float = 1e-6) -> dict:
    """Central differences (L(p + eps) - L(p - eps)) / (2 eps), one entry at a time."""
    out = {}
    with torch.no_grad():
        for name, p in params.items():
            g = torch.zeros_like(p)
            flat, gflat = p.view(-1), g.view(-1)
            for i in range(flat.numel()):
                keep = flat[i].item()
                flat[i] = keep + eps
                up = loss_fn(params, x, y).item()
                flat[i] = keep - eps
                down = loss_fn(params, x, y).item()
                flat[i] = keep
                gflat[i] = (up - down) / (2 * eps)
            out[name] = g
    return out


def relative_error(a: torch.Tensor, b: torch.Tensor) -> float:
    """||a - b|| / max(||a|| + ||b||, tiny): 0 when equal, about 1 when unrelated."""
    den = float(a.norm() + b.norm())
    return float((a - b).norm()) / den if den > 0 else 0.0


def gradient_check(params: dict, x, y, eps: float = 1e-6) -> list[dict]:
    """One row per parameter: numerical vs autograd and hand BPTT vs autograd, with a pass mark."""
    params = {k: v.detach().clone().double() for k, v in params.items()}
    auto, hand = autograd_grads(params, x, y), hand_grads(params, x, y)
    num = numerical_grads(params, x, y, eps)
    rows = []
    for name in params:
        err_num, err_hand = relative_error(num[name], auto[name]), relative_error(hand[name], auto[name])
        rows.append({"parameter": name, "shape": " x ".join(map(str, params[name].shape)),
                     "entries": params[name].numel(), "||autograd||": float(auto[name].norm()),
                     "max |numerical - autograd|": float((num[name] - auto[name]).abs().max()),
                     "rel. error numerical": err_num, "rel. error hand BPTT": err_hand,
                     "pass": bool(err_num < PASS_MARK and err_hand < PASS_MARK)})
    return rows


def input_weight_norms(params: dict, x, y, Ts=NOTES_T_SWEEP) -> list[dict]:
    """||dL/dW|| for the first T steps, W = [W_x W_h] as in the notes (and W_x alone)."""
    rows = []
    for T in Ts:
        if not 1 <= T <= x.shape[1]:
            raise InputError(f"T must be from 1 to {x.shape[1]}.")
        g = autograd_grads(params, x[:, :T], y[:, :T])
        rows.append({"T": T, "||dL/dW||, W = [W_x W_h]": float(torch.cat([g["W_x"], g["W_h"]], 1).norm()),
                     "||dL/dW_x||": float(g["W_x"].norm())})
    return rows


def model_gradient_check(model: RNNModel, ids, targets, eps: float = 1e-6, seed: int = 0) -> list[dict]:
    """The current model and sentence, in float64: for each parameter a random direction u,
    (L(theta + eps u) - L(theta - eps u)) / (2 eps) against <dL/dtheta, u> from autograd and
    from hand BPTT. Two forward passes per parameter instead of two per entry."""

    m = copy.deepcopy(model).double()
    tr = trace(m, ids, targets)
    hand = hand_bptt(m, tr)
    gen = torch.Generator().manual_seed(seed)
    rows = []
    for name, p in m.named_parameters():
        u = torch.randn(p.shape, dtype=torch.float64, generator=gen)
        u /= u.norm()
        with torch.no_grad():
            p.add_(eps * u)
            up = float(trace(m, ids, targets).loss)
            p.sub_(2 * eps * u)
            down = float(trace(m, ids, targets).loss)
            p.add_(eps * u)
        fd = (up - down) / (2 * eps)
        auto = float((tr.grads[name] * u).sum())
        by_hand = float((hand[name] * u).sum())
        err = abs(fd - auto) / max(abs(fd) + abs(auto), 1e-300)
        err_hand = abs(by_hand - auto) / max(abs(by_hand) + abs(auto), 1e-300)
        rows.append({"parameter": name, "shape": " x ".join(map(str, p.shape)),
                     "finite difference": fd, "autograd": auto, "hand BPTT": by_hand,
                     "rel. error numerical": err, "rel. error hand BPTT": err_hand,
                     "pass": bool(err < PASS_MARK and err_hand < PASS_MARK)})
    return rows


# ---- clipping ---------------------------------------------------------------------------

def clip_demo(grads: dict, max_norm: float) -> dict:
    """clip_grad_norm_ on copies of the gradients: the norm it returns (before clipping),
    the norm after, the cosine between before and after (1: direction unchanged), and
    was_clipped: whether it scaled anything (a norm at most max_norm is left as it is)."""
    if not (math.isfinite(max_norm) and max_norm > 0):
        raise InputError("max_norm must be a positive number.")
    ps = []
    for g in grads.values():
        p = nn.Parameter(torch.zeros_like(g))
        p.grad = g.detach().clone()
        ps.append(p)
    before = torch.cat([g.detach().reshape(-1) for g in grads.values()])
    returned = float(nn.utils.clip_grad_norm_(ps, max_norm=max_norm))
    after = torch.cat([p.grad.reshape(-1) for p in ps])
    cos = float(before @ after / (before.norm() * after.norm())) if before.norm() > 0 else 1.0
    return {"norm before": returned, "norm after": float(after.norm()),
            "scale": float(after.norm() / before.norm()) if before.norm() > 0 else 1.0,
            "cosine": cos, "was_clipped": bool(after.norm() < before.norm()),
            "clipped": {k: p.grad for k, p in zip(grads, ps)}}


def exploding_setting(scale: float = 6.0, seed: int = 0):
    """The notes' setting with W_h multiplied by `scale`: gradients over T = 32 blow up."""
    params, x, y = notes_setting(seed)
    params["W_h"] = params["W_h"] * scale
    return params, x, y


def sgd_step(params: dict, grads: dict, lr: float) -> dict:
    """theta - lr * g for each tensor: torch.optim.SGD's step without momentum, written out (the
    optimizer's first step imports torch._dynamo, about 3 s on a cold server; a test compares)."""
    with torch.no_grad():
        return {k: params[k].detach() - lr * grads[k].detach() for k in params}


def step_with_and_without_clipping(params: dict, x, y, max_norm: float, lr: float = 0.5) -> list[dict]:
    """One SGD step from the same point, unclipped and clipped: step size and loss after.
    (SGD, not Adam: Adam's first step is about lr * sign(g) whatever the gradient's size.)"""
    g = autograd_grads(params, x, y)
    loss0 = float(loss_fn(params, x, y))
    rows = []
    for label, grads in (("no clipping", g), (f"clip to {max_norm:g}", clip_demo(g, max_norm)["clipped"])):
        leaves = sgd_step(params, grads, lr)
        moved = torch.cat([(leaves[k] - params[k]).reshape(-1) for k in params])
        with torch.no_grad():
            used = float(torch.cat([v.reshape(-1) for v in grads.values()]).norm())
            rows.append({"update": label, "gradient norm used": used,
                         "step size ||delta theta||": float(moved.norm()), "loss before": loss0,
                         "loss after": float(loss_fn(leaves, x, y))})
    return rows
