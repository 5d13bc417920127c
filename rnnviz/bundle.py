"""One file for a model: config, vocabulary, weights and a little metadata.

Saved with torch.save and read with torch.load(weights_only=True), which refuses
anything but tensors and plain containers: a file can never run code here.
"""
from __future__ import annotations

import io
import pickle

import torch

from . import limits
from .errors import InputError
from .model import RNNConfig, RNNModel
from .text import Vocab

FORMAT = "rnnviz-model-1"


def save_bundle(model: RNNModel, vocab: Vocab, meta: dict | None = None) -> bytes:
    buf = io.BytesIO()
    torch.save({"format": FORMAT, "config": model.cfg.to_dict(), "vocab": list(vocab.itos),
                "meta": dict(meta or {}),
                "state": {k: v.detach().clone() for k, v in model.state_dict().items()}}, buf)
    return buf.getvalue()


def load_bundle(data: bytes) -> tuple[RNNModel, Vocab, dict]:
    """bytes -> (model in eval mode, vocab, meta). Any problem is an InputError for the learner."""
    if len(data) > limits.MAX_MODEL_FILE_BYTES:
        raise InputError(f"The model file is {len(data):,} bytes; the limit is "
                         f"{limits.MAX_MODEL_FILE_BYTES:,}.")
    try:
        obj = torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, TypeError,
            AttributeError, ImportError, KeyError, IndexError, OSError) as err:
        raise InputError("This is not a model file saved by RNN Explorer (it could not be read "
                         f"safely: {type(err).__name__}).") from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise InputError("This file is not an RNN Explorer model (format mark missing).")
    try:
        cfg = RNNConfig(**obj["config"])
        vocab = Vocab(tuple(str(t) for t in obj["vocab"]))
        if len(vocab) != cfg.vocab_size:
            raise InputError(f"The vocabulary has {len(vocab)} tokens but the model expects "
                             f"{cfg.vocab_size}.")
        model = RNNModel(cfg)
        model.load_state_dict(obj["state"], strict=True)
    except InputError:
        raise
    except (TypeError, KeyError, RuntimeError, ValueError) as err:
        raise InputError(f"The model file does not match its own configuration: {err}") from None
    if not all(torch.isfinite(p).all() for p in model.parameters()):
        raise InputError("The model file holds NaN or infinite weights.")
    model.eval()
    return model, vocab, dict(obj.get("meta") or {})
