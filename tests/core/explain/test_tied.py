"""The tied language model of the embedding page (rnnviz.tied). Oracles: autograd on one shared
E, finite differences in float64, a uniform model's perplexity, and a second training run."""
import pytest
import torch

from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.errors import InputError
from rnnviz.explain.tied import (
    is_tied,
    shipped_tied_model,
    tie,
    tied_gradient_parts,
    tied_report_file,
    train_tied_model,
)
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare

pytestmark = pytest.mark.core


@pytest.fixture(scope="module")
def tied():
    return train_tied_model(steps=60)


def test_tying_shares_one_tensor_and_refuses_mismatched_sizes():
    m = tie(RNNModel(RNNConfig(vocab_size=7, embed_dim=4, hidden_size=4), seed=1))
    assert is_tied(m) and [n for n, _ in m.named_parameters()].count("E") == 1
    assert "W_o" not in dict(m.named_parameters())
    with pytest.raises(InputError):
        tie(RNNModel(RNNConfig(vocab_size=7, embed_dim=3, hidden_size=4), seed=1))


def test_training_is_deterministic_and_learns(tied):
    model, vocab, report = tied
    again, _, report2 = train_tied_model(steps=60)
    assert model.fingerprint() == again.fingerprint() and report == report2
    assert is_tied(model) and report["heldout_perplexity"] < report["uniform_perplexity"] / 4


def test_shipped_tied_model_is_the_training_run():
    """The page reads rnnviz/pretrained/tied_lm.pt instead of training 3.7 s on a click: it must
    be what train_tied_model() gives (scripts/build_pretrained.py --tied), still tied."""
    shipped, vocab, report = shipped_tied_model()
    fresh, fresh_vocab, fresh_report = train_tied_model()
    assert is_tied(shipped) and vocab.itos == fresh_vocab.itos
    for name, p in fresh.named_parameters():
        torch.testing.assert_close(dict(shipped.named_parameters())[name], p, atol=1e-5, rtol=0)
    assert report == tied_report_file()
    assert report["steps"] == fresh_report["steps"]
    assert abs(report["heldout_perplexity"] - fresh_report["heldout_perplexity"]) < 1e-3


def test_gradient_parts_add_up_to_autograd_and_finite_differences(tied):
    model, vocab, _ = tied
    inp, tgt = lm_pair(list(prepare("Arrive Taipei on November 2nd", vocab).ids), vocab)
    parts = tied_gradient_parts(model, inp, tgt)
    torch.testing.assert_close(parts["input"] + parts["output"], parts["total"], atol=1e-12, rtol=0)
    # the lookup reaches only the rows read; the output layer reaches every row
    read = sorted(set(inp))
    assert torch.nonzero(parts["input"].norm(dim=1)).flatten().tolist() == read
    assert bool((parts["output"].norm(dim=1) > 0).all())
    # finite differences on two entries of the one shared E (float64)
    m = tie(RNNModel(model.cfg, seed=0).double())
    m.load_state_dict({k: v.double() for k, v in model.state_dict().items()})
    tie(m)
    ids, tg = torch.tensor(inp), torch.tensor(tgt)

    def loss():
        from rnnviz.engine.model import sequence_loss
        with torch.no_grad():
            return float(sequence_loss(m(ids), tg, "sum")[1])

    for (k, j) in ((inp[1], 0), (vocab.stoi["Leave"], 3)):
        eps = 1e-6
        with torch.no_grad():
            m.E[k, j] += eps
            up = loss()
            m.E[k, j] -= 2 * eps
            down = loss()
            m.E[k, j] += eps
        assert abs((up - down) / (2 * eps) - float(parts["total"][k, j])) < 1e-6
    assert abs(parts["loss"] - loss()) < 1e-9


def test_untied_model_is_refused():
    m = RNNModel(RNNConfig(vocab_size=5, embed_dim=3, hidden_size=3), seed=0)
    with pytest.raises(InputError):
        tied_gradient_parts(m, [0, 1], [1, 2])
