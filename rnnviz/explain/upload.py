"""An uploaded model file, read the way the app reads it: the bundle's three passes
(rnnviz/store/bundle.py), a language model check, and its metadata cleaned, with a default sentence
the pages can read (rnnviz/store/model_sentence.py)."""
from __future__ import annotations

from pathlib import PurePath

from rnnviz.engine.model import RNNModel
from rnnviz.explain.train import check_language_model, clean_meta
from rnnviz.store.bundle import load_bundle
from rnnviz.text.tokenize import Vocab


def read_model_file(data: bytes, file_name: str) -> tuple[RNNModel, Vocab, dict]:
    """bytes of an uploaded .pt -> (model, vocab, meta); an InputError for the learner if not."""
    model, vocab, meta = load_bundle(data)
    check_language_model(model, vocab)
    return model, vocab, clean_meta(meta, PurePath(file_name).stem, vocab)
