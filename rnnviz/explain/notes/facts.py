"""The notes' smaller claims, each computed so a page can show it with numbers:

- note 000: grad_{h_1} L_3 = J_2^T J_3^T grad_{h_3} L_3 (vector form, order matters);
- note 000: h_0 is a fixed zero, not a trained parameter;
- note 004: nn.Embedding is a bias-free nn.Linear applied to one-hot input;
- note 004: why words are wrapped in # before cutting letter trigrams;
- the backward pass costs O(T H^2) and runs step by step (a FLOP count).
"""
from __future__ import annotations

import torch

from rnnviz.engine.jacobians import output_error, step_jacobians
from rnnviz.engine.model import RNNModel, activate, activation_slope
from rnnviz.engine.trace import Trace
from rnnviz.errors import InputError
from rnnviz.text.tokenize import letter_trigrams, trigram_bucket


def _elman(model: RNNModel, what: str) -> None:
    if model.cfg.cell != "elman" or model.cfg.bidirectional:
        raise InputError(f"{what} is written for a one-directional Elman RNN; pick such a model.")


# ---- note 000: the vector chain --------------------------------------------------------------

def vector_chain(model: RNNModel, tr: Trace, s: int = 2, t: int = 0, J: torch.Tensor | None = None) -> dict:
    """dL_s/dh_t as the notes' product J_{t+1}^T ... J_s^T grad_{h_s} L_s (0-based s > t;
    the notes' case is s = 2, t = 0: grad_{h_1} L_3 = J_2^T J_3^T grad_{h_3} L_3).

    grad_{h_s} L_s = W_o^T (p_s - y_s) is the loss at step s through its own output only.
    Returns the factors, the right product, and two wrong orders a learner writes:
    "swapped" (J_s^T ... J_{t+1}^T g) and "no transpose" (J_s ... J_{t+1} g).
    """
    _elman(model, "The vector chain")
    if not (isinstance(s, int) and isinstance(t, int) and 0 <= t < s < tr.T):
        raise InputError(f"Pick steps with 1 <= t < s <= {tr.T} (this sentence has {tr.T} steps).")
    H = model.cfg.hidden_size
    with torch.no_grad():
        J = step_jacobians(model, tr) if J is None else J   # (T, H, H): a page passes its cached one
        g = model.W_o.detach()[:, :H].T @ output_error(tr)[s]  # (H,)
        right, swapped, plain = g.clone(), g.clone(), g.clone()
        for k in range(s, t, -1):                           # J_s^T first, J_{t+1}^T last
            right = J[k].T @ right
        for k in range(t + 1, s + 1):                       # the order reversed
            swapped = J[k].T @ swapped
            plain = J[k] @ plain
    return {"s": s, "t": t, "grad_h_s": g, "factors": {k: J[k] for k in range(t + 1, s + 1)},
            "right": right, "swapped": swapped, "no_transpose": plain,
            "norms": {"grad_h_s": float(g.norm()), "right": float(right.norm())},
            "off_by": {"swapped": float((swapped - right).norm()),
                       "no_transpose": float((plain - right).norm())}}


# ---- note 000: h_0 ----------------------------------------------------------------------------

def initial_state(model: RNNModel) -> dict:
    """h_0 as the model has it: a constant zero vector, not among the parameters.

    So no gradient ever updates it, and the first step is h_1 = phi(W_x x_1 + b_h)
    (the W_h h_0 term is exactly 0). A learned h_0 would add H parameters.
    """
    names = [n for n, _ in model.named_parameters()]
    return {"h0": torch.zeros(model.cfg.hidden_size), "is_parameter": False,
            "parameters": names, "params_if_learned": model.cfg.hidden_size}


def first_step_without_h0(model: RNNModel, tr: Trace) -> torch.Tensor:
    """h_1 computed with the W_h h_0 term left out: equal to the model's h_1 because h_0 = 0."""
    _elman(model, "The first step")
    with torch.no_grad():
        a = model.W_x.detach() @ tr.x[0] + model.b_h.detach()  # (H,)
        return activate(a, model.cfg.nonlinearity)  # (H,)


# ---- note 004: nn.Embedding is a Linear layer on one-hot input ---------------------------------

def embedding_as_linear(E, ids, grad_out=None) -> dict:
    """The same rows three ways: E[ids], one_hot(ids) @ E, and nn.Linear(V, d, bias=False) with
    weight E^T on one-hot rows; with grad_out (T, d) also both weight gradients (x^T g)."""
    E = torch.as_tensor(E, dtype=torch.float64)
    V, d = E.shape
    ids = torch.as_tensor(list(ids), dtype=torch.long)
    if ids.numel() == 0 or int(ids.min()) < 0 or int(ids.max()) >= V:
        raise InputError(f"Token ids must be from 0 to {V - 1}.")
    emb = torch.nn.Embedding(V, d).double()
    lin = torch.nn.Linear(V, d, bias=False).double()
    with torch.no_grad():
        emb.weight.copy_(E)
        lin.weight.copy_(E.T)                                        # (d, V)
    onehot = torch.nn.functional.one_hot(ids, V).double()           # (T, V)
    out_emb, out_lin = emb(ids), lin(onehot)                          # (T, d) each
    res = {"one_hot": onehot, "lookup": out_emb.detach(), "linear": out_lin.detach(),
           "product": onehot @ E, "max_diff": float((out_emb - out_lin).detach().abs().max()),
           "linear_params": lin.weight.numel(), "linear_has_bias": lin.bias is not None}
    if grad_out is not None:
        g = torch.as_tensor(grad_out, dtype=torch.float64)           # (T, d)
        out_emb.backward(g)
        out_lin.backward(g)
        res["grad_embedding"] = emb.weight.grad                       # (V, d)
        res["grad_linear_T"] = lin.weight.grad.T                      # (V, d)
    return res


# ---- note 004: why the # marks -------------------------------------------------------------------

def trigrams(word: str, marks: bool = True) -> list[str]:
    """Letter trigrams with the # boundary marks (rnnviz.text's hashing) or without them."""
    if marks:
        return letter_trigrams(word)
    return [word[i:i + 3] for i in range(len(word) - 2)]


def why_marks(a: str = "good", b: str = "goods", buckets: int = 1000) -> dict:
    """Two words' trigram sets with and without #, what they share, and the hashed buckets.

    Without marks "good" is a part of "goods" (every trigram of it is in the other), and a
    word under 3 letters has no trigram at all; with marks the word's start and end are
    trigrams of their own (#go, od#), so "good" keeps one the other lacks.
    """
    out = {}
    for marks in (True, False):
        ta, tb = trigrams(a, marks), trigrams(b, marks)
        sa, sb = set(ta), set(tb)
        out["with" if marks else "without"] = {
            "a": ta, "b": tb, "shared": sorted(sa & sb), "only_a": sorted(sa - sb),
            "only_b": sorted(sb - sa), "a_inside_b": sa <= sb,
            "jaccard": len(sa & sb) / len(sa | sb) if sa | sb else float("nan"),
            "buckets_a": sorted({trigram_bucket(x, buckets) for x in ta}),
            "buckets_b": sorted({trigram_bucket(x, buckets) for x in tb})}
    return out


# ---- the cost of the backward pass ------------------------------------------------------------------

def backward_flops(T: int, d: int, H: int, K: int) -> dict:
    """Floating-point operations (2 per multiply-add) of the matrix products in one Elman
    backward pass over T steps, term by term (per step), and the total.

    Per step: W_o^T e_t (H K), dW_o += e_t h_t^T (K H), W_h^T delta_{t+1} (H H),
    dW_h += delta_t h_{t-1}^T (H H), dW_x += delta_t x_t^T (H d), dx_t = W_x^T delta_t (d H).
    The two H x H terms make it O(T H^2), and each step needs the one after it: T steps
    in sequence, however many cores there are.
    """
    for name, v in (("T", T), ("d", d), ("H", H), ("K", K)):
        if not (isinstance(v, int) and v >= 1):
            raise InputError(f"{name} must be a whole number of at least 1.")
    per_step = {"W_o^T e_t": 2 * H * K, "e_t h_t^T": 2 * K * H, "W_h^T δ_{t+1}": 2 * H * H,
                "δ_t h_{t-1}^T": 2 * H * H, "δ_t x_t^T": 2 * H * d, "W_x^T δ_t": 2 * d * H}
    total = T * sum(per_step.values()) - 2 * H * H  # the last step has no delta_{t+1}
    return {"per_step": per_step, "total": total, "recurrent": T * 4 * H * H - 2 * H * H,
            "sequential_steps": T}


def counted_backward(model: RNNModel, tr: Trace) -> dict:
    """The backward pass of backward_flops written with 2-D matrix products only (so
    torch.utils.flop_counter can count them): gradients, to compare with autograd."""
    _elman(model, "The backward pass count")
    with torch.no_grad():
        W_x, W_h, W_o = (getattr(model, n).detach() for n in ("W_x", "W_h", "W_o"))
        e = output_error(tr)                                 # (T, K)
        slope = activation_slope(tr.a, model.cfg.nonlinearity)  # (T, H)
        T = tr.h.shape[0]
        h_prev = torch.cat([torch.zeros_like(tr.h[:1]), tr.h[:-1]])  # (T, H)
        dW_o, dW_h, dW_x = torch.zeros_like(W_o), torch.zeros_like(W_h), torch.zeros_like(W_x)
        dx = torch.zeros_like(tr.x)
        nxt = None
        for t in range(T - 1, -1, -1):
            gh = e[t:t + 1] @ W_o                            # (1, H) = (W_o^T e_t)^T
            dW_o += e[t:t + 1].T @ tr.h[t:t + 1]             # (K, H)
            if nxt is not None:
                gh = gh + nxt @ W_h                          # (1, H) = (W_h^T delta_{t+1})^T
            delta = slope[t:t + 1] * gh                      # (1, H)
            dW_h += delta.T @ h_prev[t:t + 1]                # (H, H)
            dW_x += delta.T @ tr.x[t:t + 1]                  # (H, d)
            dx[t] = (delta @ W_x)[0]                         # (d,)
            nxt = delta
    return {"W_o": dW_o, "W_h": dW_h, "W_x": dW_x, "grad_x": dx}
