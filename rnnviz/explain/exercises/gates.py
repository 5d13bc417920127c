"""'Try it by hand' for one LSTM step: c_t and h_t from small numbers, the slip named.

Given the four gate pre-activations A_i, A_f, A_g, A_o (H = 2, one decimal each) and
c_{t-1}, the learner computes c_t = sigma(A_f) * c_{t-1} + sigma(A_i) * tanh(A_g) and
h_t = sigma(A_o) * tanh(c_t). The checker returns the same kind of verdict as
rnnviz.explain.hidden.check_exercise: which parts are right, the right answer, and the named
mistake whose answer the learner's numbers match (or None).
"""
from __future__ import annotations

import dataclasses
import random

import numpy as np

from rnnviz.errors import InputError
from rnnviz.explain.exercises.checker import numbers, parts_match, smallest_gap, verdict
from rnnviz.explain.exercises.verdict import Verdict
from rnnviz.formatting import vector

MISTAKES = ("forgot the forget gate", "sigmoid on g", "tanh on the gates", "applied tanh to c twice",
            "used c_{t-1} for h", "forgot tanh on c", "forgot the output gate")
TOL = 0.01


@dataclasses.dataclass(frozen=True)
class LSTMExercise:
    A_i: tuple     # (2,) pre-activations of the input gate
    A_f: tuple     # (2,) forget gate
    A_g: tuple     # (2,) candidate
    A_o: tuple     # (2,) output gate
    c_prev: tuple  # (2,) c_{t-1}


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def exercise_answers(ex: LSTMExercise, mistake: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(c_t, h_t), each (2,), computed right or with one of the MISTAKES."""
    A_i, A_f, A_g, A_o, c_prev = (np.array(v, dtype=float) for v in
                                  (ex.A_i, ex.A_f, ex.A_g, ex.A_o, ex.c_prev))
    gate = np.tanh if mistake == "tanh on the gates" else _sigmoid
    i, f, o = gate(A_i), gate(A_f), gate(A_o)
    g = _sigmoid(A_g) if mistake == "sigmoid on g" else np.tanh(A_g)
    c = (c_prev if mistake == "forgot the forget gate" else f * c_prev) + i * g
    h = {"applied tanh to c twice": o * np.tanh(np.tanh(c)),
         "used c_{t-1} for h": o * np.tanh(c_prev),
         "forgot tanh on c": o * c,
         "forgot the output gate": np.tanh(c)}.get(mistake, o * np.tanh(c))
    return c, h


def _draw(rng: random.Random) -> LSTMExercise:
    def vec():
        return tuple(rng.choice([-1, 1]) * rng.randint(1, 20) / 10 for _ in range(2))

    return LSTMExercise(vec(), vec(), vec(), vec(), vec())


def make_exercise(seed: int) -> LSTMExercise:
    """Fresh numbers in which every mistake gives a visibly different (c_t, h_t)."""
    rng = random.Random(seed)
    while True:
        ex = _draw(rng)
        cands = [np.concatenate(exercise_answers(ex, m)) for m in (None,) + MISTAKES]
        if smallest_gap(cands) > 5 * TOL:
            return ex


def check_exercise(ex: LSTMExercise, c, h, tol: float = TOL) -> dict:
    """Which answer the learner's (c_t, h_t) matches: right, one named mistake, or neither.
    Returns c_ok, h_ok, right (c, h) and mistake (a MISTAKES name or None)."""
    message, not_numbers = "Give two finite numbers for c_t and two for h_t.", "Give numbers for c_t and h_t."
    given = [numbers(c, (2,), message, not_numbers), numbers(h, (2,), message, not_numbers)]
    right = exercise_answers(ex)
    ok, mistake = parts_match(given, right, {m: exercise_answers(ex, m) for m in MISTAKES}, tol)
    return {"c_ok": ok[0], "h_ok": ok[1], "right": right, "mistake": mistake}


EXPLAIN = {
    "forgot the forget gate": "Your c_t equals c_{t-1} + i * g: the old cell state must first be "
                              "scaled by the forget gate, c_t = f * c_{t-1} + i * g.",
    "sigmoid on g": "Your numbers use sigma(A_g) for the candidate: g is new CONTENT and goes "
                    "through tanh (values in -1..1); only i, f, o are sigmoid gates (0..1).",
    "tanh on the gates": "Your numbers put i, f, o through tanh: gates are sigmoids, fractions "
                         "from 0 (closed) to 1 (open).",
    "applied tanh to c twice": "Your h_t equals o * tanh(tanh(c_t)): c_t itself is not squashed; "
                               "tanh is applied once, when h_t is read out.",
    "used c_{t-1} for h": "Your h_t equals o * tanh(c_{t-1}): h_t reads the NEW cell state c_t.",
    "forgot tanh on c": "Your h_t equals o * c_t: squash the cell state first, h_t = o * tanh(c_t).",
    "forgot the output gate": "Your h_t equals tanh(c_t): multiply by the output gate o.",
}


# ---- the verdict page 8 shows (ui.widgets.exercise) ----------------------------------------

HINT_CODES = {"forgot the forget gate": "no_forget", "sigmoid on g": "sigmoid_g",
              "tanh on the gates": "tanh_gates", "applied tanh to c twice": "tanh_twice",
              "used c_{t-1} for h": "old_c", "forgot tanh on c": "no_tanh_c",
              "forgot the output gate": "no_output"}  # MISTAKES -> catalogue key suffix


def check_verdict(ex: LSTMExercise, answer, tol: float = TOL):
    """answer = (c_1, c_2, h_1, h_2) -> Verdict. hint_key names the catalogue hint
    ("gates.ex_hint.<code>" for a named slip, "gates.ex_hint.c_wrong" / "h_wrong" otherwise,
    "gates.ex_right" when right); message is the English hint; solution the worked numbers."""

    if answer is None or len(answer) != 4 or any(v is None for v in answer):
        raise InputError("Give two numbers for c_t and two for h_t.")
    v = check_exercise(ex, list(answer[:2]), list(answer[2:]), tol)
    c, h = v["right"]
    solution = f"c_t = {vector(c)}, h_t = {vector(h)}"
    values = {"c": vector(c), "h": vector(h)}
    if v["c_ok"] and v["h_ok"]:
        return Verdict(True, f"Right: {solution}.", "gates.ex_right", values, solution)
    if v["mistake"]:
        keys = {m: f"gates.ex_hint.{code}" for m, code in HINT_CODES.items()}
        return verdict(False, v["mistake"], EXPLAIN, keys, values, solution)
    if not v["c_ok"]:
        return Verdict(False, "c_t is not yet right: c_t = f * c_{t-1} + i * g, with i, f = "
                              "sigma(A), g = tanh(A_g).", "gates.ex_hint.c_wrong", values, solution)
    return Verdict(False, "c_t is right; h_t is not: h_t = o * tanh(c_t).", "gates.ex_hint.h_wrong",
                   values, solution)
