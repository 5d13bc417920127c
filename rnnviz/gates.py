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

from .errors import InputError

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


# ---- Jacobians --------------------------------------------------------------------------

def _prev(v: torch.Tensor) -> torch.Tensor:
    """v_{t-1} rows with a zero initial state: (T, H) -> (T, H)."""
    return torch.cat([torch.zeros_like(v[:1]), v[:-1]])


def step_jacobians(model, tr) -> torch.Tensor:
    """J[t] = d state_t / d state_{t-1} of the forward direction, written out.

    GRU (H, H):  diag(1-z) dn/dh + diag(h_{t-1} - n) diag(z(1-z)) W_hz + diag(z),
                 dn/dh = diag(1-n^2) (diag(r) W_hn + diag(hn r(1-r)) W_hr).
    LSTM (2H, 2H) on [h; c]:  dc/dh = diag(c_{t-1} f(1-f)) W_hf + diag(g i(1-i)) W_hi
                 + diag(i (1-g^2)) W_hg, dc/dc = diag(f), dh/dh = diag(tanh(c) o(1-o)) W_ho
                 + diag(o (1-tanh^2 c)) dc/dh, dh/dc = diag(o (1-tanh^2 c) f).
    Returns (T, S, S), S = H (GRU) or 2H (LSTM).
    """
    cfg, H = model.cfg, model.cfg.hidden_size
    with torch.no_grad():
        G = {k: v[:, :H] for k, v in tr.gates.items()}  # forward direction, (T, H) each
        h_prev = _prev(tr.h[:, :H])  # (T, H)
        W = model.W_h.detach()
        if cfg.cell == "gru":
            Wr, Wz, Wn = W.chunk(3, dim=0)  # (H, H) each
            hn = h_prev @ Wn.T + model.b_h.detach()[2 * H:]  # (T, H)
            r, z, n = G["r"], G["z"], G["n"]
            dn = (1 - n ** 2)[:, :, None] * (r[:, :, None] * Wn + (hn * r * (1 - r))[:, :, None] * Wr)
            dz = (z * (1 - z))[:, :, None] * Wz  # (T, H, H)
            return ((1 - z)[:, :, None] * dn + (h_prev - n)[:, :, None] * dz
                    + torch.diag_embed(z))
        Wi, Wf, Wg, Wo = W.chunk(4, dim=0)
        i, f, g, o = G["i"], G["f"], G["g"], G["o"]
        c = tr.c[:, :H]
        c_prev, tc = _prev(c), torch.tanh(c)
        dc_dh = ((c_prev * f * (1 - f))[:, :, None] * Wf + (g * i * (1 - i))[:, :, None] * Wi
                 + (i * (1 - g ** 2))[:, :, None] * Wg)  # (T, H, H)
        k = o * (1 - tc ** 2)  # (T, H): dh/dc_t
        dh_dh = (tc * o * (1 - o))[:, :, None] * Wo + k[:, :, None] * dc_dh
        T = tr.T
        J = torch.zeros(T, 2 * H, 2 * H, dtype=dc_dh.dtype)
        J[:, :H, :H] = dh_dh
        J[:, :H, H:] = torch.diag_embed(k * f)
        J[:, H:, :H] = dc_dh
        J[:, H:, H:] = torch.diag_embed(f)
        return J


def input_step_jacobians(model, tr) -> torch.Tensor:
    """B[t] = d state_t / d x_t (state_{t-1} held), forward direction: (T, S, d).

    Elman / Jordan: diag(phi'(a_t)) W_x (S = H). GRU, LSTM: as in step_jacobians with the
    W_x blocks in place of the W_h blocks (and no c_{t-1} / h_{t-1} terms of their own).
    """
    from .model import activation_slope

    cfg, H = model.cfg, model.cfg.hidden_size
    with torch.no_grad():
        Wx = model.W_x.detach()
        if cfg.cell not in GATED:
            return activation_slope(tr.a[:, :H], cfg.nonlinearity)[:, :, None] * Wx  # (T, H, d)
        G = {k: v[:, :H] for k, v in tr.gates.items()}
        h_prev = _prev(tr.h[:, :H])
        if cfg.cell == "gru":
            Wr, Wz, Wn = Wx.chunk(3, dim=0)  # (H, d)
            hn = h_prev @ model.W_h.detach()[2 * H:].T + model.b_h.detach()[2 * H:]
            r, z, n = G["r"], G["z"], G["n"]
            dn = (1 - n ** 2)[:, :, None] * (Wn[None] + (hn * r * (1 - r))[:, :, None] * Wr)
            dz = (z * (1 - z))[:, :, None] * Wz
            return (1 - z)[:, :, None] * dn + (h_prev - n)[:, :, None] * dz  # (T, H, d)
        Wi, Wf, Wg, Wo = Wx.chunk(4, dim=0)
        i, f, g, o = G["i"], G["f"], G["g"], G["o"]
        c = tr.c[:, :H]
        c_prev, tc = _prev(c), torch.tanh(c)
        dc = ((c_prev * f * (1 - f))[:, :, None] * Wf + (g * i * (1 - i))[:, :, None] * Wi
              + (i * (1 - g ** 2))[:, :, None] * Wg)  # (T, H, d)
        dh = (tc * o * (1 - o))[:, :, None] * Wo + (o * (1 - tc ** 2))[:, :, None] * dc
        return torch.cat([dh, dc], dim=1)  # (T, 2H, d)


def input_jacobian_norms(model, tr, start: int = 0) -> torch.Tensor:
    """N[s, t] = ||dh_s/dx_t||_F for t <= s (forward direction's h), NaN above. (T, T), float64.
    start: only steps start..T-1 (a jacwindow.Window): the block [start:, start:] of the full
    matrix, (T - start, T - start); dh_s/dx_t for t, s in the window uses only its own steps.

    One scale for every cell: the input x_t is the same kind of thing for Elman, GRU and
    LSTM, whereas their states differ. Stepping s -> s+1 multiplies ALL columns
    [M_{s,0} ... M_{s,s}] (S, s*d) by J[s+1] in one GEMM, M_{s,t} = d state_s / d x_t.
    """
    from . import limits
    from .bptt import step_jacobians as any_step_jacobians
    from .errors import InputError

    if tr.T > limits.MAX_JACOBIAN_T:
        raise InputError(f"The input Jacobian norms take up to {limits.MAX_JACOBIAN_T} "
                         f"steps; this sentence has {tr.T}.")
    H = model.cfg.hidden_size
    J = any_step_jacobians(model, tr)[start:].to(torch.float64)      # (w, S, S)
    B = input_step_jacobians(model, tr)[start:].to(torch.float64)    # (w, S, d)
    T, S, d = B.shape
    out = torch.full((T, T), float("nan"), dtype=torch.float64)
    M = B.new_zeros(S, 0)  # (S, s*d) columns of every earlier input
    for s in range(T):
        M = torch.cat([J[s] @ M, B[s]], dim=1) if s else B[0].clone()  # (S, (s+1)*d)
        out[s, :s + 1] = torch.linalg.vector_norm(M[:H].reshape(H, s + 1, d), dim=(0, 2))
    return out


def last_state_input_norms(model, tr) -> torch.Tensor:
    """||dh_{T-1}/dx_t||_F for every t (the last row of input_jacobian_norms), (T,), float64.

    Backwards from the end: R_s = dh_{T-1}/dstate_s (H, S), R_{s-1} = R_s J[s], and
    dh_{T-1}/dx_s = R_s B[s]: S^2 (H + d) work per step, so the first word's reach on the last
    state stays exact when the all-pairs map shows only a window of a long sentence."""
    from .bptt import step_jacobians as any_step_jacobians

    H = model.cfg.hidden_size
    J = any_step_jacobians(model, tr).to(torch.float64)      # (T, S, S)
    B = input_step_jacobians(model, tr).to(torch.float64)    # (T, S, d)
    T, S = B.shape[0], B.shape[1]
    out = torch.empty(T, dtype=torch.float64)
    R = torch.eye(S, dtype=torch.float64)[:H]  # (H, S): dh_{T-1}/dstate_{T-1}
    for s in range(T - 1, -1, -1):
        out[s] = torch.linalg.matrix_norm(R @ B[s])
        if s:
            R = R @ J[s]  # (H, S)
    return out


def memory_horizon(norms: torch.Tensor, threshold: float = 1e-3) -> dict:
    """How many steps back an input's influence stays above `threshold` x the diagonal.

    norms (T, T) from input_jacobian_norms. For each s: the largest k such that
    N[s, s-j] >= threshold * N[s, s] for every j = 0..k ("stays above": the first dip ends it).
    Returns per_step (T,) list of k, horizon = max over s, median (over s) and reached_start:
    whether the horizon spans the whole sentence (T - 1; the true horizon may be longer).
    """
    N = torch.as_tensor(norms, dtype=torch.float64)
    T = N.shape[0]
    per = []
    for s in range(T):
        diag = N[s, s]
        if not (torch.isfinite(diag) and diag > 0):
            per.append(0)
            continue
        k = 0
        while k < s and N[s, s - k - 1] >= threshold * diag:
            k += 1
        per.append(k)
    best = max(per) if per else 0
    median = sorted(per)[(T - 1) // 2] if per else 0
    return {"per_step": per, "horizon": best, "median": median, "reached_start": best == T - 1,
            "threshold": threshold}


def forget_products(tr, H: int) -> torch.Tensor:
    """The LSTM's cell path apart: F[s, t] = f_{t+1} * ... * f_s (elementwise, = dc_s/dc_t along
    c alone), F[t, t] = 1, NaN for t > s. (T, T, H), forward direction."""
    f = tr.gates["f"][:, :H].to(torch.float64)  # (T, H)
    T = f.shape[0]
    out = torch.full((T, T, H), float("nan"), dtype=torch.float64)
    for t in range(T):
        run = torch.ones(H, dtype=torch.float64)
        out[t, t] = run
        for s in range(t + 1, T):
            run = run * f[s]
            out[s, t] = run
    return out


def loss_to_state_grads(model, tr) -> torch.Tensor:
    """G[s, t] = dL_s/dh_t (T, T, H) for a gated model (h part of the state; c_t held for the
    LSTM, as a hook on h_t sees it). Zero for t > s. Same recursion as bptt's with the
    state's Jacobian; the loss enters only through h."""
    from .bptt import output_error

    H = model.cfg.hidden_size
    J = step_jacobians(model, tr)  # (T, S, S)
    S = J.shape[1]
    direct = torch.zeros(tr.T, S, dtype=J.dtype)
    direct[:, :H] = output_error(tr) @ model.W_o[:, :H].detach()  # (T, H)
    T = tr.T
    G = torch.zeros(T, T, S, dtype=J.dtype)
    for t in range(T - 1, -1, -1):
        if t < T - 1:
            G[t + 1:, t] = G[t + 1:, t + 1] @ J[t + 1]
        G[t, t] = direct[t]
    return G[..., :H]


# ---- what page 8 reads off a trace (one step written out, saturation, kept cells) ---------

SIGMOID_GATES = {"lstm": ("i", "f", "o"), "gru": ("r", "z")}  # the gates proper (0..1)


def gated_step(model, tr, t: int) -> dict:
    """Step t (0-based) of the forward direction recomputed from the trace's h_{t-1} (and
    c_{t-1}) with lstm_step / gru_step: every pre-activation and gate of that step, (H,) each,
    plus x_t (d,), h_prev, (LSTM) c_prev and peak (the unit of largest |h_t|). Why: the page
    writes one step out with numbers, and these must be the model's own (a test checks them
    against the trace and torch.nn)."""
    cell, H = model.cfg.cell, model.cfg.hidden_size
    if cell not in GATED:
        raise InputError("This view is for LSTM and GRU cells.")
    if not 0 <= t < tr.T:
        raise InputError(f"The step must be from 1 to {tr.T}.")
    with torch.no_grad():
        x = tr.x[t].to(torch.float64)  # (d,)
        h_prev = _prev(tr.h[:, :H])[t].to(torch.float64)  # (H,)
        W = [getattr(model, n).detach().to(torch.float64) for n in ("W_x", "W_h", "b_x", "b_h")]
        if cell == "lstm":
            c_prev = _prev(tr.c[:, :H])[t].to(torch.float64)  # (H,)
            out = lstm_step(x, h_prev, c_prev, *W)
            out["c_prev"] = c_prev
        else:
            out = gru_step(x, h_prev, *W)
    out["x"], out["h_prev"] = x, h_prev
    out["peak"] = int(out["h"].abs().argmax())  # the unit written out: largest |h_t|
    return out


def gate_saturation(tr, cell: str, H: int, lo: float = 0.05, hi: float = 0.95) -> dict:
    """Share of each sigmoid gate's values (forward direction, every step and unit) that are
    below `lo` or above `hi`: a saturated gate is a switch (shut or open), and its slope
    sigma' <= 0.05 lets little gradient through to its pre-activation. {gate: share in 0..1}."""
    return {g: float(((v := tr.gates[g][:, :H]) < lo).logical_or(v > hi).double().mean())
            for g in SIGMOID_GATES[cell]}


def kept_cells(tr, H: int, start: int = 0, threshold: float = 0.5) -> dict:
    """Which LSTM units keep their cell state from step `start` (0-based) to the last step:
    kept[u] = f_{start+1} * ... * f_T (forget_products), the share of c_start still in c_T
    along the cell path alone. Returns kept (H,) float64, order (units by kept, largest
    first) and n_kept (units with kept >= threshold)."""
    if tr.c is None:
        raise InputError("Only an LSTM has a cell state c_t.")
    start = min(max(int(start), 0), tr.T - 1)
    kept = forget_products(tr, H)[tr.T - 1, start]  # (H,)
    order = torch.argsort(kept, descending=True)
    return {"kept": kept, "order": [int(u) for u in order], "start": start,
            "n_kept": int((kept >= threshold).sum()), "threshold": threshold}


def first_word_reach_row(last_row, start: int = 0) -> float:
    """first_word_reach from last_state_input_norms (T,) alone: row[start] / row[T-1]."""
    row = torch.as_tensor(last_row, dtype=torch.float64)
    start = min(max(int(start), 0), row.shape[0] - 1)
    return float(row[start] / row[-1]) if row[-1] > 0 else float("nan")


def first_word_reach(norms, start: int = 0) -> float:
    """||dh_T/dx_start|| / ||dh_T/dx_T|| from input_jacobian_norms (T, T): how strongly the
    first word (0-based `start`, after <bos>) still moves the LAST state, relative to the last
    input. A short sentence keeps every horizon at T - 1; this ratio still tells the cells apart."""
    N = torch.as_tensor(norms, dtype=torch.float64)
    T = N.shape[0]
    start = min(max(int(start), 0), T - 1)
    last = N[T - 1, T - 1]
    return float(N[T - 1, start] / last) if last > 0 else float("nan")
