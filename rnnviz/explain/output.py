"""Output and loss: from h_t to a next-token distribution, the cross-entropy L_t and p_t - y_t.

Everything the output page shows that is not a widget lives here: the shifted
input / target table, one step written out (z_t = W_o h_t + b_o, each exp, the
normaliser, softmax, -log p_t(target), p_t - y_t), top-k per step, sum vs mean,
a padded batch whose padding carries no loss, teacher forcing vs free generation,
and one gradient step on the output layer. Numbers the Trace already holds
(p, loss_t, grad_z) are read from it, never recomputed.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import torch
import torch.nn.functional as F

from rnnviz import limits
from rnnviz.conventions import IGNORE
from rnnviz.engine.generation import GenStep
from rnnviz.engine.jacobians import output_error
from rnnviz.engine.model import RNNModel, sequence_loss
from rnnviz.engine.trace import Trace
from rnnviz.errors import InputError
from rnnviz.explain.exercises.checker import every_slip
from rnnviz.explain.exercises.verdict import Verdict
from rnnviz.formatting import num, vector
from rnnviz.text.bpe import decode
from rnnviz.text.corpora import pad_batch
from rnnviz.text.tokenize import BOS, EOS, SPECIALS, Vocab

NOTES_P = (0.1, 0.1, 0.4, 0.3, 0.1)  # note 000, section 10: p_t over [I, like, cats, dogs, you]
NOTES_TARGET = 2                      # cats
MAX_CONTEXT_SHOWN = 12                # tokens of "context seen so far" shown in a table cell
MAX_TABLE_TOP = 3                     # top-k guesses in the per-step table: more would not fit in a row
MAX_HEATMAP_STEPS = 20                # top-k heatmap rows: more and the word labels no longer fit
PX_PER_CHAR, PX_PAD = 7, 26           # a table column width: ~7 px per character (14 px font) plus padding


# ---- where the labels come from ---------------------------------------------------------

def shift_pairs(words: list[str], specials: bool) -> tuple[list[str], list[str]]:
    """The notes' shift by one: inputs and targets as strings.

    With specials: [<bos>, w1..wn] -> [w1..wn, <eos>] (n + 1 steps, every word is a target).
    Without: [w1..w(n-1)] -> [w2..wn] (n - 1 steps: nothing follows the last word).
    """
    words = list(words)
    if specials:
        return [BOS] + words, words + [EOS]
    return words[:-1], words[1:]


def context_rows(inputs: list[str], targets: list[str | None], target_ids=None) -> list[dict]:
    """One row per step: t (1-based), input token, the context seen so far, target, and (given
    target_ids) the target as the id the loss reads: next-token prediction is a V-way
    classification whose label is an id, not a word ("–" where there is no target)."""
    rows = []
    for t, (tok, tgt) in enumerate(zip(inputs, targets)):
        seen = inputs[max(0, t + 1 - MAX_CONTEXT_SHOWN): t + 1]
        more = "… " if t + 1 > MAX_CONTEXT_SHOWN else ""
        rows.append({"step t": t + 1, "input token": tok, "context seen so far": more + " ".join(seen),
                     "target (next token)": tgt if tgt is not None else "(none: no next token)"})
        if target_ids is not None:
            i = int(target_ids[t])
            rows[-1]["target id"] = "–" if i == IGNORE else i
    return rows


def target_tokens(vocab: Vocab, target_ids) -> list[str | None]:
    """Target ids as tokens, None where the target is IGNORE (no loss at that step)."""
    return [None if int(i) == IGNORE else vocab.itos[int(i)] for i in target_ids]


def vocab_size_note(vocab: Vocab) -> dict:
    """V, how many of its entries are special tokens, and which."""
    special = [s for s in SPECIALS if s in vocab]
    return {"V": len(vocab), "n_special": len(special), "specials": ", ".join(special) or "none",
            "n_words": len(vocab) - len(special)}


def display_rows(rows: list[dict]) -> list[dict]:
    """Table cells as the prose writes them: every float through num (4 significant digits, so a
    tiny p reads 1.577e-07 in the table and in the text), None (no target) as an empty cell.

    One type per column (Arrow needs it): a column that mixes integers with empty cells (the
    target's rank, none where there is no target) is written as text throughout."""
    blanks = {k for r in rows for k, v in r.items() if v is None}

    def cell(k, v):
        if isinstance(v, float):
            return num(v)
        if v is None:
            return ""
        return str(v) if k in blanks and isinstance(v, int) else v

    return [{k: cell(k, v) for k, v in r.items()} for r in rows]


def column_widths(rows: list[dict], max_px: int = 1600) -> dict[str, int]:
    """Pixel width per column wide enough for its header and its longest cell (none cut off)."""
    cols = dict.fromkeys(k for r in rows for k in r)
    return {c: min(max_px, PX_PAD + PX_PER_CHAR * max([len(str(c))] + [len(str(r.get(c, ""))) for r in rows]))
            for c in cols}


# ---- one step, written out ----------------------------------------------------------------


def first_half_text(tokens, level: str = "word") -> str:
    """The first half of the sentence's tokens as text the same tokenizer reads back: the
    default second sentence of the padded batch (shorter, so padding shows). Subwords are
    decoded ("▁" is a space: joined with spaces it would be re-read as the bytes <0xE2> <0x96>
    <0x81>), characters are concatenated (a space is a token of its own), words get spaces."""
    tokens = list(tokens)
    half = tokens[: max(1, (len(tokens) + 1) // 2)]
    if level == "bpe":
        return decode(half)
    return "".join(half) if level == "char" else " ".join(half)

@dataclass(frozen=True)
class StepView:
    """One output step: logits, softmax, the target, L_t and p_t - y_t (all float64 arrays (K,))."""

    labels: tuple            # (K,) output names
    z: np.ndarray            # (K,) logits
    p: np.ndarray            # (K,) softmax(z)
    target: int | None       # index of the target, None where there is none
    loss: float | None       # L_t = -ln p_t(target)
    p_minus_y: np.ndarray    # (K,) p_t - y_t (zeros where there is no target)
    autograd: np.ndarray     # (K,) dL_t/dz_t as autograd found it

    @property
    def exps(self) -> np.ndarray:
        return np.exp(self.z)  # (K,) may overflow to inf for huge logits: shown as such

    @property
    def normaliser(self) -> float:
        return float(self.exps.sum())

    @property
    def shifted_exps(self) -> np.ndarray:
        """exp(z_k - max z): what a stable softmax computes (same ratios, never overflows)."""
        return np.exp(self.z - self.z.max())

    @property
    def zmax(self) -> float:
        return float(self.z.max())

    @property
    def autograd_diff(self) -> float:
        """max |(p - y) - autograd's dL/dz|: the formula against autograd."""
        return float(abs(self.p_minus_y - self.autograd).max())

    @property
    def y(self) -> np.ndarray:
        y = np.zeros_like(self.p)
        if self.target is not None:
            y[self.target] = 1.0
        return y


def step_view(tr: Trace, t: int, labels) -> StepView:
    """Step t (0-based) of a Trace: p, loss_t and grad_z read from it, p - y from bptt.output_error.

    For a sum, autograd's dL/dz_t equals p_t - y_t for an Elman model; a Jordan model
    feeds y_t back, so its dL/dz_t also carries the later steps' share.
    """
    if not 0 <= t < tr.T:
        raise InputError(f"Step must be from 1 to {tr.T}.")
    n = int(tr.valid.sum()) if tr.reduction == "mean" else 1
    valid = bool(tr.valid[t])
    return StepView(
        labels=tuple(labels), z=tr.z[t].double().numpy(), p=tr.p[t].double().numpy(),
        target=int(tr.targets[t]) if valid else None,
        loss=float(tr.loss_t[t]) if valid else None,
        p_minus_y=(output_error(tr)[t] * max(n, 1)).double().numpy(),
        autograd=(tr.grad_z[t] * max(n, 1)).double().numpy())


def view_from_probs(p, target: int, labels) -> StepView:
    """A step given as probabilities (the notes' example): logits z = ln p, then softmax,
    F.cross_entropy and autograd, all live in float64."""
    p = torch.as_tensor(p, dtype=torch.float64)
    if p.dim() != 1 or len(labels) != p.numel() or not 0 <= target < p.numel():
        raise InputError("Give one probability per word and a target among them.")
    if (p <= 0).any() or abs(float(p.sum()) - 1) > 1e-6:
        raise InputError("Probabilities must be positive and add up to 1.")
    return view_from_logits(torch.log(p), target, labels)


def view_from_logits(z, target: int, labels) -> StepView:
    """softmax, L = F.cross_entropy and dL/dz by autograd, for one vector of logits (float64)."""
    z = torch.as_tensor(z, dtype=torch.float64).detach().clone().requires_grad_(True)
    loss = F.cross_entropy(z[None], torch.tensor([target]))
    (g,) = torch.autograd.grad(loss, z)
    p = torch.softmax(z.detach(), dim=-1)  # (K,)
    y = F.one_hot(torch.tensor(target), z.numel()).double()
    return StepView(tuple(labels), z.detach().numpy(), p.numpy(), target, float(loss.detach()),
                    (p - y).numpy(), g.numpy())


def notes_view(labels) -> StepView:
    """Note 000: p = [0.1, 0.1, 0.4, 0.3, 0.1], target cats -> L = 0.916, p - y = [.1, .1, -.6, .3, .1]."""
    return view_from_probs(NOTES_P, NOTES_TARGET, labels)


def shown_outputs(view: StepView, k: int) -> list[int]:
    """The k most probable outputs (by p, descending), plus the target if it is not among them.
    When all K fit, they stay in vocabulary order, so p - y reads as in the notes."""
    if k >= len(view.p):
        return list(range(len(view.p)))
    order = list(np.argsort(-view.p, kind="stable")[:k])
    if view.target is not None and view.target not in order:
        order.append(view.target)
    return [int(i) for i in order]


def softmax_rows(view: StepView, idx: list[int]) -> list[dict]:
    """The softmax written out for the outputs idx: z_k, exp(z_k), p_k = exp(z_k) / sum, y_k, p_k - y_k."""
    y = view.y
    return [{"output": view.labels[i], "id": i, "z_k": view.z[i], "exp(z_k)": view.exps[i],
             "exp(z_k - max z)": view.shifted_exps[i], "p_k": view.p[i], "y_k": int(y[i]),
             "p_k - y_k": view.p_minus_y[i]} for i in idx]


def logit_rows(model: RNNModel, tr: Trace, t: int, idx: list[int], labels) -> list[dict]:
    """z_k = W_o[k] . h_t + b_o[k] for the outputs idx, with the two terms apart. A model with
    attention reads [h_t; c_t] (page 9): the first term is then W_o[k] . [h_t; c_t]."""
    h = tr.h[t].double()                     # (H_out,)
    if tr.context is not None:
        h = torch.cat([h, tr.context[t].double()])  # (2H,)
    W, b = model.W_o.detach().double(), model.b_o.detach().double()  # (K, H_out), (K,)
    return [{"output": labels[i], "W_o[k] · h_t": float(W[i] @ h), "b_o[k]": float(b[i]),
             "z_k": float(W[i] @ h + b[i])} for i in idx]


# ---- the whole sentence ---------------------------------------------------------------------

def top_k(tr: Trace, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k most probable next tokens at every step: ids (T, k) and probabilities (T, k)."""
    k = max(1, min(int(k), tr.p.shape[1]))
    vals, idx = torch.topk(tr.p, k, dim=-1)  # (T, k) each
    return idx.numpy(), vals.double().numpy()


def worst_step(tr: Trace) -> int | None:
    """The step (0-based) with the largest finite loss among steps that have a target; None
    when there is none (no target, or a diverged model whose losses are all NaN/inf)."""
    loss = tr.loss_t.double().numpy()  # (T,)
    finite = tr.valid.numpy() & np.isfinite(loss)  # (T,)
    if not finite.any():
        return None
    return int(np.argmax(np.where(finite, loss, -np.inf)))


def target_ranks(tr: Trace) -> np.ndarray:
    """Rank (1 = most probable) of the target at each step, 0 where there is no target. (T,)"""
    ranks = np.zeros(tr.T, dtype=int)
    for t in np.flatnonzero(tr.valid.numpy()):
        p_target = tr.p[t, tr.targets[t]]
        ranks[t] = int((tr.p[t] > p_target).sum()) + 1
    return ranks


def sentence_rows(tr: Trace, vocab: Vocab, k: int, tokens: list[str]) -> list[dict]:
    """Per step: input, target, p(target), its rank, L_t and the top-k predictions."""
    idx, vals = top_k(tr, k)
    ranks = target_ranks(tr)
    targets = target_tokens(vocab, tr.targets)
    rows = []
    for t in range(tr.T):
        ok = targets[t] is not None
        rows.append({
            "step t": t + 1, "input": tokens[t], "target": targets[t] or "(none)",
            "p(target)": float(tr.p[t, tr.targets[t]]) if ok else None,
            "rank of target": int(ranks[t]) if ok else None,
            "L_t (nats)": float(tr.loss_t[t]) if ok else None,
            f"top {idx.shape[1]}": ", ".join(f"{vocab.itos[i]} {v:.2f}" for i, v in zip(idx[t], vals[t])),
        })
    return rows


def step_window(T: int, t: int, width: int = MAX_HEATMAP_STEPS) -> tuple[int, int]:
    """Steps [lo, hi) (0-based) of at most `width` steps around step t, clipped to the sentence:
    a long sentence's heatmap shows this window so its word labels stay readable."""
    if T <= width:
        return 0, T
    lo = min(max(0, t - width // 2), T - width)
    return lo, lo + width


def exact_sum(a: float, b: float, max_decimals: int = 8) -> tuple[str, str, str]:
    """a, b and a + b as text with just enough decimals that the shown numbers add up
    (12.13 + 15.09 = 27.23 would not: 12.126 + 15.097 = 27.223 does)."""

    if not all(math.isfinite(v) for v in (a, b)):
        return num(a), num(b), num(a + b)
    for d in range(2, max_decimals + 1):
        sa, sb, ss = (f"{v:.{d}f}" for v in (a, b, a + b))
        if Decimal(sa) + Decimal(sb) == Decimal(ss):
            return sa, sb, ss
    return sa, sb, ss


def reductions(tr_sum: Trace, tr_mean: Trace) -> dict:
    """Sum and mean of the per-token losses over the N valid steps, and the gradient scale.

    The mean's dL/dz_t is the sum's divided by N: `grad_ratio` says how exactly that holds.
    """
    n = int(tr_sum.valid.sum())
    ratio = (tr_mean.grad_z * n - tr_sum.grad_z).abs().max() if n else torch.tensor(0.0)
    return {"N": n, "sum": float(tr_sum.loss), "mean": float(tr_mean.loss),
            "grad_max_diff": float(ratio),
            "grad_norm_sum": float(tr_sum.grad_z.norm()), "grad_norm_mean": float(tr_mean.grad_z.norm())}


# ---- a padded batch ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PaddedBatch:
    ids: torch.Tensor      # (B, T) inputs, right-padded
    targets: torch.Tensor  # (B, T) targets, IGNORE on padding (and where no next token exists)
    mask: torch.Tensor     # (B, T) True on real input tokens
    loss_t: torch.Tensor   # (B, T) cross-entropy, 0 wherever the target is IGNORE
    loss: float            # sum or mean over the valid targets
    n_valid: int
    reduction: str


def padded_batch(model: RNNModel, pairs: list[tuple[list[int], list[int]]], pad_id: int,
                 reduction: str = "sum") -> PaddedBatch:
    """Pad (input, target) pairs to B x T, run once, and let only real targets carry loss."""
    if not pairs or len(pairs) > limits.MAX_BATCH:
        raise InputError(f"A batch holds 1 to {limits.MAX_BATCH} sentences.")
    ids, mask = pad_batch([list(p[0]) for p in pairs], pad_id)   # (B, T), (B, T)
    targets, _ = pad_batch([list(p[1]) for p in pairs], IGNORE)  # (B, T)
    targets = targets.masked_fill(~mask, IGNORE)
    with torch.no_grad():
        loss_t, loss = sequence_loss(model(ids), targets, reduction)  # (B, T), ()
    return PaddedBatch(ids, targets, mask, loss_t, float(loss), int((targets != IGNORE).sum()), reduction)


# ---- teacher forcing vs free generation ----------------------------------------------------


def forcing_rows(tr: Trace, vocab: Vocab, prefix_len: int, steps: list[GenStep]) -> list[dict]:
    """Side by side from the end of the prefix on: what the model is fed and predicts under
    teacher forcing (the true tokens, from the Trace) and in the free run (its own choices)."""
    n = prefix_len
    rows = []
    for j in range(max(tr.T - n + 1, len(steps))):
        t = n - 1 + j  # 0-based step
        row = {"step t": t + 1}
        if t < tr.T:
            has = bool(tr.valid[t])
            row |= {"teacher forcing: fed": vocab.itos[int(tr.ids[t])],
                    "predicts (top 1)": vocab.itos[int(tr.p[t].argmax())],
                    "true next": vocab.itos[int(tr.targets[t])] if has else "(none)"}
        else:
            row |= {"teacher forcing: fed": "", "predicts (top 1)": "", "true next": ""}
        if j < len(steps):
            s = steps[j]
            row |= {"free run: fed": vocab.itos[s.input_id], "picks": vocab.itos[s.chosen],
                    "p under model": round(s.p_model, 4)}
        else:
            row |= {"free run: fed": "", "picks": "", "p under model": None}
        rows.append(row)
    return rows


# ---- one gradient step on the output layer ----------------------------------------------------

@dataclass(frozen=True)
class OutputStep:
    t: int
    lr: float
    grad_W: torch.Tensor    # (K, H_out) dL_t/dW_o = (p_t - y_t) h_t^T
    grad_b: torch.Tensor    # (K,)       dL_t/db_o = p_t - y_t
    p_before: torch.Tensor  # (T, K) from the Trace
    p_after: torch.Tensor   # (T, K) after W_o -= lr grad_W, b_o -= lr grad_b
    upstream: tuple = ()    # (name, ||dL_t/dparam||) of every other parameter: L_t reaches them too

    def target_probs(self, targets: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        """p_s(target_s) before and after for every step s (NaN where there is no target). (T,) each"""
        valid = targets != IGNORE
        safe = targets.clamp(min=0)[:, None]
        before = self.p_before.gather(1, safe)[:, 0].double().numpy()
        after = self.p_after.gather(1, safe)[:, 0].double().numpy()
        before[~valid.numpy()] = np.nan
        after[~valid.numpy()] = np.nan
        return before, after

    @property
    def moved(self) -> np.ndarray:
        """How far each step's whole distribution moved: total variation 0.5 sum |dp|. (T,)"""
        return (0.5 * (self.p_after - self.p_before).abs().sum(-1)).double().numpy()


def output_layer_step(model: RNNModel, tr: Trace, t: int, lr: float) -> OutputStep:
    """One SGD step on W_o and b_o for L_t alone, on a deep copy (the shared model is untouched).

    L_t's gradient reaches every parameter that h_1..h_t read (W_h, W_x, b_h, E: their norms
    are in `upstream`), but this demo updates only the output layer. Only W_o and b_o change,
    yet every step s reads them: p_s moves at every position.
    """
    if not 0 <= t < tr.T or not bool(tr.valid[t]):
        raise InputError(f"Step {t + 1} has no target, so there is no loss to step on.")
    if not (math.isfinite(lr) and 0 < lr <= 100):
        raise InputError("The learning rate must be above 0 and at most 100.")
    z = model(tr.ids)  # (T, K); autograd.grad below reads the shared weights, never writes them
    loss = F.cross_entropy(z[t:t + 1], tr.targets[t:t + 1])
    names, params = zip(*model.named_parameters())
    grads = dict(zip(names, torch.autograd.grad(loss, params)))
    gW, gb = grads["W_o"], grads["b_o"]
    upstream = tuple((n, float(g.norm())) for n, g in grads.items() if n not in ("W_o", "b_o"))
    with torch.no_grad():  # SGD written out: torch.optim's first step imports torch._dynamo (~3 s)
        stepped = _with_output_layer(model, model.W_o - lr * gW, model.b_o - lr * gb)
        p_after = torch.softmax(stepped(tr.ids), dim=-1)  # (T, K)
    return OutputStep(t, lr, gW.detach(), gb.detach(), tr.p, p_after, upstream)


def _with_output_layer(model: RNNModel, W_o: torch.Tensor, b_o: torch.Tensor) -> RNNModel:
    """model with W_o and b_o replaced, for a forward run: a shallow copy holding a parameter
    dict of its own, every other weight shared (model itself, which every session reads, is
    untouched; a deep copy of it was most of a gradient step's time)."""
    m = copy.copy(model)
    m._parameters = {**model._parameters, "W_o": torch.nn.Parameter(W_o, requires_grad=False),
                     "b_o": torch.nn.Parameter(b_o, requires_grad=False)}
    return m


# ---- try it by hand -------------------------------------------------------------------------------

EXERCISE_WORDS = ("I", "like", "cats", "dogs", "you", "fish", "today")


@dataclass(frozen=True)
class Exercise:
    """Fresh small numbers: probabilities (one decimal) or integer logits, and a target."""

    kind: str                # "probs" | "logits"
    labels: tuple[str, ...]
    given: tuple[float, ...]  # the probabilities or logits shown to the learner
    target: int
    view: StepView           # the answer, computed by F.cross_entropy and autograd

    @property
    def tol(self) -> float:
        return 0.01 if self.kind == "probs" else 0.02


def make_exercise(seed: int) -> Exercise:
    """Seeded: the same seed gives the same exercise (a shared link shows the same numbers)."""
    rng = np.random.default_rng(int(seed))
    kind = "probs" if seed % 2 == 0 else "logits"
    K = int(rng.integers(3, 6)) if kind == "probs" else 3
    labels = tuple(str(w) for w in rng.choice(EXERCISE_WORDS, size=K, replace=False))
    target = int(rng.integers(0, K))
    if kind == "probs":
        cuts = np.sort(rng.choice(np.arange(1, 10), size=K - 1, replace=False))
        tenths = np.diff(np.concatenate([[0], cuts, [10]]))  # K positive integers adding up to 10
        given = tuple(float(v) / 10 for v in tenths)
        view = view_from_probs(given, target, labels)
    else:
        given = tuple(float(v) for v in rng.choice(np.arange(-2, 4), size=K, replace=False))
        view = view_from_logits(given, target, labels)
    return Exercise(kind, labels, given, target, view)


def parse_numbers(text: str) -> list[float]:
    """'0.1, -0.6 0.3' or '[0.1, -0.6, 0.3]' -> floats. Raises InputError on anything else."""
    cleaned = text.replace("\u2212", "-").replace("[", " ").replace("]", " ").replace(",", " ")
    parts = cleaned.split()
    if not parts:
        raise InputError("Type a number (or numbers separated by commas).")
    if len(parts) > 50:
        raise InputError("That is too many numbers for this exercise.")
    try:
        values = [float(s) for s in parts]
    except ValueError:
        raise InputError("Use plain numbers like 0.92 or -0.6, separated by commas.") from None
    if not all(math.isfinite(v) for v in values):
        raise InputError("Use finite numbers.")
    return values


def _close(a, b, tol) -> bool:
    return bool(np.all(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) <= tol))


def check_loss(ex: Exercise, text: str) -> Verdict:
    """Is the learner's L right? If not, which usual slip gives their number?"""
    if not text.strip():
        return Verdict(None, "")
    values = parse_numbers(text)
    if len(values) != 1:
        return Verdict(False, "The loss is one number: L = -ln p(target).", "output.hint_one_number")
    a, v, tol = values[0], ex.view, ex.tol
    L, pt, word = v.loss, v.p[ex.target], ex.labels[ex.target]
    if abs(a - L) <= tol:
        return Verdict(True, f"Right: L = -ln p({word}) = -ln {pt:.4f} = {L:.4f}.", "output.hint_loss_right",
                        {"word": word, "p": f"{pt:.4f}", "L": f"{L:.4f}"})
    slips = [
        (-L, "The sign is off: ln p is negative for p < 1, so the loss -ln p is positive "
             "(forgot the minus).", "output.hint_sign"),
        (L / math.log(10), "That is -log10: cross-entropy here uses the natural log ln.",
         "output.hint_log10"),
        (-L / math.log(10), "That is log10 without the minus: use -ln p.", "output.hint_log10_sign"),
        (L / math.log(2), "That is -log2 (bits): cross-entropy here uses the natural log ln (nats).",
         "output.hint_log2"),
        (pt, f"That is the probability p({word}) itself; the loss is -ln of it.", "output.hint_p_itself"),
    ]
    if ex.kind == "logits":
        slips.append((-float(v.z[ex.target]),
                      "You left out the normaliser: -ln p = -z_target + ln sum_j exp(z_j).",
                      "output.hint_normaliser"))
    for value, message, key in slips:
        if abs(a - value) <= tol:
            return Verdict(False, message, key, {"word": word})
    for j, lab in enumerate(ex.labels):
        if j != ex.target and abs(a - (-math.log(v.p[j]))) <= tol:
            return Verdict(False, f"That is -ln p({lab}): the wrong target. The target is {word}.",
                            "output.hint_loss_wrong_target", {"lab": lab, "word": word})
    return Verdict(False, f"Not yet. First find p({word}), then take -ln of it (natural log).",
                    "output.hint_loss_not_yet", {"word": word})


def check_grad(ex: Exercise, text: str) -> Verdict:
    """Is the learner's dL/dz = p - y right? If not: sign, wrong target, forgot y, used z?"""
    if not text.strip():
        return Verdict(None, "")
    g = parse_numbers(text)
    K, v, tol, word = len(ex.labels), ex.view, ex.tol, ex.labels[ex.target]
    if len(g) != K:
        return Verdict(False, f"Give {K} numbers, one per word ({', '.join(ex.labels)}), in that order.",
                        "output.hint_count", {"K": K, "words": ", ".join(ex.labels)})
    if _close(g, v.p_minus_y, tol):
        return Verdict(True, f"Right: p - y lowers the target's entry by 1 ({word}) "
                              "and leaves the rest as p.", "output.hint_grad_right", {"word": word})
    if _close(g, -v.p_minus_y, tol):
        return Verdict(False, "Every sign is flipped: that is y - p, the descent direction. "
                               "The gradient dL/dz is p - y.", "output.hint_flipped")
    if _close(g, v.p, tol):
        return Verdict(False, f"That is p: subtract y, the one-hot target (1 at {word}).",
                        "output.hint_forgot_y", {"word": word})
    if ex.kind == "logits" and _close(g, v.z - v.y, tol):
        return Verdict(False, "You used the logits z in place of p: take the softmax first.",
                        "output.hint_used_z")
    for j, lab in enumerate(ex.labels):
        y_j = np.eye(K)[j]
        if j != ex.target and (_close(g, v.p - y_j, tol) or _close(g, y_j - v.p, tol)):
            return Verdict(False, f"That puts the -1 at {lab}: the wrong target. The target is {word}.",
                            "output.hint_grad_wrong_target", {"lab": lab, "word": word})
    off = [ex.labels[i] for i in range(K) if abs(g[i] - v.p_minus_y[i]) > tol]
    return Verdict(False, f"Not yet: the entries for {', '.join(off)} are off. "
                           "Each entry is p_k, minus 1 at the target.", "output.hint_grad_not_yet",
                    {"off": ", ".join(off)})


def check_both(ex: Exercise, loss_text: str, grad_text: str) -> Verdict:
    """The exercise's one verdict: every slip named (the loss's, then p - y's), right only when
    both are. Nothing typed yet: ok is None."""
    right = Verdict(True, "Right: L and p - y both match.", "output.hint_both_right")
    return every_slip((check_loss(ex, loss_text), check_grad(ex, grad_text)), right, exercise_solution(ex))


def exercise_solution(ex: Exercise) -> str:
    """The worked answer: p (from z when logits are given), L = -ln p(target), p - y."""
    v, word = ex.view, ex.labels[ex.target]
    return (f"p = {vector(v.p)}; L = -ln p({word}) = -ln {num(v.p[ex.target])} = {num(v.loss)}; "
            f"p - y = {vector(v.p_minus_y)}")


def index_words(vocab: Vocab, idx) -> np.ndarray:
    """The vocabulary's words at an array of ids, same shape."""
    return np.vectorize(lambda i: vocab.itos[i])(idx)


def valid_count(tr: Trace) -> int:
    """N, the number of steps with a target (a loss L_t)."""
    return int(tr.valid.sum())


def gradient_step_numbers(res: OutputStep, targets: torch.Tensor) -> dict:
    """What one gradient step on L_t did, for the prose and the moved-bars figure: p(target)
    before and after at every step (NaN without a target), the change dp, the distributions'
    moves, the other step o that moved most, -ln p(target) at t before and after, and dp at o
    (None where o has no target)."""
    before, after = res.target_probs(targets)
    moved, dp, t = res.moved, after - before, res.t
    o = most_moved_other(moved, t)
    return {"before": before, "after": after, "dp": dp, "moved": moved, "other": o,
            "loss_before": float(-np.log(before[t])), "loss_after": float(-np.log(after[t])),
            "other_dp": float(dp[o]) if np.isfinite(dp[o]) else None}


def most_moved_other(moved, t: int) -> int:
    """The step other than t (0-based) whose distribution one gradient step at t moved most
    (t itself when the sentence has one step)."""
    others = [s for s in range(len(moved)) if s != t]
    return max(others, key=lambda s: moved[s]) if others else t
