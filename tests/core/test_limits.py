"""Each limit in rnnviz.limits, tested on both sides: at the limit works, one past it is a clear
InputError (texts, uploads and query parameters have their own tests in test_text / test_bad_input)."""
import pytest
import torch

from rnnviz import InputError, RNNConfig, RNNModel, limits
from rnnviz.engine.jacobians import jacobian_norms
from rnnviz.engine.trace import trace
from rnnviz.engine.train import TrainConfig
from rnnviz.explain.embedding import hash_collisions
from rnnviz.store.bundle import load_bundle


def test_training_steps_batch_and_learning_rate():
    TrainConfig(steps=limits.MAX_TRAIN_STEPS, batch_size=limits.MAX_BATCH, lr=10)
    for bad in (dict(steps=limits.MAX_TRAIN_STEPS + 1), dict(steps=0),
                dict(batch_size=limits.MAX_BATCH + 1), dict(lr=0.0), dict(lr=10.5),
                dict(lr=float("nan")), dict(clip=-1.0), dict(clip=float("inf"))):
        with pytest.raises(InputError):
            TrainConfig(**bad)


def test_model_sizes():
    RNNConfig(limits.MAX_VOCAB, limits.MAX_EMBED, limits.MAX_HIDDEN)
    for bad in (dict(vocab_size=limits.MAX_VOCAB + 1), dict(embed_dim=limits.MAX_EMBED + 1),
                dict(hidden_size=limits.MAX_HIDDEN + 1)):
        base = dict(vocab_size=5, embed_dim=3, hidden_size=4) | bad
        with pytest.raises(InputError):
            RNNConfig(**base)


def test_jacobian_engine_length():
    model = RNNModel(RNNConfig(5, 2, 3), seed=0).double()
    norms = jacobian_norms(model, trace(model, torch.zeros(limits.MAX_JACOBIAN_T, dtype=torch.long)))
    assert norms.shape == (limits.MAX_JACOBIAN_T, limits.MAX_JACOBIAN_T)
    with pytest.raises(InputError):
        jacobian_norms(model, trace(model, torch.zeros(limits.MAX_JACOBIAN_T + 1, dtype=torch.long)))


def test_hash_buckets():
    hash_collisions(["good", "food"], limits.MAX_HASH_BUCKETS)
    with pytest.raises(InputError):
        hash_collisions(["good"], limits.MAX_HASH_BUCKETS + 1)


def test_model_file_size():
    with pytest.raises(InputError, match="limit"):
        load_bundle(b"\0" * (limits.MAX_MODEL_FILE_BYTES + 1))
    with pytest.raises(InputError):
        load_bundle(b"\0" * 100)  # within the size limit, but not a model
