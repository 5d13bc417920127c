"""Note 002's notation and its BPTT derivation, evaluated on the current model and sentence.

Note 002 writes h_t = f(U x_t + W h_{t-1} + b), o_t = V h_t + c, and derives the
gradients through delta_{h,t} = dL/dh_t. This module gives the key from its symbols to
the app's, and computes every line of its derivation with its own symbols, so a page can
put the note's numbers beside the app's (autograd and rnnviz.engine.jacobians.hand_bptt).

The one correction. The note's recursion
    delta_{h,t} = delta_{o,t} V^T + delta_{h,t+1} W^T diag(f'(h_{t+1}))
puts the vectors on the left of their matrices. With column vectors (the note's own
convention for x_t, h_t, o_t) the first term does not conform ((K x 1)(H x K)), nor as rows
((1 x K)(H x K)); read as row vectors the second is wrong twice: it multiplies by W^T where W belongs, and it
applies the slopes after W instead of before. It agrees with autograd only when both slips
cancel (W symmetric and a linear f). Either consistent form is right:
    column:  delta_{h,t}   = V^T delta_{o,t} + W^T diag(f'(h_{t+1})) delta_{h,t+1}
    row:     delta_{h,t}^T = delta_{o,t}^T V + delta_{h,t+1}^T diag(f'(h_{t+1})) W
The boxed parameter gradients (sum_t diag(f'(h_t)) delta_{h,t} h_{t-1}^T, ...) are right.
f'(h_t) in the note means the slope at step t, tanh'(a_t) = 1 - h_t^2.
"""
from __future__ import annotations

import torch

from rnnviz.engine.jacobians import hand_bptt, output_error
from rnnviz.engine.model import RNNModel, activation_slope
from rnnviz.engine.trace import Trace
from rnnviz.errors import InputError

# note 002 symbol -> (app symbol, shape, what it is)
NOTE_002_KEY = (
    ("x_t", "x_t", "d", "the input at step t (the embedding E[idₜ])"),
    ("h_t", "h_t", "H", "the hidden state; h₀ = 0 in both"),
    ("U", "W_x", "H x d", "input-to-hidden weights"),
    ("W", "W_h", "H x H", "hidden-to-hidden (recurrent) weights"),
    ("b", "b_h", "H", "hidden bias"),
    ("V", "W_o", "K x H", "hidden-to-output weights"),
    ("c", "b_o", "K", "output bias"),
    ("o_t", "z_t", "K", "the logits"),
    ("ŷ_t", "p_t", "K", "softmax(oₜ): the predicted probabilities"),
    ("δ_{o,t}", "p_t - y_t", "K", "∂Lₜ/∂oₜ (the app's grad_z, eₜ)"),
    ("δ_{h,t}", "∂L/∂h_t", "H", "TOTAL gradient at hₜ (the app's grad_h), not the app's δₜ"),
    ("diag(f'(h_t)) δ_{h,t}", "δ_t", "H", "the app's δₜ = ∂L/∂aₜ, the gradient at the pre-activation"),
    ("f'(h_t)", "φ'(a_t)", "H", "the slope at step t: 1 - hₜ² for tanh"),
)
PARAM_KEY = {"U": "W_x", "W": "W_h", "b": "b_h", "V": "W_o", "c": "b_o"}

CORRECTION = ("Note 002 writes δ_{h,t} = δ_{o,t} Vᵀ + δ_{h,t+1} Wᵀ diag(f'(h_{t+1})), vectors on the "
              "left. The first term conforms in neither reading; the second conforms only as rows, and "
              "then uses Wᵀ where W belongs and applies the slopes f' after W instead of before (as "
              "columns: W where Wᵀ belongs, the slope on the wrong side). f'(h_t) is the slope φ'(a_t). "
              "Corrected (column vectors): δ_{h,t} = Vᵀ δ_{o,t} + "
              "Wᵀ diag(f'(h_{t+1})) δ_{h,t+1}; or, as rows, δ_{h,t}ᵀ = δ_{o,t}ᵀ V + δ_{h,t+1}ᵀ "
              "diag(f'(h_{t+1})) W. The boxed gradients for V, c, W, U and b are right as printed.")


def key_rows() -> list[dict]:
    """The key as table rows: note 002's symbol, the app's, the shape, the meaning."""
    return [{"note 002": n, "app": a, "shape": s, "meaning": m} for n, a, s, m in NOTE_002_KEY]


def _check(model: RNNModel) -> None:
    if model.cfg.cell != "elman" or model.cfg.bidirectional:
        raise InputError("Note 002 derives BPTT for a one-directional Elman RNN; pick such a model "
                         "to see its derivation with numbers.")


def note002_derivation(model: RNNModel, tr: Trace) -> dict:
    """Every line of note 002's backward pass with its symbols, on this model and sentence.

    Returns, 0-based in time (the screen's t = index + 1), all in the trace's dtype:
      delta_o (T, K), slope (T, H) = f'(h_t),
      from_output (T, H) = V^T delta_{o,t}, from_next (T, H) = W^T diag(f'(h_{t+1})) delta_{h,t+1},
      delta_h (T, H) the corrected recursion, delta_h_as_printed (T, H) the note's line read as
      rows and followed all the way back (delta_{o,t} V + delta_{h,t+1} W^T diag(f'(h_{t+1}))),
      grads {"U", "W", "b", "V", "c"} from the boxed formulas, w_symmetric (with a linear f
      the two readings then agree exactly), and the correction text.
    """
    _check(model)
    with torch.no_grad():
        V, W = model.W_o.detach(), model.W_h.detach()          # (K, H), (H, H)
        d_o = output_error(tr)                                 # (T, K)
        f1 = activation_slope(tr.a, model.cfg.nonlinearity)    # (T, H)
        T = tr.h.shape[0]
        d_h = torch.zeros_like(tr.h)                           # (T, H)
        printed = torch.zeros_like(tr.h)                       # (T, H)
        from_next = torch.zeros_like(tr.h)                     # (T, H)
        from_output = d_o @ V                                  # (T, H): V^T delta_{o,t} as rows
        for t in range(T - 1, -1, -1):
            if t < T - 1:
                from_next[t] = W.T @ (f1[t + 1] * d_h[t + 1])             # W^T diag(f') delta_{h,t+1}
                printed[t] = (printed[t + 1] @ W.T) * f1[t + 1]          # the note's row reading
            d_h[t] = from_output[t] + from_next[t]
            printed[t] += from_output[t]
        g = f1 * d_h                                           # (T, H) diag(f'(h_t)) delta_{h,t}
        h_prev = torch.cat([torch.zeros_like(tr.h[:1]), tr.h[:-1]])  # (T, H), h_0 = 0
        grads = {"V": d_o.T @ tr.h, "c": d_o.sum(0), "W": g.T @ h_prev, "U": g.T @ tr.x,
                 "b": g.sum(0)}
    return {"delta_o": d_o, "slope": f1, "from_output": from_output, "from_next": from_next,
            "delta_h": d_h, "delta_h_as_printed": printed, "delta_app": g, "grads": grads,
            "w_symmetric": bool(torch.equal(W, W.T)), "correction": CORRECTION}


def beside_app(model: RNNModel, tr: Trace) -> dict:
    """The note's numbers next to the app's: for each note parameter, the largest |difference|
    from autograd (tr.grads) and from rnnviz.engine.jacobians.hand_bptt; for delta_{h,t}, the largest
    |difference| of the corrected and of the as-printed recursion from autograd's dL/dh_t."""
    note = note002_derivation(model, tr)
    hand = hand_bptt(model, tr)
    rows = []
    for sym, app in PARAM_KEY.items():
        rows.append({"note": sym, "app": app,
                     "vs_autograd": float((note["grads"][sym] - tr.grads[app]).abs().max()),
                     "vs_hand_bptt": float((note["grads"][sym] - hand[app]).abs().max())})
    return {"params": rows,
            "delta_h_corrected": float((note["delta_h"] - tr.grad_h).abs().max()),
            "delta_h_as_printed": float((note["delta_h_as_printed"] - tr.grad_h).abs().max()),
            "delta_app_vs_hand": float((note["delta_app"] - hand["delta"]).abs().max()),
            "note": note}
