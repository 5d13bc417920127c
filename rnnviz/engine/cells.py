"""Gated cells (LSTM, GRU) stepped by hand, with PyTorch's equations and gate order exactly.

LSTM (gate rows stacked i, f, g, o, as torch.nn.LSTM):
    A_t = W_x x_t + b_x + W_h h_{t-1} + b_h                       (4H,)
    i = sigma(A_i), f = sigma(A_f), g = tanh(A_g), o = sigma(A_o)
    c_t = f * c_{t-1} + i * g,   h_t = o * tanh(c_t)
GRU (rows r, z, n, as torch.nn.GRU; b_hn sits inside r * (...)):
    r = sigma(W_xr x + b_xr + W_hr h + b_hr), z = sigma(W_xz x + b_xz + W_hz h + b_hz)
    n = tanh(W_xn x + b_xn + r * (W_hn h + b_hn)),   h_t = (1 - z) * n + z * h_{t-1}

Both biases are kept (b_x = bias_ih, b_h = bias_hh) so weights exchange with torch.nn
one to one: the GRU needs b_hn apart, and keeping the LSTM's two makes load/save exact.

What the Trace's `a` means for a gated cell: the pre-activation of the CANDIDATE
(LSTM: A_g, GRU: the argument of n's tanh), so `delta` = dL/da is the gradient that
reaches the new content written at step t. The gates' values (after sigmoid/tanh) are
in Trace.gates and the LSTM cell state in Trace.c.

Step Jacobians of the recurrent state are written out (not autograd): for GRU
dh_t/dh_{t-1} (H, H); for LSTM d[h_t; c_t]/d[h_{t-1}; c_{t-1}] (2H, 2H).
"""
from __future__ import annotations

import torch

GATED = ("lstm", "gru")
ELMAN_ONLY = ("This view is for Elman/Jordan cells; see page 8 (Gates: LSTM and GRU) for gated "
              "cells.")  # what an Elman-only core view raises (InputError) on a gated model
GATE_NAMES = {"lstm": ("i", "f", "g", "o"), "gru": ("r", "z", "n")}


def n_gates(cell: str) -> int:
    return len(GATE_NAMES[cell])


def hook_names(cell: str, bidirectional: bool) -> tuple[str, ...]:
    """Hook points a gated model adds: one per gate (value after its sigmoid / tanh) and,
    for the LSTM, hook_cell (c_t); the reverse direction's carry the suffix _rev."""
    base = tuple(f"hook_gate_{g}" for g in GATE_NAMES[cell]) + (("hook_cell",) if cell == "lstm" else ())
    return base + tuple(n + "_rev" for n in base)


# ---- pure steps (no module state) ------------------------------------------------------

def lstm_step(x_t, h, c, W_x, W_h, b_x, b_h):
    """One LSTM step. x_t (..., d), h, c (..., H). Returns dict of (..., H) tensors:
    pre_i, pre_f, pre_g, pre_o (pre-activations), i, f, g, o, c, h."""
    A = x_t @ W_x.T + b_x + h @ W_h.T + b_h  # (..., 4H)
    Ai, Af, Ag, Ao = A.chunk(4, dim=-1)
    i, f, g, o = torch.sigmoid(Ai), torch.sigmoid(Af), torch.tanh(Ag), torch.sigmoid(Ao)
    c_new = f * c + i * g  # (..., H)
    return {"pre_i": Ai, "pre_f": Af, "pre_g": Ag, "pre_o": Ao, "i": i, "f": f, "g": g, "o": o,
            "c": c_new, "h": o * torch.tanh(c_new)}


def gru_step(x_t, h, W_x, W_h, b_x, b_h):
    """One GRU step. x_t (..., d), h (..., H). Returns dict of (..., H) tensors:
    pre_r, pre_z, pre_n (the argument of n's tanh), hn (W_hn h + b_hn), r, z, n, h."""
    Gx = x_t @ W_x.T + b_x  # (..., 3H)
    Gh = h @ W_h.T + b_h    # (..., 3H)
    xr, xz, xn = Gx.chunk(3, dim=-1)
    hr, hz, hn = Gh.chunk(3, dim=-1)
    r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
    pre_n = xn + r * hn
    n = torch.tanh(pre_n)
    return {"pre_r": xr + hr, "pre_z": xz + hz, "pre_n": pre_n, "hn": hn, "r": r, "z": z, "n": n,
            "h": (1 - z) * n + z * h}


def scan(model, x, suffix: str, ctx):
    """Gated recurrence over time (reversed for suffix '_rev'); fires the hook points.

    Returns (..., T, H) hidden states in time order. hook_pre sees the candidate's
    pre-activation, hook_gate_* the gate values, hook_cell c_t, hook_hidden h_t.
    """
    cell, H = model.cfg.cell, model.cfg.hidden_size
    W_x, W_h = getattr(model, "W_x" + suffix), getattr(model, "W_h" + suffix)
    b_x, b_h = getattr(model, "b_x" + suffix), getattr(model, "b_h" + suffix)

    def hp(name):
        return getattr(model, name + suffix)

    T = x.shape[-2]
    h = x.new_zeros(*x.shape[:-2], H)  # h_0 = 0, (..., H)
    c = x.new_zeros(*x.shape[:-2], H)  # c_0 = 0 (LSTM)
    order = range(T - 1, -1, -1) if suffix else range(T)
    hs = [None] * T
    for t in order:
        if cell == "lstm":
            A = x[..., t, :] @ W_x.T + b_x + h @ W_h.T + b_h  # (..., 4H)
            Ai, Af, Ag, Ao = A.chunk(4, dim=-1)
            Ag = hp("hook_pre")(Ag, ctx, t)
            i = hp("hook_gate_i")(torch.sigmoid(Ai), ctx, t)
            f = hp("hook_gate_f")(torch.sigmoid(Af), ctx, t)
            g = hp("hook_gate_g")(torch.tanh(Ag), ctx, t)
            o = hp("hook_gate_o")(torch.sigmoid(Ao), ctx, t)
            c = hp("hook_cell")(f * c + i * g, ctx, t)
            h = hp("hook_hidden")(o * torch.tanh(c), ctx, t)
        else:
            Gx = x[..., t, :] @ W_x.T + b_x  # (..., 3H)
            Gh = h @ W_h.T + b_h             # (..., 3H)
            xr, xz, xn = Gx.chunk(3, dim=-1)
            hr, hz, hn = Gh.chunk(3, dim=-1)
            r = hp("hook_gate_r")(torch.sigmoid(xr + hr), ctx, t)
            z = hp("hook_gate_z")(torch.sigmoid(xz + hz), ctx, t)
            pre_n = hp("hook_pre")(xn + r * hn, ctx, t)
            n = hp("hook_gate_n")(torch.tanh(pre_n), ctx, t)
            h = hp("hook_hidden")((1 - z) * n + z * h, ctx, t)
        hs[t] = h
    return torch.stack(hs, dim=-2)


# ---- exchange with torch.nn ---------------------------------------------------------------

def _directions(cfg):
    return [("", "")] + ([("_reverse", "_rev")] if cfg.bidirectional else [])


def rnn_state_dict(model) -> dict:
    """The recurrent weights under torch.nn.RNN / LSTM / GRU names (layer 0).

    Elman: b_h goes to bias_ih and bias_hh is zero (only their sum matters in nn.RNN).
    """
    cfg = model.cfg
    if cfg.cell == "jordan":
        raise ValueError("A Jordan cell has no torch.nn counterpart (it feeds back y_{t-1}).")
    out = {}
    for theirs, ours in _directions(cfg):
        W_x, W_h, b_h = (getattr(model, n + ours).detach().clone() for n in ("W_x", "W_h", "b_h"))
        out["weight_ih_l0" + theirs] = W_x
        out["weight_hh_l0" + theirs] = W_h
        if cfg.cell in GATED:
            out["bias_ih_l0" + theirs] = getattr(model, "b_x" + ours).detach().clone()
            out["bias_hh_l0" + theirs] = b_h
        else:
            out["bias_ih_l0" + theirs] = b_h
            out["bias_hh_l0" + theirs] = torch.zeros_like(b_h)
    return out


def load_rnn_state_dict(model, sd: dict) -> None:
    """Copy recurrent weights from a torch.nn.RNN / LSTM / GRU state dict (layer 0) in place.
    Elman: b_h = bias_ih + bias_hh. Shapes and the key set must match exactly."""
    cfg = model.cfg
    expected = set(rnn_state_dict(model))
    if set(sd) != expected:
        raise ValueError(f"state dict keys {sorted(sd)} do not match {sorted(expected)}")
    with torch.no_grad():
        for theirs, ours in _directions(cfg):
            pairs = [("W_x", sd["weight_ih_l0" + theirs]), ("W_h", sd["weight_hh_l0" + theirs])]
            if cfg.cell in GATED:
                pairs += [("b_x", sd["bias_ih_l0" + theirs]), ("b_h", sd["bias_hh_l0" + theirs])]
            else:
                pairs += [("b_h", sd["bias_ih_l0" + theirs] + sd["bias_hh_l0" + theirs])]
            for name, value in pairs:
                p = getattr(model, name + ours)
                if tuple(value.shape) != tuple(p.shape):
                    raise ValueError(f"{name + ours}: shape {tuple(value.shape)} != {tuple(p.shape)}")
                p.copy_(value.to(p.dtype))
