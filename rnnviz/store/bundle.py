"""One file for a model: config, vocabulary, weights and a little metadata.

Saved with torch.save and read with torch.load(weights_only=True), which refuses
anything but tensors and plain containers: a file can never run code here.

A file from a stranger is checked in three passes, each before the next can cost anything:
1. the zip archive (torch.save writes an uncompressed zip), read by one strict reader
   (rnnviz/store/archive.py): no compressed entry, no declared size beyond the limit, a sane number
   of entries with sane names, one central directory where the end record says; torch.load
   is given a fresh stored copy of the entries that were checked, never the uploaded bytes,
   so it can neither expand a small "zip bomb" nor read a second, hidden directory;
2. the unpickled structure: bounded item count, nesting and string lengths, tensors only
   under "state", float32 weights only;
3. the model itself: config, vocabulary and weights agree.
Every message that quotes the file goes through safe_text (the file cannot write Markdown).
"""
from __future__ import annotations

import io
import pickle

import torch

from rnnviz import limits
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.errors import InputError
from rnnviz.safe_text import quote
from rnnviz.store import archive
from rnnviz.text.tokenize import Vocab

FORMAT = "rnnviz-model-1"
CONFIG_KEYS = ("vocab_size", "embed_dim", "hidden_size", "cell", "nonlinearity",
               "bidirectional", "num_outputs", "attention")
UNREADABLE = "This is not a model file saved by RNN Explorer (it could not be read safely: {})."


def save_bundle(model: RNNModel, vocab: Vocab, meta: dict | None = None) -> bytes:
    buf = io.BytesIO()
    torch.save({"format": FORMAT, "config": model.cfg.to_dict(), "vocab": list(vocab.itos),
                "meta": dict(meta or {}),
                "state": {k: v.detach().clone() for k, v in model.state_dict().items()}}, buf)
    return buf.getvalue()


# ---- pass 1: the zip archive, read strictly and rewritten (rnnviz/store/archive.py) -----------

def check_archive(data: bytes) -> bytes:
    """Refuse an archive that could expand beyond its own size, or that two zip readers could
    read differently; return a fresh stored archive of exactly the entries that were checked
    (the only bytes torch.load is ever given)."""
    return archive.checked_copy(data)


# ---- pass 2: the unpickled structure ---------------------------------------------------

def check_structure(obj) -> None:
    """Bounded size, nesting and strings everywhere; tensors only under "state"."""
    if not isinstance(obj, dict):
        raise InputError("This file is not an RNN Explorer model (format mark missing).")
    vocab = obj.get("vocab")
    if isinstance(vocab, (list, tuple)):
        if len(vocab) > limits.MAX_VOCAB:
            raise InputError(f"The vocabulary has {len(vocab):,} tokens; the limit is "
                             f"{limits.MAX_VOCAB:,}.")
        for i, tok in enumerate(vocab):
            if not isinstance(tok, str):
                raise InputError(f"Vocabulary entry {i + 1} is not text.")
            if len(tok) > limits.MAX_TOKEN_CHARS:
                raise InputError(f"Vocabulary token {i + 1} has {len(tok):,} characters; "
                                 f"the limit is {limits.MAX_TOKEN_CHARS}: “{quote(tok)}”.")
    budget = [limits.MAX_FILE_ITEMS]
    for key, value in obj.items():
        _walk(value, str(key), 1, budget, tensors_ok=(key == "state"))

def _walk(value, where: str, depth: int, budget: list, tensors_ok: bool) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise InputError(f"The model file holds more than {limits.MAX_FILE_ITEMS:,} items.")
    if depth > limits.MAX_FILE_DEPTH:
        raise InputError(f"The model file is nested deeper than {limits.MAX_FILE_DEPTH} levels.")
    if isinstance(value, str):
        if len(value) > limits.MAX_FILE_STRING_CHARS:
            raise InputError(f"The model file holds a string of {len(value):,} characters "
                             f"under “{quote(where)}”; the limit is "
                             f"{limits.MAX_FILE_STRING_CHARS:,}.")
    elif isinstance(value, dict):
        for k, v in value.items():
            _walk(k, where, depth + 1, budget, False)
            _walk(v, f"{where}.{str(k)[:40]}", depth + 1, budget, tensors_ok)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _walk(v, where, depth + 1, budget, tensors_ok)
    elif isinstance(value, torch.Tensor):
        if not tensors_ok:
            raise InputError(f"The model file holds a tensor under “{quote(where)}”, "
                             "where only plain values belong.")
        _check_weight(value, where)
    elif not (value is None or isinstance(value, (bool, int, float))):
        raise InputError(f"The model file holds a {quote(type(value).__name__)} under "
                         f"“{quote(where)}”.")


def _check_weight(t: torch.Tensor, where: str) -> None:
    """Weights must be float32, as the app saves them. float16/bfloat16 would lose nothing
    silently but change every number shown; int, bool and complex are not weights at all:
    all are refused, with the tensor named, rather than converted without a word."""
    if t.dtype != torch.float32:
        name = quote(where.removeprefix('state.'))
        raise InputError(f"The weight “{name}” is stored as {str(t.dtype)[6:]}; "
                         "RNN Explorer reads float32 weights only (convert with "
                         "model.float() before saving).")


# ---- pass 3: the model -------------------------------------------------------------------

def _config(raw) -> RNNConfig:
    if not isinstance(raw, dict):
        raise InputError("The model file's configuration is not a table of settings.")
    unknown = [k for k in raw if k not in CONFIG_KEYS]
    if unknown:
        raise InputError("The model file's configuration has unknown setting(s): "
                         + ", ".join(f"“{quote(k)}”" for k in unknown[:5]) + ".")
    try:
        return RNNConfig(**raw)
    except InputError as err:  # its messages repeat the file's value (cell must be ..., not X)
        raise InputError(quote(err, 300)) from None


def load_bundle(data: bytes) -> tuple[RNNModel, Vocab, dict]:
    """bytes -> (model in eval mode, vocab, meta). Any problem is an InputError for the learner."""
    if len(data) > limits.MAX_MODEL_FILE_BYTES:
        raise InputError(f"The model file is {len(data):,} bytes; the limit is "
                         f"{limits.MAX_MODEL_FILE_BYTES:,}.")
    checked = check_archive(data)
    try:
        obj = torch.load(io.BytesIO(checked), weights_only=True, map_location="cpu")
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, TypeError,
            AttributeError, ImportError, KeyError, IndexError, OSError, MemoryError) as err:
        raise InputError(UNREADABLE.format(type(err).__name__)) from None
    check_structure(obj)
    if obj.get("format") != FORMAT:
        raise InputError("This file is not an RNN Explorer model (format mark missing).")
    try:
        cfg = _config(obj["config"])
        vocab = Vocab(tuple(obj["vocab"]))
        if len(vocab) != cfg.vocab_size:
            raise InputError(f"The vocabulary has {len(vocab)} tokens but the model expects "
                             f"{cfg.vocab_size}.")
        model = RNNModel(cfg)
        model.load_state_dict(obj["state"], strict=True)
    except InputError:
        raise
    except (TypeError, KeyError, RuntimeError, ValueError, AttributeError) as err:
        raise InputError("The model file does not match its own configuration: "
                         f"{quote(err, 300)}") from None
    if not all(torch.isfinite(p).all() for p in model.parameters()):
        raise InputError("The model file holds NaN or infinite weights.")
    model.eval()
    return model, vocab, dict(obj.get("meta") or {})

