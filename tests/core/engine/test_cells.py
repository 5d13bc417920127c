"""LSTM and GRU against torch.nn: every Trace field, every gradient, the Jacobians, the horizon.

The oracle steps torch.nn.LSTMCell / GRUCell (float64) with each h_t kept as its own tensor,
so autograd gives the TOTAL dL/dh_t; an extra input e_t (zeros, identity columns in
weight_ih) gives dL/d(gate pre-activations) without touching the cell's equations.
"""
import pytest
import torch
import torch.nn.functional as F

from rnnviz import RNNConfig, RNNModel
from rnnviz.conventions import IGNORE
from rnnviz.engine.jacobians import (
    forget_products,
    gradient_flow,
    input_jacobian_norms,
    jacobian_norms,
    memory_horizon,
    step_jacobians,
)
from rnnviz.engine.trace import trace

CASES = [(cell, bi) for cell in ("lstm", "gru") for bi in (False, True)]
IDS = [3, 1, 4, 1, 5, 6, 2]


def make(cell, bi, seed=0, V=9, d=3, H=4):
    return RNNModel(RNNConfig(V, d, H, cell=cell, bidirectional=bi), seed=seed).double()


def reference(model, ids):
    """The float64 oracle built from torch.nn cells. Returns a dict of the Trace's fields."""
    cfg = model.cfg
    H, d, G = cfg.hidden_size, cfg.embed_dim, (4 if cfg.cell == "lstm" else 3)
    Cell = torch.nn.LSTMCell if cfg.cell == "lstm" else torch.nn.GRUCell
    sd = model.rnn_state_dict()
    ids = torch.tensor(ids)
    T = len(ids)
    E = model.E.detach().clone().requires_grad_(True)
    W_o = model.W_o.detach().clone().requires_grad_(True)
    b_o = model.b_o.detach().clone().requires_grad_(True)
    x = E[ids]
    x.retain_grad()
    dirs = [("", False)] + ([("_reverse", True)] if cfg.bidirectional else [])
    cells, es, hs, cs = [], [], [], []
    for suffix, rev in dirs:
        cell = Cell(d + G * H, H).double()
        with torch.no_grad():
            cell.weight_ih.copy_(torch.cat([sd["weight_ih_l0" + suffix], torch.eye(G * H)], 1))
            cell.weight_hh.copy_(sd["weight_hh_l0" + suffix])
            cell.bias_ih.copy_(sd["bias_ih_l0" + suffix])
            cell.bias_hh.copy_(sd["bias_hh_l0" + suffix])
        e = torch.zeros(T, G * H, dtype=torch.float64, requires_grad=True)
        h = torch.zeros(H, dtype=torch.float64)
        c = torch.zeros(H, dtype=torch.float64)
        h_list, c_list = [None] * T, [None] * T
        for t in (range(T - 1, -1, -1) if rev else range(T)):
            inp = torch.cat([x[t], e[t]])
            if cfg.cell == "lstm":
                h, c = cell(inp, (h, c))
                c_list[t] = c
            else:
                h = cell(inp, h)
            h.retain_grad()
            h_list[t] = h
        cells.append(cell)
        es.append(e)
        hs.append(h_list)
        cs.append(c_list)
    h_all = torch.stack([torch.cat([hl[t] for hl in hs]) for t in range(T)])  # (T, H_out)
    z = h_all @ W_o.T + b_o
    z.retain_grad()
    targets = torch.full_like(ids, IGNORE)
    targets[:-1] = ids[1:]
    loss_t = F.cross_entropy(z, targets, ignore_index=IGNORE, reduction="none")
    loss = loss_t.sum()
    loss.backward(retain_graph=True)
    # forward values of the gates, from the cells' own weights and the oracle's h_{t-1}
    gate_vals, a_vals = {}, []
    names = ("i", "f", "g", "o") if cfg.cell == "lstm" else ("r", "z", "n")
    per_dir = []
    with torch.no_grad():
        for (suffix, rev), h_list in zip(dirs, hs):
            hst = torch.stack(h_list)
            prev = (torch.cat([hst[1:], torch.zeros_like(hst[:1])]) if rev
                    else torch.cat([torch.zeros_like(hst[:1]), hst[:-1]]))
            Gx = x @ sd["weight_ih_l0" + suffix].T + sd["bias_ih_l0" + suffix]
            Gh = prev @ sd["weight_hh_l0" + suffix].T + sd["bias_hh_l0" + suffix]
            if cfg.cell == "lstm":
                A = (Gx + Gh).chunk(4, -1)
                vals = dict(zip(names, (torch.sigmoid(A[0]), torch.sigmoid(A[1]), torch.tanh(A[2]),
                                        torch.sigmoid(A[3]))))
                a = A[2]
            else:
                xr, xz, xn = Gx.chunk(3, -1)
                hr, hz, hn = Gh.chunk(3, -1)
                r, zz = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
                a = xn + r * hn
                vals = {"r": r, "z": zz, "n": torch.tanh(a)}
            per_dir.append((vals, a))
    for n in names:
        gate_vals[n] = torch.cat([v[n] for v, _ in per_dir], -1)
    a_vals = torch.cat([a for _, a in per_dir], -1)
    delta = torch.cat([e.grad[:, 2 * H:3 * H] for e in es], -1)
    grads = {"E": E.grad, "W_o": W_o.grad, "b_o": b_o.grad}
    for (suffix, _), cell in zip(dirs, cells):
        ours = "_rev" if suffix else ""
        grads["W_x" + ours] = cell.weight_ih.grad[:, :d]
        grads["W_h" + ours] = cell.weight_hh.grad
        grads["b_x" + ours] = cell.bias_ih.grad
        grads["b_h" + ours] = cell.bias_hh.grad
    out = {"x": x.detach(), "a": a_vals, "h": h_all.detach(), "z": z.detach(),
           "p": torch.softmax(z.detach(), -1), "loss_t": loss_t.detach(), "loss": loss.detach(),
           "grad_z": z.grad, "grad_h": torch.stack([torch.cat([hl[t].grad for hl in hs])
                                                     for t in range(T)]),
           "delta": delta, "grad_x": x.grad, "grads": grads, "gates": gate_vals,
           "targets": targets, "h_list": hs[0], "loss_terms": loss_t}
    if cfg.cell == "lstm":
        out["c"] = torch.stack([torch.cat([cl[t] for cl in cs]) for t in range(T)]).detach()
    return out


@pytest.mark.parametrize("cell,bi", CASES)
def test_every_trace_field_equals_torch_nn(cell, bi):
    model = make(cell, bi)
    tr = trace(model, IDS)
    ref = reference(model, IDS)
    close = {"rtol": 0, "atol": 1e-9}
    for name in ("x", "a", "h", "z", "p", "loss_t", "loss", "grad_z", "grad_h", "delta", "grad_x"):
        torch.testing.assert_close(getattr(tr, name), ref[name], **close, msg=name)
    assert set(tr.grads) == set(ref["grads"])
    for name, g in ref["grads"].items():
        torch.testing.assert_close(tr.grads[name], g, **close, msg=name)
    assert set(tr.gates) == set(ref["gates"])
    for name, g in ref["gates"].items():
        torch.testing.assert_close(tr.gates[name], g, **close, msg=name)
    if cell == "lstm":
        torch.testing.assert_close(tr.c, ref["c"], **close)
    else:
        assert tr.c is None
    assert torch.equal(tr.targets, ref["targets"])


@pytest.mark.parametrize("cell,bi", CASES)
def test_whole_sequence_module_agrees(cell, bi):
    """nn.LSTM / nn.GRU themselves (not only their cells) take rnn_state_dict strictly."""
    model = make(cell, bi)
    mod = getattr(torch.nn, cell.upper())(3, 4, bidirectional=bi).double()
    mod.load_state_dict(model.rnn_state_dict(), strict=True)
    tr = trace(model, IDS)
    out, state = mod(model.E.detach()[torch.tensor(IDS)])
    torch.testing.assert_close(tr.h, out.detach(), rtol=0, atol=1e-9)
    if cell == "lstm":  # final cell states: forward at T-1, reverse at 0
        torch.testing.assert_close(tr.c[-1, :4], state[1][0].detach(), rtol=0, atol=1e-9)
        if bi:
            torch.testing.assert_close(tr.c[0, 4:], state[1][1].detach(), rtol=0, atol=1e-9)


@pytest.mark.parametrize("cell,bi", CASES)
def test_load_rnn_state_dict_from_module(cell, bi):
    torch.manual_seed(1)
    mod = getattr(torch.nn, cell.upper())(3, 4, bidirectional=bi).double()
    model = make(cell, bi, seed=5)
    model.load_rnn_state_dict(mod.state_dict())
    out, _ = mod(model.E.detach()[torch.tensor(IDS)])
    torch.testing.assert_close(trace(model, IDS).h, out.detach(), rtol=0, atol=1e-9)
    with pytest.raises(ValueError):
        model.load_rnn_state_dict({"weight_ih_l0": mod.weight_ih_l0})


def test_elman_exchanges_with_nn_rnn():
    model = RNNModel(RNNConfig(9, 3, 4, bidirectional=True), seed=0).double()
    rnn = torch.nn.RNN(3, 4, bidirectional=True).double()
    rnn.load_state_dict(model.rnn_state_dict(), strict=True)
    out, _ = rnn(model.E.detach()[torch.tensor(IDS)])
    torch.testing.assert_close(trace(model, IDS).h, out.detach(), rtol=0, atol=1e-12)
    other = RNNModel(RNNConfig(9, 3, 4, bidirectional=True), seed=3).double()
    other.load_rnn_state_dict(rnn.state_dict())
    torch.testing.assert_close(other.b_h, model.b_h, rtol=0, atol=0)


def test_hook_names_frozen():
    lstm = make("lstm", False)
    base = ("hook_embed", "hook_pre", "hook_hidden", "hook_pre_rev", "hook_hidden_rev", "hook_logits")
    assert lstm.HOOK_NAMES == base + ("hook_gate_i", "hook_gate_f", "hook_gate_g", "hook_gate_o",
                                      "hook_cell", "hook_gate_i_rev", "hook_gate_f_rev",
                                      "hook_gate_g_rev", "hook_gate_o_rev", "hook_cell_rev")
    assert make("gru", True).HOOK_NAMES == base + ("hook_gate_r", "hook_gate_z", "hook_gate_n",
                                                   "hook_gate_r_rev", "hook_gate_z_rev",
                                                   "hook_gate_n_rev")
    assert RNNModel.HOOK_NAMES == base  # the class keeps the Elman names


def test_zeroing_the_forget_gate_by_hook_matches_formula():
    """A user hook on hook_gate_f that zeroes f: then c_t = i_t * g_t exactly."""
    model = make("lstm", False)
    ids = torch.tensor(IDS)
    _, cache = model.run_with_cache(ids, hooks=[("hook_gate_f", lambda v, t: torch.zeros_like(v))])
    torch.testing.assert_close(cache["hook_cell"], cache["hook_gate_i"] * cache["hook_gate_g"])
    assert torch.all(cache["hook_gate_f"] == 0)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_gradients_by_finite_differences(cell):
    model = make(cell, True)
    tr = trace(model, IDS)
    eps = 1e-6
    gen = torch.Generator().manual_seed(0)
    for name, p in model.named_parameters():
        for _ in range(3):
            k = int(torch.randint(p.numel(), (1,), generator=gen))
            with torch.no_grad():
                old = p.view(-1)[k].item()
                p.view(-1)[k] = old + eps
                up = trace(model, IDS).loss
                p.view(-1)[k] = old - eps
                down = trace(model, IDS).loss
                p.view(-1)[k] = old
            fd = float((up - down) / (2 * eps))
            assert abs(fd - float(tr.grads[name].reshape(-1)[k])) < 1e-6, (name, k)


def _state_fn(model, t, x_t):
    """state_{t-1} -> state_t of the forward direction, through torch.nn cells."""
    H, cell = model.cfg.hidden_size, model.cfg.cell
    sd = model.rnn_state_dict()
    Cell = torch.nn.LSTMCell if cell == "lstm" else torch.nn.GRUCell
    m = Cell(model.cfg.embed_dim, H).double()
    m.load_state_dict({k.replace("_l0", ""): v for k, v in sd.items() if "reverse" not in k})
    if cell == "lstm":
        return lambda s: torch.cat(m(x_t, (s[:H], s[H:])))
    return lambda s: m(x_t, s)


@pytest.mark.parametrize("cell,bi", CASES)
def test_step_jacobians_equal_autograd(cell, bi):
    model = make(cell, bi, H=5)
    tr = trace(model, IDS)
    H = 5
    J = step_jacobians(model, tr)
    S = 2 * H if cell == "lstm" else H
    assert J.shape == (len(IDS), S, S)
    for t in range(len(IDS)):
        prev = torch.zeros(S, dtype=torch.float64)
        if t:
            prev[:H] = tr.h[t - 1, :H]
            if cell == "lstm":
                prev[H:] = tr.c[t - 1, :H]
        want = torch.autograd.functional.jacobian(_state_fn(model, t, tr.x[t]), prev)
        torch.testing.assert_close(J[t], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cell,bi", [("elman", False), ("jordan", False), ("lstm", False),
                                     ("gru", False), ("elman", True), ("lstm", True), ("gru", True)])
def test_input_jacobian_norms_equal_autograd(cell, bi):
    """Bidirectional models: the forward direction's h (the first H units), as bptt.py."""
    model = RNNModel(RNNConfig(9, 3, 4, cell=cell, bidirectional=bi), seed=2).double()
    tr = trace(model, IDS)
    N = input_jacobian_norms(model, tr)
    T = len(IDS)

    x0 = tr.x.clone()

    def hs_live(x):
        ctx_vals = {}
        from rnnviz.engine.model import HookContext

        def rec(name, v, t):
            if name == "hook_hidden":
                ctx_vals[t] = v
        model.forward(torch.tensor(IDS), HookContext([("hook_embed", lambda v, t: x)], rec))
        return torch.stack([ctx_vals[t] for t in range(T)])[:, :4]

    full = torch.autograd.functional.jacobian(hs_live, x0)  # (T, H, T, d)
    want = torch.linalg.vector_norm(full, dim=(1, 3))  # (T, T)
    lower = ~torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    torch.testing.assert_close(N[lower], want[lower], rtol=1e-9, atol=1e-12)
    assert torch.isnan(N[~lower]).all()
    assert torch.all(want[~lower] == 0)  # no influence backwards in time: NaN is right


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_gradient_flow_equals_autograd(cell):
    model = make(cell, False)
    ref = reference(model, IDS)
    Fl = gradient_flow(model, trace(model, IDS))
    T = len(IDS)
    for s in range(T - 1):  # the last step has no target
        gs = torch.autograd.grad(ref["loss_terms"][s], ref["h_list"][:s + 1], retain_graph=True)
        for t in range(s + 1):
            assert abs(float(Fl[s, t]) - float(gs[t].norm())) < 1e-10
    assert torch.isnan(Fl[0, 1])


def test_lstm_jacobian_norms_and_forget_path():
    model = make("lstm", False)
    tr = trace(model, IDS)
    N = jacobian_norms(model, tr)
    assert N.shape == (7, 7) and abs(float(N[0, 0]) - 8 ** 0.5) < 1e-12  # ||I_{2H}||_F
    J = step_jacobians(model, tr)
    P = J[3] @ J[2]
    assert abs(float(N[3, 1]) - float(torch.linalg.matrix_norm(P))) < 1e-10
    Fp = forget_products(tr, 4)
    want = tr.gates["f"][2] * tr.gates["f"][3] * tr.gates["f"][4]
    torch.testing.assert_close(Fp[4, 1], want, rtol=0, atol=1e-14)
    # the c -> c block of the product of step Jacobians is NOT just the forget product
    # (c also flows through h), but its diagonal part of ONE step is exactly diag(f)
    torch.testing.assert_close(J[4][4:, 4:], torch.diag(tr.gates["f"][4]), rtol=0, atol=0)
    assert torch.isnan(Fp[1, 4]).all()


def test_memory_horizon_counts_contiguous_steps():
    nan = float("nan")
    N = torch.tensor([[1.0, nan, nan, nan],
                      [0.5, 1.0, nan, nan],
                      [1e-4, 0.1, 1.0, nan],
                      [0.01, 1e-5, 0.2, 2.0]])
    out = memory_horizon(N)
    # row 3: j=1 -> 0.2/2 ok, j=2 -> 1e-5/2 < 1e-3: stops at 1 even though 0.01 is above again
    assert out["per_step"] == [0, 1, 1, 1]
    assert out["horizon"] == 1 and out["median"] == 1 and out["reached_start"] is False
    loose = memory_horizon(N, threshold=1e-6)
    assert loose["per_step"] == [0, 1, 2, 3] and loose["reached_start"] is True


def test_gated_configs_refuse_other_nonlinearities():
    from rnnviz.errors import InputError
    with pytest.raises(InputError):
        RNNConfig(9, 3, 4, cell="lstm", nonlinearity="relu")


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_bundle_round_trip(cell):
    from rnnviz.store.bundle import load_bundle, save_bundle
    from rnnviz.text.tokenize import Vocab
    model = RNNModel(RNNConfig(9, 3, 4, cell=cell, bidirectional=True), seed=0)
    vocab = Vocab(tuple(f"w{i}" for i in range(9)))
    again, _, _ = load_bundle(save_bundle(model, vocab))
    assert again.cfg == model.cfg
    torch.testing.assert_close(trace(again, IDS).h, trace(model, IDS).h, rtol=0, atol=0)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_page6_trains_gated_models(cell):
    from rnnviz.engine.train import TrainConfig
    from rnnviz.explain.train import read_corpus, start_run
    corpus = read_corpus("the cat sat on the mat\nthe dog sat on the log\n" * 5)
    run = start_run(corpus, 12, 8, 8, cell, "tanh", TrainConfig(steps=40, batch_size=4, lr=0.05))
    run.run()
    assert run.status == "done" and run.model.cfg.cell == cell
    assert run.history[-1]["loss"] < 0.5 * run.history[0]["loss"]
    assert run.final_perplexity is not None and run.final_perplexity < 3


@pytest.mark.parametrize("key", ["lstm", "gru"])
def test_builtin_gated_models_ship_and_match_their_report(key):
    from rnnviz.engine.train import perplexity
    from rnnviz.store.catalog import BUILTINS, PRETRAINED, load_builtin, training_report
    from rnnviz.text.corpora import lm_tensors, split_heldout
    from scripts.build_pretrained import corpus_sentences
    assert key in BUILTINS
    assert (PRETRAINED / f"{key}_lm.pt").stat().st_size < 2_000_000
    model, vocab, _ = load_builtin(key)
    report = training_report(key)
    assert model.cfg.cell == key and model.cfg.hidden_size == training_report()["config"]["hidden_size"]
    _, test_s = split_heldout(corpus_sentences())
    x_te, y_te = lm_tensors(test_s, vocab)
    ppl = perplexity(model, x_te, y_te)
    assert abs(ppl - report["heldout_perplexity"]) < 1e-3
    assert ppl < report["uniform_perplexity"] / 5
    assert report["parameters"] == sum(p.numel() for p in model.parameters())
