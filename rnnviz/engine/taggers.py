"""The slot-filling taggers (note 004) as models: each tags every word of a travel request with
other / destination / departure / date / time, and they differ only in what context they see.

- "fnn":    a per-word feed-forward net on the embedding alone, so "Taipei" gets the same
            tag whatever comes before or after it (the notes' point about FNNs);
- "elman":  RNNModel, h_t = tanh(W_x x_t + W_h h_{t-1} + b_h): the left context;
- "jordan": RNNModel, the previous *output* y_{t-1} is fed back: left context, but only
            through the tags it has already chosen (so an early wrong tag travels on);
- "bi":     bidirectional Elman, h_t = [h_fwd_t; h_bwd_t]: both sides, but it must read
            the whole sentence before it can tag the first word.
- "flat":   note 004's flattened case, a fifth tagger: one FNN over the whole sentence padded
            to FLAT_LEN words, [E[w_1]; ...; E[w_L]] -> L tags at once. It sees both sides, but
            only up to a fixed length, and position 3's weights are not position 2's (no sharing).

Here: the two FNN taggers, make_tagger, predict / tag_probs / hidden_states and context_reach.
Page 5's lessons are in rnnviz.explain.slots; the tagger files in rnnviz.store.tagger_files.
"""
from __future__ import annotations

import copy
from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn as nn

from rnnviz import limits
from rnnviz.conventions import TAGS
from rnnviz.engine.model import RNNConfig, RNNModel, fingerprint
from rnnviz.errors import InputError

EMBED_DIM, HIDDEN = 16, 32
KINDS = ("fnn", "elman", "jordan", "bi")
LABELS = {"fnn": "FNN (word alone)", "elman": "Elman RNN", "jordan": "Jordan RNN",
          "bi": "Bidirectional Elman"}
FNN_FORMAT = "rnnviz-fnn-tagger-1"
FLAT = "flat"
ALL_KINDS = KINDS + (FLAT,)  # KINDS stays the four taggers the slot page has always shown
LABELS[FLAT] = "FNN over the padded sentence"
FLAT_LEN = 12  # words the flattened FNN reads (the travel corpus has at most 9)
FLAT_FORMAT = "rnnviz-flat-fnn-tagger-1"


# ---- the FNN tagger ----------------------------------------------------------------------

@dataclass(frozen=True)
class FNNConfig:
    vocab_size: int
    embed_dim: int = EMBED_DIM
    hidden_size: int = HIDDEN
    num_outputs: int = len(TAGS)

    def __post_init__(self):
        for name, value, top in (("vocab_size", self.vocab_size, limits.MAX_VOCAB),
                                 ("embed_dim", self.embed_dim, limits.MAX_EMBED),
                                 ("hidden_size", self.hidden_size, limits.MAX_HIDDEN),
                                 ("num_outputs", self.num_outputs, limits.MAX_VOCAB)):
            if not (isinstance(value, int) and 1 <= value <= top):
                raise InputError(f"{name} must be a whole number from 1 to {top:,}.")

    def to_dict(self) -> dict:
        return asdict(self)


class FNNTagger(nn.Module):
    """z_t = W_o tanh(W_1 E[w_t] + b_1) + b_o: each word on its own, no time axis at all."""

    def __init__(self, cfg: FNNConfig, seed: int | None = None):
        super().__init__()
        self.cfg = cfg
        gen = torch.Generator().manual_seed(seed) if seed is not None else None
        V, d, H, K = cfg.vocab_size, cfg.embed_dim, cfg.hidden_size, cfg.num_outputs

        def uniform(fan_in, *shape):
            return nn.Parameter((torch.rand(*shape, generator=gen) * 2 - 1) / fan_in ** 0.5)

        self.E = nn.Parameter(torch.randn(V, d, generator=gen))
        self.W_1, self.b_1 = uniform(d, H, d), uniform(d, H)
        self.W_o, self.b_o = uniform(H, K, H), nn.Parameter(torch.zeros(K))

    def hidden(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (..., T) -> h (..., T, H): a function of E[w_t] only."""
        return torch.tanh(self.E[ids] @ self.W_1.T + self.b_1)  # (..., T, H)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        if ids.numel() == 0:
            raise InputError("There are no tokens to run.")
        return self.hidden(ids) @ self.W_o.T + self.b_o  # (..., T, K)

    def fingerprint(self) -> str:
        return fingerprint(self)


# ---- the flattened FNN (note 004) ----------------------------------------------------------

@dataclass(frozen=True)
class FlatFNNConfig:
    vocab_size: int
    max_len: int = FLAT_LEN
    embed_dim: int = EMBED_DIM
    hidden_size: int = HIDDEN
    num_outputs: int = len(TAGS)
    pad_id: int = 0  # the <pad> row of E fills the positions after the sentence

    def __post_init__(self):
        FNNConfig(self.vocab_size, self.embed_dim, self.hidden_size, self.num_outputs)
        if not (isinstance(self.max_len, int) and 1 <= self.max_len <= limits.MAX_TRAIN_T):
            raise InputError(f"max_len must be a whole number from 1 to {limits.MAX_TRAIN_T}.")
        if not (isinstance(self.pad_id, int) and 0 <= self.pad_id < self.vocab_size):
            raise InputError("pad_id must be a row of E.")

    def to_dict(self) -> dict:
        return asdict(self)


class FlatFNNTagger(nn.Module):
    """z = W_o tanh(W_1 [E[w_1]; ...; E[w_L]] + b_1) + b_o, read as L rows of K tag scores.

    The whole padded sentence is one input vector of L*d numbers, so every tag can depend on
    every word (left and right), but W_1 has a separate block of columns for each position
    and W_o a separate block of rows: what is learned at position 2 is not known at position 5,
    and a sentence longer than L cannot be read at all.
    """

    def __init__(self, cfg: FlatFNNConfig, seed: int | None = None):
        super().__init__()
        self.cfg = cfg
        gen = torch.Generator().manual_seed(seed) if seed is not None else None
        V, L, d, H, K = cfg.vocab_size, cfg.max_len, cfg.embed_dim, cfg.hidden_size, cfg.num_outputs

        def uniform(fan_in, *shape):
            return nn.Parameter((torch.rand(*shape, generator=gen) * 2 - 1) / fan_in ** 0.5)

        self.E = nn.Parameter(torch.randn(V, d, generator=gen))
        self.W_1, self.b_1 = uniform(L * d, H, L * d), uniform(L * d, H)
        self.W_o, self.b_o = uniform(H, L * K, H), nn.Parameter(torch.zeros(L * K))

    def padded(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (..., T) -> (..., L) with pad_id after the sentence; InputError if T > L."""
        T, L = ids.shape[-1], self.cfg.max_len
        if T > L:
            raise InputError(f"The flattened FNN reads a fixed {L} words; this sentence has {T}. "
                             "That is the price of flattening: the length is fixed in advance.")
        pad = ids.new_full((*ids.shape[:-1], L - T), self.cfg.pad_id)
        return torch.cat([ids, pad], dim=-1)  # (..., L)

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (..., T) -> x (..., L*d): the padded sentence's embeddings laid end to end."""
        x = self.E[self.padded(ids)]  # (..., L, d)
        return x.reshape(*x.shape[:-2], -1)

    def from_input(self, x: torch.Tensor, T: int) -> torch.Tensor:
        """x (..., L*d) -> logits (..., T, K): the first T of the L positions."""
        h = torch.tanh(x @ self.W_1.T + self.b_1)  # (..., H)
        z = h @ self.W_o.T + self.b_o  # (..., L*K)
        return z.reshape(*z.shape[:-1], self.cfg.max_len, self.cfg.num_outputs)[..., :T, :]

    def hidden(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (..., T) -> h (..., H): ONE vector for the whole sentence."""
        return torch.tanh(self.embed(ids) @ self.W_1.T + self.b_1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        if ids.numel() == 0:
            raise InputError("There are no tokens to run.")
        return self.from_input(self.embed(ids), ids.shape[-1])  # (..., T, K)

    def fingerprint(self) -> str:
        return fingerprint(self)


def context_reach(model, ids) -> np.ndarray:
    """R[t, s] = ||dz_t / dx_s|| (T, T): how much word s can move the tags of word t.

    The per-word FNN is diagonal (a word alone), the flattened FNN is full (both sides).
    Float64 autograd on the model's own function of the embeddings.
    """
    ids = torch.as_tensor(list(ids), dtype=torch.long)
    T = len(ids)
    m = copy.deepcopy(model).double()
    if isinstance(m, FlatFNNTagger):
        x0, d = m.embed(ids).detach(), m.cfg.embed_dim

        def f(x):
            return m.from_input(x, T)  # (T, K)
    elif isinstance(m, FNNTagger):
        x0, d = m.E[ids].detach().reshape(-1), m.cfg.embed_dim

        def f(x):
            return torch.tanh(x.view(T, d) @ m.W_1.T + m.b_1) @ m.W_o.T + m.b_o  # (T, K)
    else:
        raise InputError("The context reach is drawn for the two FNN taggers.")
    J = torch.autograd.functional.jacobian(f, x0)  # (T, K, n*d)
    J = J[..., : T * d].reshape(T, -1, T, d)  # (T, K, T, d): padding positions left out
    return torch.linalg.vector_norm(J, dim=(1, 3)).numpy()


def param_count(model) -> int:
    return sum(p.numel() for p in model.parameters())


def make_tagger(kind: str, vocab_size: int, hidden_size: int = HIDDEN, seed: int = 0,
                max_len: int = FLAT_LEN):
    """A fresh (untrained) tagger of this kind with K = len(TAGS) outputs (max_len: the tokens
    the flattened FNN reads; the Chinese corpus, one token per character, needs more)."""
    if kind == FLAT:
        return FlatFNNTagger(FlatFNNConfig(vocab_size, max_len, EMBED_DIM, hidden_size), seed=seed)
    if kind == "fnn":
        return FNNTagger(FNNConfig(vocab_size, EMBED_DIM, hidden_size), seed=seed)
    if kind not in KINDS:
        raise InputError(f"The tagger must be one of {KINDS}.")
    cfg = RNNConfig(vocab_size=vocab_size, embed_dim=EMBED_DIM, hidden_size=hidden_size,
                    cell="jordan" if kind == "jordan" else "elman",
                    bidirectional=kind == "bi", num_outputs=len(TAGS))
    return RNNModel(cfg, seed=seed)


def kind_of(model) -> str:
    if isinstance(model, FlatFNNTagger):
        return FLAT
    if isinstance(model, FNNTagger):
        return "fnn"
    return "jordan" if model.cfg.cell == "jordan" else ("bi" if model.cfg.bidirectional else "elman")


# ---- tagging one sentence --------------------------------------------------------------------

def tag_probs(model, ids) -> np.ndarray:
    """ids (T,) -> p (T, K): softmax of the tagger's logits at each word."""
    with torch.no_grad():
        z = model(torch.as_tensor(list(ids), dtype=torch.long))  # (T, K)
    return torch.softmax(z.double(), dim=-1).numpy()


# ---- held-out evaluation ---------------------------------------------------------------------

def predict(model, ids: torch.Tensor) -> torch.Tensor:
    """ids (N, T) -> predicted tag ids (N, T)."""
    with torch.no_grad():
        return model(ids).argmax(-1)


# ---- why context matters: hidden states, Jordan's feedback -----------------------------------

def hidden_states(model, ids) -> np.ndarray:
    """h (T, H_out) the output layer reads: FNN hidden layer, Elman/Jordan h_t, bi [h_fwd; h_bwd];
    the flattened FNN has one h for the whole sentence, repeated at every word."""
    ids = torch.as_tensor(list(ids), dtype=torch.long)
    with torch.no_grad():
        if isinstance(model, FlatFNNTagger):
            return model.hidden(ids).double().expand(len(ids), -1).numpy().copy()
        if isinstance(model, FNNTagger):
            return model.hidden(ids).double().numpy()
        _, cache = model.run_with_cache(ids, names_filter=("hook_hidden", "hook_hidden_rev"))
    h = cache["hook_hidden"]  # (T, H)
    if "hook_hidden_rev" in cache:
        h = torch.cat([h, cache["hook_hidden_rev"]], -1)  # (T, 2H)
    return h.double().numpy()
