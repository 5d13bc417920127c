"""trace(): one forward and backward pass, frozen into a Trace that every page reads.

The total gradients come from hook points on the recurrence itself, so
grad_h[t] is dL/dh_t through the output AND through all later steps.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

import torch

from rnnviz.conventions import IGNORE
from rnnviz.engine.cells import GATE_NAMES
from rnnviz.engine.model import RNNModel


@dataclass(frozen=True)
class Trace:
    ids: torch.Tensor       # (T,)   input token ids
    targets: torch.Tensor   # (T,)   target ids (IGNORE where none)
    x: torch.Tensor         # (T, d) embeddings looked up
    a: torch.Tensor         # (T, H_out) pre-activations (bidirectional: [fwd; bwd]); gated
    #                         cells: the candidate's (LSTM A_g, GRU the argument of n's tanh)
    h: torch.Tensor         # (T, H_out) hidden states, h_0 = 0 not included
    z: torch.Tensor         # (T, K) logits
    p: torch.Tensor         # (T, K) softmax(z)
    loss_t: torch.Tensor    # (T,)   per-step cross-entropy, 0 where the target is IGNORE
    loss: torch.Tensor      # ()     sum or mean over valid steps
    reduction: str
    grad_z: torch.Tensor    # (T, K) dL/dz_t, total. Elman: p - y (sum; / count for a mean).
                            # Jordan: p - y PLUS the feedback path z_t -> y_t -> a_{t+1}
                            # (bptt.output_error is the p - y part alone)
    grad_h: torch.Tensor    # (T, H_out) dL/dh_t, total
    delta: torch.Tensor     # (T, H_out) dL/da_t
    grad_x: torch.Tensor    # (T, d) dL/dx_t
    grads: dict             # parameter name -> dL/dparam
    c: torch.Tensor | None = None  # (T, H_out) LSTM cell state c_t ([fwd; bwd]); None otherwise
    gates: dict = field(default_factory=dict)  # gated cells: gate name -> (T, H_out) values
    # attention models only (cfg.attention), None otherwise; row t is query step t:
    attn_scores: torch.Tensor | None = None   # (T, T) s_{t,j} = h_t . W_a h_j, -inf for j > t
    attn_weights: torch.Tensor | None = None  # (T, T) alpha_t = softmax(s_t), 0 for j > t
    context: torch.Tensor | None = None       # (T, H) c_t = sum_j alpha_{t,j} h_j
    grad_context: torch.Tensor | None = None  # (T, H) dL/dc_t

    @property
    def T(self) -> int:
        return int(self.ids.shape[0])

    @property
    def valid(self) -> torch.Tensor:
        return self.targets != IGNORE  # (T,) bool


TRACE_FIELDS = tuple(f.name for f in fields(Trace))


def next_token_targets(ids: torch.Tensor) -> torch.Tensor:
    """Targets by shifting left one step; the last step has no next token (IGNORE)."""
    targets = torch.full_like(ids, IGNORE)
    targets[:-1] = ids[1:]
    return targets


def trace(model: RNNModel, ids, targets=None, reduction: str = "sum") -> Trace:
    """Forward + backward of one sentence (ids (T,)), with every intermediate and gradient."""
    ids = torch.as_tensor(ids, dtype=torch.long)
    if ids.dim() != 1:
        raise ValueError("trace() takes one sentence: ids of shape (T,)")
    targets = next_token_targets(ids) if targets is None else torch.as_tensor(targets, dtype=torch.long)
    logits, c = model.run_with_cache(ids, targets=targets, reduction=reduction, with_grads=True)
    bidi = model.cfg.bidirectional

    def both(name, suffix=""):
        fwd = c[name + suffix]
        return torch.cat([fwd, c[name + "_rev" + suffix]], -1) if bidi else fwd

    z = c["hook_logits"]
    names = GATE_NAMES.get(model.cfg.cell, ())
    gate_values = {g: both(f"hook_gate_{g}") for g in names}
    cell = both("hook_cell") if model.cfg.cell == "lstm" else None
    attn = ({"attn_scores": c["hook_attn_scores"], "attn_weights": c["hook_attn_weights"],
             "context": c["hook_context"], "grad_context": c["hook_context_grad"]}
            if model.cfg.attention else {})
    return Trace(
        ids=ids, targets=targets, x=c["hook_embed"], a=both("hook_pre"), h=both("hook_hidden"),
        z=z, p=torch.softmax(z, dim=-1), loss_t=c["loss_t"], loss=c["loss"], reduction=reduction,
        grad_z=c["hook_logits_grad"], grad_h=both("hook_hidden", "_grad"),
        delta=both("hook_pre", "_grad"), grad_x=c["hook_embed_grad"], grads=c["param_grads"],
        c=cell, gates=gate_values, **attn,
    )
