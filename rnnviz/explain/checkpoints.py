"""Predict, then reveal: one question per page about what the next figure will show, for the
learner's own sentence and model, with its answer computed live.

A Question carries its catalogue keys (`checkpoint.<page>.ask` / `.why`, filled with `values`),
its options (codes: "t3" is step 3, "lstm", ...), the options that are right (a tie makes several
right), and the numbers of the one-sentence "why". A numeric question (kind "number", page 4's
log10 of a gradient norm) has no options: its `target` and a tolerance `tol` computed live;
an answer within `tol` of the target is right, and is stored as its text (number_text). The
Streamlit layer draws it (ui/checkpoint.py); nothing here knows about widgets. Token texts in
`values` and `labels` are the learner's: the page escapes them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from rnnviz.formatting import num

TOL_FLOOR = 0.5  # page 4: log10 within half an order of magnitude (a factor of about 3) ...
TOL_SHARE = 0.1  # ... or within a tenth of the exponent, for norms far below 1 (long sentences)
MAX_STEP_OPTIONS = 12  # a longer sentence offers its first 12 steps (the answer is among them)
CELLS = ("elman", "lstm", "gru")
KEYS = ("checkpoint_embedding_1", "checkpoint_hidden_1", "checkpoint_output_1", "checkpoint_bptt_1",
        "checkpoint_gates_1")  # one per page: 1, 2, 3, 4, 8
NUMERIC = frozenset({"checkpoint_bptt_1"})  # answered with a number (the teacher sees a histogram)


@dataclass(frozen=True)
class Question:
    key: str  # the widget key: checkpoint_<page>_<n>
    page: str
    options: tuple[str, ...]  # answer codes
    labels: tuple[str, ...]  # what each option shows: a token ("3 · dog") or "" (the catalogue names it)
    right: tuple[str, ...]  # the right codes (several on a tie)
    values: dict = field(default_factory=dict)  # the question's placeholders
    why: dict = field(default_factory=dict)  # the explanation's placeholders
    kind: str = "choice"  # or "number": no options, a target and a tolerance
    target: float = math.nan
    tol: float = 0.0

    @property
    def truth(self) -> str:
        return number_text(self.target) if self.kind == "number" else self.right[0]

    def label_of(self, code: str) -> str:
        return self.labels[self.options.index(code)] if code in self.options else ""


def number_text(x: float) -> str:
    """A numeric answer as stored and shown: up to 4 significant digits ('-3.25')."""
    return f"{float(x):.4g}"


def parse_number(answer) -> float | None:
    """A numeric answer (a float, or its text) as a finite float; None when it is not one."""
    try:
        x = float(answer)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def grade(q: Question, answer) -> bool:
    if q.kind == "number":
        x = parse_number(answer)
        return x is not None and abs(x - q.target) <= q.tol
    return answer is not None and answer in q.right


def step_label(t: int, token: str) -> str:
    """'3 · dog' for the 0-based step t."""
    return f"{t + 1} · {token}"


def _argmax_codes(values: dict[str, float]) -> tuple[str, ...]:
    finite = {k: v for k, v in values.items() if math.isfinite(v)}
    if not finite:
        return ()
    best = max(finite.values())
    return tuple(k for k, v in finite.items() if np.isclose(v, best, rtol=1e-9, atol=0.0))


def _step_options(T: int, must: int) -> list[int]:
    """The steps offered: all of them, or the first MAX_STEP_OPTIONS with `must` among them."""
    steps = list(range(min(T, MAX_STEP_OPTIONS)))
    if must not in steps:
        steps[-1] = must
    return steps


def embedding_question(E, ids, step: int, itos) -> Question | None:
    """Page 1: among the other words of the sentence, whose row of E has the largest cosine
    with the row of the word at `step`? None when the sentence has no other word."""
    E = torch.as_tensor(E, dtype=torch.float64)
    ids = [int(i) for i in ids]
    me = ids[step]
    others = [i for i in dict.fromkeys(ids) if i != me][:MAX_STEP_OPTIONS]
    if not others:
        return None
    n = E.norm(dim=1)
    cos = {f"w{i}": float(E[me] @ E[i] / (n[me] * n[i])) if n[me] > 0 and n[i] > 0 else float("nan")
           for i in others}
    right = _argmax_codes(cos)
    if not right:
        return None
    best = right[0]
    ranked = sorted((v, k) for k, v in cos.items() if math.isfinite(v))
    low_v, low = ranked[0]
    return Question("checkpoint_embedding_1", "embedding", tuple(cos), tuple(itos[i] for i in others), right,
                    values={"word": itos[me]},
                    why={"word": itos[me], "best": itos[int(best[1:])], "cos": num(cos[best], 3),
                         "worst": itos[int(low[1:])], "low": num(low_v, 3)})


def hidden_question(h, tokens) -> Question | None:
    """Page 2: at which step is the largest |h_t,j| of the heatmap? h: (T, H). None when no
    value is finite (a diverged model)."""
    a = np.abs(np.asarray(h, dtype=float))  # (T, H)
    a = np.where(np.isfinite(a), a, -np.inf)
    per_step = a.max(axis=1)  # (T,)
    if not np.isfinite(per_step).any():
        return None
    t_best = int(np.argmax(per_step))
    steps = _step_options(len(per_step), t_best)
    right = _argmax_codes({f"t{t}": float(per_step[t]) for t in steps})
    unit = int(a[t_best].argmax())
    return Question("checkpoint_hidden_1", "hidden", tuple(f"t{t}" for t in steps),
                    tuple(step_label(t, tokens[t]) for t in steps), right,
                    values={"H": a.shape[1]},
                    why={"t": t_best + 1, "token": tokens[t_best], "unit": unit + 1,
                         "value": num(float(a[t_best, unit]), 3), "first": num(float(per_step[0]), 3)})


def output_question(loss_t, valid, tokens, targets) -> Question | None:
    """Page 3: which step's loss L_t = -ln p_t(target) is the largest? None without a finite loss."""
    loss = np.asarray(loss_t, dtype=float)
    ok = np.asarray(valid, dtype=bool) & np.isfinite(loss)
    if not ok.any():
        return None
    t_best = int(np.argmax(np.where(ok, loss, -np.inf)))
    steps = [t for t in _step_options(len(loss), t_best) if ok[t]]
    right = _argmax_codes({f"t{t}": float(loss[t]) for t in steps})
    return Question("checkpoint_output_1", "output", tuple(f"t{t}" for t in steps),
                    tuple(f"{step_label(t, tokens[t])} → {targets[t]}" for t in steps), right,
                    why={"t": t_best + 1, "token": tokens[t_best], "target": targets[t_best],
                         "loss": num(float(loss[t_best]), 3), "p": num(math.exp(-float(loss[t_best])), 3)})


def log_tolerance(target: float) -> float:
    """How far a guess of a log10 may be from it and still count: half an order of magnitude,
    or a tenth of the exponent when that is more (a norm of 1e-40 within a factor of 1e4)."""
    return max(TOL_FLOOR, TOL_SHARE * abs(target))


def bptt_question(N, first: int, scale: float) -> Question | None:
    """Page 4, a number: log10 ||dh_T/dh_first|| at this W_h scale. N: (w, w) all-pairs spectral
    norms over steps first..T (1-based), N[s, t] = ||dh_s/dh_t||. None for a one-step window or
    a norm whose log is not finite (exactly 0, or a diverged model)."""
    N = torch.as_tensor(N, dtype=torch.float64)
    w = N.shape[0]
    if w < 2:
        return None
    value = float(N[-1, 0])
    if not (math.isfinite(value) and value > 0):
        return None
    target = math.log10(value)
    tol = log_tolerance(target)
    T = first + w - 1
    return Question("checkpoint_bptt_1", "bptt", (), (), (), kind="number", target=target, tol=tol,
                    values={"T": T, "first": first, "scale": f"{scale:g}", "tol": num(tol, 2)},
                    why={"T": T, "first": first, "value": num(value, 3), "log": num(target, 4),
                         "n": w - 1, "per_step": num(value ** (1.0 / (w - 1)), 3), "scale": f"{scale:g}",
                         "tol": num(tol, 2)})


def gates_question(reach: dict[str, float]) -> Question | None:
    """Page 8: which cell keeps more of the first word: the largest ||dh_T/dx_1|| / ||dh_T/dx_T||."""
    right = _argmax_codes({c: float(reach[c]) for c in CELLS})
    if not right:
        return None
    return Question("checkpoint_gates_1", "gates", CELLS, ("", "", ""), right,
                    why={"best": right[0], **{f"r_{c}": num(float(reach[c]), 3) for c in CELLS}})
