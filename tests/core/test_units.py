"""Unit search and clamp (rnnviz.engine.units) against brute-force references: selectivity and
AUC by plain loops, p-values by every relabelling of a small case, the clamp by re-running the
recurrence by hand with the state edited."""
from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
import torch

from rnnviz.engine import units
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.errors import InputError

pytestmark = pytest.mark.core


def _d_loop(h: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    out = []
    for j in range(h.shape[1]):
        a, b = h[pos, j], h[neg, j]
        pooled = ((len(a) - 1) * a.var(ddof=1) + (len(b) - 1) * b.var(ddof=1)) / (len(a) + len(b) - 2)
        out.append((a.mean() - b.mean()) / np.sqrt(pooled) if pooled > 0 else 0.0)
    return np.array(out)


def _auc_pairs(x: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> float:
    wins = [1.0 if a > b else 0.5 if a == b else 0.0 for a in x[pos] for b in x[neg]]
    return float(np.mean(wins))


def _small():
    g = torch.Generator().manual_seed(7)
    h = torch.randn(8, 5, generator=g, dtype=torch.float64)
    pos = torch.tensor([1, 0, 1, 0, 0, 1, 0, 0], dtype=torch.bool)
    h[pos, 2] += 2.0  # unit 2 tracks the property
    return h, pos


def test_selectivity_matches_loop():
    h, pos = _small()
    d = units.selectivity(h, pos, ~pos)
    assert d.numpy() == pytest.approx(_d_loop(h.numpy(), pos.numpy(), (~pos).numpy()), rel=1e-12)
    assert int(torch.argmax(d.abs())) == 2


def test_left_out_tokens_are_in_neither_side():
    h, pos = _small()
    neg = torch.tensor([0, 1, 0, 1, 1, 0, 0, 0], dtype=torch.bool)  # tokens 6, 7 left out
    d = units.selectivity(h, pos, neg)
    assert d.numpy() == pytest.approx(_d_loop(h.numpy(), pos.numpy(), neg.numpy()), rel=1e-12)
    P, N = units.permutations(pos, neg, 50, torch.Generator().manual_seed(0))
    assert not bool((P | N)[:, 6:].any())
    assert (P.sum(1) == 3).all() and (N.sum(1) == 3).all()


def test_p_values_match_the_same_relabellings_and_every_relabelling():
    h, pos = _small()
    n = 1000
    out = units.unit_search(h, pos, None, torch.Generator().manual_seed(3), n_perm=n, top=5)
    # the same relabellings, one by one
    P, N = units.permutations(pos, ~pos, n, torch.Generator().manual_seed(3))
    d = _d_loop(h.numpy(), pos.numpy(), (~pos).numpy())
    hits = np.zeros(5)
    for i in range(n):
        hits += np.abs(_d_loop(h.numpy(), P[i].numpy(), N[i].numpy())) >= np.abs(d) - 1e-12
    by_unit = {r["unit"]: r["p"] for r in out["rows"]}
    for u in range(5):
        assert by_unit[u] == pytest.approx((1 + hits[u]) / (1 + n), abs=1e-15)
    # every one of the C(8, 3) = 56 relabellings: the exact permutation p-value
    for u in range(5):
        exact = []
        for chosen in itertools.combinations(range(8), 3):
            m = np.zeros(8, dtype=bool)
            m[list(chosen)] = True
            exact.append(abs(_d_loop(h.numpy()[:, [u]], m, ~m)[0]) >= abs(d[u]) - 1e-12)
        assert by_unit[u] == pytest.approx(np.mean(exact), abs=0.05)  # 1,000 draws: within 4 sd


def test_ranking_auc_and_honest_flag():
    g = torch.Generator().manual_seed(1)
    h = torch.randn(60, 12, generator=g, dtype=torch.float64)
    pos = torch.rand(60, generator=g) < 0.4
    h[pos, 4] -= 3.0  # unit 4 tracks the property, with a negative sign
    hx = torch.randn(40, 12, generator=g, dtype=torch.float64)
    px = torch.rand(40, generator=g) < 0.4
    hx[px, 4] -= 3.0
    out = units.unit_search(h, pos, None, torch.Generator().manual_seed(0), heldout=(hx, px, ~px))
    assert out["rows"][0]["unit"] == 4 and out["rows"][0]["d"] < 0
    assert len(out["rows"]) == 10
    want = _auc_pairs(-hx[:, 4].numpy(), px.numpy(), (~px).numpy())
    assert out["rows"][0]["auc"] == pytest.approx(want, abs=1e-12)
    assert out["tracked"] and not out["in_sample"]
    assert out["rows"][0]["p"] == pytest.approx(1 / 1001)
    d = [abs(r["d"]) for r in out["rows"]]
    assert d == sorted(d, reverse=True)
    # noise only: no unit is said to track anything
    noise = units.unit_search(h[:, [0, 1, 2, 3, 5]], pos, None, torch.Generator().manual_seed(0),
                              heldout=(hx[:, [0, 1, 2, 3, 5]], px, ~px))
    assert not noise["tracked"]


def test_auc_with_ties_matches_pair_count():
    x = torch.tensor([[1.0], [2.0], [2.0], [3.0], [1.0], [2.0]], dtype=torch.float64)
    pos = torch.tensor([0, 1, 1, 1, 0, 0], dtype=torch.bool)
    got = float(units.auc(x, pos, ~pos)[0])
    assert got == pytest.approx(_auc_pairs(x[:, 0].numpy(), pos.numpy(), (~pos).numpy()))


def test_too_few_tokens_is_a_message():
    h, _ = _small()
    with pytest.raises(InputError):
        units.unit_search(h, torch.tensor([1, 0, 0, 0, 0, 0, 0, 0], dtype=torch.bool), None,
                          torch.Generator().manual_seed(0))


def test_property_masks():
    toks = ["he", "said", '"', "go", "now", '"', "and", "left"]
    assert units.quotes_mask(toks).tolist() == [0, 0, 0, 1, 1, 0, 0, 0]
    assert units.quotes_mask(["他", "说", "「", "走", "」"]).tolist() == [0, 0, 0, 1, 0]
    assert units.second_half_mask(5).tolist() == [0, 0, 0, 1, 1]
    assert units.after_word_mask(toks, "Said").tolist() == [0, 0, 1, 1, 1, 1, 1, 1]
    assert not units.after_word_mask(toks, "absent").any()
    assert units.span_mask(5, 1, 2).tolist() == [0, 1, 1, 0, 0]
    ex = units.extremes(torch.tensor([[0.1], [0.9], [-0.5], [0.3]]), 0, 2)
    assert [i for i, _ in ex["most"]] == [1, 3] and [i for i, _ in ex["least"]] == [2, 0]


def _by_hand(model: RNNModel, ids, unit: int, value: float) -> torch.Tensor:
    """The Elman recurrence re-run by hand with h_t[unit] set to value after every step: p (T, K)."""
    H = model.cfg.hidden_size
    x = model.E.detach()[torch.as_tensor(ids)]  # (T, d)
    T = x.shape[0]

    def scan(Wx, Wh, b, order, k):
        h, hs = torch.zeros(H, dtype=x.dtype), [None] * T
        for t in order:
            h = torch.tanh(Wx @ x[t] + Wh @ h + b)
            if k is not None:
                h = h.clone()
                h[k] = value
            hs[t] = h
        return torch.stack(hs)

    fwd = scan(model.W_x.detach(), model.W_h.detach(), model.b_h.detach(), range(T),
               unit if unit < H else None)
    hs = fwd
    if model.cfg.bidirectional:
        bwd = scan(model.W_x_rev.detach(), model.W_h_rev.detach(), model.b_h_rev.detach(),
                   range(T - 1, -1, -1), unit - H if unit >= H else None)
        hs = torch.cat([fwd, bwd], -1)
    return torch.softmax(hs @ model.W_o.detach().T + model.b_o.detach(), -1)


@pytest.mark.parametrize("bi,unit", [(False, 2), (True, 1), (True, 6)])
def test_clamp_equals_hand_edit(bi, unit):
    model = copy.deepcopy(RNNModel(RNNConfig(9, 3, 4, bidirectional=bi, num_outputs=5), seed=2)).double()
    ids = [1, 5, 2, 8, 0, 3]
    plain = torch.softmax(model(torch.as_tensor(ids)).double(), -1)
    for value in (0.0, 0.37):
        out = units.clamp_effect(model, ids, unit, value, lm=False)
        assert torch.allclose(out["p_clamped"], _by_hand(model, ids, unit, value), atol=1e-12)
        assert torch.allclose(out["p"], plain, atol=1e-12)  # the plain run is unchanged
        assert (out["h_clamped"][:, unit] == value).all()
        tags = plain.argmax(-1)
        want = out["p_clamped"][torch.arange(6), tags] - plain[torch.arange(6), tags]
        assert torch.allclose(out["delta"], want)
    # no hook stays behind: a later plain run is the first one
    assert torch.allclose(torch.softmax(model(torch.as_tensor(ids)).double(), -1), plain, atol=0)


def test_clamp_language_model_delta_log_p():
    model = copy.deepcopy(RNNModel(RNNConfig(9, 3, 4), seed=5)).double()
    ids = [1, 5, 2, 8, 0, 3]
    out = units.clamp_effect(model, ids, 3, 0.0, lm=True)
    with torch.no_grad():
        q = _by_hand(model, ids, 3, 0.0)
    with torch.no_grad():
        p = torch.softmax(model(torch.as_tensor(ids)).double(), -1)
    want = torch.tensor([float(torch.log(q[t, ids[t + 1]]) - torch.log(p[t, ids[t + 1]])) for t in range(5)],
                        dtype=torch.float64)
    assert torch.allclose(out["delta"], want, atol=1e-12)
    top = units.largest_changes(out["delta"], 2)
    assert abs(top[0][1]) >= abs(top[1][1])
    with pytest.raises(InputError):
        units.clamp_hooks(model, 4, 0.0)
