"""Page 8 (gates): what the page shows of the LSTM and GRU cells of rnnviz.engine.cells on the
learner's sentence: one gated step written out with every gate's pre-activation and value,
how saturated each gate is, which cell units keep their value, and how far the first word
still reaches the last state.
"""
from __future__ import annotations

import torch

from rnnviz.engine.cells import GATED, gru_step, lstm_step
from rnnviz.engine.jacobians import _prev, forget_products
from rnnviz.errors import InputError
from rnnviz.explain.train import MAX_NAME_CHARS, TrainingRun, build_model, clean_model_name

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


# ---- page 6's offer: the other cells on the same corpus (page 8 compares them) -------------

TRIO = ("elman", "lstm", "gru")


def twin_run(run: TrainingRun, cell: str) -> TrainingRun:
    """A run of `cell` on `run`'s corpus, tensors and vocabulary (the same object: page 8 pairs
    own models by vocabulary), with its d, H and training settings (seed included); only the
    cell differs (tanh: a gated cell has no ReLU). Named "<name>-<cell>"."""
    if cell not in TRIO:
        raise InputError(f"The cell must be one of {', '.join(TRIO)}.")
    cfg = run.model.cfg
    model = build_model(len(run.vocab), cfg.embed_dim, cfg.hidden_size, cell, "tanh", run.cfg.seed)
    return TrainingRun(model, run.vocab, run.corpus, run.inputs, run.targets, run.cfg,
                       clean_model_name(f"{run.name[: MAX_NAME_CHARS - len(cell) - 1]}-{cell}"))
