"""Word2Vec (note 004): where an embedding matrix comes from without any RNN.

A sliding window turns text into (centre, context) pairs; skip-gram with negative
sampling (SGNS) gives every word two vectors, v (as a centre) and u (as a context),
and for one pair with k sampled negatives maximises

    J = log sigma(u_o . v_c) + sum_k log sigma(-u_k . v_c)       (loss L = -J)

so true neighbours are pulled together and random words pushed apart. The rows of V
(the centre vectors) are the learned embeddings, compared here with the RNN language
model's E by neighbour overlap: of each word's k nearest words (cosine), how many
are the same in both. Everything is pure torch / numpy and bounded (InputError).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.explain.embedding import nearest, pca_2d
from rnnviz.explain.train import read_corpus
from rnnviz.text.corpora import everyday_corpus, travel_corpus
from rnnviz.text.tokenize import SPECIALS, Vocab

MAX_CHECKPOINTS = 40    # snapshots of the vectors kept for the page
MAX_ROW_PUSHES = 16     # a row moves by at most this many pairs' pushes in one step (no blow-up)
UNIGRAM_POWER = 0.75    # negatives drawn from count^0.75 (Mikolov et al. 2013)


# ---- the sliding window ----------------------------------------------------------------

@dataclass(frozen=True)
class Pair:
    centre_pos: int   # 0-based position of the centre word in the sentence
    context_pos: int  # 0-based position of the context word
    centre: str
    context: str


def _check_radius(radius: int) -> None:
    if not (isinstance(radius, int) and 1 <= radius <= limits.W2V_MAX_RADIUS):
        raise InputError(f"The window radius must be a whole number from 1 to {limits.W2V_MAX_RADIUS}.")


def window_span(T: int, pos: int, radius: int) -> tuple[int, int]:
    """The window around position pos, clipped to the sentence: [lo, hi) (0-based)."""
    _check_radius(radius)
    if not 0 <= pos < T:
        raise InputError(f"The centre must be a position from 1 to {T}.")
    return max(0, pos - radius), min(T, pos + radius + 1)


def window_pairs(tokens, radius: int = 2) -> list[Pair]:
    """Every (centre, context) pair the window makes, centre by centre, left to right.

    A word is never its own context; a sentence of T words gives
    sum_t (min(T, t+r+1) - max(0, t-r) - 1) pairs.
    """
    tokens = list(tokens)
    out = []
    for c in range(len(tokens)):
        lo, hi = window_span(len(tokens), c, radius)
        out += [Pair(c, o, tokens[c], tokens[o]) for o in range(lo, hi) if o != c]
    return out


# ---- one pair written out ------------------------------------------------------------------

def sigmoid(x: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(x)


def pair_terms(v_c, u_o, u_neg) -> dict:
    """One pair's objective with every number, and the hand gradients of the loss L = -J.

    v_c (d,), u_o (d,), u_neg (k, d). With s_o = u_o . v_c and s_k = u_k . v_c:
      dL/dv_c = (sigma(s_o) - 1) u_o + sum_k sigma(s_k) u_k
      dL/du_o = (sigma(s_o) - 1) v_c
      dL/du_k = sigma(s_k) v_c          (one row per negative slot)
    since d/ds log sigma(s) = 1 - sigma(s) and d/ds log sigma(-s) = -sigma(s).
    """
    v_c, u_o, u_neg = (torch.as_tensor(t, dtype=torch.float64) for t in (v_c, u_o, u_neg))
    s_o = u_o @ v_c                      # ()
    s_neg = u_neg @ v_c                  # (k,)
    sig_o, sig_neg = sigmoid(s_o), sigmoid(s_neg)
    log_pos = torch.nn.functional.logsigmoid(s_o)       # () log sigma(u_o.v_c)
    log_neg = torch.nn.functional.logsigmoid(-s_neg)    # (k,) log sigma(-u_k.v_c)
    objective = log_pos + log_neg.sum()
    return {"s_o": s_o, "s_neg": s_neg, "sigma_o": sig_o, "sigma_neg": sig_neg,
            "log_pos": log_pos, "log_neg": log_neg, "objective": objective, "loss": -objective,
            "grad_v_c": (sig_o - 1) * u_o + sig_neg @ u_neg,   # (d,)
            "grad_u_o": (sig_o - 1) * v_c,                      # (d,)
            "grad_u_neg": sig_neg[:, None] * v_c[None, :]}      # (k, d)


def pair_step(Vc, Uo, c: int, o: int, negs, lr: float) -> dict:
    """One SGD step on a single pair, applied to the matrices: rows v_c, u_o and every u_k.

    Vc, Uo (n, d) centre and context matrices; negs: k word ids (a word drawn twice, or
    drawn equal to o, gets its gradient contributions added in its row, as in any lookup).
    Returns the pair's terms and the new matrices (the inputs are not changed).
    """
    if not (math.isfinite(lr) and 0 < lr <= 10):
        raise InputError("The learning rate must be above 0 and at most 10.")
    Vc, Uo = torch.as_tensor(Vc, dtype=torch.float64), torch.as_tensor(Uo, dtype=torch.float64)
    negs = torch.as_tensor(list(negs), dtype=torch.long)
    terms = pair_terms(Vc[c], Uo[o], Uo[negs])
    gV = torch.zeros_like(Vc)
    gV[c] = terms["grad_v_c"]
    gU = torch.zeros_like(Uo)
    gU[o] += terms["grad_u_o"]
    gU.index_add_(0, negs, terms["grad_u_neg"])  # repeated rows add up
    return {**terms, "grad_V": gV, "grad_U": gU, "V_new": Vc - lr * gV, "U_new": Uo - lr * gU}


def draw_negatives(counts, k: int, seed: int = 0) -> list[int]:
    """k word ids from the noise distribution (count^0.75), seeded; repeats are allowed."""
    if not (isinstance(k, int) and 1 <= k <= limits.W2V_MAX_NEGATIVES):
        raise InputError(f"The number of negatives must be from 1 to {limits.W2V_MAX_NEGATIVES}.")
    gen = torch.Generator().manual_seed(seed)
    return torch.multinomial(noise_distribution(counts), k, replacement=True, generator=gen).tolist()


def pair_example(V, U, vocab: Vocab, counts, centre: str, context: str, k: int = 5,
                 lr: float = 0.1, seed: int = 0) -> dict:
    """One (centre, context) pair of the learner's sentence through one SGD step: the drawn
    negatives (ids and words), every number of pair_step, and the same pair's loss after the
    step ("loss_after") and its change ("loss_change" = after - before: one small step moves a
    loss of ~4 only in the third decimal, so a page shows the change, not two equal roundings)."""
    ids = []
    for word in (centre, context):
        i = vocab.id_of(word)
        if i is None:
            raise InputError(f"“{word}” is not in this corpus's vocabulary.")
        ids.append(i)
    negs = draw_negatives(counts, k, seed)
    out = pair_step(V, U, ids[0], ids[1], negs, lr)
    after = pair_terms(out["V_new"][ids[0]], out["U_new"][ids[1]], out["U_new"][negs])["loss"]
    return {**out, "c": ids[0], "o": ids[1], "negatives": negs,
            "negative_words": [vocab.itos[j] for j in negs],
            "loss_after": float(after), "loss_change": float(after) - float(out["loss"])}


# ---- a corpus of pairs ---------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class PairCorpus:
    vocab: Vocab               # words by frequency (no special tokens)
    counts: np.ndarray         # (n,) how often each word occurs
    centres: np.ndarray        # (P,) word ids, int32 (4 bytes a pair end, not a Python int)
    contexts: np.ndarray       # (P,) word ids, int32
    n_sentences: int
    radius: int
    dropped_types: int = 0     # rarer word types left out to keep the vocabulary bounded


def builtin_sentences() -> list[list[str]]:
    """The built-in corpus the default language model learned from (travel + everyday)."""
    return [toks for toks, _ in travel_corpus()] + everyday_corpus()


def text_sentences(text: str, max_lines: int = 20_000) -> list[list[str]]:
    """A learner's text, one sentence per line, as word tokens (bounded by the corpus limits)."""
    return [list(s) for s in read_corpus(text, "word").sequences[:max_lines]]


def pair_corpus(sentences, radius: int = 2, max_vocab: int = limits.MAX_VOCAB) -> PairCorpus:
    """Vocabulary (by frequency, ties by first appearance) and all window pairs of all sentences.

    Only the max_vocab most frequent word types are kept; rarer ones are removed from the
    sentences before the window slides (as word2vec's min_count does), so memory is bounded.
    """
    _check_radius(radius)
    sentences = [[t for t in s if t not in SPECIALS] for s in sentences]
    counts: dict[str, int] = {}
    for s in sentences:
        for t in s:
            counts[t] = counts.get(t, 0) + 1
    if len(counts) < 2:
        raise InputError("Word2Vec needs at least two different words.", "w2v_two_words")
    ranked = sorted(counts, key=lambda t: -counts[t])
    vocab = Vocab(tuple(ranked[:max_vocab]))
    cs, os_ = [], []
    for s in sentences:
        ids = np.array([vocab.stoi[t] for t in s if t in vocab.stoi], dtype=np.int32)
        if len(ids) > 1:
            c, o = window_positions(len(ids), radius)
            cs.append(ids[c])
            os_.append(ids[o])
    if not cs:
        raise InputError("No sentence has two words, so the window makes no pairs.", "w2v_no_pairs")
    return PairCorpus(vocab, np.array([counts[t] for t in vocab.itos]), np.concatenate(cs),
                      np.concatenate(os_), len(sentences), radius, max(0, len(ranked) - max_vocab))


def window_positions(T: int, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """(centre, context) positions of window_pairs over T words, in its order (centre by
    centre, context left to right), as two int arrays."""
    offsets = np.array([k for k in range(-radius, radius + 1) if k != 0])
    c = np.repeat(np.arange(T), len(offsets)).reshape(T, len(offsets))
    o = c + offsets[None, :]
    ok = (o >= 0) & (o < T)
    return c[ok], o[ok]


def pair_batch(pc: PairCorpus, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The (centre, context) ids of pairs idx as int64 tensors (the corpus keeps int32 arrays)."""
    i = idx.numpy()
    return torch.from_numpy(pc.centres[i].astype(np.int64)), torch.from_numpy(pc.contexts[i].astype(np.int64))


def noise_distribution(counts) -> torch.Tensor:
    """P_n(w) proportional to count^0.75: frequent words are drawn less than their share."""
    w = torch.as_tensor(np.asarray(counts, dtype=float)) ** UNIGRAM_POWER
    return w / w.sum()


# ---- training ------------------------------------------------------------------------------

@dataclass(frozen=True)
class W2VConfig:
    dim: int = 16
    negatives: int = 5
    steps: int = 800
    batch_size: int = 256
    lr: float = 0.025         # SGD, decayed linearly to lr / 10^4 (word2vec's schedule)
    checkpoints: int = 8      # snapshots of V for the page (first is the random start)
    seed: int = 0

    def __post_init__(self):
        for name, value, lo, hi in (("dim", self.dim, 2, limits.W2V_MAX_DIM),
                                    ("negatives", self.negatives, 1, limits.W2V_MAX_NEGATIVES),
                                    ("steps", self.steps, 1, limits.W2V_MAX_STEPS),
                                    ("batch_size", self.batch_size, 1, limits.W2V_MAX_BATCH),
                                    ("checkpoints", self.checkpoints, 1, MAX_CHECKPOINTS)):
            if not (isinstance(value, int) and lo <= value <= hi):
                raise InputError(f"{name} must be a whole number from {lo} to {hi}.")
        if not (math.isfinite(self.lr) and 0 < self.lr <= limits.W2V_MAX_LR):
            raise InputError(f"The learning rate must be above 0 and at most {limits.W2V_MAX_LR}.")


def init_vectors(n: int, d: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Small random V and U (n, d), float64, from a seed."""
    gen = torch.Generator().manual_seed(seed)
    V = (torch.rand(n, d, generator=gen, dtype=torch.float64) - 0.5) / d  # (n, d)
    U = (torch.rand(n, d, generator=gen, dtype=torch.float64) - 0.5) / d  # (n, d)
    return V, U


def batch_loss(V, U, c, o, negs) -> torch.Tensor:
    """Mean SGNS loss over a batch: c, o (B,), negs (B, k)."""
    v = V[c]                                                   # (B, d)
    pos = torch.nn.functional.logsigmoid((U[o] * v).sum(-1))   # (B,)
    neg = torch.nn.functional.logsigmoid(-(U[negs] @ v[:, :, None])[..., 0]).sum(-1)  # (B,)
    return -(pos + neg).mean()


def sgd_batch_step(V, U, c, o, negs, lr: float, max_pushes: float | None = None) -> float:
    """pair_terms' hand gradients for a batch, applied in place (V, U (n, d); c, o (B,);
    negs (B, k)): one SGD step on the SUM of the pairs' losses, so each pair moves its rows as
    if it were alone, and a row used twice gets both pushes (index_add). Returns the mean loss.

    max_pushes: a row used m > max_pushes times in the batch moves by its summed push times
    max_pushes / m (at most max_pushes pushes' worth). Training uses it: with a tiny vocabulary
    (`a b c d` x 50) every row is used ~B(1+k)/n times per step, so the summed push is hundreds
    of times a single pair's, the vectors blow up and log sigma underflows to -inf (the NaN of
    issue 22 R5). word2vec itself never sums: it updates pair by pair, each push seeing the
    previous one."""
    v, u_o, u_n = V[c], U[o], U[negs]                       # (B, d), (B, d), (B, k, d)
    s_o = (u_o * v).sum(-1)                                 # (B,)
    s_n = (u_n @ v[:, :, None])[..., 0]                     # (B, k)
    loss = -(torch.nn.functional.logsigmoid(s_o)
             + torch.nn.functional.logsigmoid(-s_n).sum(-1)).mean()
    g_o, g_n = torch.sigmoid(s_o) - 1, torch.sigmoid(s_n)  # (B,), (B, k)
    grad_v = g_o[:, None] * u_o + (g_n[:, :, None] * u_n).sum(1)   # (B, d)
    grad_uo = g_o[:, None] * v                                       # (B, d)
    grad_un = g_n[:, :, None] * v[:, None, :]                        # (B, k, d)
    flat = negs.reshape(-1)
    if max_pushes is not None:
        n = V.shape[0]
        per_v = (torch.bincount(c, minlength=n) / max_pushes).clamp(min=1).to(V.dtype)     # (n,)
        per_u = ((torch.bincount(o, minlength=n) + torch.bincount(flat, minlength=n))
                 / max_pushes).clamp(min=1).to(U.dtype)                                     # (n,)
        grad_v, grad_uo = grad_v / per_v[c, None], grad_uo / per_u[o, None]
        grad_un = grad_un / per_u[negs][..., None]
    V.index_add_(0, c, -lr * grad_v)
    U.index_add_(0, o, -lr * grad_uo)
    U.index_add_(0, flat, -lr * grad_un.reshape(-1, V.shape[1]))
    return float(loss)


@dataclass(frozen=True, eq=False)
class W2VResult:
    vocab: Vocab
    V: torch.Tensor            # (n, d) centre vectors: the learned embeddings
    U: torch.Tensor            # (n, d) context vectors
    history: list              # one record per step: step, loss
    snapshots: list            # (step, V copy) at the checkpoints, the random start first
    stopped: bool              # the callback stopped the run early
    seconds: float
    diverged: bool = False     # the loss became NaN/inf: the run stopped there (more steps cannot help)


def train_word2vec(pc: PairCorpus, cfg: W2VConfig = W2VConfig(), callback=None) -> W2VResult:
    """SGD with the hand gradients of pair_terms on random batches of pairs, the learning
    rate decayed linearly (word2vec's schedule), seeded and repeatable.

    callback(record) after each step (record: step, steps, loss, lr); returning False stops
    the run, which keeps what it has learned. Snapshots of V are taken evenly over the steps.
    A loss that is not finite stops the run at that step (result.diverged), as page 6 does.
    """
    gen = torch.Generator().manual_seed(cfg.seed)
    V, U = init_vectors(len(pc.vocab), cfg.dim, cfg.seed)
    noise = noise_distribution(pc.counts)
    at = set(np.linspace(0, cfg.steps, cfg.checkpoints + 1).round().astype(int).tolist()[1:])
    snapshots = [(0, V.clone())]
    history, stopped, start = [], False, time.perf_counter()
    for step in range(1, cfg.steps + 1):
        idx = torch.randint(0, len(pc.centres), (min(cfg.batch_size, len(pc.centres)),), generator=gen)
        negs = torch.multinomial(noise, len(idx) * cfg.negatives, replacement=True,
                                 generator=gen).view(len(idx), cfg.negatives)  # (B, k)
        lr = cfg.lr * max(1e-4, 1 - (step - 1) / cfg.steps)
        loss = sgd_batch_step(V, U, *pair_batch(pc, idx), negs, lr, MAX_ROW_PUSHES)
        record = {"step": step, "steps": cfg.steps, "loss": loss, "lr": lr}
        history.append(record)
        diverged = not math.isfinite(loss)
        stop = diverged or (callback is not None and callback(record) is False)
        if step in at or stop:
            snapshots.append((step, V.clone()))
        if stop:
            stopped = not diverged
            break
    return W2VResult(pc.vocab, V, U, history, snapshots, stopped,
                     time.perf_counter() - start, diverged)


# ---- what it learned -----------------------------------------------------------------------

def neighbours(V, vocab: Vocab, word: str, k: int = 5) -> list[tuple[str, float]]:
    """The k words nearest to `word` by cosine of their vectors, best first."""
    i = vocab.id_of(word)
    if i is None:
        raise InputError(f"“{word}” is not in this corpus's vocabulary.")
    return [(vocab.itos[j], c) for j, c in nearest(V, i, k)]


def projection(V) -> tuple[np.ndarray, np.ndarray]:
    """2-D PCA of the vectors: coords (n, 2) and the variance share of the 2 axes."""
    coords, share = pca_2d(V)
    return coords.numpy(), share.numpy()


def align_2d(X, ref) -> np.ndarray:
    """X (n, 2) turned (rotation or reflection, no stretch) to lie as close as possible to
    ref (n, 2): orthogonal Procrustes, R = U W^T from the SVD of X^T ref. Distances and
    angles between the points do not change."""
    X, ref = np.asarray(X, dtype=float), np.asarray(ref, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        M = X.T @ ref  # (2, 2)
    if not np.isfinite(M).all():
        return X  # a diverged snapshot (NaN/inf) has no rotation: shown as it is, never an SVD error
    u, _, wt = np.linalg.svd(M)
    return X @ (u @ wt)


def checkpoint_views(result: W2VResult, words, k: int = 5) -> list[dict]:
    """Per snapshot: step, 2-D coordinates of every word, and the neighbours of `words`.

    Each snapshot has its own PCA; its picture is then turned to match the last one's
    (align_2d), so that a slider over the snapshots shows words moving, not axes flipping.
    """
    final, _ = projection(result.snapshots[-1][1])
    out = []
    for step, V in result.snapshots:
        coords, share = projection(V)
        out.append({"step": step, "coords": align_2d(coords, final), "share": share,
                    "neighbours": {w: neighbours(V, result.vocab, w, k) for w in words}})
    return out


# ---- beside the RNN language model's E ----------------------------------------------------------

def shared_words(itos_a, itos_b) -> list[str]:
    """Words in both vocabularies (no special tokens), in the order of the first."""
    b = set(itos_b)
    return [w for w in itos_a if w in b and w not in SPECIALS]


def _top_k(X: torch.Tensor, k: int) -> list[list[tuple[int, float]]]:
    """For each row of X (m, d): its k nearest other rows by cosine, best first (ties: lower id)."""
    return [nearest(X, i, k) for i in range(X.shape[0])]


def neighbour_overlap(A, itos_a, B, itos_b, k: int = 5) -> dict:
    """Of each shared word's k nearest shared words (cosine), how many are the same in A and B.

    A (n_a, d_a) and B (n_b, d_b) may differ in size and length: only the shared words are
    compared, each within its own matrix. A random pairing would keep k * k / (m - 1) on
    average (m shared words): the page shows that chance level beside the mean.
    """
    words = shared_words(itos_a, itos_b)
    m = len(words)
    if not (isinstance(k, int) and 1 <= k <= m - 1):
        raise InputError(f"k must be from 1 to {max(m - 1, 0)} (one less than the {m} shared words).")
    ia = {w: i for i, w in enumerate(itos_a)}
    ib = {w: i for i, w in enumerate(itos_b)}
    Xa = torch.as_tensor(A, dtype=torch.float64)[[ia[w] for w in words]]  # (m, d_a)
    Xb = torch.as_tensor(B, dtype=torch.float64)[[ib[w] for w in words]]  # (m, d_b)
    na, nb = _top_k(Xa, k), _top_k(Xb, k)
    per_word = {w: len({j for j, _ in na[i]} & {j for j, _ in nb[i]}) for i, w in enumerate(words)}
    return {"words": words, "k": k, "per_word": per_word,
            "neighbours_a": {w: [(words[j], c) for j, c in na[i]] for i, w in enumerate(words)},
            "neighbours_b": {w: [(words[j], c) for j, c in nb[i]] for i, w in enumerate(words)},
            "mean": float(np.mean(list(per_word.values()))), "chance": k * k / (m - 1)}


# ---- try it by hand: dL/dv_c for one pair and one negative -----------------------------------

@dataclass(frozen=True, eq=False)
class PairExercise:
    """Small whole-number vectors (d = 2, k = 1): the learner computes dL/dv_c."""

    v_c: np.ndarray   # (2,)
    u_o: np.ndarray   # (2,)
    u_k: np.ndarray   # (2,)

    def terms(self) -> dict:
        return pair_terms(self.v_c, self.u_o, self.u_k[None, :])

    def answer(self) -> np.ndarray:
        return self.terms()["grad_v_c"].numpy()


EXERCISE_TOL = 0.005


def _exercise_mistakes(ex: PairExercise) -> dict[str, np.ndarray]:
    t = ex.terms()
    so, sk = float(t["sigma_o"]), float(t["sigma_neg"][0])
    return {
        "You left out the negative word's term σ(u_k·v_c) u_k.": (so - 1) * ex.u_o,
        "You left out the true context's term (σ(u_o·v_c) − 1) u_o.": sk * ex.u_k,
        "For the true context the factor is σ(u_o·v_c) − 1, not σ(u_o·v_c): "
        "d/ds log σ(s) = 1 − σ(s).": so * ex.u_o + sk * ex.u_k,
        "For the negative the factor is σ(u_k·v_c), not 1 − σ(u_k·v_c): "
        "d/ds log σ(−s) = −σ(s).": (so - 1) * ex.u_o + (1 - sk) * ex.u_k,
        "The sign is flipped: that is the gradient of J; the loss is L = −J.": -ex.answer(),
    }


def pair_exercise(seed: int) -> PairExercise:
    """Fresh vectors from a seed, drawn again until every typical mistake gives a different
    answer (so the checker can say which one it was)."""
    rng = np.random.default_rng(seed)
    while True:
        ex = PairExercise(*(rng.integers(-2, 3, 2).astype(float) for _ in range(3)))
        answers = [ex.answer(), *_exercise_mistakes(ex).values()]
        if all(np.abs(a - b).max() > 4 * EXERCISE_TOL for i, a in enumerate(answers)
               for b in answers[i + 1:]):
            return ex


def check_pair_exercise(ex: PairExercise, answer) -> tuple[bool, str]:
    """(correct?, what is wrong) for the learner's dL/dv_c = [g_1, g_2]."""
    try:
        got = np.asarray([float(v) for v in answer])
    except (TypeError, ValueError):
        raise InputError("Type two numbers, the two entries of dL/dv_c.") from None
    if got.shape != (2,) or not np.isfinite(got).all():
        raise InputError("Type two finite numbers, the two entries of dL/dv_c.")
    if np.abs(got - ex.answer()).max() <= EXERCISE_TOL:
        return True, "Right: dL/dv_c = (σ(u_o·v_c) − 1) u_o + σ(u_k·v_c) u_k."
    for message, wrong in _exercise_mistakes(ex).items():
        if np.abs(got - wrong).max() <= EXERCISE_TOL:
            return False, message
    return False, "Not yet: compute s_o = u_o·v_c and s_k = u_k·v_c, then (σ(s_o) − 1) u_o + σ(s_k) u_k."
