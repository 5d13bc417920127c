"""Embedding lookup, its gradient, and word representations (page 1), as pure functions.

Notation of the notes: E is V x d; a token with id i is the one-hot row x (1 x V) and
its embedding is e = x E = E[i]. With g_e = dL/de (from the backward pass), each
element is dL/dE_ij = x_i g_j, so dL/dE = x^T g_e: an outer product that is zero
except in row i. Everything here works in float64 so that the notes' one-decimal
numbers come out exactly (-0.4 - 0.1 * 2 = -0.6, not -0.6000000238).
"""
from __future__ import annotations

import copy
import math
import random
import re
from collections import Counter
from dataclasses import dataclass

import torch

from rnnviz import limits
from rnnviz.engine.model import HookContext, RNNModel, sequence_loss
from rnnviz.errors import InputError
from rnnviz.explain.exercises.verdict import Verdict
from rnnviz.formatting import num, vector
from rnnviz.safe_text import short
from rnnviz.store.catalog import NOTES_E, NOTES_VOCAB, TRAVEL_E, TRAVEL_VOCAB
from rnnviz.text.bpe import MARK
from rnnviz.text.corpora import pad_batch
from rnnviz.text.tokenize import SPECIALS, letter_trigrams, trigram_bucket

NOTES_V = 50_000            # the notes' vocabulary size for the memory comparison
REAL_SIZES = (256, 512)     # embedding sizes of real models, for the memory table at V = NOTES_V


def f64(E) -> torch.Tensor:
    """Any matrix-like (tuple, array, tensor) as a detached float64 tensor."""
    if isinstance(E, torch.Tensor):
        return E.detach().to(torch.float64).clone()
    return torch.as_tensor(E, dtype=torch.float64)  # straight from Python floats: 0.1 stays 0.1


def vocab_labels(itos) -> list[str]:
    """'0 I', '1 like', ...: unique axis labels with the 0-based id first (long tokens shortened)."""
    return [f"{i} {short(tok, limits.MAX_LABEL_CHARS)}" for i, tok in enumerate(itos)]


# ---- presets of the notes -----------------------------------------------------------

@dataclass(frozen=True)
class Preset:
    """A worked example of the notes: a vocabulary, its E, a sentence, g_e at one step, lr."""

    key: str
    label: str
    itos: tuple
    E: tuple
    tokens: tuple   # the sentence looked up
    focus: int      # the step (0-based) whose token the notes follow and where g_e arrives
    g: tuple        # g_e for that step
    lr: float
    second: tuple   # a second sentence, for the padded batch

    @property
    def ids(self) -> list[int]:
        return [self.itos.index(t) for t in self.tokens]


PRESETS = {
    "notes": Preset("notes", "Notes example (V=5, d=3)",
                    NOTES_VOCAB, NOTES_E, ("I", "like", "cats"), 2, (2.0, -1.0, 3.0), 0.1,
                    ("you", "like", "cats", "dogs")),
    "travel": Preset("travel", "Travel vocabulary (note 004)",
                     TRAVEL_VOCAB, TRAVEL_E, ("Arrive", "Taipei"), 1, (2.0, -1.0, 3.0), 0.1,
                     ("Leave", "Taipei", "November")),
}


# ---- lookup ------------------------------------------------------------------------

def check_ids(ids, V: int) -> list[int]:
    ids = [int(i) for i in ids]
    bad = [i for i in ids if not 0 <= i < V]
    if bad:
        raise InputError(f"Token id {bad[0]} is outside the vocabulary (ids 0 to {V - 1}).")
    if not ids:
        raise InputError("There is no token to look up.")
    return ids


def lookup(E, ids) -> torch.Tensor:
    """E[ids]: one row per token, (T, d). This is all nn.Embedding does going forward."""
    E = f64(E)
    return E[check_ids(ids, E.shape[0])]  # (T, d)


def one_hot(ids, V: int) -> torch.Tensor:
    """(T, V) rows with a single 1 at each token's id."""
    ids = check_ids(ids, V)
    x = torch.zeros(len(ids), V, dtype=torch.float64)  # (T, V)
    x[torch.arange(len(ids)), torch.tensor(ids)] = 1.0
    return x


def one_hot_product(E, i: int) -> dict:
    """x E written out: term k is x_k * E[k] (zero unless k = i); their sum is E[i]."""
    E = f64(E)
    x = one_hot([i], E.shape[0])[0]  # (V,)
    terms = x[:, None] * E + 0.0     # (V, d)
    return {"x": x, "terms": terms, "result": terms.sum(0)}


# ---- the gradient of the lookup ---------------------------------------------------------

def parse_vector(text: str, d: int | None = None, name: str = "the vector",
                 what: str = "vector") -> torch.Tensor:
    """'[2, -1, 3]' or '2 -1 3' -> tensor; a learner's typo becomes an InputError whose catalogue
    key is errors.<what>_<mistake> (`what`: "vector", a named symbol; "answer", the exercise's)."""
    parts = [p for p in re.split(r"[\s,;\[\]()]+", str(text).strip()) if p]
    if not parts:
        raise InputError(f"Type {name} as numbers separated by commas, e.g. 2, -1, 3.", f"{what}_empty",
                         {"name": name})
    try:
        values = [float(p.replace("\u2212", "-")) for p in parts]
    except ValueError:
        bad = next(p for p in parts if not _is_number(p.replace("\u2212", "-")))
        raise InputError(f"“{bad}” in {name} is not a number.", f"{what}_not_number",
                         {"name": name, "bad": bad}) from None
    if not all(math.isfinite(v) for v in values):
        raise InputError(f"{name.capitalize()} must be finite numbers (no inf or NaN).", f"{what}_not_finite",
                         {"name": name})
    if d is not None and len(values) != d:
        raise InputError(f"{name.capitalize()} needs {d} numbers (d = {d}); you typed {len(values)}.",
                         f"{what}_length", {"name": name, "d": d, "n": len(values)})
    return torch.tensor(values, dtype=torch.float64)


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def outer_product(x, g) -> torch.Tensor:
    """x^T g_e element by element: entry (i, j) is x_i * g_j. x (V,), g (d,) -> (V, d)."""
    x, g = f64(x), f64(g)
    return x[:, None] * g[None, :] + 0.0  # (V, d); + 0.0 turns -0.0 into 0.0 for display


def embedding_gradient(ids, g, V: int) -> torch.Tensor:
    """dL/dE = sum_t x_t^T g_t = X^T G for one sentence: ids (T,), g (T, d) -> (V, d)."""
    g = f64(g)
    X = one_hot(ids, V)  # (T, V)
    if g.shape[0] != X.shape[0]:
        raise InputError("There must be one gradient row g_t per token.")
    return X.T @ g + 0.0  # (V, d); + 0.0 turns -0.0 into 0.0 for display


def typed_gradient(T: int, d: int, step: int, g) -> torch.Tensor:
    """A (T, d) gradient that is the learner's g_e at one step (0-based) and zero elsewhere."""
    if not 0 <= step < T:
        raise InputError(f"The step must be from 1 to {T}.")
    G = torch.zeros(T, d, dtype=torch.float64)  # (T, d)
    G[step] = f64(g)
    return G


def same_gradient(T: int, g) -> torch.Tensor:
    """(T, d): the same g_e at every step (a typed g_e applied to a whole sentence)."""
    return f64(g)[None, :].repeat(T, 1)  # (T, d)


def row_contributions(ids, g, itos) -> list[dict]:
    """Per distinct id: the steps that looked it up, each step's g_t, and their sum (its row of dL/dE)."""
    g = f64(g)
    rows: dict[int, dict] = {}
    for t, i in enumerate(int(i) for i in ids):
        r = rows.setdefault(i, {"id": i, "token": itos[i], "steps": [], "parts": []})
        r["steps"].append(t)
        r["parts"].append(g[t])
    for r in rows.values():
        r["total"] = torch.stack(r["parts"]).sum(0)  # (d,)
    return list(rows.values())


# ---- update rules ------------------------------------------------------------------------

def _check_lr(lr: float, weight_decay: float = 0.0) -> None:
    if not (math.isfinite(lr) and 0 <= lr <= limits.MAX_LR):
        raise InputError(f"The learning rate must be from 0 to {limits.MAX_LR:g}.")
    if not (math.isfinite(weight_decay) and weight_decay >= 0):
        raise InputError("Weight decay must be 0 or more.")


def sgd_step(E, grad, lr: float, weight_decay: float = 0.0) -> torch.Tensor:
    """E - lr (dL/dE + wd E): without decay only rows with a gradient move; with it, all shrink."""
    _check_lr(lr, weight_decay)
    E, grad = f64(E), f64(grad)
    return E - lr * (grad + weight_decay * E)  # (V, d)


@dataclass(frozen=True)
class AdamState:
    step: int
    E: torch.Tensor   # (V, d) after this step
    m: torch.Tensor   # (V, d) first moment (running mean of gradients)
    v: torch.Tensor   # (V, d) second moment (running mean of squared gradients)


def adam_steps(E, grads, lr: float, betas=(0.9, 0.999), eps: float = 1e-8,
               weight_decay: float = 0.0) -> list[AdamState]:
    """Adam over a list of gradients (the rule torch.optim.Adam uses), one state per step.

    A row whose gradient is zero now still moves if m is not zero: its earlier gradients
    live on in the optimiser's state.
    """
    _check_lr(lr, weight_decay)
    E = f64(E)
    m, v = torch.zeros_like(E), torch.zeros_like(E)
    b1, b2 = betas
    out = []
    for k, g in enumerate(grads, start=1):
        g = f64(g) + weight_decay * E
        m = b1 * m + (1 - b1) * g          # (V, d)
        v = b2 * v + (1 - b2) * g * g      # (V, d)
        m_hat, v_hat = m / (1 - b1 ** k), v / (1 - b2 ** k)
        E = E - lr * m_hat / (v_hat.sqrt() + eps)
        out.append(AdamState(k, E, m, v))
    return out


def row_changes(E_old, E_new) -> torch.Tensor:
    """||E_new[k] - E_old[k]|| for every row k, (V,): which rows an update touched."""
    return (f64(E_new) - f64(E_old)).norm(dim=1)  # (V,)


def change_summary(E_old, E_new, ids) -> dict:
    """Row changes, how many rows moved, and how many of those the sentence never read."""
    ch = row_changes(E_old, E_new)  # (V,)
    looked = {int(i) for i in ids}
    moved = torch.nonzero(ch > 0).flatten().tolist()  # ascending ids
    return {"change": ch, "n_changed": len(moved), "n_other": sum(k not in looked for k in moved),
            "moved": moved}


def tied_gradients(model: RNNModel, ids, targets, reduction: str = "sum") -> dict:
    """dL/dE when the output layer reuses E (tied weights), split into its two sources.

    A tied output layer scores word k by E[k] . u_t, so u_t must have d entries: we map
    h_t with the d x H matrix Q that best fits E Q = W_o (least squares). The input side
    is the lookup's x^T g_e; the output side, sum_t grad_z_t[k] u_t, reaches every word
    the softmax gives any probability, so rows never looked up move too.
    """
    cfg = model.cfg
    if cfg.bidirectional or cfg.K != cfg.vocab_size:
        raise InputError("Tied weights need a one-directional language model (outputs = vocabulary).")
    m = copy.deepcopy(model).double()
    ids = torch.as_tensor(check_ids(ids, cfg.vocab_size))
    targets = torch.as_tensor(targets, dtype=torch.long)
    E = m.E.detach()
    Q = torch.linalg.lstsq(E, m.W_o.detach()).solution  # (d, H): E Q ~ W_o
    E_in, E_out = E.clone().requires_grad_(), E.clone().requires_grad_()
    hs = {}

    def embed(x, t):
        return E_in[ids]  # (T, d)

    def keep(h, t):
        hs[t] = h

    def logits(z, t):
        return (hs[t] @ Q.T) @ E_out.T + m.b_o  # (K,)

    ctx = HookContext([("hook_embed", embed), ("hook_hidden", keep), ("hook_logits", logits)])
    _, loss = sequence_loss(m(ids, ctx), targets, reduction)
    g_in, g_out = torch.autograd.grad(loss, [E_in, E_out])
    fit = float((E @ Q - m.W_o.detach()).norm() / m.W_o.detach().norm().clamp_min(1e-12))
    return {"input": g_in, "output": g_out, "total": g_in + g_out, "Q": Q, "loss": float(loss.detach()),
            "fit_error": fit}


# ---- similarity ------------------------------------------------------------------------

def cosine_matrix(E) -> torch.Tensor:
    """(V, V) cosine similarity of rows: the angle only, not the length. NaN for a zero row."""
    E = f64(E)
    n = E.norm(dim=1)  # (V,)
    C = (E @ E.T) / (n[:, None] * n[None, :])
    return torch.where((n[:, None] > 0) & (n[None, :] > 0), C, torch.full_like(C, float("nan")))


def cosine_row(E, i: int) -> torch.Tensor:
    """(V,) cosine of row i with every row: E @ E[i] over the norms, O(V d), never V x V.
    NaN where either row is zero (as cosine_matrix's row i)."""
    E = f64(E)
    i = check_ids([i], E.shape[0])[0]
    n = E.norm(dim=1)  # (V,)
    c = (E @ E[i]) / (n * n[i])
    return torch.where((n > 0) & (n[i] > 0), c, torch.full_like(c, float("nan")))


def nearest(E, i: int, k: int = 5) -> list[tuple[int, float]]:
    """The k rows most similar (cosine) to row i, best first, i itself left out (NaN last,
    ties to the lower id). From one row of cosines: no V x V matrix."""
    C = cosine_row(E, i)  # (V,)
    i = int(i)
    key = torch.where(torch.isnan(C), torch.full_like(C, -math.inf), C)
    order = torch.sort(key, descending=True, stable=True).indices[:k + 1].tolist()
    return [(j, float(C[j])) for j in order if j != i][:k]


def sentence_cosines(E, ids) -> torch.Tensor:
    """(T, T) cosine between the rows a sentence looks up, from E[ids] alone (T x d, not V x V)."""
    E = f64(E)
    return cosine_matrix(E[check_ids(list(ids), E.shape[0])])


def row_cosines(E, E0) -> torch.Tensor:
    """cos(E[k], E0[k]) for every row k, (V,): how far each word's direction moved (NaN: zero row)."""
    E, E0 = f64(E), f64(E0)
    n = E.norm(dim=1) * E0.norm(dim=1)  # (V,)
    c = (E * E0).sum(1) / n
    return torch.where(n > 0, c, torch.full_like(c, float("nan")))


NEIGHBOUR_CHUNK = 256  # rows of cosines held at once by neighbour_lists (256 x V, not V x V)


def neighbour_lists(E, rows, k: int = 5, chunk: int = NEIGHBOUR_CHUNK) -> dict[int, list[int]]:
    """nearest(E, i, k)'s ids for every i in rows, `chunk` rows of cosines at a time (a V = 5,000
    vocabulary would need a 200 MB V x V matrix). Same order as nearest: by cosine, best
    first, NaN last, ties to the lower id, i itself left out."""
    E = f64(E)
    rows = [int(i) for i in rows]
    if rows:
        check_ids(rows, E.shape[0])
    n = E.norm(dim=1)  # (V,)
    take = min(k + 1, E.shape[0])
    out = {}
    for start in range(0, len(rows), chunk):
        part = rows[start:start + chunk]
        C = (E[part] @ E.T) / (n[part, None] * n[None, :])  # (c, V)
        ok = (n[part, None] > 0) & (n[None, :] > 0)
        key = torch.where(ok & ~torch.isnan(C), C, torch.full_like(C, -math.inf))
        # the take-th largest value of each row, then every entry at least that large (all of
        # its ties), sorted best first with ties to the lower id: a full sort's first `take`
        cut = torch.topk(key, take, dim=1).values[:, -1:]  # (c, 1)
        for r, i in enumerate(part):
            cand = torch.nonzero(key[r] >= cut[r], as_tuple=True)[0]  # ascending ids
            best = cand[torch.sort(key[r, cand], descending=True, stable=True).indices][:take]
            out[i] = [j for j in best.tolist() if j != i][:k]
    return out


def kept_neighbours(E, E0, i: int, k: int = 5) -> int:
    """How many of row i's k nearest neighbours in E0 are still among its k nearest in E."""
    return len({j for j, _ in nearest(E, i, k)} & {j for j, _ in nearest(E0, i, k)})


def neighbour_drift(E, E0, itos, k: int = 5) -> dict:
    """How much training moved E away from its initial E0, in words.

    mean_cos: mean of cos(E[k], E0[k]) over the real words (specials left out; 1 = no turn).
    kept[w]: how many of word w's k nearest neighbours in E0 are still among its k nearest
    in E. best: the word whose neighbour list changed most (fewest kept; ties: the row that
    turned most, then the lowest id), a good default to look at.
    """
    E, E0 = f64(E), f64(E0)
    if E.shape != E0.shape:
        raise InputError("The trained and initial E must have the same shape.")
    words = [i for i, w in enumerate(itos) if w not in SPECIALS]
    cos = row_cosines(E, E0)
    ok = [i for i in words if not math.isnan(float(cos[i]))]
    if not ok:
        raise InputError("There is no word with a non-zero row to compare.")
    now, before = neighbour_lists(E, ok, k), neighbour_lists(E0, ok, k)
    kept = {i: len(set(now[i]) & set(before[i])) for i in ok}  # = kept_neighbours(E, E0, i, k)
    best = min(ok, key=lambda i: (kept[i], float(cos[i]), i))
    return {"mean_cos": float(cos[ok].mean()), "row_cos": cos, "kept": kept, "best": best,
            "k": min(k, len(itos) - 1)}


def sentence_pick(drift: dict, ids, fallback: int) -> int:
    """The default word for neighbours: among the sentence's own words, the one whose
    neighbour list changed most (neighbour_drift's order: fewest kept, then most turned, then
    lowest id), so it is a word the learner typed, never one from elsewhere in V (in 中文 the
    whole-vocabulary best was 糖, absent from the sentence). fallback if no word qualifies."""
    mine = [int(i) for i in ids if int(i) in drift["kept"]]
    if not mine:
        return int(fallback)
    return min(mine, key=lambda i: (drift["kept"][i], float(drift["row_cos"][i]), i))


def training_seed(meta) -> int | None:
    """The seed a model's training started from (its initial E is RNNModel(cfg, seed)), if recorded.

    The default model's report records it; the notes' model (E typed from the notes) and
    models from elsewhere do not, and then there is no honest "before training" to show.
    """
    try:
        seed = meta["report"]["train_config"]["seed"]
    except (KeyError, TypeError):
        return None
    return int(seed) if isinstance(seed, int) and not isinstance(seed, bool) else None


def drift_words(mean_cos: float) -> str:
    """How far training turned E, in words, from the mean row-wise cosine with its start."""
    if mean_cos >= 0.8:
        return "moved it only a little"
    if mean_cos >= 0.5:
        return "turned it part of the way"
    return "turned it a lot"


def pad_note(itos, pad_id: int) -> str:
    """What the row a padding position looks up is, in this vocabulary (id 0 may be a real word)."""
    tok = itos[pad_id]
    if tok == "<pad>":
        return f"id {pad_id}, the row of the <pad> token"
    return f"id {pad_id}: in this vocabulary that is the row of “{tok}”, a real word"


def pca_2d(E) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows projected on the 2 directions of largest variance: coords (V, 2), variance share (2,).

    The sign of each axis is fixed (largest loading positive) so the picture does not flip.
    A diverged E (inf/NaN entries) has no principal directions: all NaN, never an SVD error.
    """
    E = f64(E)
    if not torch.isfinite(E).all():
        nan = float("nan")
        return (torch.full((E.shape[0], 2), nan, dtype=torch.float64),
                torch.full((2,), nan, dtype=torch.float64))
    Xc = E - E.mean(0)  # (V, d)
    _, S, Vt = torch.linalg.svd(Xc, full_matrices=False)
    k = min(2, Vt.shape[0])
    axes = Vt[:k]  # (k, d)
    signs = torch.sign(axes.gather(1, axes.abs().argmax(1, keepdim=True)))  # (k, 1)
    axes = axes * torch.where(signs == 0, torch.ones_like(signs), signs)
    coords = torch.zeros(E.shape[0], 2, dtype=torch.float64)
    coords[:, :k] = Xc @ axes.T  # (V, k)
    total = (S ** 2).sum()
    share = torch.zeros(2, dtype=torch.float64)
    if total > 0:
        share[:k] = (S[:k] ** 2) / total
    return coords, share


# ---- why not just add the vectors ----------------------------------------------------------

def order_comparison(E, ids_a, ids_b) -> dict:
    """Two sentences: their sums (equal for reordered words) and their T x d matrices (not)."""
    X_a, X_b = lookup(E, ids_a), lookup(E, ids_b)  # (T_a, d), (T_b, d)
    s_a, s_b = X_a.sum(0), X_b.sum(0)  # (d,)
    same_shape = X_a.shape == X_b.shape
    return {"X_a": X_a, "X_b": X_b, "sum_a": s_a, "sum_b": s_b,
            "same_sum": bool(torch.allclose(s_a, s_b, atol=1e-12)),
            "same_matrix": bool(same_shape and torch.equal(X_a, X_b)),
            "flat_a": X_a.numel(), "flat_b": X_b.numel(),
            "mlp_3": 3 * X_a.shape[1], "mlp_5": 5 * X_a.shape[1]}  # flattened sizes of 3 and 5 words


# ---- batches -----------------------------------------------------------------------------

def batch_embeddings(E, seqs, pad_id: int) -> dict:
    """B sentences right-padded to the longest: ids (B, T), mask (B, T), X (B, T, d).

    The padded positions still look up a row (E[pad_id]); the mask multiplies those rows by 0,
    so X is 0 there. A zero input is not "nothing" to an RNN (b_h and W_h h_{t-1} still act on
    it), so what keeps padding out of training is the mask on the loss (ignore_index), not X.
    """
    E = f64(E)
    if not seqs or any(len(s) == 0 for s in seqs):
        raise InputError("Every sentence of the batch needs at least one known token.")
    if len(seqs) > limits.MAX_BATCH:
        raise InputError(f"A batch holds at most {limits.MAX_BATCH} sentences.")
    for s in seqs:
        check_ids(s, E.shape[0])
    ids, mask = pad_batch([list(s) for s in seqs], pad_id)  # (B, T), (B, T)
    X = E[ids] * mask[..., None].to(E.dtype)  # (B, T, d)
    return {"ids": ids, "mask": mask, "X": X, "shape": tuple(X.shape)}


# ---- other representations (notes 004) ------------------------------------------------------

def _check_buckets(buckets: int) -> None:
    if not (isinstance(buckets, int) and 1 <= buckets <= limits.MAX_HASH_BUCKETS):
        top = limits.MAX_HASH_BUCKETS
        raise InputError(f"The number of buckets must be a whole number from 1 to {top:,}.")


def hash_signature(word: str, buckets: int) -> tuple:
    """The word-hashing vector in sparse form: ((bucket, count), ...) sorted by bucket."""
    _check_buckets(buckets)
    return tuple(sorted(Counter(trigram_bucket(t, buckets) for t in letter_trigrams(word)).items()))


def hash_rows(words, buckets: int, known=()) -> list[dict]:
    """One row per word: its trigrams, the bucket of each, and whether the vocabulary knows it as
    one token: itself, or in a subword vocabulary its word-initial piece (▁good for "good", which
    read "OOV" beside the vocabulary list that holds ▁good; a piece inside a word, "at" of "c|at",
    is not the word "at")."""
    _check_buckets(buckets)
    words = list(words)
    if len(words) > limits.MAX_HASH_WORDS:
        raise InputError(f"Hash at most {limits.MAX_HASH_WORDS} words at a time.")
    known = list(known)
    initial = {w.removeprefix(MARK) for w in known if w.startswith(MARK)}  # a subword vocabulary's words,
    #                                                                       as cased as its pieces
    known = initial or {w.lower() for w in known}
    return [{"word": w, "trigrams": letter_trigrams(w),
             "buckets": [trigram_bucket(t, buckets) for t in letter_trigrams(w)],
             "in_vocabulary": (w if initial else w.lower()) in known, "signature": hash_signature(w, buckets)}
            for w in words]


def hash_collisions(words, buckets: int) -> dict:
    """Collisions among the words (specials left out) for this bucket count.

    "buckets": buckets that receive two or more different trigrams;
    "words": groups of different words whose whole hashed vectors are equal.
    """
    _check_buckets(buckets)
    words = list(dict.fromkeys(w for w in words if w not in SPECIALS))
    trigrams = sorted({t for w in words for t in letter_trigrams(w)})
    by_bucket: dict[int, list[str]] = {}
    for t in trigrams:
        by_bucket.setdefault(trigram_bucket(t, buckets), []).append(t)
    by_sig: dict[tuple, list[str]] = {}
    for w in words:
        by_sig.setdefault(hash_signature(w, buckets), []).append(w)
    return {"n_words": len(words), "n_trigrams": len(trigrams),
            "buckets": sorted((b, ts) for b, ts in by_bucket.items() if len(ts) > 1),
            "words": [ws for ws in by_sig.values() if len(ws) > 1]}


def pairwise_distances(X) -> torch.Tensor:
    """Euclidean distance between every two rows, (T, T)."""
    X = f64(X)
    return torch.cdist(X, X)


def distance_rows(ids, E, itos, limit: int = 15) -> list[dict]:
    """Pairs of different words of a sentence: distance as one-hot vectors (always sqrt 2) and in E."""
    ids = list(dict.fromkeys(int(i) for i in ids))
    D_one = pairwise_distances(one_hot(ids, f64(E).shape[0]))  # (n, n)
    D_emb = pairwise_distances(f64(E)[ids])                     # (n, n)
    C = sentence_cosines(E, ids)
    rows = [{"word a": itos[ids[a]], "word b": itos[ids[b]], "one-hot distance": num(D_one[a, b]),
             "embedding distance": num(D_emb[a, b]), "embedding cosine": num(C[a, b], 3)}
            for a in range(len(ids)) for b in range(a + 1, len(ids))]
    return rows[:limit]


def memory_table(V: int, d: int, buckets: int, trigrams_per_word: float = 6.0,
                 bytes_per_number: int = 4) -> list[dict]:
    """What each representation costs for a vocabulary of V words (float32 = 4 bytes a number)."""
    _check_buckets(buckets)
    mb = 1 / 1_000_000
    return [
        {"representation": "one-hot", "numbers per word": V, "non-zeros per word": "1",
         "MB per word (stored dense)": V * bytes_per_number * mb,
         "first layer to d dims (numbers)": V * d,
         "first layer (MB)": V * d * bytes_per_number * mb,
         "similar words close?": "no: every two words are sqrt(2) apart"},
        {"representation": f"word hashing ({buckets:,} buckets)", "numbers per word": buckets,
         "non-zeros per word": f"about {trigrams_per_word:g} (one per trigram)",
         "MB per word (stored dense)": buckets * bytes_per_number * mb,
         "first layer to d dims (numbers)": buckets * d,
         "first layer (MB)": buckets * d * bytes_per_number * mb,
         "similar words close?": "by spelling only (shared trigrams); collisions mix words"},
        {"representation": f"dense embedding (d = {d})", "numbers per word": d,
         "non-zeros per word": f"{d} (all)", "MB per word (stored dense)": d * bytes_per_number * mb,
         "first layer to d dims (numbers)": V * d,
         "first layer (MB)": V * d * bytes_per_number * mb,
         "similar words close?": "learned: words used alike can end up close"},
    ]


# ---- try it by hand -----------------------------------------------------------------------

_WORDS = ("I", "like", "cats", "dogs", "you", "fish", "see", "we", "Taipei", "Paris")
# the same ten words in Chinese: the exercise in 中文 draws the same rows from these
_WORDS_ZH = ("我", "喜欢", "猫", "狗", "你", "鱼", "看", "我们", "台北", "巴黎")


@dataclass(frozen=True)
class Exercise:
    itos: tuple
    E: tuple      # V rows of d one-decimal numbers
    token_id: int
    g: tuple      # g_e, small whole numbers (none zero)
    lr: float

    def lookup_answer(self) -> torch.Tensor:
        return f64(self.E)[self.token_id]

    def update_answer(self) -> torch.Tensor:
        return self.lookup_answer() - self.lr * f64(self.g)


def make_exercise(seed: int, lang: str = "en") -> Exercise:
    """Fresh small numbers from a seed: V in 4..6, d = 3, E in steps of 0.1, g_e whole numbers.
    lang "zh": the same exercise with the words in Chinese."""
    rng = random.Random(int(seed))
    V = rng.randint(4, 6)
    itos = tuple(rng.sample(_WORDS_ZH if lang == "zh" else _WORDS, V))
    while True:
        E = tuple(tuple(rng.randint(-9, 9) / 10 for _ in range(3)) for _ in range(V))
        if len(set(E)) == V:  # distinct rows, so "wrong row" is always recognisable
            break
    g = tuple(float(rng.choice([-3, -2, -1, 1, 2, 3])) for _ in range(3))
    return Exercise(itos, E, rng.randrange(V), g, rng.choice([0.1, 0.2, 0.5]))


def notes_exercise() -> Exercise:
    p = PRESETS["notes"]
    return Exercise(p.itos, p.E, p.ids[p.focus], p.g, p.lr)




def _close(a, b, tol: float = 0.005) -> bool:
    return bool(torch.allclose(f64(a), f64(b), atol=tol, rtol=0))




def _hint(ok: bool, message: str, key: str, **values) -> Verdict:
    """A Verdict whose hint is also named in the catalogue (locales/<lang>/embedding.toml), so the
    page shows it in the learner's language; `message` is the English text."""
    return Verdict(ok, message, hint_key=f"embedding.hint_{key}", values=values)


def check_answer(ex: Exercise, kind: str, text: str) -> Verdict:
    """Right, or exactly what is off: wrong row, counted from 1, sign slip, forgot lr, added g."""
    ans = parse_vector(text, len(ex.g), "your answer", what="answer")
    i, E, g, lr = ex.token_id, f64(ex.E), f64(ex.g), ex.lr
    want = ex.lookup_answer() if kind == "lookup" else ex.update_answer()
    if _close(ans, want):
        return _hint(True, f"Right: {vector(want)}.", "right", want=vector(want))
    row = lambda k: E[k] if kind == "lookup" else E[k] - lr * g  # noqa: E731
    for k in range(len(E)):
        if k != i and _close(ans, row(k)):
            values = {"token": ex.itos[k], "k": k, "target": ex.itos[i], "i": i}
            if k == i + 1:
                msg = (f"That is the row of “{ex.itos[k]}” (id {k}); “{ex.itos[i]}” has id {i}. "
                       f"You counted rows from 1: id {i} is row {i + 1}, the row with index {i}.")
                return _hint(False, msg,
                             "row_from_1", row=i + 1, **values)
            return _hint(False, f"That is the row of “{ex.itos[k]}” (id {k}); “{ex.itos[i]}” has id {i}.",
                         "wrong_row", **values)
    if kind == "update":
        checks = [(E[i], "before", "That is E[id] before the step: subtract lr × g_e from it."),
                  (E[i] + lr * g, "added", "You added lr × g_e. Gradient descent subtracts it: "
                                           "the step goes against the gradient."),
                  (E[i] - g, "no_lr", f"You forgot the learning rate: subtract lr × g_e = {vector(lr * g)}, "
                                      f"not g_e itself."),
                  (E[i] + g, "added_g", "You added g_e without the learning rate: subtract lr × g_e."),
                  (-lr * g, "step_only", "That is only the step -lr × g_e: add it to E[id].")]
        for value, key, msg in checks:
            if _close(ans, value):
                return _hint(False, msg, key, lr_g=vector(lr * g))
    flipped = [j for j in range(len(want))
               if abs(float(want[j])) > 0.005 and _close(ans[j], -want[j])]
    wrong = [j for j in range(len(want)) if not _close(ans[j], want[j])]
    if flipped and set(flipped) == set(wrong):
        j = flipped[0]
        how = (f" ({float(E[i, j]):g} - {lr:g} × ({float(g[j]):g}) = {float(want[j]):.4g})"
               if kind == "update" else "")
        return _hint(False, f"Sign slip in entry {j + 1}: you wrote {float(ans[j]):.4g}, "
                            f"it is {float(want[j]):.4g}{how}.", "sign", j=j + 1,
                     wrote=f"{float(ans[j]):.4g}", want=f"{float(want[j]):.4g}", how=how)
    parts = []
    for j in wrong:
        how = (f"{float(E[i, j]):g} - {lr:g} × ({float(g[j]):g}) = {float(want[j]):.4g}"
               if kind == "update" else f"E[{i}][{j}] = {float(want[j]):.4g}")
        parts.append((j + 1, how))
    return _hint(False, "Not quite. " + "; ".join(f"entry {j}: {how}" for j, how in parts) + ".",
                 "not_quite", parts="; ".join(f"[{j}] {how}" for j, how in parts))


# ---- tables for the page (rows of plain values; the page only draws them) -------------------



def steps_text(steps) -> str:
    return ", ".join(f"t={t + 1}" for t in steps)


def vocab_rows(itos, ids) -> list[dict]:
    """The vocabulary: id (0-based), the notes' row number (1-based), token, steps that use it."""
    used: dict[int, list[int]] = {}
    for t, i in enumerate(ids):
        used.setdefault(int(i), []).append(t)
    return [{"id": k, "row (counting from 1)": k + 1, "token": tok, "used at": steps_text(used.get(k, []))}
            for k, tok in enumerate(itos)]


def window(i: int, V: int, radius: int | None) -> range:
    """Rows i - radius .. i + radius (clipped), or all rows: a long table around the row that matters."""
    if radius is None or V <= 2 * radius + 1:
        return range(V)
    lo = min(max(0, i - radius), V - 2 * radius - 1)
    return range(lo, lo + 2 * radius + 1)


SHOWN = 5  # entries of a long vector shown in a table cell (so a 16-entry row fits its column)


def shown_rows(V: int, ids=(), focus: int | None = None, width: int = 1, bound: int = limits.MAX_SHOWN_ROWS,
               whole: int = limits.MAX_WHOLE_VOCAB, cells: int = limits.MAX_SHOWN_CELLS) -> list[int]:
    """The rows of a V-row view (table, heatmap, bars, points) a page draws: every row up to
    `whole` rows (every built-in model is drawn whole), else at most `bound` of them, and at
    most `cells` numbers for rows `width` numbers wide (a V x d heatmap: width = d): the
    sentence's rows, the rows around `focus`, then the lowest ids; ascending."""
    if V <= whole:
        return list(range(V))
    bound = max(1, min(bound, cells // max(1, width)))
    keep = dict.fromkeys(i for i in (int(i) for i in ids) if 0 <= i < V)
    if focus is not None and 0 <= focus < V:
        keep.update(dict.fromkeys(window(int(focus), V, max(1, bound // 10))))
    for k in range(V):
        if len(keep) >= bound:
            break
        keep.setdefault(k)
    return sorted(list(keep)[:bound])


def positions(rows, ids) -> list[int]:
    """Where each of ids sits in `rows` (ids not shown are left out): boxes and highlights."""
    at = {r: n for n, r in enumerate(rows)}
    return [at[int(i)] for i in ids if int(i) in at]


def picker_options(itos, first=(), bound: int = limits.MAX_PICKER_OPTIONS) -> list[str]:
    """A word picker's options: the whole vocabulary up to `bound` words; beyond that the words
    in `first` (the sentence's, the current choice), then the vocabulary in order, `bound` in all."""
    if len(itos) <= bound:
        return list(itos)
    known = set(itos)
    keep = dict.fromkeys(w for w in first if w in known)
    for w in itos:
        if len(keep) >= bound:
            break
        keep.setdefault(w)
    return list(keep)[:bound]


def one_hot_rows(E, i: int, itos, radius: int | None = None, shown: int | None = SHOWN) -> list[dict]:
    """x E written out term by term: x_k, E[k] and x_k * E[k] for row k (all, or a window around i).

    Rows longer than `shown` entries are cut with '…' so each cell fits its column.
    """
    prod, E = one_hot_product(E, i), f64(E)
    return [{"k": k, "token": itos[k], "x_k": int(prod["x"][k]), "E[k]": vector(E[k], shown=shown),
             "x_k · E[k]": vector(prod["terms"][k], shown=shown)}
            for k in window(i, E.shape[0], radius)]


def outer_rows(i: int, g, itos, radius: int | None = None, dims: int | None = None) -> list[dict]:
    """x^T g_e element by element for one step: row k holds x_k g_1, ..., x_k g_d (the first
    `dims` of them when given: a d = 128 table is 128 columns wide)."""
    g = f64(g)
    rows = list(window(i, len(itos), radius))
    P = outer_product(one_hot([i], len(itos))[0][rows], g)  # (rows, d): only the rows shown
    return [{"k": k, "token": itos[k], "x_k": int(k == i),
             **{f"x_k·g_{j + 1}": num(P[n, j]) for j in range(min(len(g), dims or len(g)))}}
            for n, k in enumerate(rows)]


def contribution_rows(contribs: list[dict], shown: int | None = None) -> list[dict]:
    """One row per looked-up word: its steps, each step's g_t, and the sum (its row of dL/dE).
    shown: entries of a long vector kept in a cell (None: all)."""
    return [{"id": r["id"], "token": r["token"], "steps": steps_text(r["steps"]),
             "contributions g_t": "  +  ".join(vector(p, shown=shown) for p in r["parts"]),
             "row of dL/dE (the sum)": vector(r["total"], shown=shown)} for r in contribs]


def update_rows(E_old, E_new, grad, itos, limit: int = 200, shown: int | None = None) -> list[dict]:
    """The rows an update moved (largest change first): before, gradient row, after, change."""
    E_old, E_new, grad = f64(E_old), f64(E_new), f64(grad)
    ch = row_changes(E_old, E_new)
    order = torch.argsort(ch, descending=True, stable=True)
    order = order[ch[order] > 0][:limit].tolist()
    return [{"id": k, "token": itos[k], "before": vector(E_old[k], shown=shown),
             "dL/dE row": vector(grad[k], shown=shown), "after": vector(E_new[k], shown=shown),
             "||change||": num(float(ch[k]))} for k in order]


def adam_rows(E_before, state: AdamState, grad, itos, limit: int = 100) -> list[dict]:
    """The rows Adam's step moved: the gradient now, and the state m, v that moved them."""
    grad = f64(grad)
    return [{"id": k, "token": itos[k], "g now": vector(grad[k]), "m": vector(state.m[k]),
             "v": vector(state.v[k])}
            for k in change_summary(E_before, state.E, [])["moved"][:limit]]


def hash_table(rows: list[dict]) -> list[dict]:
    return [{"word": r["word"], "#word#": f"#{r['word']}#", "trigrams": " ".join(r["trigrams"]),
             "buckets": " ".join(str(b) for b in r["buckets"]),
             "non-zero entries": len(r["signature"]),
             "in the model's vocabulary": "yes" if r["in_vocabulary"] else "no (OOV: still hashed)"}
            for r in rows]


def word_ids(words, vocab) -> list:
    """Each typed word's id as the model sees it: its own, <unk>'s, or None (dropped: no <unk>)."""
    unk = vocab.stoi.get("<unk>")
    out = []
    for w in words:
        i = vocab.id_of(w)
        out.append(i if i is not None else unk)
    return out


REPRESENTATION_TEXT = {"special": "(a special token, not a word: not hashed)", "at": "{c} at {b}",
                       "none_one": "none: not in the vocabulary (dropped)", "none_dense": "none (dropped)",
                       "one": "1 at position {i} of {V}", "unknown": " ({tok}: unknown word)",
                       "the_row": " (the {tok} row)"}


def representation_rows(words, ids, E, buckets: int, itos, text: dict | None = None,
                        shown: int | None = None) -> list[dict]:
    """The same typed words three ways: one-hot (where the 1 is), hashed buckets, dense row of E.

    An unknown word loses its identity in one-hot and dense form (it becomes <unk>, or is
    dropped), while word hashing still builds its vector from its letters. text: the cells'
    words (REPRESENTATION_TEXT's keys, English by default); shown: entries of a dense row kept.
    """
    w_ = {**REPRESENTATION_TEXT, **(text or {})}
    E = f64(E)
    V = E.shape[0]
    out = []
    for t, (w, i) in enumerate(zip(words, ids)):
        hashed = (w_["special"] if w in SPECIALS else
                  ", ".join(w_["at"].format(c=c, b=b) for b, c in hash_signature(w, buckets)))
        if i is None:
            one, dense = w_["none_one"], w_["none_dense"]
        else:
            unknown = itos[int(i)] != w and itos[int(i)] in SPECIALS
            tok = itos[int(i)]
            one = w_["one"].format(i=int(i), V=f"{V:,}") + (w_["unknown"].format(tok=tok) if unknown else "")
            dense = vector(E[int(i)], shown=shown) + (w_["the_row"].format(tok=tok) if unknown else "")
        out.append({"word": t + 1, "token": w, "one-hot (length V)": one,
                    f"word hashing (length {buckets:,})": hashed,
                    f"dense embedding (length {E.shape[1]})": dense})
    return out


def nonzero_rows(G: torch.Tensor) -> int:
    """How many rows of a (V, d) gradient are not all zero: the rows an update changes."""
    return int((G.norm(dim=1) > 0).sum())


def padded_positions(mask: torch.Tensor) -> int:
    """How many positions of a (B, T) batch mask are padding (False)."""
    return int((~mask.bool()).sum())
