"""A small language model with tied input and output weights (d = H, W_o = E), trained for the
embedding page's "tied weights" view.

With tying, word k's score is z_t[k] = E[k] . h_t + b_o[k], so E is read twice: by the lookup
(x_t E) and by the output layer. Its gradient is the sum of the two parts: the lookup's
x^T g_e (rows of the words read) plus the output's sum_t (p_t - y_t)^T h_t (every row, since
the softmax gives every word some probability). The page shows that split on a real tied model,
trained here deterministically on the default model's corpus and vocabulary, instead of
guessing a tied twin of an untied model.
"""
from __future__ import annotations

import copy
import json

import torch

from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.train import TrainConfig, perplexity, train
from rnnviz.errors import InputError
from rnnviz.store.bundle import load_bundle
from rnnviz.store.catalog import PRETRAINED
from rnnviz.text.corpora import everyday_corpus, lm_tensors, split_heldout, travel_corpus
from rnnviz.text.tokenize import Vocab

TIED_SIZE = 16  # d = H: tying needs E (V x d) and W_o (V x H) of one shape
TIED_FILE = "tied_lm"  # rnnviz/pretrained/tied_lm.pt and .json, written by scripts/build_pretrained.py --tied
TIED_TRAIN = TrainConfig(steps=400, batch_size=32, optimizer="adam", lr=0.01, clip=1.0, seed=0)


def tie(model: RNNModel) -> RNNModel:
    """Make W_o the very same Parameter as E (one tensor read twice); needs d = H, K = V."""
    cfg = model.cfg
    if cfg.embed_dim != cfg.hidden_size or cfg.K != cfg.vocab_size or cfg.bidirectional \
            or cfg.cell not in ("elman", "jordan"):
        raise InputError("Tied weights need a one-directional language model with d = H.")
    model.W_o = model.E  # registered under both names; named_parameters() lists it once
    return model


def is_tied(model: RNNModel) -> bool:
    return model.W_o is model.E


def _sentences() -> list[list[str]]:
    return [toks for toks, _ in travel_corpus()] + everyday_corpus()


def train_tied_model(steps: int = TIED_TRAIN.steps, seed: int = 0) -> tuple[RNNModel, Vocab, dict]:
    """The tied model on the default model's corpus and vocabulary (deterministic for a seed).

    Returns (model, vocab, report) with the held-out perplexity next to a uniform model's."""
    sentences = _sentences()
    vocab = Vocab.build(sentences)
    train_s, test_s = split_heldout(sentences)
    model = tie(RNNModel(RNNConfig(vocab_size=len(vocab), embed_dim=TIED_SIZE,
                                   hidden_size=TIED_SIZE), seed=seed))
    x_tr, y_tr = lm_tensors(train_s, vocab)
    x_te, y_te = lm_tensors(test_s, vocab)
    cfg = TrainConfig(**{**TIED_TRAIN.__dict__, "steps": steps, "seed": seed})
    history = train(model, x_tr, y_tr, cfg)  # its batches come from cfg.seed's generator
    report = {"steps": steps, "final_train_loss": history[-1]["loss"],
              "heldout_perplexity": perplexity(model, x_te, y_te), "uniform_perplexity": float(len(vocab)),
              "V": len(vocab), "d": TIED_SIZE, "H": TIED_SIZE}
    return model.eval(), vocab, report


def shipped_tied_model() -> tuple[RNNModel, Vocab, dict]:
    """(model, vocab, report) of the tied model shipped in rnnviz/pretrained/ (what
    train_tied_model() gives, read in milliseconds instead of trained in seconds), tied again."""
    model, vocab, meta = load_bundle((PRETRAINED / f"{TIED_FILE}.pt").read_bytes())
    return tie(model).eval(), vocab, meta["report"]


def tied_report_file() -> dict:
    return json.loads((PRETRAINED / f"{TIED_FILE}.json").read_text())


def tied_gradient_parts(model: RNNModel, ids, targets) -> dict:
    """dL/dE of a tied model on one sentence, split into its two uses, in float64.

    input: sum_t x_t^T g_t (the lookup; g_t = dL/dx_t); output: sum_t (p_t - y_t)^T h_t (the
    output layer's use of E); total: autograd's gradient of the one shared E (= input + output).
    Also the loss (sum over steps)."""
    if not is_tied(model):
        raise InputError("This model's output layer does not reuse E.")
    m = tie(copy.deepcopy(model).double())  # deepcopy keeps the tie; .double() keeps it too
    ids = torch.as_tensor(list(ids), dtype=torch.long)
    targets = torch.as_tensor(list(targets), dtype=torch.long)
    logits, c = m.run_with_cache(ids, targets=targets, reduction="sum", with_grads=True)
    V = m.cfg.vocab_size
    g_x = c["hook_embed_grad"]                                      # (T, d)
    X = torch.nn.functional.one_hot(ids, V).double()                # (T, V)
    g_z = c["hook_logits_grad"]                                     # (T, V): p_t - y_t (0 if no target)
    h = c["hook_hidden"]                                            # (T, H)
    return {"input": X.T @ g_x, "output": g_z.T @ h, "total": c["param_grads"]["E"],
            "loss": float(c["loss"])}
