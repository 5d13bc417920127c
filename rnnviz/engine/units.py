"""Ask the model directly: which hidden units track a property of the text, and what happens
when one is silenced.

Unit search (the classic question of Karpathy's cells and LSTMVis): every token is inside the
property or outside it (or left out: "destination vs departure" leaves the other tokens out).
Each unit's selectivity is the standardised mean difference
    d_j = (mean of h_j inside - mean outside) / pooled standard deviation,
its p-value the share of label permutations (the learner's labels shuffled over the same tokens,
1,000 times by default) whose |d_j| reaches the observed one, counted as (1 + hits) / (1 + n), so
p is never 0. The ten units with the largest |d| are ranked, each with its AUC on held-out text
(the unit oriented by the sign of d found on the fitting text): an AUC of 0.5 is chance, and no
unit above 0.7 is said plainly. All permutations are one matrix product: (n, T) x (T, H).

Clamp: the unit's value replaced at every step by 0 or by its mean, through a per-call hook on
hook_hidden (hook_hidden_rev for the backward half of a bidirectional model), so the clamped
value is what every later step and the output read. The model is never edited.
"""
from __future__ import annotations

import torch

from rnnviz.engine.model import RNNModel
from rnnviz.errors import InputError

TOP = 10
N_PERMUTATIONS = 1000
AUC_GOOD = 0.7  # below it on held-out text, no unit is said to track the property
QUOTES_OPEN = ('"', "“", "「", "『", "«", "‘")
QUOTES_CLOSE = ('"', "”", "」", "』", "»", "’")


# ---- properties: one boolean per token ----------------------------------------------------

def span_mask(T: int, first: int, last: int) -> torch.Tensor:
    """Tokens first..last (0-based, inclusive) of a T-token sentence. (T,) bool"""
    if not (0 <= first <= last < T):
        raise InputError("The span must lie inside the sentence.", "span_outside", {"T": T})
    m = torch.zeros(T, dtype=torch.bool)
    m[first:last + 1] = True
    return m


def quotes_mask(tokens) -> torch.Tensor:
    """Tokens strictly inside quotation marks (the marks themselves are outside). A straight
    quote " opens when closed and closes when open. (T,) bool"""
    inside, out = False, []
    for tok in tokens:
        w = tok.strip().lstrip("Ġ▁")
        if inside and (w in QUOTES_CLOSE or (w and w[0] in QUOTES_CLOSE and w != "'")):
            inside = False
            out.append(False)
        elif not inside and (w in QUOTES_OPEN or (w and w[0] in QUOTES_OPEN and w != "'")):
            inside = True
            out.append(False)
        else:
            out.append(inside)
    return torch.tensor(out, dtype=torch.bool)


def second_half_mask(T: int) -> torch.Tensor:
    """Position in the sentence: True in the second half (t >= T / 2). (T,) bool"""
    return torch.arange(T) * 2 >= T


def after_word_mask(tokens, word: str) -> torch.Tensor:
    """Tokens after the first occurrence of `word` (case-insensitive; the word itself is not
    after itself). All False when the word does not occur. (T,) bool"""
    w = word.strip().casefold()
    low = [tok.strip().lstrip("Ġ▁").casefold() for tok in tokens]
    out = torch.zeros(len(low), dtype=torch.bool)
    if w in low:
        out[low.index(w) + 1:] = True
    return out


# ---- statistics -----------------------------------------------------------------------------

def selectivity(h: torch.Tensor, pos: torch.Tensor, neg: torch.Tensor) -> torch.Tensor:
    """d_j = (mean_pos - mean_neg) / pooled sd per unit, float64. h (T, H), pos / neg (T,) or
    (n, T) boolean rows (one labelling per row) -> (H,) or (n, H). A unit constant on both sides
    has d = 0."""
    h = h.double()
    P, N = pos.double(), neg.double()  # (..., T)
    n1, n0 = P.sum(-1, keepdim=True), N.sum(-1, keepdim=True)  # (..., 1)
    m1, m0 = (P @ h) / n1, (N @ h) / n0  # (..., H)
    q1 = P @ (h * h) - n1 * m1 ** 2  # (..., H) sums of squared deviations
    q0 = N @ (h * h) - n0 * m0 ** 2
    var = ((q1 + q0) / (n1 + n0 - 2)).clamp(min=0)
    sd = var.sqrt()
    return torch.where(sd > 1e-12, (m1 - m0) / sd, torch.zeros_like(sd))


def permutations(pos: torch.Tensor, neg: torch.Tensor, n: int, gen: torch.Generator):
    """n relabellings of the same tokens (those in pos or neg), each keeping the numbers inside and
    outside: (n, T) bool pos rows and neg rows. Tokens in neither stay out of both."""
    used = (pos | neg).nonzero().squeeze(1)  # (m,)
    k = int(pos.sum())
    order = torch.argsort(torch.rand(n, used.numel(), generator=gen), dim=1)  # (n, m)
    P = torch.zeros(n, pos.numel(), dtype=torch.bool)
    N = torch.zeros(n, pos.numel(), dtype=torch.bool)
    rows = torch.arange(n)[:, None]
    P[rows, used[order[:, :k]]] = True
    N[rows, used[order[:, k:]]] = True
    return P, N


def auc(score: torch.Tensor, pos: torch.Tensor, neg: torch.Tensor) -> torch.Tensor:
    """Area under the ROC curve of each column of score (T, H) for pos vs neg tokens (ties count
    one half): P(score of a random pos token > that of a random neg token). (H,)"""
    score = score.double()
    a, b = score[pos], score[neg]  # (n1, H), (n0, H)
    both = torch.cat([a, b])  # (n, H)
    ranks = _average_ranks(both)  # (n, H), 1-based
    n1, n0 = a.shape[0], b.shape[0]
    return (ranks[:n1].sum(0) - n1 * (n1 + 1) / 2) / (n1 * n0)


def _average_ranks(x: torch.Tensor) -> torch.Tensor:
    """1-based ranks of each column, ties given their average rank. (n, H)"""
    n = x.shape[0]
    srt, idx = torch.sort(x, dim=0)
    ranks = torch.empty_like(x)
    pos = torch.arange(1, n + 1, dtype=x.dtype)[:, None].expand_as(x)
    new = torch.ones_like(srt, dtype=torch.bool)
    new[1:] = srt[1:] != srt[:-1]  # (n, H) start of each run of ties
    group = torch.cumsum(new.long(), 0) - 1  # (n, H) tie-group index
    total = torch.zeros_like(x).scatter_add_(0, group, pos)
    count = torch.zeros_like(x).scatter_add_(0, group, torch.ones_like(pos))
    ranks.scatter_(0, idx, torch.gather(total / count.clamp(min=1), 0, group))
    return ranks


def unit_search(h: torch.Tensor, pos: torch.Tensor, neg: torch.Tensor | None, gen: torch.Generator,
                heldout: tuple | None = None, n_perm: int = N_PERMUTATIONS, top: int = TOP) -> dict:
    """Rank the units of h (T, H) by |selectivity| for pos vs neg tokens (neg: every other token).

    heldout: (h (T', H), pos (T',), neg (T',)) tokens not used for the ranking: each ranked unit's
    AUC there, oriented by its sign of d. Without held-out text the AUC is on the same tokens
    (in_sample True): the screen must say so. Returns {"rows": [{unit, d, p, auc}] best first,
    "tracked": some unit's AUC > AUC_GOOD, "in_sample", "n_pos", "n_neg", "n_perm"}."""
    neg = ~pos if neg is None else neg
    if bool((pos & neg).any()):
        raise ValueError("a token cannot be inside and outside the property")
    n1, n0 = int(pos.sum()), int(neg.sum())
    if n1 < 2 or n0 < 2:
        raise InputError("The property needs at least two tokens inside it and two outside.",
                         "units_too_few", {"inside": n1, "outside": n0})
    d = selectivity(h, pos, neg)  # (H,)
    P, N = permutations(pos, neg, n_perm, gen)
    null = selectivity(h, P, N).abs()  # (n_perm, H)
    p = (1 + (null >= d.abs()[None] - 1e-12).sum(0)).double() / (1 + n_perm)  # (H,)
    order = torch.argsort(d.abs(), descending=True, stable=True)[:top]
    hx, px, nx = (h, pos, neg) if heldout is None else heldout
    if heldout is not None and (int(px.sum()) < 1 or int(nx.sum()) < 1):
        raise InputError("The held-out text has no token inside (or outside) the property.",
                         "units_heldout_empty")
    sign = torch.where(d < 0, -1.0, 1.0).double()  # (H,)
    a = auc(hx.double()[:, order] * sign[order], px, nx)  # (top,)
    rows = [{"unit": int(u), "d": float(d[u]), "p": float(p[u]), "auc": float(x)}
            for u, x in zip(order, a)]
    return {"rows": rows, "tracked": any(r["auc"] > AUC_GOOD for r in rows),
            "in_sample": heldout is None, "n_pos": n1, "n_neg": n0, "n_perm": n_perm}


# ---- where a unit is most / least active -----------------------------------------------------

def extremes(h: torch.Tensor, unit: int, n: int = 3) -> dict:
    """The positions (0-based) where unit `unit` of h (T, H) (a tensor or an array) is highest and
    lowest, n of each."""
    col = torch.as_tensor(h)[:, unit].double()
    k = min(n, col.numel())
    hi = torch.argsort(col, descending=True, stable=True)[:k]
    lo = torch.argsort(col, stable=True)[:k]
    return {"most": [(int(i), float(col[i])) for i in hi], "least": [(int(i), float(col[i])) for i in lo]}


# ---- clamp ------------------------------------------------------------------------------------

def clamp_hooks(model: RNNModel, unit: int, value: float) -> list:
    """The per-call hook that holds unit `unit` of h_t at `value` at every step (units H..2H-1 of a
    bidirectional model are the backward half's). A list for run_with_cache(hooks=...)."""
    H = model.cfg.hidden_size
    if not 0 <= unit < model.cfg.H_out:
        raise InputError(f"There is no unit {unit + 1}: the model has {model.cfg.H_out}.",
                         "unit_missing", {"unit": unit + 1, "H": model.cfg.H_out})
    name, k = ("hook_hidden", unit) if unit < H else ("hook_hidden_rev", unit - H)

    def hold(x, t):
        x = x.clone()
        x[..., k] = value
        return x

    return [(name, hold)]


def run_probs(model: RNNModel, ids, hooks=()) -> tuple[torch.Tensor, torch.Tensor]:
    """(softmax p (T, K), h (T, H_out)) of one run, float64, with the given per-call hooks."""
    ids = torch.as_tensor(ids, dtype=torch.long)
    names = ("hook_hidden", "hook_hidden_rev")
    logits, cache = model.run_with_cache(ids, names_filter=names, hooks=hooks, with_grads=False)
    h = cache["hook_hidden"]
    if "hook_hidden_rev" in cache:
        h = torch.cat([h, cache["hook_hidden_rev"]], -1)
    return torch.softmax(logits.double(), -1), h.double()


def states_of(model: RNNModel, id_lists) -> list[torch.Tensor]:
    """h (T_i, H_out) of many sentences, each from the zero state, float64: sentences of one length
    run as one batch (B, T), so a corpus of a thousand lines is a few dozen runs, not a thousand."""
    by_len: dict[int, list[int]] = {}
    for i, ids in enumerate(id_lists):
        by_len.setdefault(len(ids), []).append(i)
    out: list = [None] * len(id_lists)
    names = ("hook_hidden", "hook_hidden_rev")
    for T, idx in by_len.items():
        if T == 0:
            raise InputError("There are no tokens to run.")
        batch = torch.tensor([list(id_lists[i]) for i in idx], dtype=torch.long)  # (B, T)
        _, cache = model.run_with_cache(batch, names_filter=names, with_grads=False)
        h = cache["hook_hidden"]  # (B, T, H)
        if "hook_hidden_rev" in cache:
            h = torch.cat([h, cache["hook_hidden_rev"]], -1)
        for j, i in enumerate(idx):
            out[i] = h[j].double()
    return out


def clamp_effect(model: RNNModel, ids, unit: int, value: float, lm: bool = True) -> dict:
    """Silence unit `unit` (hold it at `value`) and compare with the plain run.

    lm (a language model): delta[t] = log p_clamped(ids[t+1]) - log p(ids[t+1]), t = 0..T-2.
    A tagger: delta[t] = p_clamped(tag) - p(tag) for the tag the plain run chose at t (its
    argmax), and the clamped run's own argmax tags. Returns {"delta" (T-1,) or (T,), "p" and
    "p_clamped" (T, K), "tags", "tags_clamped" (T,), "h_clamped" (T, H_out)}."""
    ids = torch.as_tensor(ids, dtype=torch.long)
    p, _ = run_probs(model, ids)
    q, hq = run_probs(model, ids, clamp_hooks(model, unit, value))
    tags, tags_q = p.argmax(-1), q.argmax(-1)
    if lm:
        nxt = ids[1:]
        rows = torch.arange(len(nxt))
        delta = torch.log(q[rows, nxt]) - torch.log(p[rows, nxt])  # (T-1,)
    else:
        rows = torch.arange(len(ids))
        delta = q[rows, tags] - p[rows, tags]  # (T,)
    return {"delta": delta, "p": p, "p_clamped": q, "tags": tags, "tags_clamped": tags_q,
            "h_clamped": hq}


def largest_changes(delta: torch.Tensor, n: int = 3) -> list[tuple[int, float]]:
    """(position, change) of the n largest |changes|, largest first."""
    order = torch.argsort(delta.abs(), descending=True, stable=True)[:n]
    return [(int(i), float(delta[i])) for i in order]
