"""Slot taggers (rnnviz.engine.taggers) as files: save_tagger writes a tagger, its vocabulary
and its notes as bytes (an RNN tagger as a model bundle); load_tagger reads them back with
weights_only=True (no code runs), an RNN tagger through store.bundle.load_bundle.
"""
from __future__ import annotations

import io
import pickle
from pathlib import Path

import torch

from rnnviz.engine.taggers import FLAT_FORMAT, FNN_FORMAT, FlatFNNConfig, FlatFNNTagger, FNNConfig, FNNTagger
from rnnviz.errors import InputError
from rnnviz.store.bundle import load_bundle, save_bundle
from rnnviz.text.tokenize import Vocab

TAGGERS_DIR = Path(__file__).resolve().parents[1] / "pretrained" / "taggers"


# ---- files -----------------------------------------------------------------------------------

def save_tagger(model, vocab: Vocab, meta: dict | None = None) -> bytes:
    """RNN taggers as a model bundle; the FNNs in the same style (tensors and plain containers)."""
    if not isinstance(model, (FNNTagger, FlatFNNTagger)):
        return save_bundle(model, vocab, meta)
    fmt = FLAT_FORMAT if isinstance(model, FlatFNNTagger) else FNN_FORMAT
    buf = io.BytesIO()
    torch.save({"format": fmt, "config": model.cfg.to_dict(), "vocab": list(vocab.itos),
                "meta": dict(meta or {}),
                "state": {k: v.detach().clone() for k, v in model.state_dict().items()}}, buf)
    return buf.getvalue()


def load_tagger(data: bytes):
    """bytes -> (tagger in eval mode, vocab, meta); read with weights_only=True (no code runs)."""
    try:
        obj = torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as err:
        raise InputError(f"This is not a tagger file ({type(err).__name__}).") from None
    if not (isinstance(obj, dict) and obj.get("format") in (FNN_FORMAT, FLAT_FORMAT)):
        return load_bundle(data)
    try:
        if obj["format"] == FLAT_FORMAT:
            model = FlatFNNTagger(FlatFNNConfig(**obj["config"]))
        else:
            model = FNNTagger(FNNConfig(**obj["config"]))
        model.load_state_dict(obj["state"], strict=True)
        vocab = Vocab(tuple(str(t) for t in obj["vocab"]))
    except (TypeError, KeyError, RuntimeError, ValueError) as err:
        raise InputError(f"The tagger file does not match its configuration: {err}") from None
    if len(vocab) != model.cfg.vocab_size:
        raise InputError("The tagger's vocabulary does not match its embedding.")
    return model.eval(), vocab, dict(obj.get("meta") or {})
