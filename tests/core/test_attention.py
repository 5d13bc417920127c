"""The RNN with attention over its own past hidden states (RNNConfig(attention=True)), against
an independent float64 reference: torch.nn.RNNCell / GRUCell for the recurrence (checked against
torch.nn.RNN / GRU) and the attention written out with matrices; the loss and every gradient
against autograd and finite differences; the bundle round trip; the path split of page 9."""
import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from rnnviz.conventions import IGNORE
from rnnviz.engine.model import HookContext, RNNConfig, RNNModel
from rnnviz.engine.trace import next_token_targets, trace
from rnnviz.engine.train import TrainConfig, train
from rnnviz.errors import InputError
from rnnviz.explain import attention as ax
from rnnviz.explain import longrange
from rnnviz.store.bundle import load_bundle, save_bundle
from rnnviz.text.tokenize import Vocab

pytestmark = pytest.mark.core
V, D, H = 11, 4, 5
IDS = torch.tensor([1, 7, 3, 9, 2, 5, 10])


def make(cell, seed=3):
    return RNNModel(RNNConfig(V, D, H, cell=cell, attention=True), seed=seed).double()


def reference(model, ids, targets):
    """The same model rebuilt from torch.nn pieces and matrices, with every intermediate."""
    cell = model.cfg.cell
    sd = {k.removesuffix("_l0"): v.double() for k, v in model.rnn_state_dict().items()}
    Cell = nn.RNNCell if cell == "elman" else nn.GRUCell
    rnn_cell = Cell(D, H).double()
    rnn_cell.load_state_dict(sd)
    Whole = nn.RNN if cell == "elman" else nn.GRU
    whole = Whole(D, H).double()
    whole.load_state_dict({k + "_l0": v for k, v in sd.items()})
    E = model.E.detach().clone().requires_grad_(True)
    W_a = model.W_a.detach().clone().requires_grad_(True)
    W_o = model.W_o.detach().clone().requires_grad_(True)
    b_o = model.b_o.detach().clone().requires_grad_(True)
    x = E[ids]
    x.retain_grad()
    h, hs, probes = torch.zeros(H, dtype=torch.float64), [], []
    for t in range(len(ids)):
        probe = torch.zeros(H, dtype=torch.float64, requires_grad=True)  # dL/dh_t, total
        h = rnn_cell(x[t][None], h[None])[0] + probe
        hs.append(h)
        probes.append(probe)
    Hs = torch.stack(hs)  # (T, H)
    torch.testing.assert_close(Hs, whole(x)[0])  # the cell loop is torch.nn.RNN / GRU
    T = len(ids)
    S = Hs @ W_a @ Hs.T  # S[t, j] = h_t . W_a h_j
    S = S.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
    S.retain_grad()
    A = torch.softmax(S, dim=-1)
    Cx = A @ Hs
    Cx.retain_grad()
    Z = torch.cat([Hs, Cx], -1) @ W_o.T + b_o
    Z.retain_grad()
    loss_t = F.cross_entropy(Z, targets, ignore_index=IGNORE, reduction="none")
    loss = loss_t.sum()
    loss.backward(inputs=[E, W_a, W_o, b_o, *probes, x, S, Cx, Z, *rnn_cell.parameters()])
    return {"x": x.detach(), "h": Hs.detach(), "scores": S.detach(), "weights": A.detach(),
            "context": Cx.detach(), "z": Z.detach(), "loss_t": loss_t.detach(), "loss": loss.detach(),
            "grad_z": Z.grad, "grad_h": torch.stack([p.grad for p in probes]), "grad_x": x.grad,
            "grad_context": Cx.grad, "grad_scores": S.grad,
            "grads": {"E": E.grad, "W_a": W_a.grad, "W_o": W_o.grad, "b_o": b_o.grad,
                      **{k: v.grad for k, v in rnn_cell.named_parameters()}}, "cell": rnn_cell}


@pytest.mark.parametrize("cell", ["elman", "gru"])
def test_every_trace_field_equals_the_reference(cell):
    model = make(cell)
    targets = next_token_targets(IDS)
    tr = trace(model, IDS, targets)
    ref = reference(model, IDS, targets)
    for name in ("x", "h", "z", "loss_t", "loss", "grad_z", "grad_h", "grad_x", "context",
                 "grad_context"):
        torch.testing.assert_close(getattr(tr, name), ref[name], msg=name, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(tr.attn_scores, ref["scores"])  # -inf above the diagonal in both
    torch.testing.assert_close(tr.attn_weights, ref["weights"], rtol=1e-10, atol=1e-12)
    assert torch.all(tr.attn_weights.triu(1) == 0) and torch.all(torch.isinf(tr.attn_scores.triu(1).sum(1)[:-1]))
    torch.testing.assert_close(tr.p, torch.softmax(ref["z"], -1))
    torch.testing.assert_close(tr.attn_weights.sum(1), torch.ones(7, dtype=torch.float64))
    assert tr.reduction == "sum" and torch.equal(tr.ids, IDS) and torch.equal(tr.targets, targets)
    # a and delta: the (candidate's) pre-activation and dL/da, from the reference's numbers
    x, hs = ref["x"], ref["h"]
    h_prev = torch.cat([torch.zeros(1, H, dtype=torch.float64), hs[:-1]])
    c = ref["cell"]
    if cell == "elman":
        a = x @ c.weight_ih.T + c.bias_ih + h_prev @ c.weight_hh.T + c.bias_hh
        delta = ref["grad_h"] * (1 - hs ** 2)
        assert tr.gates == {} and tr.c is None
    else:
        gx, gh = x @ c.weight_ih.T + c.bias_ih, h_prev @ c.weight_hh.T + c.bias_hh
        r = torch.sigmoid(gx[:, :H] + gh[:, :H])
        zg = torch.sigmoid(gx[:, H:2 * H] + gh[:, H:2 * H])
        a = gx[:, 2 * H:] + r * gh[:, 2 * H:]
        delta = ref["grad_h"] * (1 - zg) * (1 - torch.tanh(a) ** 2)
        torch.testing.assert_close(tr.gates["r"], r.detach())
        torch.testing.assert_close(tr.gates["z"], zg.detach())
        torch.testing.assert_close(tr.gates["n"], torch.tanh(a).detach())
    torch.testing.assert_close(tr.a, a.detach())
    torch.testing.assert_close(tr.delta, delta.detach(), rtol=1e-10, atol=1e-12)
    g = ref["grads"]
    ours = {"E": "E", "W_a": "W_a", "W_o": "W_o", "b_o": "b_o", "weight_ih": "W_x",
            "weight_hh": "W_h"}
    for theirs, mine in ours.items():
        torch.testing.assert_close(tr.grads[mine], g[theirs], msg=mine, rtol=1e-10, atol=1e-12)
    if cell == "elman":  # nn.RNNCell's two biases are our one b_h
        torch.testing.assert_close(tr.grads["b_h"], g["bias_ih"])
        torch.testing.assert_close(g["bias_ih"], g["bias_hh"])
    else:
        torch.testing.assert_close(tr.grads["b_x"], g["bias_ih"])
        torch.testing.assert_close(tr.grads["b_h"], g["bias_hh"])
    assert set(tr.grads) == {n for n, _ in model.named_parameters()}


@pytest.mark.parametrize("cell", ["elman", "gru", "lstm"])
def test_gradients_against_autograd_and_finite_differences(cell):
    model = make(cell, seed=5)
    targets = next_token_targets(IDS)
    tr = trace(model, IDS, targets)
    loss = F.cross_entropy(model(IDS)[:-1], IDS[1:], reduction="sum")
    params = dict(model.named_parameters())
    for name, g in zip(params, torch.autograd.grad(loss, list(params.values()))):
        torch.testing.assert_close(tr.grads[name], g, msg=name)
    eps = 1e-6
    for name, idx in (("W_a", (1, 2)), ("W_a", (4, 0)), ("W_o", (3, H + 2)), ("W_h", (2, 1)),
                      ("E", (IDS[0].item(), 1))):
        p = params[name]
        with torch.no_grad():
            p[idx] += eps
            up = F.cross_entropy(model(IDS)[:-1], IDS[1:], reduction="sum")
            p[idx] -= 2 * eps
            down = F.cross_entropy(model(IDS)[:-1], IDS[1:], reduction="sum")
            p[idx] += eps
        fd = (up - down) / (2 * eps)
        assert abs(float(fd) - float(tr.grads[name][idx])) < 1e-7, (name, idx)


def test_hooks_and_their_gradients_are_recorded():
    model = make("gru")
    assert model.HOOK_NAMES[-3:] == ("hook_attn_scores", "hook_attn_weights", "hook_context")
    assert RNNModel.HOOK_NAMES[-1] == "hook_logits"  # the class keeps the plain names
    _, cache = model.run_with_cache(IDS, targets=next_token_targets(IDS))
    for name in ("hook_attn_scores", "hook_attn_weights", "hook_context"):
        assert name in cache and name + "_grad" in cache
    assert cache["hook_attn_weights"].shape == (7, 7) and cache["hook_context"].shape == (7, H)
    ref = reference(model, IDS, next_token_targets(IDS))
    torch.testing.assert_close(cache["hook_attn_scores_grad"], ref["grad_scores"])

    def flat(w, t):  # a hook that patches the weights: uniform over j <= t
        return torch.tril(torch.ones_like(w.unsqueeze(-2).expand(7, 7)))[t] / (t + 1)

    logits, c2 = model.run_with_cache(IDS, hooks=[("hook_attn_weights", flat)])
    torch.testing.assert_close(c2["hook_context"][3], c2["hook_hidden"][:4].mean(0))


def test_batched_forward_equals_one_by_one_and_trains():
    model = make("elman")
    batch = torch.stack([IDS, IDS.flip(0)])
    out = model(batch)
    torch.testing.assert_close(out[0], model(IDS))
    torch.testing.assert_close(out[1], model(IDS.flip(0)))
    m = RNNModel(RNNConfig(V, D, H, attention=True), seed=0)
    x = torch.randint(0, V, (8, 6), generator=torch.Generator().manual_seed(0))
    hist = train(m, x[:, :-1], x[:, 1:], TrainConfig(steps=30, lr=0.05))
    assert hist[-1]["loss"] < hist[0]["loss"]


def test_config_rules_and_unchanged_plain_models():
    with pytest.raises(InputError):
        RNNConfig(V, D, H, cell="jordan", attention=True)
    with pytest.raises(InputError):
        RNNConfig(V, D, H, bidirectional=True, attention=True)
    plain = RNNModel(RNNConfig(V, D, H), seed=0)
    assert "attention" not in plain.cfg.to_dict()  # old dicts, fingerprints and bundles unchanged
    assert RNNConfig(V, D, H, attention=True).to_dict()["attention"] is True
    twin = RNNModel(RNNConfig(V, D, H, attention=True), seed=0)
    for name in ("E", "W_x", "W_h", "b_h"):  # the same draws before W_o
        torch.testing.assert_close(getattr(plain, name), getattr(twin, name))
    assert twin.W_o.shape == (V, 2 * H) and twin.W_a.shape == (H, H)
    assert trace(plain, IDS).attn_weights is None


@pytest.mark.parametrize("cell", ["elman", "gru"])
def test_bundle_round_trip(cell):
    model = RNNModel(RNNConfig(V, D, H, cell=cell, attention=True), seed=2)
    vocab = Vocab(tuple(f"w{i}" for i in range(V)))
    back, vocab2, meta = load_bundle(save_bundle(model, vocab, {"note": "x"}))
    assert back.cfg == model.cfg and back.cfg.attention and vocab2.itos == vocab.itos
    assert back.fingerprint() == model.fingerprint()
    torch.testing.assert_close(back(IDS), model(IDS))


# ---- page 9: the path split ------------------------------------------------------------------

@pytest.mark.parametrize("cell,source", [("elman", 0), ("gru", 0), ("lstm", 0), ("elman", 1),
                                         ("gru", 2), ("lstm", 1)])
def test_path_split_sums_to_autograd(cell, source):
    model = make(cell, seed=7)
    ids, target = IDS[:-1], int(IDS[-1])
    s = ax.path_split(model, ids, target, source)
    # oracle: autograd through a float64 copy, one loss at the last step, h_1 made a leaf
    m = copy.deepcopy(model)
    hs = {}

    def leaf(h, t):
        if t == source:
            hs[0] = h.detach().requires_grad_(True)
            return hs[0]
        return h

    with torch.enable_grad():
        z = m.forward(ids, HookContext([("hook_hidden", leaf)]))
        loss = F.cross_entropy(z[-1:], torch.tensor([target]), reduction="sum")
        (g,) = torch.autograd.grad(loss, hs[0])
    torch.testing.assert_close(s["total"], g, rtol=0, atol=1e-9)
    torch.testing.assert_close(s["recurrent"] + s["attention"].sum(0), g, rtol=0, atol=1e-9)
    assert s["total_norm"] == pytest.approx(float(g.norm()), abs=1e-9)
    assert torch.all(s["attention"][:source] == 0)
    parts = s["attention"].norm(dim=1)
    assert s["top_k"] == int(parts.argmax()) and s["top_jacobians"] == s["top_k"] - source
    assert s["top_weight"] == pytest.approx(float(s["weights"][s["top_k"]]))


def test_path_split_parts_against_cut_graphs():
    """recurrent: attention reads detached states; direct: only h_1 is live in attention and the
    recurrence is cut after h_1. Each part equals autograd of that cut graph."""
    model = make("elman", seed=8)
    ids, target = IDS[:-1], int(IDS[-1])
    s = ax.path_split(model, ids, target)
    m = copy.deepcopy(model)
    T = len(ids)
    with torch.enable_grad():
        x = m.E[ids]
        h1 = torch.tanh(x[0] @ m.W_x.T + m.b_h).detach().requires_grad_(True)
        hs = [h1]
        for t in range(1, T):
            hs.append(torch.tanh(x[t] @ m.W_x.T + hs[-1] @ m.W_h.T + m.b_h))
        Hs = torch.stack(hs)

        def loss_with(Hk):  # attention over Hk, h_T from the live chain
            s_row = (Hk @ m.W_a.T @ Hk[-1])
            c = torch.softmax(s_row, 0) @ Hk
            z = torch.cat([Hs[-1], c]) @ m.W_o.T + m.b_o
            return F.cross_entropy(z[None], torch.tensor([target]), reduction="sum")

        (g_rec,) = torch.autograd.grad(loss_with(Hs.detach()), h1)
        Hd = torch.cat([h1[None], Hs[1:].detach()])
        s_row = Hd @ m.W_a.T @ Hd[-1]
        c = torch.softmax(s_row, 0) @ Hd
        z = torch.cat([Hs[-1].detach(), c]) @ m.W_o.T + m.b_o
        (g_direct,) = torch.autograd.grad(F.cross_entropy(z[None], torch.tensor([target]), reduction="sum"), h1)
    torch.testing.assert_close(s["recurrent"], g_rec, rtol=0, atol=1e-12)
    torch.testing.assert_close(s["attention"][0], g_direct, rtol=0, atol=1e-12)


def test_length_comparison_and_cost():
    model = make("elman", seed=1)
    rows = ax.length_comparison(model, [1, 2, 3], lengths=(5, 20))
    assert [r["T"] for r in rows] == [5, 20]
    seq = ax.cycled([1, 2, 3], 21)
    assert seq[:7] == [1, 2, 3, 1, 2, 3, 1]
    assert rows[1]["total_norm"] == pytest.approx(ax.path_split(model, seq[:-1], seq[-1])["total_norm"])
    rows = ax.length_comparison(model, [0, 4, 5], lengths=(6,), source=1)  # a <bos> kept in front
    seq = [0, 4, 5, 4, 5, 4, 5]
    assert rows[0]["attention_norm"] == pytest.approx(
        ax.path_split(model, seq[:-1], seq[-1], 1)["attention_norm"])
    c = ax.cost(10, 4)
    assert c["n_scores"] == 55 and c["recurrent_madds"] == 160 and c["attention_madds"] == 160 + 440
    with pytest.raises(InputError):
        ax.path_split(RNNModel(RNNConfig(V, D, H), seed=0), IDS, 1)


def test_step_weights_and_matrix():
    tr = trace(make("elman"), IDS)
    w = ax.step_weights(tr, 3)
    assert w["weights"].shape == (4,) and float(w["weights"].sum()) == pytest.approx(1)
    torch.testing.assert_close(w["context"], w["weights"] @ tr.h[:4])
    M = ax.weights_matrix(tr)
    assert M.shape == (7, 7) and torch.isnan(torch.tensor(M[0, 1])) and M[6, 0] == pytest.approx(float(tr.attn_weights[6, 0]))
    with pytest.raises(InputError):
        ax.step_weights(tr, 7)


# ---- the exercise ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_exercise_checker_names_each_slip(seed):
    ex = ax.make_exercise(seed)
    right = ax.exercise_answers(ex)
    # the right answer equals the model's own attention at step 2 on these numbers
    h = torch.tensor(ex.h, dtype=torch.float64)
    W_a = torch.tensor(ex.W_a, dtype=torch.float64)
    s = (h[:2] @ W_a.T @ h[1])
    torch.testing.assert_close(torch.tensor(right["weights"]), torch.softmax(s, 0))
    torch.testing.assert_close(torch.tensor(right["context"]), torch.softmax(s, 0) @ h[:2])
    ok = ax.check_verdict(ex, (*right["weights"], *right["context"]))
    assert ok.ok and ok.hint_key == "attention.ex_right"
    for m, code in ax.HINT_CODES.items():
        slip = ax.exercise_answers(ex, m)
        v = ax.check_verdict(ex, (0.5, 0.5, *slip["context"]))
        assert not v.ok and v.hint_key == f"attention.ex_hint.{code}", m
    v = ax.check_verdict(ex, (*right["weights"], 9.0, 9.0))
    assert v.hint_key == "attention.ex_hint.context"
    with pytest.raises(InputError):
        ax.check_verdict(ex, (None, 1, 2, 3))


# ---- page 8's long-range task with attention -----------------------------------------------

def test_longrange_attention_net_equals_the_rnnviz_model():
    cfg = longrange.LongRangeConfig(cell="attention", distance=12, steps=5)
    torch.manual_seed(0)
    net = longrange.LongRangeNet(cfg)
    ids, _ = longrange.make_batch(12, 3, torch.Generator().manual_seed(4))
    model = longrange.to_rnnviz(net)
    assert model.cfg.attention and model.cfg.cell == "elman"
    with torch.no_grad():
        want = net(ids)
        got = torch.stack([model(row)[-1] for row in ids])
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    g = longrange.gradient_to_first(net, 12, n=4)
    assert g["first"] > 0 and g["last"] > 0


def test_shipped_attention_rows_follow_the_fixed_experiment():
    res = longrange.load_results()
    fixed = {r["distance"] for r in res["fixed"]["rows"]}
    rows = res[longrange.ATTENTION]["rows"]
    assert {r["distance"] for r in rows} == fixed
    for r in rows:
        cfg = longrange.LongRangeConfig(cell="attention", distance=r["distance"], steps=r["config"]["steps"])
        assert r["config"] == cfg.to_dict()
        assert r["config"]["steps"] == res["fixed"]["rows"][0]["config"]["steps"]
        assert 0 <= r["accuracy"] <= 1 and r["grad_first_before"]["first"] > 0


def test_task_rows_and_findings_read_the_file():
    res = longrange.load_results()
    rows = ax.task_rows(res)
    assert {r["experiment"] for r in rows} == {"fixed"}
    assert {r["cell"] for r in rows} == {"elman", "lstm", "gru", "attention"}
    f = ax.task_findings(rows)
    for cell in ("elman", "attention"):
        ok = [r["distance"] for r in res[cell if cell == "attention" else "fixed"]["rows"]
              if r["cell"] == cell and r["accuracy"] >= longrange.LEARNED]
        assert f["learned"][cell] == max(ok, default=0)
    at200 = [r for r in res["attention"]["rows"] if r["distance"] == 200][0]
    assert f["far"] == 200 and f["grad"]["attention"] == at200["grad_first_before"]["first"]
    curves = ax.page8_curves(res)
    assert [d for d, _ in curves["elman"]] == [10, 25, 50, 100, 200]
