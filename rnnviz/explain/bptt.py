"""Vanishing and exploding gradients as products of many factors: the notes' scalar chains,
norm against distance with its bound, the long-range example, float32 vs float64, the W_h
scale factor, and the "try it by hand" scalar chain.

Everything is a product: dh_s/dh_t = J_s ... J_{t+1}, n = s - t factors. In the scalar
case each factor is w * phi'(a_k), so the product is w^n times the local slopes.
"""
from __future__ import annotations

import copy
import math
import random

import numpy as np
import torch

from rnnviz.engine.finite import norm2, spectral_radius
from rnnviz.engine.jacobians import output_error, state_grad_sources
from rnnviz.engine.model import activation_slope
from rnnviz.errors import InputError
from rnnviz.explain.exercises.checker import first_slip, verdict
from rnnviz.explain.exercises.verdict import Verdict
from rnnviz.explain.notes.errata import step_radii
from rnnviz.formatting import plain_math

# The notes' scalar chains (w, n): 0.5^3 = 0.125, 0.5^10 ~ 0.00098, 2^10 = 1024, 0.2^5 = 0.00032.
SCALAR_PRESETS = {"w = 0.5, 3 steps": (0.5, 3), "w = 0.5, 10 steps": (0.5, 10),
                  "w = 2, 10 steps": (2.0, 10), "w = 0.2, 5 steps": (0.2, 5)}
LONG_RANGE = {"start": 5, "end": 200, "rhos": (0.9, 1.1)}  # note 003: 195 factors
FLOAT32_SMALLEST_NORMAL = float(torch.finfo(torch.float32).tiny)  # ~1.18e-38
FLOAT32_MAX = float(torch.finfo(torch.float32).max)  # ~3.40e38
FLOAT32_EPS = float(torch.finfo(torch.float32).eps)  # ~1.19e-7: note 003's 精度地板 (precision floor)
PRACTICAL_FLOOR = 1e-7
MAX_CHAIN = 2000  # factors in one chain on screen


def scalar_chain(w: float, n: int, slopes=None) -> np.ndarray:
    """Running products of n scalar factors w * slope_k, float64: [1, f1, f1 f2, ...], (n+1,)."""
    _check_n(n)
    slopes = np.ones(n) if slopes is None else np.asarray(slopes, dtype=np.float64)
    if slopes.shape != (n,):
        raise InputError(f"Give exactly {n} local derivatives.")
    return np.concatenate([[1.0], np.cumprod(w * slopes)])


SCALAR_INPUT = 0.5  # the scalar tanh RNN's constant input u: h_k = tanh(w h_{k-1} + u), h_0 = 0


def scalar_tanh_products(w: float, n: int, u: float = SCALAR_INPUT, h0: float = 0.0) -> dict:
    """The scalar tanh RNN h_k = tanh(w h_{k-1} + u) run n steps from h0, float64: its gradient
    product dh_k/dh_0 = prod_{j<=k} w (1 - h_j^2) for k = 0..n (products (n+1,)), beside the
    closed-form bound |w|^k (bound (n+1,)): every slope 1 - h^2 is at most 1, so
    |product| <= |w|^k, and it falls far below when the state saturates. h: h_1..h_n (n,)."""
    _check_n(n)
    h, hs = float(h0), []
    for _ in range(n):
        h = math.tanh(w * h + u)
        hs.append(h)
    hs = np.asarray(hs, dtype=np.float64)
    products = np.concatenate([[1.0], np.cumprod(w * (1 - hs ** 2))])
    return {"products": products, "bound": np.abs(float(w)) ** np.arange(n + 1, dtype=np.float64),
            "h": hs, "u": u}


def _check_n(n: int) -> None:
    if not (isinstance(n, (int, np.integer)) and 0 <= n <= MAX_CHAIN):
        raise InputError(f"The number of steps must be a whole number from 0 to {MAX_CHAIN}.")


def long_range(rho: float, start: int = LONG_RANGE["start"], end: int = LONG_RANGE["end"]) -> dict:
    """The factor rho^(end - start) that a signal from step `start` keeps at step `end`."""
    n = end - start
    return {"rho": rho, "n": n, "factor": float(np.float64(rho) ** n),
            "log10": n * math.log10(rho) if rho > 0 else -math.inf}


def norm_vs_distance(N: torch.Tensor, J: torch.Tensor, W_h: torch.Tensor | None = None) -> dict:
    """Per distance d = s - t: the smallest, median and largest ||dh_s/dh_t|| over all t,
    the bound (max_k ||J_k||_2)^d, and rho^d with rho the spectral radius of W_h.

    N (T, T) all-pair norms (spectral for the bound to hold); J (T, H, H) step Jacobians
    (J[0] is not part of any product, so it is left out of the max).
    """
    N = N.detach().double()
    T = N.shape[0]
    d = np.arange(T)
    diag = [torch.diagonal(N, -k).numpy() for k in d]  # N[t + k, t], t = 0..T-1-k
    lo = np.array([v.min() for v in diag])
    mid = np.array([np.median(v) for v in diag])
    hi = np.array([v.max() for v in diag])
    used = J[1:].detach().double()
    max_j = float(norm2(used).max()) if used.shape[0] else 0.0
    with np.errstate(over="ignore", under="ignore"):
        bound = np.float64(max_j) ** d
        rho = spectral_radius(W_h.detach().double()) if W_h is not None else None
        rho_line = np.float64(rho) ** d if rho is not None else None
    return {"d": d, "min": lo, "median": mid, "max": hi, "max_J": max_j, "bound": bound,
            "rho": rho, "rho_line": rho_line}


def precision_chain(w: float, n: int) -> dict:
    """w^k for k = 0..n multiplied step by step in float32 and in float64, and where float32
    goes wrong: the first k below the smallest normal (~1.2e-38), equal to 0, or inf,
    and the first k below float32's eps ~1e-7 (note 003's 精度地板)."""
    _check_n(n)
    p32 = _stepwise(w, n, np.float32).astype(np.float64)  # (n+1,) float32 values, shown exactly
    p64 = _stepwise(w, n, np.float64)  # (n+1,)
    a32 = np.abs(p32)

    def first(mask):
        idx = np.flatnonzero(mask)
        return int(idx[0]) if idx.size else None

    return {"k": np.arange(n + 1), "float32": p32, "float64": p64,
            "subnormal": first((a32 < FLOAT32_SMALLEST_NORMAL) & (a32 > 0)),
            "zero": first(a32 == 0), "inf": first(np.isinf(a32)),
            "floor": first(np.abs(p64) < PRACTICAL_FLOOR)}


def _stepwise(w: float, n: int, dtype) -> np.ndarray:
    """[1, w, w*w, ...] with every product rounded to `dtype`, one multiplication per step.

    Why a loop: torch.cumprod on CPU accumulates float32 in double and rounds only the
    output, so its "float32" column reached 0 where real float32 arithmetic stays at the
    smallest subnormal (0.9 x 1.4e-45 rounds back up to 1.4e-45)."""
    out = np.empty(n + 1, dtype=dtype)
    out[0] = 1
    factor = dtype(w)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for k in range(n):
            out[k + 1] = out[k] * factor  # a dtype x dtype product: rounded like the hardware does
    return out


def nan_examples(w_big: float, n: int) -> list[dict]:
    """How inf turns into NaN in float32: two exploding paths of opposite sign summed
    (inf - inf), and an exploding path times a vanished one (0 x inf). float64 alongside."""
    _check_n(n)
    rows = []
    for dtype in (torch.float32, torch.float64):
        big = torch.tensor(w_big, dtype=dtype) ** n
        small = torch.tensor(1 / w_big, dtype=dtype) ** n
        rows.append({"dtype": str(dtype).removeprefix("torch."), "w^n": float(big),
                     "(1/w)^n": float(small), "w^n - w^n": float(big - big),
                     "(1/w)^n x w^n": float(small * big)})
    return rows


def scaled_model(model, factor: float):
    """A deepcopy with W_h multiplied by factor (the shared model is never touched)."""
    if not (math.isfinite(factor) and 0 <= factor <= 100):
        raise InputError("The W_h scale factor must be between 0 and 100.")
    out = copy.deepcopy(model)
    with torch.no_grad():
        out.W_h.mul_(factor)
    return out


# ---- try it by hand ------------------------------------------------------------------

def chain_exercise(seed: int) -> dict:
    """A fresh scalar chain: weight w, n steps, and the local tanh slopes phi'(a_k)."""
    rng = random.Random(seed)
    w = rng.choice([0.5, 0.8, 1.5, 2.0, 3.0, -0.5, -2.0])
    n = rng.randint(2, 4)
    slopes = [round(rng.uniform(0.3, 1.0), 1) for _ in range(n)]
    return {"w": w, "n": n, "slopes": slopes, "answer": float(scalar_chain(w, n, slopes)[-1])}


def check_chain(ex: dict, answer: float, rel: float = 1e-3) -> Verdict:
    """Is the learner's product right? If not, name the likely slip (a Verdict: unpacks as
    (ok, message) for old callers; its solution is the worked product). hint_key / values
    name the same message in the page's catalogue (bptt.hint.<slip>), for other languages."""
    w, n, slopes, right = ex["w"], ex["n"], ex["slopes"], ex["answer"]
    w_text = f"(−{-w:g})" if w < 0 else f"{w:g}"  # (−2)³, not -2.0^3 = -(2^3)
    power = plain_math(f"{w_text}^{n}")
    solution = f"{power} × {' × '.join(map(str, slopes))} = {right:.6g}"
    if answer is None or not math.isfinite(answer):
        return verdict(False, "nan", CHAIN_HINTS, "bptt.hint.", solution=solution)

    def near(v):
        return abs(answer - v) <= rel * max(abs(v), 1e-12)

    if near(right):
        values = {"power": power, "slopes": " × ".join(map(str, slopes)), "right": f"{right:.6g}"}
        return verdict(True, "right", CHAIN_HINTS, "bptt.hint.", values, solution)
    missing = n > 1 and (near(right / (w * slopes[-1])) or near(right / (w * slopes[0])))
    slips = ((near(-right), "sign"), (near(w ** n), "w_only"), (near(float(np.prod(slopes))), "slopes_only"),
             (near(sum(w * s for s in slopes)), "added"), (missing, "missing"), (near(w * n), "w_times_n"))
    key = first_slip(slips, "other")
    return verdict(False, key, CHAIN_HINTS, "bptt.hint.", {"n": n}, solution)


# slip -> English message (the catalogue's bptt.hint.<slip> says the same in each language)
CHAIN_HINTS = {
    "nan": "Type a number.",
    "right": "Right: {power} × {slopes} = {right}.",
    "sign": "The size is right but the sign is wrong: count the negative factors.",
    "w_only": "That is w^n alone: each step also multiplies by its local slope φ'(aₖ).",
    "slopes_only": "That is the product of the slopes alone: each step also multiplies by w.",
    "added": "You added the factors; the chain rule multiplies them.",
    "missing": "One factor is missing: there are {n} steps, so {n} factors w · φ'.",
    "w_times_n": "w × n is a sum; the chain is a product w^n (times the slopes).",
    "other": "Not quite: multiply the {n} factors w · φ'(aₖ) one after another.",
}


# ---- the W_h scale's live verdict (page 4, next to "Scale W_h by") ---------------------------

SCALE_PRESETS = {"vanish": 0.5, "neutral": 1.0, "explode": 3.0}  # preset name -> W_h factor
GROWTH_BAND = 1.25  # a factor within [0.8, 1.25] over the sentence "stays near"; x0.41 shrinks


def growth_verdict(N: torch.Tensor) -> dict:
    """How much a gradient grows or shrinks over the sentence's longest distance n = T - 1:
    the largest ||dh_s/dh_t|| at that distance (N (T, T), NaN above the diagonal). kind is
    "grows" (factor > GROWTH_BAND), "shrinks" (< 1/GROWTH_BAND) or "neutral"; a one-step
    sentence has n = 0, factor 1. Why: the page says "grows x386 over 5 steps" in words, next
    to the slider, so a learner sees the regime without reading the chart."""
    N = N.detach().double()
    n = N.shape[0] - 1
    factor = float(torch.diagonal(N, -n).max()) if n > 0 else 1.0
    if not math.isfinite(factor) or factor > GROWTH_BAND:
        kind = "grows"
    elif factor < 1 / GROWTH_BAND:
        kind = "shrinks"
    else:
        kind = "neutral"
    return {"n": n, "factor": factor, "kind": kind}


def grad_sources(G: torch.Tensor, tr, t: int) -> dict:
    """jacobians.state_grad_sources at step t (0-based) of G = loss_to_state_grads (T, T, H), with
    "none_norm" = ||dL_1/dh_2||: a loss never reaches a later state (0, shown as a check)."""
    src = state_grad_sources(G, tr, t)
    src["none_norm"] = float(G[0, 1].norm()) if tr.T > 1 else 0.0
    return src


def distance_summary(N: torch.Tensor, J: torch.Tensor, W_h: torch.Tensor | None) -> dict:
    """norm_vs_distance(N, J, W_h) on a window's (w, w) spectral norms and (w, S, S) step
    Jacobians, with "rho_j": the mean spectral radius of those step Jacobians."""
    dist = norm_vs_distance(N, J, W_h)
    dist["rho_j"] = float(step_radii(J).mean())
    return dist


# ---- "don't double-count" (note 000, section 12) ---------------------------------------------

def double_counted(model, tr) -> dict:
    """dL/dW_h = sum_t delta_t h_{t-1}^T, where delta_t already holds every later loss. The
    slip note 000 warns about: adding the later losses' paths again, i.e. using
    dL/dh_t + (dL/dh_t - W_o^T e_t) (the later part counted twice). Returns "right" and
    "wrong" (H, H) and their largest |difference| from autograd ("off_right", "off_wrong"),
    and "rel" = ||wrong - autograd|| / ||autograd||."""
    with torch.no_grad():
        direct = output_error(tr) @ model.W_o  # (T, H): W_o^T e_t, this step's own loss
        slope = activation_slope(tr.a, model.cfg.nonlinearity)  # (T, H)
        h_prev = torch.cat([torch.zeros_like(tr.h[:1]), tr.h[:-1]])  # (T, H)
        right = (slope * tr.grad_h).T @ h_prev  # (H, H)
        wrong = (slope * (2 * tr.grad_h - direct)).T @ h_prev  # (H, H): later losses twice
        auto = tr.grads["W_h"]
    return {"right": right, "wrong": wrong, "off_right": float((right - auto).abs().max()),
            "off_wrong": float((wrong - auto).abs().max()),
            "rel": float((wrong - auto).norm() / auto.norm()) if float(auto.norm()) > 0 else 0.0}


# ---- the numbers the page's prose and tables quote (the page does no maths) -------------------

def slope_range(slope: torch.Tensor) -> tuple[float, float]:
    """(min, max) of the local slopes phi'(a_t) at one step."""
    return float(slope.min()), float(slope.max())


def map_counts(N: torch.Tensor) -> dict:
    """How many cells of a norm map are exactly 0 and how many are inf (NaN above the diagonal
    counts as neither)."""
    Nn = N.numpy()
    return {"zeros": int((Nn == 0).sum()), "infs": int(np.isinf(Nn).sum())}


def paths_norms(src: dict, grad_h_t: torch.Tensor) -> dict:
    """||dL_t/dh_t|| (the direct part, when step t has a loss) and ||dL/dh_t|| (every source)."""
    return {"direct": float(src["parts"][0].norm()) if src["has_direct"] else None,
            "total": float(grad_h_t.norm())}


def recursion_rows(ds: dict) -> list[dict]:
    """delta_steps as rows from the last step back: step (0-based), ||W_o^T e_t||,
    ||W_h^T delta_{t+1}||, the mean slope and ||delta_t||."""
    T = ds["delta"].shape[0]
    return [{"step": k, "own": float(ds["from_output"][k].norm()), "later": float(ds["from_later"][k].norm()),
             "slope": float(ds["slope"][k].mean()), "delta": float(ds["delta"][k].norm())}
            for k in range(T - 1, -1, -1)]


def shared_param_rows(params: dict) -> list[dict]:
    """shared_weight_summary's "params" as rows: name, ||sum of terms||, ||autograd||, max diff."""
    return [{"param": n, "sum_norm": float(v["sum"].norm()), "auto_norm": float(v["autograd"].norm()),
             "max_diff": v["max_diff"]} for n, v in params.items()]
