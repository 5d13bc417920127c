"""RNNModel against independent oracles: torch.nn.RNN (Elman, uni and bi) and a hand loop (Jordan)."""

import pytest
import torch

import rnnviz.engine.model as model_module
from rnnviz import InputError, RNNConfig, RNNModel
from tests.oracles import torch_rnn_like


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_elman_equals_torch_nn_rnn(bidirectional, nonlinearity):
    model = RNNModel(RNNConfig(11, 5, 7, nonlinearity=nonlinearity, bidirectional=bidirectional),
                     seed=3).double()
    ids = torch.tensor([[1, 4, 2, 9, 0, 3], [5, 5, 6, 7, 8, 10]])  # (B, T)
    rnn = torch_rnn_like(model, hh_share=0.75)
    out, _ = rnn(model.E[ids])  # (B, T, H_out)
    expected = out @ model.W_o.T + model.b_o
    torch.testing.assert_close(model(ids), expected, rtol=1e-12, atol=1e-12)
    _, cache = model.run_with_cache(ids[0])
    hidden = cache["hook_hidden"]
    if bidirectional:
        hidden = torch.cat([hidden, cache["hook_hidden_rev"]], -1)
    torch.testing.assert_close(hidden, out[0], rtol=1e-12, atol=1e-12)


def test_jordan_equals_hand_loop():
    model = RNNModel(RNNConfig(9, 4, 6, cell="jordan"), seed=1).double()
    ids = torch.tensor([3, 1, 4, 1, 5])
    y = torch.zeros(9, dtype=torch.float64)
    expected = []
    for i in ids:
        h = torch.tanh(model.W_x @ model.E[i] + model.W_y @ y + model.b_h)
        z = model.W_o @ h + model.b_o
        y = torch.softmax(z, 0)
        expected.append(z)
    torch.testing.assert_close(model(ids), torch.stack(expected), rtol=1e-12, atol=1e-12)


def test_linear_nonlinearity_is_affine_recurrence():
    model = RNNModel(RNNConfig(6, 3, 4, nonlinearity="linear"), seed=2).double()
    ids = torch.tensor([1, 2, 3])
    _, cache = model.run_with_cache(ids)
    h = torch.zeros(4, dtype=torch.float64)
    for t, i in enumerate(ids):
        h = model.W_x @ model.E[i] + model.W_h @ h + model.b_h
        torch.testing.assert_close(cache["hook_hidden"][t], h)


def test_parameter_count_matches_the_notes_formula():
    # d_h^2 + d_h d_x + d_h + d_y d_h + d_y (plus V x d for E): independent of T
    V, d, H = 5, 3, 4
    model = RNNModel(RNNConfig(V, d, H))
    counts = model.param_counts()
    assert counts == {"E": V * d, "W_x": H * d, "W_h": H * H, "b_h": H, "W_o": V * H, "b_o": V}
    assert sum(counts.values()) - V * d == H * H + H * d + H + V * H + V


@pytest.mark.parametrize("kwargs", [dict(cell="transformer"), dict(cell="lstm", nonlinearity="relu"),
                                    dict(nonlinearity="sigmoid"),
                                    dict(cell="jordan", bidirectional=True), dict(hidden_size=0),
                                    dict(hidden_size=10_000), dict(vocab_size=-1)])
def test_bad_configs_are_input_errors(kwargs):
    base = dict(vocab_size=5, embed_dim=3, hidden_size=4)
    base.update(kwargs)
    with pytest.raises(InputError):
        RNNConfig(**base)


def test_fingerprint_changes_with_weights_only():
    a = RNNModel(RNNConfig(5, 3, 4), seed=0)
    b = RNNModel(RNNConfig(5, 3, 4), seed=0)
    assert a.fingerprint() == b.fingerprint()
    with torch.no_grad():
        b.W_h[0, 0] += 1e-3
    assert a.fingerprint() != b.fingerprint()


@pytest.mark.parametrize("cfg", [RNNConfig(7, 3, 4), RNNConfig(7, 3, 4, bidirectional=True),
                                 RNNConfig(7, 3, 4, cell="jordan")], ids=["elman", "bi", "jordan"])
def test_the_model_loops_over_its_pure_step(cfg, monkeypatch):
    model = RNNModel(cfg, seed=1)
    ids = torch.tensor([1, 4, 2, 6, 0])
    expected = model(ids)
    calls = []
    real = model_module.step

    def counting(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(model_module, "step", counting)
    torch.testing.assert_close(model(ids), expected, rtol=0, atol=0)
    assert len(calls) == len(ids) * (2 if cfg.bidirectional else 1)
