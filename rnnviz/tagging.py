"""Slot filling (note 004): tag every word of a travel request with other / destination /
departure / date / time, with four taggers that differ only in what context they see.

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

Everything the slot-filling page shows is computed here (and unit-tested).
"""
from __future__ import annotations

import copy
import hashlib
import io
import pickle
import random
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from . import limits
from .bundle import load_bundle, save_bundle
from .data import TAGS, split_heldout, tag_tensors, travel_corpus
from .errors import InputError
from .exercises import Verdict
from .model import IGNORE, RNNConfig, RNNModel
from .text import UNK, Vocab, prepare
from .train import TrainConfig, train

KINDS = ("fnn", "elman", "jordan", "bi")
LABELS = {"fnn": "FNN (word alone)", "elman": "Elman RNN", "jordan": "Jordan RNN",
          "bi": "Bidirectional Elman"}
SLOTS = {"destination": "Destination", "departure": "Departure", "date": "Date", "time": "Time"}
EMBED_DIM, HIDDEN = 16, 32
UNK_RATE = 0.1  # share of words replaced by <unk> in an extra copy of the training set
TRAIN_CFG = TrainConfig(steps=400, batch_size=32, optimizer="adam", lr=0.02, clip=1.0, seed=0)
FNN_FORMAT = "rnnviz-fnn-tagger-1"
FLAT = "flat"
ALL_KINDS = KINDS + (FLAT,)  # KINDS stays the four taggers the slot page has always shown
LABELS[FLAT] = "FNN over the padded sentence"
FLAT_LEN = 12  # words the flattened FNN reads (the travel corpus has at most 9)
FLAT_FORMAT = "rnnviz-flat-fnn-tagger-1"
# shifted_heldout's prefix for the Chinese taggers: 请 ("please"), a character they know and
# saw tagged other (请帮我查一下..., 请问...); the English "please" is an unknown word to them
ZH_SHIFT_PREFIX = ("请",)
TAGGERS_DIR = Path(__file__).parent / "pretrained" / "taggers"


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
        h = hashlib.sha1(repr(self.cfg.to_dict()).encode())
        for name, p in self.named_parameters():
            h.update(name.encode())
            h.update(p.detach().contiguous().numpy().tobytes())
        return h.hexdigest()[:16]


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
        h = hashlib.sha1(repr(self.cfg.to_dict()).encode())
        for name, p in self.named_parameters():
            h.update(name.encode())
            h.update(p.detach().contiguous().numpy().tobytes())
        return h.hexdigest()[:16]


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


# ---- data and training ---------------------------------------------------------------------

@dataclass(frozen=True)
class TaggingData:
    vocab: Vocab
    train: tuple   # ((tokens, tags), ...)
    heldout: tuple


def tagging_data() -> TaggingData:
    """The travel corpus, its vocabulary (all of it) and the held-out split kept for evaluation."""
    corpus = travel_corpus()
    train_s, test_s = split_heldout(corpus)
    return TaggingData(Vocab.build([toks for toks, _ in corpus]), tuple(train_s), tuple(test_s))


def with_unknowns(tagged, rate: float = UNK_RATE, seed: int = 0) -> list:
    """The sentences plus a copy where each word is <unk> with probability `rate`.

    Without it the <unk> row of E is never trained, and a word the tagger has never
    seen (a new city) would get a random tag; with it, context decides.
    """
    rng = random.Random(seed)
    copy = [([UNK if rng.random() < rate else w for w in toks], tags) for toks, tags in tagged]
    return list(tagged) + copy


def train_tagger(kind: str, data: TaggingData, hidden_size: int = HIDDEN, seed: int = 0,
                 steps: int = TRAIN_CFG.steps, callback=None, max_len: int = FLAT_LEN):
    """Train one tagger on the training split; returns (model in eval mode, loss history)."""
    model = make_tagger(kind, len(data.vocab), hidden_size, seed, max_len)
    ids, tags = tag_tensors(with_unknowns(data.train, seed=seed), data.vocab)  # (N, T), (N, T)
    cfg = TrainConfig(steps=steps, batch_size=TRAIN_CFG.batch_size, optimizer=TRAIN_CFG.optimizer,
                      lr=TRAIN_CFG.lr, clip=TRAIN_CFG.clip, seed=seed)
    history = train(model, ids, tags, cfg, callback)
    return model.eval(), history


# ---- tagging one sentence --------------------------------------------------------------------

def tag_probs(model, ids) -> np.ndarray:
    """ids (T,) -> p (T, K): softmax of the tagger's logits at each word."""
    with torch.no_grad():
        z = model(torch.as_tensor(list(ids), dtype=torch.long))  # (T, K)
    return torch.softmax(z.double(), dim=-1).numpy()


@dataclass(frozen=True, eq=False)
class Tagged:
    tokens: tuple      # as typed
    words: tuple       # as the tagger reads them (<unk> for unknown words)
    tags: tuple        # argmax tag per word
    probs: np.ndarray  # (T, K)
    notices: tuple = ()  # text or tokens cut by the limits (unknown words are in `words`)


def tag_sentence(model, vocab: Vocab, text: str) -> Tagged:
    """Tag a typed sentence (unknown words read as <unk>); raises InputError if it is empty."""
    prep = prepare(text, vocab)
    p = tag_probs(model, prep.ids)  # (T, K)
    return Tagged(prep.tokens, tuple(vocab.decode(prep.ids)),
                  tuple(TAGS[k] for k in p.argmax(1)), p,
                  tuple(replace(prep, unknown=()).notices))


def extract_slots(tokens, tags, sep: str = " ", when: str = "before") -> dict[str, str]:
    """The form: each slot's words (a run of equal tags joined by `sep`: a space between
    English words, nothing between Chinese characters; runs by ' / '), and
    whether the date/time is of the arrival or the departure, as in the notes' "Time of
    Arrival: November 2nd": it belongs to the nearest city slot before it (else after it).
    when="after" looks after it first: Chinese puts the date and time before the verb and the
    city (十一月二日到达台北, 晚上七点到巴黎)."""
    runs: dict[str, list[list[str]]] = {tag: [] for tag in SLOTS}
    prev = None
    for tok, tag in zip(tokens, tags):
        if tag in runs:
            if tag != prev:
                runs[tag].append([])
            runs[tag][-1].append(tok)
        prev = tag
    form = {SLOTS[tag]: " / ".join(sep.join(r) for r in rs) for tag, rs in runs.items()}
    form[WHEN_OF] = _when_of(list(tags), when)
    return form


WHEN_OF = "Date/time of"
_CITY = {"destination": "arrival", "departure": "departure"}


def _when_of(tags: list[str], first: str = "before") -> str:
    """The city slot of the first date/time: the nearest one on the `first` side, else the
    nearest on the other side, else ""."""
    if first not in ("before", "after"):
        raise InputError('when must be "before" or "after".')
    when = [t for t, tag in enumerate(tags) if tag in ("date", "time")]
    if not when:
        return ""
    t0 = when[0]
    before = [_CITY[tag] for tag in tags[:t0] if tag in _CITY][::-1]  # nearest first
    after = [_CITY[tag] for tag in tags[t0:] if tag in _CITY]
    sides = (before, after) if first == "before" else (after, before)
    return next((side[0] for side in sides if side), "")


# ---- held-out evaluation ---------------------------------------------------------------------

def predict(model, ids: torch.Tensor) -> torch.Tensor:
    """ids (N, T) -> predicted tag ids (N, T)."""
    with torch.no_grad():
        return model(ids).argmax(-1)


def confusion(gold: torch.Tensor, pred: torch.Tensor, K: int = len(TAGS)) -> np.ndarray:
    """(K, K) counts: row = true tag, column = predicted tag; padding (IGNORE) left out."""
    keep = gold != IGNORE
    flat = gold[keep] * K + pred[keep]
    return torch.bincount(flat, minlength=K * K).reshape(K, K).numpy()


def scores(cm: np.ndarray) -> dict:
    """Accuracy and per-tag precision, recall and F1 (token level) from a confusion matrix."""
    tp = np.diag(cm).astype(float)
    pred, gold = cm.sum(0), cm.sum(1)
    prec = np.divide(tp, pred, out=np.zeros_like(tp), where=pred > 0)
    rec = np.divide(tp, gold, out=np.zeros_like(tp), where=gold > 0)
    f1 = np.divide(2 * prec * rec, prec + rec, out=np.zeros_like(tp), where=prec + rec > 0)
    return {"accuracy": float(tp.sum() / max(cm.sum(), 1)),
            "precision": dict(zip(TAGS, prec.tolist())), "recall": dict(zip(TAGS, rec.tolist())),
            "f1": dict(zip(TAGS, f1.tolist())), "tokens": int(cm.sum())}


def shifted_heldout(data: TaggingData, prefix=("please",)) -> TaggingData:
    """The held-out sentences with `prefix` words (tagged other) put in front: every slot moves
    right by len(prefix). A tagger that shares its weights across positions barely notices;
    the flattened FNN meets its slots at positions whose weights learned something else.
    ("please" is not in the vocabulary: every tagger reads it as <unk>, trained for that.)"""
    prefix = list(prefix)
    moved = tuple((prefix + list(toks), ["other"] * len(prefix) + list(tags))
                  for toks, tags in data.heldout)
    return TaggingData(data.vocab, data.train, moved)


def evaluate(model, data: TaggingData, split: str = "heldout") -> dict:
    """Scores and confusion matrix of one tagger on a split ("heldout" or "train")."""
    ids, gold = tag_tensors(getattr(data, split), data.vocab)  # (N, T), (N, T)
    cm = confusion(gold, predict(model, ids))
    return {**scores(cm), "confusion": cm.tolist()}


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


@dataclass(frozen=True, eq=False)
class HiddenPair:
    word: str
    position: int        # 0-based position of the word's LAST token in both sentences
    h_a: np.ndarray      # (H_out,)
    h_b: np.ndarray      # (H_out,)
    tag_a: str
    tag_b: str
    token: str = ""      # the token at `position` (the word itself, or 北 of 台北)
    start: int = -1      # 0-based position of the word's first token (= position for one token)

    @property
    def distance(self) -> float:
        return float(np.linalg.norm(self.h_a - self.h_b))


def word_span(tokens, word: str) -> tuple[int, int]:
    """(start, end) of the first occurrence of `word` among the tokens, end exclusive: one
    token (case-insensitive), or a run of tokens that spell it when joined (a Chinese word read
    one character at a time: 台北 -> 台, 北). InputError if it is not there."""
    lowered, w = [t.lower() for t in tokens], word.lower()
    if w in lowered:
        i = lowered.index(w)
        return i, i + 1
    for i in range(len(lowered)):
        joined = ""
        for j in range(i, len(lowered)):
            joined += lowered[j]
            if joined == w:
                return i, j + 1
            if not w.startswith(joined):
                break
    raise InputError(f"“{word}” is not a word of “{' '.join(tokens)}”.")


def compare_word(model, vocab: Vocab, text_a: str, text_b: str, word: str) -> HiddenPair:
    """The hidden state and the tag of `word` in two sentences (its first occurrence in each).
    A word of several tokens (台北, per character) is compared at its last token, whose
    state has read all of it."""
    out = []
    for text in (text_a, text_b):
        prep = prepare(text, vocab)
        start, end = word_span(prep.tokens, word)
        t = end - 1
        out.append((t, hidden_states(model, prep.ids)[t], TAGS[int(tag_probs(model, prep.ids)[t].argmax())],
                    prep.tokens[t], start))
    if out[0][0] != out[1][0]:
        raise InputError("Pick a word at the same position in both sentences.")
    return HiddenPair(word, out[0][0], out[0][1], out[1][1], out[0][2], out[1][2], out[0][3], out[0][4])


def word_tag(tagged: Tagged, word: str) -> str:
    """The tag a tagger gave `word` in a tagged sentence: its tokens' tag, or the distinct tags
    joined by "/" when the tokens of one word (东, 京) got different ones."""
    start, end = word_span(tagged.tokens, word)
    return "/".join(dict.fromkeys(tagged.tags[start:end]))


def force_tag(model, ids, t: int, tag: str, strength: float = 30.0) -> np.ndarray:
    """Tag probabilities (T, K) when the output at step t is forced to `tag` (a wrong tag).

    Jordan feeds y_t = softmax(z_t) into step t+1, so the forced tag travels on; an Elman or
    bidirectional model's later outputs do not depend on z_t at all.
    """
    ids = torch.as_tensor(list(ids), dtype=torch.long)
    if not isinstance(model, RNNModel):
        raise InputError("Forcing a tag is shown for the RNN taggers: an FNN has no output fed back.")
    if not 0 <= t < len(ids):
        raise InputError(f"The step must be from 1 to {len(ids)}.")
    forced = torch.zeros(len(TAGS))
    forced[TAGS.index(tag)] = strength  # softmax of this is one-hot to within e^-30

    def hook(z, step):
        return forced.to(z.dtype).expand_as(z) if step == t else None

    with torch.no_grad():
        z, _ = model.run_with_cache(ids, names_filter=(), hooks=[("hook_logits", hook)])
    return torch.softmax(z.double(), -1).numpy()  # (T, K)


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


def streaming_tags(model, ids) -> list[list[str]]:
    """Tags as the words arrive: row n holds the tags of the first n+1 words, read on their own.

    A left-to-right tagger never revises a tag (row n agrees with the full sentence up to n);
    a bidirectional one does, since h_bwd at word t depends on every later word.
    """
    ids = list(ids)
    return [[TAGS[k] for k in tag_probs(model, ids[: n + 1]).argmax(1)] for n in range(len(ids))]


def revisions(rows: list[list[str]], t: int = 0) -> int:
    """In streaming_tags rows, how many times word t's tag differs from its final tag."""
    return sum(row[t] != rows[-1][t] for row in rows[t:])


def distribution_change(p, q) -> np.ndarray:
    """Per step, half the L1 distance between two tag distributions (T, K): 0 same, 1 disjoint."""
    return 0.5 * np.abs(np.asarray(p) - np.asarray(q)).sum(-1)  # (T,)


# ---- try it by hand: one Jordan step -------------------------------------------------------

@dataclass(frozen=True, eq=False)
class JordanExercise:
    """a = W_x x + W_y y_prev + b with small integers; y_prev is the one-hot previous tag."""

    W_x: np.ndarray   # (2, 2)
    x: np.ndarray     # (2,)
    W_y: np.ndarray   # (2, 3)
    prev_tag: int     # index into EXERCISE_TAGS
    b: np.ndarray     # (2,)

    @property
    def y_prev(self) -> np.ndarray:
        return np.eye(3)[self.prev_tag]

    def answer(self) -> np.ndarray:
        return self.W_x @ self.x + self.W_y @ self.y_prev + self.b


EXERCISE_TAGS = ("other", "destination", "date")


def jordan_exercise(seed: int) -> JordanExercise:
    """Fresh small integers from a seed, drawn again until every typical mistake gives a
    different answer (so the checker can say which one it was)."""
    rng = np.random.default_rng(seed)
    while True:
        ex = JordanExercise(rng.integers(-2, 3, (2, 2)), rng.integers(-2, 3, 2),
                            rng.integers(-2, 3, (2, 3)), int(rng.integers(0, 3)),
                            rng.integers(-1, 2, 2))
        if len({tuple(v) for v in _mistakes(ex).values()} | {tuple(ex.answer())}) == 5:
            return ex


# slip -> English message (the catalogue's slots.hint.<slip> says the same in each language)
JORDAN_HINTS = {
    "no_feedback": "You left out the fed-back output W_y y_prev: that is the Jordan memory.",
    "no_bias": "You left out the bias b.",
    "transposed": "You used W_x transposed: row i of W_x times x gives a_i.",
    "sign_feedback": "Sign slip: the fed-back term W_y y_prev is added, not subtracted.",
    "right": "Right: a = W_x x + W_y y_prev + b.",
    "flipped": "The sign is flipped everywhere.",
    "other": "Not yet: compute W_x x, add the column of W_y for the previous tag, add b.",
}


def _mistake_vectors(ex: JordanExercise) -> dict[str, np.ndarray]:
    """slip -> the a that slip gives."""
    feedback = ex.W_y @ ex.y_prev
    return {"no_feedback": ex.W_x @ ex.x + ex.b, "no_bias": ex.W_x @ ex.x + feedback,
            "transposed": ex.W_x.T @ ex.x + feedback + ex.b, "sign_feedback": ex.W_x @ ex.x - feedback + ex.b}


def _mistakes(ex: JordanExercise) -> dict[str, np.ndarray]:
    """English message -> the a that slip gives (kept for callers of the message form)."""
    return {JORDAN_HINTS[k]: v for k, v in _mistake_vectors(ex).items()}


def check_jordan(ex: JordanExercise, answer) -> Verdict:
    """(correct?, what is wrong) for the learner's a = [a_1, a_2], as a Verdict (unpacks as
    the old (ok, message) tuple); its solution is the right a; hint_key names the slip in the
    page's catalogue (slots.hint.<slip>)."""
    ok, key = _check_jordan(ex, answer)
    a = ex.answer()
    return Verdict(ok, JORDAN_HINTS[key], hint_key=f"slots.hint.{key}",
                   solution=f"a = [{a[0]:.4g}, {a[1]:.4g}]")


def _check_jordan(ex: JordanExercise, answer) -> tuple[bool, str]:
    """(ok, slip): which of JORDAN_HINTS fits the answer."""
    try:
        got = np.asarray([float(v) for v in answer])
    except (TypeError, ValueError):
        raise InputError("Type two numbers, a_1 and a_2.") from None
    if got.shape != (2,) or not np.isfinite(got).all():
        raise InputError("Type two finite numbers, a_1 and a_2.")
    if np.allclose(got, ex.answer()):
        return True, "right"
    for key, wrong in _mistake_vectors(ex).items():
        if np.allclose(got, wrong):
            return False, key
    if np.allclose(got, -ex.answer()):
        return False, "flipped"
    return False, "other"


# ---- tables for the page ---------------------------------------------------------------------

def disagreements(tagged_by: dict) -> int:
    """How many words get more than one distinct tag across the taggers (label -> Tagged)."""
    columns = [t.tags for t in tagged_by.values()]
    return sum(len(set(tags)) > 1 for tags in zip(*columns))


def score_rows(scores_by: dict) -> list[dict]:
    """One row per tagger: held-out accuracy and F1 per slot (label -> evaluate() result)."""
    return [{"tagger": label, "accuracy": s["accuracy"],
             **{f"F1 {SLOTS[tag]}": s["f1"][tag] for tag in SLOTS}}
            for label, s in scores_by.items()]
