"""The hidden-state page's core: step terms, the notes' scalar RNN, the linear expansion,
saturation, parameter counts, PCA trajectories, cell variants and the hand exercise.

Everything here is pure (tensors / numbers in, tensors / numbers / dicts out) so that
each value the page shows can be checked against an oracle in tests/core/explain/test_hidden.py.
"""
from __future__ import annotations

import copy
import dataclasses
import random

import numpy as np
import torch

from rnnviz.engine.cells import ELMAN_ONLY, GATED
from rnnviz.engine.jacobians import last_state_input_norms
from rnnviz.engine.model import RNNConfig, RNNModel, activate
from rnnviz.engine.trace import Trace
from rnnviz.errors import InputError
from rnnviz.explain.exercises.checker import numbers, parts_match, smallest_gap, verdict
from rnnviz.explain.exercises.verdict import Verdict
from rnnviz.explain.gates import first_word_reach_row
from rnnviz.explain.notes.facts import first_step_without_h0
from rnnviz.formatting import vector
from rnnviz.text.corpora import lm_pair, zh_order_presets
from rnnviz.text.tokenize import BOS, EOS, PAD, UNK, Prepared, Vocab, prepare, tokenize
from rnnviz.text.zh import has_chinese

SATURATION = 0.95  # |h| above this counts as saturated (tanh' < 0.1 there)


# ---- the step-t equation --------------------------------------------------------

def step_terms(model: RNNModel, tr: Trace, t: int) -> dict:
    """The pieces of a_t = W_x x_t + W_h h_{t-1} + b_h and h_t = phi(a_t) at 0-based step t.

    Jordan cells feed back y_{t-1} = softmax(z_{t-1}) through W_y instead of W_h h_{t-1};
    bidirectional models show their forward direction (the first H units of tr.h).
    """
    cfg = model.cfg
    if cfg.cell in GATED:  # its gates are written out on page 8 (gates.gated_step)
        raise InputError(ELMAN_ONLY)
    if not 0 <= t < tr.T:
        raise InputError(f"Step t must be from 1 to {tr.T}.")
    H = cfg.hidden_size
    x = tr.x[t]                                            # (d,)
    if cfg.cell == "jordan":
        state = tr.p[t - 1] if t > 0 else tr.p.new_zeros(cfg.K)  # (K,) y_{t-1}, y_0 = 0
        W_rec = model.W_y.detach()                          # (H, K)
    else:
        state = tr.h[t - 1, :H] if t > 0 else tr.h.new_zeros(H)  # (H,) h_{t-1}, h_0 = 0
        W_rec = model.W_h.detach()                          # (H, H)
    wx = model.W_x.detach() @ x                             # (H,)
    wh = W_rec @ state                                      # (H,)
    b = model.b_h.detach()                                  # (H,)
    return {"x": x, "state": state, "Wx_x": wx, "Wh_h": wh, "b": b,
            "a_sum": wx + wh + b, "a": tr.a[t, :H], "h": tr.h[t, :H],
            "h_from_a": activate(wx + wh + b, cfg.nonlinearity)}


def term_norms(terms: dict) -> dict[str, float]:
    """||W_x x_t||, ||memory term||, ||b_h|| of step_terms."""
    return {k: float(terms[k].norm()) for k in ("Wx_x", "Wh_h", "b")}


def shape_table(cfg: RNNConfig) -> list[dict]:
    """The notes' shapes table (column vectors), for this model's d, H and K."""
    d, H, K = cfg.embed_dim, cfg.hidden_size, cfg.K
    rows = [("x_t", f"{d} x 1", "embedding of token t"),
            ("h_{t-1}, h_t", f"{H} x 1", "previous, current state"),
            ("W_x", f"{H} x {d}", "input -> hidden")]
    if cfg.cell == "jordan":
        rows.append(("W_y", f"{H} x {K}", "previous output -> hidden"))
    else:
        rows.append(("W_h", f"{H} x {H}", "previous state -> hidden"))
    rows += [("b_h", f"{H} x 1", "bias"),
             ("W_o", f"{K} x {cfg.H_out}", "hidden -> logits z_t")]
    return [{"symbol": s, "shape": sh, "meaning": m} for s, sh, m in rows]


def input_column(model: RNNModel, tr: Trace, t: int) -> dict:
    """x_t = E[id]^T at 0-based step t: the id read there, the sizes (d, V, H) and
    max |x_t - E[id]| (0: the input is that row of E, stood up as a d x 1 column so that
    W_x (H x d) can multiply it from the left; page 1's one-hot x is a 1 x V row, x E)."""
    if not 0 <= t < tr.T:
        raise InputError(f"Step t must be from 1 to {tr.T}.")
    cfg = model.cfg
    i = int(tr.ids[t])
    row = model.E.detach()[i]                                    # (d,)
    col = row.reshape(-1, 1)                                     # (d, 1)
    wx = model.W_x.detach() @ col                                # (H, 1)
    return {"id": i, "d": cfg.embed_dim, "V": cfg.vocab_size, "H": cfg.hidden_size,
            "err": float((tr.x[t].double() - row.double()).abs().max()),
            "wx_shape": tuple(wx.shape)}


def first_word_reach(model: RNNModel, tr: Trace, start: int = 0) -> float:
    """||dh_T/dx_start|| / ||dh_T/dx_T|| on this sentence (0-based start: the first real word):
    how strongly the first word still moves the last state, relative to the last word. h_t is
    a learned summary of the prefix, with no guarantee that the first word is still in it
    (page 8 compares this number across Elman, LSTM and GRU)."""
    return first_word_reach_row(last_state_input_norms(model, tr), start)


AFFINE_PAIRS = 400  # input pairs (x_1, x_2) for the best affine fit of h_2
AFFINE_SEED = 0  # the page draws its pairs from torch.Generator().manual_seed(AFFINE_SEED)


def h2_pairs(V: int, gen: torch.Generator, n: int = AFFINE_PAIRS) -> torch.Tensor:
    """(N, 2) token-id pairs (i, j): every pair when V^2 <= n, else n pairs drawn with `gen`."""
    if V * V <= n:
        return torch.cartesian_prod(torch.arange(V), torch.arange(V))
    return torch.randint(0, V, (n, 2), generator=gen)


def two_steps(model: RNNModel, x1: torch.Tensor, x2: torch.Tensor, nonlinearity: str) -> torch.Tensor:
    """h_2 = phi(W_x x_2 + W_h phi(W_x x_1 + b_h) + b_h) in float64 for rows x1, x2 (N, d) -> (N, H)."""
    W_x, W_h, b = (model.W_x.detach().double(), model.W_h.detach().double(), model.b_h.detach().double())
    h1 = activate(x1 @ W_x.T + b, nonlinearity)
    return activate(x2 @ W_x.T + h1 @ W_h.T + b, nonlinearity)


def affine_residual(X: torch.Tensor, Y: torch.Tensor) -> float:
    """The best affine fit Y ~ [X, 1] B by least squares (float64): ||Y - [X, 1] B||_F / ||Y - mean Y||_F,
    the share of Y's spread no affine map of X explains (0: Y is an affine function of X)."""
    A = torch.cat([X.double(), torch.ones(X.shape[0], 1, dtype=torch.float64)], 1)
    B = torch.linalg.lstsq(A, Y.double(), driver="gelsd").solution
    spread = float((Y - Y.mean(0)).norm())
    return float((Y - A @ B).norm()) / spread if spread > 0 else 0.0


def affine_fit_h2(model: RNNModel, gen: torch.Generator | None = None, n: int = AFFINE_PAIRS) -> dict:
    """Why nested phi cannot be merged into one affine map: over many input pairs
    (x_1, x_2) = (E[i], E[j]), the best affine fit h_2 ~ A [x_1; x_2] + c leaves a residual
    above 0 for the model's phi, and about 0 (rounding) for the linear RNN with the same
    weights. Returns the pairs used, their count, the fitted numbers per unit (2d + 1) and
    both relative residuals. Elman cells (one direction) only. gen None: the page's own draw,
    torch.Generator().manual_seed(AFFINE_SEED), so the page shows the same numbers each time."""
    cfg = model.cfg
    gen = torch.Generator().manual_seed(AFFINE_SEED) if gen is None else gen
    if cfg.cell != "elman" or cfg.bidirectional:
        raise InputError("The affine fit is written for a one-directional Elman model.")
    pairs = h2_pairs(cfg.vocab_size, gen, n)
    E = model.E.detach().double()
    x1, x2 = E[pairs[:, 0]], E[pairs[:, 1]]
    X = torch.cat([x1, x2], 1)                                   # (N, 2d)
    return {"pairs": pairs, "n": int(pairs.shape[0]), "params": 2 * cfg.embed_dim + 1,
            "phi": cfg.nonlinearity,
            "rel_phi": affine_residual(X, two_steps(model, x1, x2, cfg.nonlinearity)),
            "rel_linear": affine_residual(X, two_steps(model, x1, x2, "linear"))}


# ---- the notes' scalar RNN and the growth example ---------------------------------

def scalar_rnn(xs, w_x: float = 2.0, w_h: float = 0.5, h0: float = 0.0,
               nonlinearity: str = "linear") -> list[float]:
    """h_t = phi(w_x x_t + w_h h_{t-1}), the notes' hand example ([1, 3] -> 2, 7; [3, 1] -> 6, 5)."""
    h, out = float(h0), []
    for x in xs:
        h = float(activate(torch.tensor(w_x * float(x) + w_h * h, dtype=torch.float64),
                           nonlinearity))
        out.append(h)
    return out


def scalar_steps(xs, w_x: float, w_h: float, h0: float = 0.0) -> list[str]:
    """Each step written out as in the notes: 'h_1 = 2(1) + 0.5(0) = 2'."""
    lines, h = [], float(h0)
    for t, (x, new) in enumerate(zip(xs, scalar_rnn(xs, w_x, w_h, h0)), start=1):
        lines.append(f"h_{t} = {w_x:g}({float(x):g}) + {w_h:g}({h:g}) = {new:g}")
        h = new
    return lines


def growth(w: float = 2.0, h0: float = 1.0, steps: int = 10) -> dict[str, list[float]]:
    """h_t = phi(w h_{t-1}) for t = 1..steps: linear grows (2, 4, 8, ...), tanh stays in (-1, 1)."""
    if not 1 <= steps <= 60:
        raise InputError("Steps must be from 1 to 60.")
    return {nl: scalar_rnn([0.0] * steps, 0.0, w, h0, nl) for nl in ("linear", "tanh")}


# ---- linear vs tanh on the real model -----------------------------------------------

def with_nonlinearity(model: RNNModel, nonlinearity: str) -> RNNModel:
    """A copy of the model with the same weights and another phi (the shared model stays as is)."""
    new = RNNModel(dataclasses.replace(model.cfg, nonlinearity=nonlinearity))
    new.load_state_dict(copy.deepcopy(model.state_dict()))
    return new.eval()


def linear_expansion(model: RNNModel, x: torch.Tensor, t: int) -> list[tuple[str, torch.Tensor]]:
    """Without phi, h_t = sum_k W_h^(t-k) (W_x x_k + b_h) + W_h^t h_0: the terms, 0-based t.

    For t = 1 (h_2) this is W_x x_2 + W_h W_x x_1 + W_h^2 h_0 plus the bias terms b_h + W_h b_h:
    one linear (affine) map of the inputs, whatever the number of steps.
    """
    if model.cfg.cell != "elman":
        raise InputError("The expansion is written for an Elman cell (state = h_{t-1}).")
    W_x, W_h, b = (model.W_x.detach().double(), model.W_h.detach().double(),
                   model.b_h.detach().double())
    n = t + 1  # 1-based step
    terms = []
    for k in range(n, 0, -1):
        P = torch.linalg.matrix_power(W_h, n - k)                       # (H, H)
        terms.append((_power_label(n - k) + f"W_x x_{k}", P @ W_x @ x[k - 1].double()))
    for k in range(n, 0, -1):
        P = torch.linalg.matrix_power(W_h, n - k)
        terms.append((_power_label(n - k) + "b_h", P @ b))
    terms.append((f"W_h^{n} h_0", torch.linalg.matrix_power(W_h, n) @ torch.zeros_like(b)))
    return terms


def expansion_check(expansion: list[tuple[str, torch.Tensor]], h: torch.Tensor) -> tuple[torch.Tensor, float]:
    """(the sum of linear_expansion's terms, max |sum - h|): the expansion rebuilds the linear h_t."""
    total = sum(v for _, v in expansion)
    return total, float((total - h.double()).abs().max())


def _power_label(p: int) -> str:
    return "" if p == 0 else ("W_h " if p == 1 else f"W_h^{p} ")


def saturation(h: torch.Tensor, threshold: float = SATURATION) -> dict:
    """Share of hidden values with |h| > threshold, overall and per step (h (T, H))."""
    sat = h.abs() > threshold  # (T, H)
    return {"share": float(sat.double().mean()), "per_step": sat.double().mean(1).tolist(),
            "count": int(sat.sum()), "total": int(sat.numel())}


# ---- parameters ---------------------------------------------------------------------

def param_terms(cfg: RNNConfig) -> list[dict]:
    """Each parameter of the recurrent cell and output with its formula; none contains T.

    The notes' sum d_h^2 + d_h d_x + d_h + d_y d_h + d_y, written in the app's one notation
    (d_x = d, d_h = H, d_y = K): H² + H d + H + K H + K;
    the embedding E (V x d) is listed apart: it is a lookup table, not part of that sum.
    """
    d, H, K = cfg.embed_dim, cfg.hidden_size, cfg.K
    rows = [("W_y", "H · K", H * K) if cfg.cell == "jordan" else ("W_h", "H²", H * H),
            ("W_x", "H · d", H * d), ("b_h", "H", H)]
    if cfg.bidirectional:
        rows += [("W_h_rev", "H²", H * H), ("W_x_rev", "H · d", H * d), ("b_h_rev", "H", H)]
    rows += [("W_o", "K · H" if not cfg.bidirectional else "K · 2H", K * cfg.H_out), ("b_o", "K", K)]
    return [{"parameter": n, "formula": f, "count": c} for n, f, c in rows]


def param_totals(cfg: RNNConfig, T: int) -> dict:
    """Shared weights (independent of T) vs one set of cell + output weights per step (O(T))."""
    shared = sum(r["count"] for r in param_terms(cfg))
    return {"shared": shared, "per_step": T * shared, "embedding": cfg.vocab_size * cfg.embed_dim}


# ---- trajectories and order --------------------------------------------------------------

def pca_2d(states: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """Project several (T_i, H) state sequences onto the top-2 principal axes of all of them.

    One common basis, so that two sentences' trajectories can be compared in the same plane.
    Each axis is signed so its largest loading is positive (a stable picture). Returns the
    projections (T_i, 2) and the share of variance each axis explains.
    """
    X = np.concatenate([np.asarray(s, dtype=np.float64) for s in states])  # (N, H)
    if not np.isfinite(X).all():
        raise InputError("Some hidden values are NaN or inf: there is no projection to draw.")
    mean = X.mean(0)
    _, s, Vt = np.linalg.svd(X - mean, full_matrices=False)  # Vt (r, H)
    axes = np.zeros((2, X.shape[1]))
    k = min(2, Vt.shape[0])
    axes[:k] = Vt[:k]
    for i in range(k):
        j = np.argmax(np.abs(axes[i]))
        axes[i] *= np.sign(axes[i, j]) or 1.0
    var = s ** 2
    share = np.zeros(2)
    if var.sum() > 0:
        share[:k] = var[:k] / var.sum()
    return [(np.asarray(st, dtype=np.float64) - mean) @ axes.T for st in states], share


def pca_numbers(share: np.ndarray, h_first: torch.Tensor, h_last: torch.Tensor) -> dict:
    """The prose's numbers under the PCA picture: the share of variance both axes explain and
    ||h_T(first) - h_T(last)||, the distance between two paths' final states."""
    return {"share": float(share.sum()), "dist": float((h_first[-1] - h_last[-1]).norm())}


def order_comparison(x_a: torch.Tensor, x_b: torch.Tensor, h_a: torch.Tensor,
                     h_b: torch.Tensor) -> dict:
    """Sum of embeddings vs final hidden state for two sentences (x (T, d), h (T, H)).

    For a reordering the sums are equal (a bag of words cannot tell), the final states need not be.
    """
    return {"sum_diff": float((x_a.double().sum(0) - x_b.double().sum(0)).norm()),
            "final_diff": float((h_a[-1] - h_b[-1]).norm()),
            "same_bag": sorted(map(tuple, x_a.tolist())) == sorted(map(tuple, x_b.tolist()))}


def sentence_pair(text: str, vocab: Vocab, level: str = "word") -> tuple[list, list, Prepared]:
    """A second sentence as model input and next-token targets (InputError if nothing is known)."""
    prep = prepare(text, vocab, level)
    ids, targets = lm_pair(list(prep.ids), vocab)
    return ids, targets, prep


# Pairs from the notes: word order (000) and context for a slot (004).
ORDER_PRESETS = (("dog bites man", "man bites dog"), ("Arrive Taipei", "Leave Taipei"),
                 ("I like cats", "cats like I"), ("I like dogs", "dogs like I"))


def order_presets(vocab: Vocab) -> list[tuple[str, str]]:
    """The preset pairs whose every word the model knows: the notes' Chinese pairs first
    (data.ZH_ORDER_PRESETS, 狗咬人 / 人咬狗 ...) when every character is a token of the
    vocabulary (the Chinese model), then the English ones. A BPE vocabulary reads Chinese
    only as fallback bytes, so it is not offered the Chinese pairs."""
    english = [pair for pair in ORDER_PRESETS if all(_known(s, vocab) for s in pair)]
    return zh_order_presets(vocab) + english


def _known(sentence: str, vocab: Vocab) -> bool:
    """Every token of the sentence is in the vocabulary (with the vocabulary's own tokenizer)."""
    try:
        return not prepare(sentence, vocab, None).unknown
    except InputError:
        return False


def plain_words(tokens) -> list[str]:
    """The tokens without <bos>, <eos> and <pad>. <unk> stays in its place: it is a token the
    model reads (one row of E), and dropping it would compare other sentences than the model's."""
    return [t for t in tokens if t not in (BOS, EOS, PAD)]


def reversed_words(tokens) -> str:
    """The sentence's tokens in reverse order (<bos>/<eos>/<pad> left out, <unk> kept)."""
    return " ".join(reversed(plain_words(tokens)))


def reversed_text(text: str, level: str | None = "word") -> str:
    """The learner's sentence with its tokens in reverse order, as text the same tokenizer reads
    back into those tokens: characters (level "char") joined as they are (a space stays a
    token); words, Chinese characters and punctuation (every other level; subwords are rebuilt
    from whole words) joined by join_tokens. An unknown token keeps its text, so it is <unk>
    again at its mirrored place."""
    if level == "char":
        return "".join(reversed(tokenize(text, "char")))
    raw = tokenize(text, "zh_word" if level == "zh_word" else "word")
    return join_tokens(list(reversed(raw)))


def join_tokens(tokens) -> str:
    """Tokens as a sentence: a space between two tokens only where neither is Chinese or
    full-width punctuation ("man bites dog", "狗咬人。")."""
    out = ""
    for tok in tokens:
        if out and not (_tight(out[-1]) or _tight(tok[:1])):
            out += " "
        out += tok
    return out


def _tight(ch: str) -> bool:
    return has_chinese(ch) or (bool(ch) and not ch.isascii() and not ch.isalnum())


def reversal_source(level: str, tokens, text: str) -> str | None:
    """The text default_overlay should reverse word by word, or None to reverse the tokens.

    Always the text as typed: subwords (level "bpe") carry the word-start mark "▁" and split
    words, and <unk> cannot give back the word it stands for, so reversed_text re-tokenizes the
    sentence itself (characters for "char", words and Chinese characters otherwise).
    """
    return text


def compared_tokens(text_a: str, text_b: str, vocab: Vocab, level: str | None = "word") -> dict:
    """Two sentences as the model reads them, for an order comparison.

    tokens_a / tokens_b are the token sequences actually compared (vocab.decode of the ids:
    <unk> in place; a vocabulary without <unk> drops unknown words, listed in unknown_a/_b).
    same_bag: the same tokens in some order, so the sums of their embeddings are equal.
    """
    prep_a, prep_b = prepare(text_a, vocab, level), prepare(text_b, vocab, level)
    return {"tokens_a": vocab.decode(prep_a.ids), "tokens_b": vocab.decode(prep_b.ids),
            "ids_a": list(prep_a.ids), "ids_b": list(prep_b.ids),
            "unknown_a": list(prep_a.unknown), "unknown_b": list(prep_b.unknown),
            "same_bag": sorted(prep_a.ids) == sorted(prep_b.ids)}


def default_overlay(tokens, vocab: Vocab, level: str = "word", text: str | None = None) -> tuple[str, str]:
    """The second sentence to show when the learner has typed none: (text, note).

    Normally the sentence reversed (note ""): from `text` (the words as typed, so unknown
    words stay in their mirrored place) when given, else from the tokens. When that is empty
    or the model knows none of its tokens (e.g. "<script>" on the default model), a preset
    second sentence the model knows, with a neutral note saying why; ("", note) when the
    model knows no preset either. Without `text`, tokens with <unk> cannot be turned back
    into words, so they count as unusable rather than being silently dropped.
    """
    rev = reversed_text(text, level) if text is not None else reversed_words(tokens)
    if rev and (text is not None or UNK not in rev.split()):
        try:
            _, _, prep = sentence_pair(rev, vocab, level)
            if len(prep.unknown) < len(prep.tokens):
                return rev, ""
        except InputError:
            pass
    why = ("Your sentence has words the model does not know (<unk>), and without the words as "
           "typed they cannot be put back in reverse order"
           if text is None and UNK in rev.split() and set(rev.split()) != {UNK}
           else "Your sentence has no word the model knows to reverse")
    for _, b in order_presets(vocab):
        return b, f"{why}, so the second sentence is the preset “{b}”."
    return "", f"{why}, so there is no second sentence."


def expansion_step(t: int, T: int, cap: int = 5) -> tuple[int, str]:
    """The 0-based step whose linear expansion is shown, and a caption that says which and why.

    It follows the step slider (0-based t), but at least step 2 (step 1 has no earlier state
    to unroll) when the sentence has one, and at most step `cap` (later steps have too many
    terms to read).
    """
    k = max(0, min(max(t, 1), T - 1, cap - 1))
    s, slider = k + 1, t + 1
    if T == 1:
        note = "Step 1 (the sentence has only one step)."
    elif slider == s:
        note = f"Step {s}, the step slider's step."
    elif slider < s:
        note = (f"Step {s}: the slider is at step {slider}, which has no earlier state to "
                f"unroll, so the expansion starts at step {s}.")
    else:
        note = (f"Step {s}: the slider is at step {slider}, but the expansion stops at step "
                f"{s} (later steps have too many terms to read).")
    return k, note


def expansion_case(t: int, T: int, cap: int = 5) -> tuple[int, str]:
    """expansion_step's choice as (0-based step, case) for a caption in any language: "only"
    (one-step sentence), "slider" (the slider's step), "below" (the slider is at step 1, which
    has nothing to unroll) or "above" (the slider is past the cap)."""
    k, _ = expansion_step(t, T, cap)
    if T == 1:
        return k, "only"
    return k, "slider" if t == k else ("below" if t < k else "above")


def first_step_check(model: RNNModel, tr: Trace) -> float:
    """max |h_1 - phi(W_x x_1 + b_h)|: the model's first state against the formula with the
    W_h h_0 term left out (h_0 = 0 is a fixed zero, not a parameter; notes_facts). Elman only."""
    return float((first_step_without_h0(model, tr) - tr.h[0, :model.cfg.hidden_size]).abs().max())


def dead_per_step(h: torch.Tensor) -> np.ndarray:
    """ReLU: the share of units exactly 0 (off) at each step. h (T, H) -> (T,)"""
    return (h == 0).double().mean(1).numpy()


def state_norms(h: torch.Tensor) -> list[float]:
    """||h_t|| (Euclidean) at each step. h (T, H) -> T floats."""
    return h.double().norm(dim=1).tolist()


# ---- Play: a steady clock -----------------------------------------------------------------

PLAY_PERIOD = 1.5  # seconds per step while "Play" is on


def play_tick(shown: int, last: float | None, now: float, T: int,
              period: float = PLAY_PERIOD) -> tuple[int, float]:
    """One redraw while Play is on: (step to show, time of the last move). The step moves by
    exactly one (looping after T) when a period has passed since the last move, and not at all
    on any other redraw (a slow first run, a click elsewhere), so it never jumps or lags: the
    steps come one per tick of the page's steady timer. `last` None: Play just started."""
    if T <= 1:
        return 1, now
    if last is None:
        return shown, now
    if now - last >= 0.9 * period:  # a tick (the timer fires every period; allow for jitter)
        return shown % T + 1, now
    return shown, last


# ---- cell variants ---------------------------------------------------------------------

VARIANTS = ("elman", "jordan", "bidirectional")


def cell_variant(model: RNNModel, kind: str, seed: int = 0) -> tuple[RNNModel, list[str], list[str]]:
    """The same sizes with another cell; parameters whose name and shape match are copied.

    Returns (model, shared parameter names, fresh parameter names). Fresh ones come from a
    fixed seed: an untrained variant shows the wiring, not a trained behaviour.
    """
    if kind not in VARIANTS:
        raise InputError(f"Cell variant must be one of {VARIANTS}.")
    cell = "jordan" if kind == "jordan" else "elman"
    cfg = dataclasses.replace(model.cfg, cell=cell, bidirectional=(kind == "bidirectional"))
    new = RNNModel(cfg, seed=seed)
    old = dict(model.named_parameters())
    shared, fresh = [], []
    with torch.no_grad():
        for name, p in new.named_parameters():
            if name in old and old[name].shape == p.shape:
                p.copy_(old[name].detach())
                shared.append(name)
            else:
                fresh.append(name)
    return new.eval(), shared, fresh


def variant_equations(kind: str) -> list[str]:
    """LaTeX of each variant's recurrence (the notes' 004 forms)."""
    if kind == "jordan":
        return [r"a_t = W_x x_t + W_y\,y_{t-1} + b_h,\quad h_t=\tanh(a_t),\quad "
                r"y_t=\mathrm{softmax}(W_o h_t + b_o),\; y_0 = 0"]
    if kind == "bidirectional":
        return [r"\overrightarrow{h}_t=\tanh(W_x x_t + W_h \overrightarrow{h}_{t-1} + b_h)",
                r"\overleftarrow{h}_t=\tanh(W_x^{rev} x_t + W_h^{rev} \overleftarrow{h}_{t+1} + b_h^{rev})",
                r"h_t=[\overrightarrow{h}_t;\ \overleftarrow{h}_t]"]
    return [r"h_t=\tanh(W_x x_t + W_h h_{t-1} + b_h)"]


def variant_comparison(kind: str, h_cur: torch.Tensor, h_var: torch.Tensor, H: int) -> dict:
    """How a variant's states (T, H_out) relate to the current model's (T, H_out), first H units.

    Bidirectional: the forward half shares the weights, so it must equal the current states.
    Jordan: a different recurrence, so compare where they end: the final states.
    """
    return {"forward_max_diff": float((h_var[:, :H] - h_cur[:, :H]).abs().max()),
            "final_diff": float((h_var[-1, :H] - h_cur[-1, :H]).norm())}


# ---- try it by hand ---------------------------------------------------------------------

MISTAKES = ("forgot h_{t-1}", "forgot the bias", "applied tanh twice", "forgot tanh")
TOL = 0.01


@dataclasses.dataclass(frozen=True)
class Exercise:
    W_x: tuple   # (2, 2)
    W_h: tuple   # (2, 2)
    b: tuple     # (2,)
    x1: tuple    # (2,)
    x2: tuple    # (2,)


def _draw(rng: random.Random) -> Exercise:
    def num():
        return rng.choice([-1, 1]) * rng.randint(1, 9) / 10

    mat = lambda: ((num(), num()), (num(), num()))  # noqa: E731
    vec = lambda: (num(), num())  # noqa: E731
    return Exercise(mat(), mat(), vec(), vec(), vec())


def exercise_answers(ex: Exercise, mistake: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """h_1 and h_2 computed right, or with one of the MISTAKES (h_0 = 0)."""
    W_x, W_h, b = np.array(ex.W_x), np.array(ex.W_h), np.array(ex.b)
    h = np.zeros(2)
    out = []
    for x in (np.array(ex.x1), np.array(ex.x2)):
        a = W_x @ x + (0 if mistake == "forgot h_{t-1}" else W_h @ h) + (
            0 if mistake == "forgot the bias" else b)
        h = {"applied tanh twice": np.tanh(np.tanh(a)), "forgot tanh": a}.get(mistake, np.tanh(a))
        out.append(h)
    return out[0], out[1]


def make_exercise(seed: int) -> Exercise:
    """Fresh one-decimal numbers in which every mistake gives a visibly different answer."""
    rng = random.Random(seed)
    while True:
        ex = _draw(rng)
        cands = [np.concatenate(exercise_answers(ex, m)) for m in (None,) + MISTAKES]
        # forgot h_{t-1} only shows at step 2, so compare full (h_1, h_2) answers.
        if smallest_gap(cands) > 5 * TOL and np.abs(cands[0]).max() < 0.95:
            return ex


def check_exercise(ex: Exercise, h1, h2, tol: float = TOL) -> dict:
    """Which answer the learner's (h_1, h_2) matches: right, or one named mistake, or neither."""
    message = "Give two finite numbers for h_1 and two for h_2."
    given = [numbers(h1, (2,), message), numbers(h2, (2,), message)]
    right = exercise_answers(ex)
    slips = {m: exercise_answers(ex, m) for m in MISTAKES}
    ok, mistake = parts_match(given, right, slips, tol, only_wrong=True)
    return {"h1_ok": ok[0], "h2_ok": ok[1], "right": right, "mistake": mistake}


EXPLAIN = {
    "forgot h_{t-1}": "Your h_2 equals tanh(W_x x_2 + b_h): the term W_h h_1 is missing. "
                      "The previous state is what carries the context forward.",
    "forgot the bias": "Your numbers equal tanh(W_x x_t + W_h h_{t-1}) without b_h: add the bias "
                       "before the tanh.",
    "applied tanh twice": "Your numbers equal tanh(tanh(a_t)): tanh is applied once, to a_t; "
                          "h_{t-1} enters the next step as it is, not through another tanh.",
    "forgot tanh": "Your numbers equal a_t itself: h_t = tanh(a_t), apply tanh elementwise.",
}


HINT_KEYS = {"forgot h_{t-1}": "hidden.hint_forgot_h", "forgot the bias": "hidden.hint_forgot_bias",
             "applied tanh twice": "hidden.hint_tanh_twice", "forgot tanh": "hidden.hint_forgot_tanh"}


def check_exercise_verdict(ex: Exercise, h1, h2, tol: float = TOL) -> Verdict:
    """check_exercise as the shared exercise Verdict: the named mistake's explanation as the
    hint (hint_key names it in the catalogue, so it shows in the learner's language), the right
    (h_1, h_2) as the solution."""
    if any(x is None for x in list(h1) + list(h2)):  # an untouched box: nothing to grade yet
        return Verdict(None, "Fill in all four numbers first.", "hidden.fill_first")
    v = check_exercise(ex, h1, h2, tol)
    solution = f"h_1 = {vector(v['right'][0])}, h_2 = {vector(v['right'][1])}"
    if v["h1_ok"] and v["h2_ok"]:
        return Verdict(True, "Right: both steps match.", "hidden.hint_right", solution=solution)
    if v["mistake"]:
        return verdict(False, v["mistake"], EXPLAIN, HINT_KEYS, solution=solution)
    wrong = [name for name, ok in (("h₁", v["h1_ok"]), ("h₂", v["h2_ok"])) if not ok]
    verb = "differ" if len(wrong) > 1 else "differs"
    message = f"Not yet: {' and '.join(wrong)} {verb} from tanh(Wₓ xₜ + Wₕ hₜ₋₁ + bₕ)."
    key = "hidden.hint_not_yet_both" if len(wrong) > 1 else "hidden.hint_not_yet"
    return Verdict(False, message, key, {"wrong": wrong[0]}, solution=solution)


def largest_state(h: torch.Tensor) -> float:
    """max |h_t[j]| over the sentence's states (T, H): how close to tanh's bound they come."""
    return float(h.detach().abs().max())
