"""Two models whose numbers are no longer finite, for the diverged-model tests (core and pages).

`sgd_diverged`: a linear Elman model trained with SGD, learning rate 10 and no clipping, as the
training page allows: its weights become inf/NaN within a few steps (the page keeps it "so that
you can see the NaN/inf on the other pages"). `overflowing`: finite weights (an upload passes
the file checks) whose forward pass overflows float32 to inf and then NaN.
"""
from __future__ import annotations

import torch

from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.train import TrainConfig, train
from rnnviz.text.corpora import lm_tensors
from rnnviz.text.tokenize import Vocab, tokenize

VOCAB = Vocab(("<pad>", "<unk>", "<bos>", "<eos>", "I", "like", "cats", "dogs", "you", "."))
SENTENCES = ["I like cats .", "you like dogs .", "I like dogs .", "you like cats ."]
TEXT = "I like cats . you like dogs ."


def sgd_diverged() -> RNNModel:
    torch.manual_seed(0)
    model = RNNModel(RNNConfig(vocab_size=len(VOCAB), embed_dim=4, hidden_size=6,
                               nonlinearity="linear"))
    inputs, targets = lm_tensors([tokenize(s) for s in SENTENCES], VOCAB)
    train(model, inputs, targets, TrainConfig(steps=60, batch_size=4, optimizer="sgd", lr=10.0,
                                              clip=None))
    assert not all(torch.isfinite(p).all() for p in model.parameters())  # really diverged
    return model.eval()


def overflowing() -> RNNModel:
    torch.manual_seed(0)
    model = RNNModel(RNNConfig(vocab_size=len(VOCAB), embed_dim=4, hidden_size=6,
                               nonlinearity="linear"))
    with torch.no_grad():
        model.E.fill_(1e30)
        model.W_h.copy_(torch.eye(6) * 1e30)
    assert all(torch.isfinite(p).all() for p in model.parameters())
    return model.eval()


MODELS = {"sgd": sgd_diverged, "overflow": overflowing}
