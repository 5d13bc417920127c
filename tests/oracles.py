"""Independent oracles shared by the core tests."""
import torch
import torch.nn.functional as F

from rnnviz import RNNConfig, RNNModel
from rnnviz.conventions import IGNORE
from rnnviz.engine.model import activate


def torch_rnn_like(model, hh_share: float = 0.0) -> torch.nn.RNN:
    """torch.nn.RNN (batch_first) carrying an Elman RNNModel's weights.

    b_h = bias_ih + bias_hh: hh_share of b_h goes to bias_hh, the rest to bias_ih, so a test
    can prove that only the sum matters.
    """
    cfg = model.cfg
    rnn = torch.nn.RNN(cfg.embed_dim, cfg.hidden_size, nonlinearity=cfg.nonlinearity,
                       bidirectional=cfg.bidirectional, batch_first=True).to(model.W_x.dtype)
    directions = [("", "")] + ([("_reverse", "_rev")] if cfg.bidirectional else [])
    with torch.no_grad():
        for theirs, ours in directions:
            getattr(rnn, "weight_ih_l0" + theirs).copy_(getattr(model, "W_x" + ours))
            getattr(rnn, "weight_hh_l0" + theirs).copy_(getattr(model, "W_h" + ours))
            b_h = getattr(model, "b_h" + ours)
            getattr(rnn, "bias_ih_l0" + theirs).copy_(b_h * (1 - hh_share))
            getattr(rnn, "bias_hh_l0" + theirs).copy_(b_h * hh_share)
    return rnn


# ---- one small Elman model and sentence with a gap in its targets (the page-number tests) ----

def num_model(H=5, seed=7, nonlinearity="tanh"):
    return RNNModel(RNNConfig(9, 3, H, nonlinearity=nonlinearity), seed=seed).double()


NUM_IDS = [1, 4, 2, 7, 3, 5]


NUM_TARGETS = [4, 2, IGNORE, 3, 5, 8]


def loss_grad_at(m, tr, t, s_list):
    """autograd: d(sum of L_s for s in s_list)/dh_t, re-running the recurrence from a leaf h_t."""
    h_t = tr.h[t].detach().clone().requires_grad_(True)
    h, total = h_t, 0.0
    for k in range(t, tr.T):
        if k > t:
            h = activate(m.W_x @ tr.x[k] + m.W_h @ h + m.b_h, "tanh")
        if k in s_list:
            z = m.W_o @ h + m.b_o
            total = total + F.cross_entropy(z[None], tr.targets[k:k + 1])
    (g,) = torch.autograd.grad(total, h_t)
    return g


def assert_gated_lm_equals_torch_nn(model, ids, targets) -> torch.Tensor:
    """A gated language model in float64 against torch.nn.LSTM / nn.GRU loaded with its weights:
    h, z, the LSTM's last c (atol 1e-9) and the summed cross-entropy (rel 1e-9). Returns nn's h
    (T, H) for further checks."""
    import copy

    import pytest

    from rnnviz.engine.trace import trace
    cfg = model.cfg
    m64 = copy.deepcopy(model).double()
    tr = trace(m64, torch.tensor(ids), torch.tensor(targets))
    mod = getattr(torch.nn, cfg.cell.upper())(cfg.embed_dim, cfg.hidden_size).double()
    mod.load_state_dict(m64.rnn_state_dict(), strict=True)
    with torch.no_grad():
        h, state = mod(m64.E[torch.tensor(ids)])  # (T, H)
        z = h @ m64.W_o.T + m64.b_o  # (T, V)
    torch.testing.assert_close(tr.h, h, rtol=0, atol=1e-9)
    torch.testing.assert_close(tr.z, z, rtol=0, atol=1e-9)
    if cfg.cell == "lstm":
        torch.testing.assert_close(tr.c[-1], state[1][0], rtol=0, atol=1e-9)
    loss = F.cross_entropy(z, torch.tensor(targets), ignore_index=IGNORE, reduction="sum")
    assert float(tr.loss) == pytest.approx(float(loss), rel=1e-9)
    return h


# ---- the notes' model in float64 on one of the notes' sentences (their worked examples) -------

def notes_float64_trace(text: str = "I like cats you like dogs"):
    """(model, vocab, trace) of the built-in notes model, in float64, reading `text` word by word."""
    from rnnviz.engine.trace import trace
    from rnnviz.store.catalog import load_builtin
    from rnnviz.text.corpora import lm_pair
    from rnnviz.text.tokenize import prepare
    model, vocab, _ = load_builtin("notes")
    model = model.double()
    ids, targets = lm_pair(list(prepare(text, vocab, "word").ids), vocab)
    return model, vocab, trace(model, ids, targets)
