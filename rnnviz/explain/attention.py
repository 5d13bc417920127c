"""Page 9, attention over the hidden states: what the page computes beyond the engine.

The model (RNNConfig(attention=True), rnnviz.engine.model) reads, at step t,
s_{t,j} = h_t . W_a h_j for j <= t, alpha_t = softmax(s_t), c_t = sum_j alpha_{t,j} h_j and
z_t = W_o [h_t; c_t] + b_o. The recurrence is the plain one: c_t is not fed back.

The path argument. L_T (the loss of the last step that has a target) reads h_T and c_T only.
h_1 reaches it along every path h_1 -> h_2 -> ... -> h_k -> c_T -> z_T (k = 1..T: the path
leaves the recurrence at step k into the context) and along the one path that never leaves it,
h_1 -> ... -> h_T -> z_T. So dL_T/dh_1 splits exactly into
    recurrent  = P_T^T W_oh^T e_T                   (T - 1 step Jacobians)
    attention_k = P_k^T (dc_T/dh_k)^T W_oc^T e_T    (k - 1 step Jacobians, then one hop)
with P_k = dh_k/dh_1 (the product of step Jacobians; the LSTM's on [h; c] with c_1 held),
e_T = p_T - y_T and W_o = [W_oh | W_oc]. attention_1 is the short path: one hop, no product.
dc_T/dh_k counts h_k as a value (alpha_k), as a key (through s_k) and, for k = T, as the query.
"""
from __future__ import annotations

import copy
import dataclasses
import random

import numpy as np
import torch

from rnnviz.conventions import IGNORE
from rnnviz.engine.jacobians import step_jacobians
from rnnviz.engine.model import RNNModel
from rnnviz.engine.trace import Trace, trace
from rnnviz.errors import InputError
from rnnviz.explain import longrange
from rnnviz.explain.exercises.checker import smallest_gap
from rnnviz.explain.exercises.verdict import Verdict
from rnnviz.formatting import vector
from rnnviz.store.catalog import ATTENTION_OF_LANG, ATTENTION_TWIN_OF

LENGTHS = (10, 25, 50, 100, 200)  # the sentence lengths of the comparison (page 8's distances)


def twin_choice(key: str, has_attention: bool, lang: str) -> dict:
    """Which attention model page 9 reads the sentence with. The current model itself when it
    has attention ("use": "current"); else the built-in twin of its tokenizer (the subword
    family -> the subword twin, the Chinese model -> the Chinese twin; matched True); else
    (a model with no twin) the twin of the learner's language, matched False (the page says so)."""
    if has_attention:
        return {"use": "current", "twin": None, "matched": True}
    if key in ATTENTION_TWIN_OF:
        return {"use": "twin", "twin": ATTENTION_TWIN_OF[key], "matched": True}
    return {"use": "twin", "twin": ATTENTION_OF_LANG.get(lang, ATTENTION_OF_LANG["en"]), "matched": False}


def page8_curves(results: dict) -> dict:
    """Page 8's measured ||dL/dx_1|| of the untrained Elman, LSTM and GRU on the long-range task
    (the "fixed" schedule of longrange.json), {cell: [(distance, norm), ...]} sorted by distance."""
    out: dict = {}
    for r in (results.get("fixed") or {}).get("rows", []):
        out.setdefault(r["cell"], []).append((int(r["distance"]), float(r["grad_first_before"]["first"])))
    return {c: sorted(v) for c, v in out.items()}


def task_rows(results: dict) -> list[dict]:
    """Page 8's "fixed" long-range rows with the attention rows beside them (as one experiment,
    so page 8's figures draw the four cells together), in longrange.result_rows' form."""
    fixed = [r for r in longrange.result_rows(results) if r["experiment"] == "fixed"]
    attn = [{**r, "experiment": "fixed"} for r in longrange.result_rows(results)
            if r["experiment"] == longrange.ATTENTION]
    return fixed + attn


def task_findings(rows: list[dict]) -> dict:
    """From task_rows: learned[cell] = the largest distance learned (accuracy >= longrange.LEARNED,
    0 if none) and grad[cell] = ||dL/dx_1|| at initialisation at the largest distance measured."""
    cells = list(dict.fromkeys(r["cell"] for r in rows))
    far = max((r["distance"] for r in rows), default=0)
    return {"learned": {c: max([r["distance"] for r in rows if r["cell"] == c
                                and r["accuracy"] >= longrange.LEARNED], default=0) for c in cells},
            "grad": {r["cell"]: r["grad_first_before"] for r in rows if r["distance"] == far},
            "far": far}


def require_attention(model: RNNModel) -> None:
    if not model.cfg.attention:
        raise InputError("This view needs a model with attention (RNNConfig(attention=True)).")


def last_target_trace(model: RNNModel, ids, target: int) -> Trace:
    """Float64 trace of ids (T,) with one loss: at the last step, predicting `target`."""
    ids = torch.as_tensor(ids, dtype=torch.long)
    targets = torch.full_like(ids, IGNORE)
    targets[-1] = int(target)
    return trace(copy.deepcopy(model).double(), ids, targets)


def path_split(model: RNNModel, ids, target: int, source: int = 0) -> dict:
    """dL_T/dh_s split into the recurrent path and the attention paths (module docstring, with
    h_s in place of h_1: s = `source`, 0-based; 1 skips a <bos> in front).

    ids (T,) are the inputs, target the token predicted at the last step. Returns float64:
    recurrent (H,), attention (T, H) (row k: the path that leaves the recurrence at h_k into c_T,
    zero for k < s), total (H,) (their sum; equal to autograd's dL_T/dh_s,
    tests/core/test_attention.py), the norms recurrent_norm, direct_norm (k = s: one hop),
    later_norm (k > s summed), attention_norm (all k), total_norm, top_k (the step whose path
    carries the most) with top_jacobians (k - s) and top_weight (alpha_{T,k}), and T, source,
    loss (L_T), weights (alpha_T, (T,))."""
    require_attention(model)
    m = copy.deepcopy(model).double()
    tr = last_target_trace(m, ids, target)
    H, T = m.cfg.hidden_size, tr.T
    if not 0 <= source < T:
        raise InputError(f"Choose a source step from 1 to {T}.")
    with torch.no_grad():
        e = tr.grad_z[T - 1]  # (K,) = p_T - y_T
        W_oh, W_oc = m.W_o[:, :H], m.W_o[:, H:]
        g_h, g_c = e @ W_oh, e @ W_oc  # (H,) each
        h, alpha, c = tr.h, tr.attn_weights[T - 1], tr.context[T - 1]  # (T, H), (T,), (H,)
        W_a = m.W_a
        g_s = alpha * ((h - c) @ g_c)  # (T,) dL_T/ds_{T,j}
        q = h[T - 1]
        u = alpha[:, None] * g_c + g_s[:, None] * (q @ W_a)[None, :]  # value and key roles
        u[T - 1] += W_a @ (g_s @ h)  # h_T is also the query
        J = step_jacobians(m, tr)  # (T, S, S), S = H or 2H (LSTM: [h; c])
        S = J.shape[-1]
        P = torch.eye(S, dtype=J.dtype)[:, :H]  # d state_s / d h_s (c_s held)
        attention = torch.zeros(T, H, dtype=J.dtype)
        attention[source] = u[source]
        for k in range(source + 1, T):
            P = J[k] @ P  # d state_k / d h_s
            attention[k] = u[k] @ P[:H]
        recurrent = g_h @ P[:H]
    total = recurrent + attention.sum(0)
    parts = attention.norm(dim=1)
    top = int(parts.argmax())
    return {"T": T, "source": source, "loss": float(tr.loss), "recurrent": recurrent,
            "attention": attention, "total": total, "weights": alpha.clone(),
            "recurrent_norm": float(recurrent.norm()), "direct_norm": float(parts[source]),
            "later_norm": float(attention[source + 1:].sum(0).norm()),
            "attention_norm": float(attention.sum(0).norm()), "total_norm": float(total.norm()),
            "top_k": top, "top_jacobians": top - source, "top_weight": float(alpha[top])}


def last_loss(tr: Trace) -> tuple[list[int], int] | None:
    """(inputs up to the last step that has a target, that target): what path_split reads for
    a sentence's L_T. None when no step has a target (a one-token sentence)."""
    steps = tr.valid.nonzero().flatten()
    if steps.numel() == 0:
        return None
    q = int(steps[-1])
    return tr.ids[:q + 1].tolist(), int(tr.targets[q])


def cycled(ids, length: int) -> list[int]:
    """The sentence's ids repeated until `length` ids (a sentence of any length from this one)."""
    ids = [int(i) for i in ids]
    if not ids:
        raise InputError("There are no tokens to run.")
    return [ids[k % len(ids)] for k in range(length)]


def length_comparison(model: RNNModel, ids, lengths=LENGTHS, source: int = 0) -> list[dict]:
    """For each T in lengths: the first `source` ids kept (a <bos>), the rest of the sentence
    cycled so that T inputs and one more token follow, L_T predicting that token from the T
    inputs, and path_split's norms from h_source. One row per T."""
    ids = [int(i) for i in ids]
    head, body = ids[:source], ids[source:]
    rows = []
    for T in lengths:
        seq = head + cycled(body, int(T) + 1 - len(head))
        s = path_split(model, seq[:-1], seq[-1], source)
        rows.append({"T": int(T), **{k: s[k] for k in ("recurrent_norm", "direct_norm", "later_norm",
                                                          "attention_norm", "total_norm", "top_k",
                                                          "top_jacobians", "top_weight")}})
    return rows


def step_weights(tr: Trace, t: int) -> dict:
    """Query step t (0-based): the scores and weights over keys 1..t+1, and the context (H,)."""
    if tr.attn_weights is None:
        raise InputError("This trace has no attention.")
    if not 0 <= t < tr.T:
        raise InputError(f"Choose a step from 1 to {tr.T}.")
    return {"scores": tr.attn_scores[t, :t + 1].clone(), "weights": tr.attn_weights[t, :t + 1].clone(),
            "context": tr.context[t].clone(), "h": tr.h[t].clone()}


def weights_matrix(tr: Trace) -> np.ndarray:
    """alpha as a (T, T) float array with NaN above the diagonal (masked keys: no weight at all)."""
    a = tr.attn_weights.detach().double().numpy().copy()
    a[np.triu_indices(tr.T, 1)] = np.nan
    return a


def cost(T: int, H: int) -> dict:
    """Multiply-adds of one sentence: the recurrence's W_h h_{t-1} (T H^2) against attention's
    keys W_a h_j (T H^2), scores (T(T+1)/2 dot products of length H) and contexts (the same
    count again). Scores alone grow as T^2; they pass the recurrence's T H^2 when (T+1)/2 > H."""
    n_scores = T * (T + 1) // 2
    return {"T": T, "H": H, "n_scores": n_scores, "recurrent_madds": T * H * H,
            "keys_madds": T * H * H, "score_madds": n_scores * H, "context_madds": n_scores * H,
            "attention_madds": T * H * H + 2 * n_scores * H,
            "scores_exceed_recurrence_from": 2 * H}


# ---- one attention step by hand -------------------------------------------------------------

MISTAKES = ("forgot the mask", "forgot the softmax", "used h_t for every key")
HINT_CODES = {"forgot the mask": "no_mask", "forgot the softmax": "no_softmax",
              "used h_t for every key": "query_keys"}
TOL = 0.01
QUERY = 2  # the query step (1-based) of the 3-step example: h_3 exists but is masked


@dataclasses.dataclass(frozen=True)
class AttentionExercise:
    h: tuple    # three hidden states h_1, h_2, h_3, each (2,)
    W_a: tuple  # (2, 2)


def exercise_answers(ex: AttentionExercise, mistake: str | None = None) -> dict:
    """scores (over the keys used), weights and context (2,) at query step QUERY, right or with
    one of the MISTAKES."""
    h, W_a = np.array(ex.h, dtype=float), np.array(ex.W_a, dtype=float)
    q = h[QUERY - 1]
    keys = h if mistake == "forgot the mask" else h[:QUERY]
    if mistake == "used h_t for every key":
        s = np.array([q @ W_a @ q for _ in keys])
    else:
        s = np.array([q @ W_a @ k for k in keys])
    w = s if mistake == "forgot the softmax" else np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    return {"scores": s, "weights": w, "context": w @ keys}


def make_exercise(seed: int) -> AttentionExercise:
    """Small one-decimal numbers where every slip gives a visibly different context."""
    rng = random.Random(seed)

    def val():
        return rng.choice([-1, 1]) * rng.randint(1, 15) / 10

    while True:
        ex = AttentionExercise(tuple(tuple(val() for _ in range(2)) for _ in range(3)),
                               tuple(tuple(val() for _ in range(2)) for _ in range(2)))
        cands = [exercise_answers(ex, m)["context"] for m in (None,) + MISTAKES]
        right = exercise_answers(ex)
        if smallest_gap(cands) > 5 * TOL and np.abs(np.diff(right["scores"])).min() > 0.1:
            return ex


def check_verdict(ex: AttentionExercise, answer, tol: float = TOL) -> Verdict:
    """answer = (alpha_1, alpha_2, c_1, c_2): the weights on keys 1 and 2 at query step 2 and
    the context. hint_key "attention.ex_hint.<code>" names the slip, "attention.ex_hint.weights"
    / "attention.ex_hint.context" otherwise, "attention.ex_right" when right."""
    if answer is None or len(answer) != 4 or any(v is None for v in answer):
        raise InputError("Give two weights and the two numbers of the context.")
    given = np.asarray(answer, dtype=float)
    if not np.isfinite(given).all():
        raise InputError("Give finite numbers.")
    right = exercise_answers(ex)
    solution = (f"s = {vector(right['scores'])}, alpha = {vector(right['weights'])}, "
                f"c_2 = {vector(right['context'])}")
    values = {"s": vector(right["scores"]), "alpha": vector(right["weights"]),
              "c": vector(right["context"])}
    w_ok = bool(np.abs(given[:2] - right["weights"]).max() <= tol)
    c_ok = bool(np.abs(given[2:] - right["context"]).max() <= tol)
    if w_ok and c_ok:
        return Verdict(True, f"Right: {solution}.", "attention.ex_right", values, solution)
    for m in MISTAKES:
        cand = exercise_answers(ex, m)
        if np.abs(given[2:] - cand["context"]).max() <= tol:
            return Verdict(False, EXPLAIN[m], f"attention.ex_hint.{HINT_CODES[m]}", values, solution)
    if not w_ok:
        return Verdict(False, "The weights are not yet right: alpha_j = exp(s_j) / sum_k exp(s_k) "
                              "over j <= 2, with s_j = h_2 . W_a h_j.", "attention.ex_hint.weights",
                       values, solution)
    return Verdict(False, "The weights are right; the context is not: c_2 = alpha_1 h_1 + alpha_2 h_2.",
                   "attention.ex_hint.context", values, solution)


EXPLAIN = {
    "forgot the mask": "Your context also reads h_3: at step 2 the model has not read step 3 yet; "
                       "the causal mask keeps j <= 2 only.",
    "forgot the softmax": "Your context uses the raw scores as weights: turn them into weights "
                          "first, alpha = softmax(s) (positive, summing to 1).",
    "used h_t for every key": "Your weights are all equal: each score pairs the query h_2 with a "
                              "different key, s_j = h_2 . W_a h_j, not h_2 . W_a h_2.",
}


def attention_part_norms(split: dict) -> list[float]:
    """||one attention path's part|| for each key step k of a path_split (its "attention" rows)."""
    return split["attention"].norm(dim=1).tolist()


def top_key(weights: torch.Tensor) -> int:
    """The key step that one query's attention weights favour most (0-based)."""
    return int(weights.argmax())
