"""Note 002's derivation with its own symbols, against float64 autograd and rnnviz's hand BPTT;
its printed recursion (vectors on the left) is wrong unless W is symmetric."""
from __future__ import annotations

import pytest
import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.conventions import IGNORE
from rnnviz.engine.trace import trace
from rnnviz.errors import InputError
from rnnviz.explain.notes.notation import (
    NOTE_002_KEY,
    PARAM_KEY,
    beside_app,
    key_rows,
    note002_derivation,
)


def _model(nonlinearity="tanh", seed=1, H=6):
    return RNNModel(RNNConfig(20, 5, H, nonlinearity=nonlinearity), seed=seed).double()


def _loss_from_h(model, ids, targets):
    """Oracle: dL/dh_t by autograd on states made leaves (h_t enters both o_t and step t+1)."""
    x = model.E[ids].detach()
    hs, h = [], torch.zeros(model.cfg.hidden_size, dtype=torch.float64)
    leaves = []
    for t in range(len(ids)):
        a = model.W_x @ x[t] + model.W_h @ h + model.b_h
        h = {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda v: v}[model.cfg.nonlinearity](a)
        h.retain_grad()
        leaves.append(h)
        hs.append(h)
    z = torch.stack(hs) @ model.W_o.T + model.b_o
    loss = torch.nn.functional.cross_entropy(z, targets, ignore_index=IGNORE, reduction="sum")
    loss.backward()
    return torch.stack([h.grad for h in leaves])


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu", "linear"])
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_derivation_equals_autograd_and_hand_bptt(nonlinearity, reduction):
    model = _model(nonlinearity)
    ids = torch.tensor([1, 4, 2, 7, 3, 3])
    targets = torch.tensor([4, 2, IGNORE, 3, 3, 9])
    tr = trace(model, ids, targets, reduction)
    out = beside_app(model, tr)
    for row in out["params"]:
        assert row["vs_autograd"] < 1e-12 and row["vs_hand_bptt"] < 1e-12
    assert out["delta_h_corrected"] < 1e-12 and out["delta_app_vs_hand"] < 1e-12
    note = out["note"]
    if reduction == "sum":
        torch.testing.assert_close(note["delta_h"], _loss_from_h(model, ids, targets), rtol=1e-10, atol=1e-12)
    # each line of the recursion: delta_h = V^T delta_o + W^T diag(f') delta_h_next
    torch.testing.assert_close(note["delta_h"], note["from_output"] + note["from_next"])
    torch.testing.assert_close(note["delta_h"][-1], model.W_o.detach().T @ note["delta_o"][-1])


def test_the_printed_recursion_is_wrong_unless_both_slips_cancel():
    model = _model(seed=3)
    ids = torch.tensor([1, 4, 2, 7, 3])
    tr = trace(model, ids)
    out = beside_app(model, tr)
    assert not out["note"]["w_symmetric"]
    assert out["delta_h_as_printed"] > 1e-3  # visibly off at the earlier steps
    # the last step has no recursion term, so the printed line agrees there
    torch.testing.assert_close(out["note"]["delta_h_as_printed"][-1], out["note"]["delta_h"][-1])
    with torch.no_grad():
        model.W_h.copy_((model.W_h + model.W_h.T) / 2)
    sym = beside_app(model, trace(model, ids))
    assert sym["note"]["w_symmetric"] and sym["delta_h_as_printed"] > 1e-3  # the slopes' side still matters
    lin = _model("linear", seed=3)
    with torch.no_grad():
        lin.W_h.copy_((lin.W_h + lin.W_h.T) / 2)
    both = beside_app(lin, trace(lin, ids))
    assert both["delta_h_as_printed"] < 1e-12 and both["delta_h_corrected"] < 1e-12


def test_key_covers_every_parameter_and_refuses_other_cells():
    assert set(PARAM_KEY.values()) == {"W_x", "W_h", "b_h", "W_o", "b_o"}
    notes = {r["note 002"] for r in key_rows()}
    assert set(PARAM_KEY) <= notes and len(key_rows()) == len(NOTE_002_KEY)
    model = RNNModel(RNNConfig(10, 3, 4, cell="jordan"), seed=0)
    with pytest.raises(InputError):
        note002_derivation(model, trace(model, torch.tensor([1, 2])))
    bi = RNNModel(RNNConfig(10, 3, 4, bidirectional=True), seed=0)
    with pytest.raises(InputError):
        note002_derivation(bi, trace(bi, torch.tensor([1, 2])))
