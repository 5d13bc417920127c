"""Core of page 8 (Gates): one step written out, gate saturation, kept cells, the long-range
findings and the LSTM exercise verdict, each against an oracle (the trace, torch.nn, a hand
loop, the shipped JSON)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from rnnviz.engine import cells, jacobians
from rnnviz.engine.trace import trace
from rnnviz.errors import InputError
from rnnviz.explain import gates
from rnnviz.explain import hidden as hd
from rnnviz.explain import longrange as lr
from rnnviz.explain.exercises import gates as gx
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair

SENTENCE = "Arrive Taipei on November 2nd"


def _traced(key: str):
    model, vocab, _ = load_builtin(key)
    ids, targets = lm_pair(vocab.encode(SENTENCE.split())[0], vocab)
    return model, trace(model, ids, targets)


@pytest.mark.parametrize("key", ["lstm", "gru"])
def test_gated_step_reproduces_the_trace_and_torch_nn(key):
    model, tr = _traced(key)
    H = model.cfg.hidden_size
    mod = (torch.nn.LSTM if key == "lstm" else torch.nn.GRU)(model.cfg.embed_dim, H).double()
    mod.load_state_dict({k: v.double() for k, v in cells.rnn_state_dict(model).items()})
    with torch.no_grad():
        ref, _ = mod(tr.x.double())  # (T, H) torch.nn's own loop
    for t in range(tr.T):
        s = gates.gated_step(model, tr, t)
        assert torch.allclose(s["h"], ref[t], atol=1e-5)
        assert torch.allclose(s["h"].float(), tr.h[t, :H], atol=1e-5)
        for g in cells.GATE_NAMES[key]:
            assert torch.allclose(s[g].float(), tr.gates[g][t, :H], atol=1e-5)
        if key == "lstm":
            assert torch.allclose(s["c"].float(), tr.c[t, :H], atol=1e-5)
            assert torch.allclose(s["c"], s["f"] * s["c_prev"] + s["i"] * s["g"])
            assert torch.allclose(s["i"], torch.sigmoid(s["pre_i"]))
        else:
            assert torch.allclose(s["h"], (1 - s["z"]) * s["n"] + s["z"] * s["h_prev"])
    assert float(gates.gated_step(model, tr, 0)["h_prev"].abs().max()) == 0.0
    s = gates.gated_step(model, tr, 2)
    assert abs(float(s["h"][s["peak"]])) == float(s["h"].abs().max())
    with pytest.raises(InputError):
        gates.gated_step(model, tr, tr.T)


def test_gated_step_and_step_terms_refuse_the_other_kind():
    model, tr = _traced("default")
    with pytest.raises(InputError, match="LSTM and GRU"):
        gates.gated_step(model, tr, 1)
    model, tr = _traced("lstm")
    with pytest.raises(InputError, match="page 8"):
        hd.step_terms(model, tr, 1)


@pytest.mark.parametrize("key", ["lstm", "gru"])
def test_gate_saturation_counts_by_hand(key):
    model, tr = _traced(key)
    H = model.cfg.hidden_size
    sat = gates.gate_saturation(tr, key, H)
    assert set(sat) == set(gates.SIGMOID_GATES[key])
    for g, share in sat.items():
        vals = tr.gates[g][:, :H].flatten().tolist()
        assert share == pytest.approx(sum(v < 0.05 or v > 0.95 for v in vals) / len(vals))
    assert gates.gate_saturation(tr, key, H, lo=-1, hi=2) == {g: 0.0 for g in sat}


def test_kept_cells_is_the_product_of_forget_gates():
    model, tr = _traced("lstm")
    H = model.cfg.hidden_size
    k = gates.kept_cells(tr, H, start=1, threshold=0.5)
    f = tr.gates["f"][:, :H].double()
    want = torch.prod(f[2:], dim=0)  # f_3 ... f_T (0-based 2..T-1)
    assert torch.allclose(k["kept"], want)
    assert k["n_kept"] == int((want >= 0.5).sum())
    assert [float(k["kept"][u]) for u in k["order"]] == sorted(want.tolist(), reverse=True)
    with pytest.raises(InputError):
        gates.kept_cells(_traced("gru")[1], H)


def test_long_range_findings_read_the_shipped_file():
    res = lr.load_results()
    f = lr.findings(res)
    fixed = {(r["cell"], r["distance"]): r for r in res["fixed"]["rows"]}
    for cell, d in f["learned"].items():
        if d:
            assert fixed[(cell, d)]["accuracy"] >= lr.LEARNED
        assert all(fixed[(cell, e)]["accuracy"] < lr.LEARNED for (c, e) in fixed if c == cell and e > d)
    assert f["grad_ratio"] == pytest.approx(fixed[("lstm", 50)]["grad_first_before"]["first"]
                                            / fixed[("elman", 50)]["grad_first_before"]["first"])
    rows = lr.result_rows(res)
    assert len(rows) == sum(len(e["rows"]) for e in res.values())
    assert f["curriculum_all"] == all(a >= lr.LEARNED for r in res["curriculum"]["rows"]
                                      for a in r["accuracy_by_distance"].values())


def test_exercise_verdict_names_each_slip():
    ex = gx.make_exercise(3)
    c, h = gx.exercise_answers(ex)
    v = gx.check_verdict(ex, [*c, *h])
    assert v.ok and v.hint_key == "gates.ex_right"
    for mistake, code in gx.HINT_CODES.items():
        c2, h2 = gx.exercise_answers(ex, mistake)
        v = gx.check_verdict(ex, [*c2, *h2])
        assert not v.ok and v.hint_key == f"gates.ex_hint.{code}", mistake
    v = gx.check_verdict(ex, [*c, *(np.asarray(h) + 0.5)])
    assert not v.ok and v.hint_key == "gates.ex_hint.h_wrong"
    with pytest.raises(InputError):
        gx.check_verdict(ex, [1.0, None, 0.0, 0.0])


def test_first_word_reach_is_a_ratio_of_autograd_jacobians():
    model, tr = _traced("gru")
    x = tr.x.detach().double().clone().requires_grad_(True)
    H = model.cfg.hidden_size
    W = [getattr(model, n).detach().double() for n in ("W_x", "W_h", "b_x", "b_h")]

    def last_h(xs):  # hand loop of torch.nn.GRU's equations, float64
        h = xs.new_zeros(H)
        for t in range(xs.shape[0]):
            h = cells.gru_step(xs[t], h, *W)["h"]
        return h

    J = torch.autograd.functional.jacobian(last_h, x)  # (H, T, d)
    want = float(J[:, 1].norm() / J[:, -1].norm())
    got = gates.first_word_reach(jacobians.input_jacobian_norms(model, tr), start=1)
    assert got == pytest.approx(want, rel=1e-4)


def test_train_now_equals_the_experiments_loop_and_stops_on_time():
    cfg = lr.LongRangeConfig(cell="gru", distance=10, steps=30)
    got = lr.train_now(cfg, max_seconds=1e9)
    net, history = lr.train_longrange(cfg)
    assert got["steps_done"] == 30 and not got["stopped_early"]
    assert got["accuracy"] == lr.accuracy_by_distance(net, [10])[10]
    assert got["final_train_loss"] == history[-1]["loss"]
    ticks = iter(range(1000))
    late = lr.train_now(cfg, max_seconds=5, clock=lambda: next(ticks))  # one tick per step
    assert late["stopped_early"] and late["steps_done"] == 5


def test_shipped_row_is_found_for_its_own_config():
    res = lr.load_results()
    row = res["fixed"]["rows"][3]
    cfg = lr.LongRangeConfig(**row["config"])
    assert lr.shipped_row(res, cfg) is row
    assert lr.shipped_row(res, lr.LongRangeConfig(cell="gru", distance=7)) is None


@pytest.mark.parametrize("cell", ["elman", "lstm", "gru", "attention"])
def test_the_net_draws_the_modules_seeded_weights_from_its_own_generator(cell):
    """Oracle: PyTorch's own modules built after torch.manual_seed(seed) (inside fork_rng). The
    net draws the same weights from a generator of its own and leaves the global one alone."""
    seed, H, d = 3, 16, 8
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        E, rnn = torch.nn.Embedding(len(lr.VOCAB), d), lr.RECURRENCE[cell](d, H, batch_first=True)
        head = torch.nn.Linear(2 * H if cell == "attention" else H, lr.N_LABELS)
        W_a = (torch.rand(H, H) * 2 - 1) / H ** 0.5 if cell == "attention" else None
    before = torch.random.get_rng_state()
    net = lr.LongRangeNet(lr.LongRangeConfig(cell=cell, seed=seed, hidden_size=H, embed_dim=d))
    assert torch.equal(torch.random.get_rng_state(), before)
    want = dict(rnn.state_dict())
    if cell == "lstm":
        want["bias_hh_l0"] = want["bias_hh_l0"].clone()
        want["bias_hh_l0"][H:2 * H] += 1.0   # the forget-gate bias the net adds
    for k, v in want.items():
        assert torch.equal(net.rnn.state_dict()[k], v), k
    assert torch.equal(net.E.weight, E.weight)
    assert torch.equal(net.head.weight, head.weight) and torch.equal(net.head.bias, head.bias)
    if W_a is not None:
        assert torch.equal(net.W_a, W_a)
    rnn.load_state_dict(want)   # the net's recurrence runs on its own (flat) weights
    x = E(torch.zeros(2, 4, dtype=torch.long)).detach()
    with torch.no_grad():
        assert torch.equal(net.rnn(x)[0], rnn(x)[0])
