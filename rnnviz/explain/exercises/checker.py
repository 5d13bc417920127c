"""The one skeleton of every "try it by hand" checker: read the learner's numbers (a clear
InputError when they are not numbers of the right shape), find what they match (the right
answer, a named slip, or nothing), and answer with a Verdict whose hint_key names the hint in
the page's catalogue. Each page's checker supplies only its answers, its slips and its words:
hidden.check_exercise_verdict, exercises.gates.check_verdict, slots.check_jordan,
bptt.check_chain (output.check_loss / check_grad and embedding.check_answer parse text).
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rnnviz.errors import InputError
from rnnviz.explain.exercises.verdict import Verdict


def smallest_gap(answers) -> float:
    """The smallest largest-entry difference between any two of the answers (the right one and
    each slip's): an exercise is drawn again until it clears the page's margin, so that every
    slip gives a visibly different answer."""
    return min(float(np.abs(np.asarray(answers[a]) - np.asarray(answers[b])).max())
               for a in range(len(answers)) for b in range(a + 1, len(answers)))


def numbers(values, shape: tuple, message: str, not_numbers: str | None = None) -> np.ndarray:
    """The learner's values as a float array of `shape`, every entry finite. Anything else is an
    InputError: `not_numbers` (or `message`) when they are not numbers at all, else `message`."""
    try:
        got = np.asarray([float(v) for v in np.ravel(np.asarray(values, dtype=object))], dtype=float)
    except (TypeError, ValueError):
        raise InputError(not_numbers or message) from None
    if got.size != int(np.prod(shape)) or np.asarray(values, dtype=object).shape != shape \
            or not np.isfinite(got).all():
        raise InputError(message)
    return got.reshape(shape)


def parts_match(given: list, right: list, slips: dict, tol: float,
                only_wrong: bool = False) -> tuple[list[bool], str | None]:
    """An answer in parts (h_1 and h_2; c_t and h_t): which parts are right within tol, and the
    first named slip whose answer (slips: name -> parts) the learner's matches, on every part or,
    with only_wrong, on the wrong parts alone (None when right or no slip fits)."""
    ok = [bool(np.abs(g - r).max() <= tol) for g, r in zip(given, right)]
    if all(ok):
        return ok, None
    for name, cand in slips.items():
        if all(np.abs(g - c).max() <= tol for g, c, k in zip(given, cand, ok) if not (only_wrong and k)):
            return ok, name
    return ok, None


def every_slip(parts: Iterable[Verdict], right: Verdict, solution: str | None = None) -> Verdict:
    """One Verdict for an answer in parts, each checked on its own: `right` when every part is
    right; else the first wrong part's Verdict carrying the other wrong parts in `more` (and
    their hints in its message), so the learner hears of every slip at once; ok None while a
    part is still empty and none is wrong."""
    parts = list(parts)
    wrong = [v for v in parts if v.ok is False]
    if wrong:
        first = wrong[0]
        message = " ".join(v.message for v in wrong)
        return Verdict(False, message, first.hint_key, first.values, solution, tuple(wrong[1:]))
    if parts and all(v.ok for v in parts):
        return Verdict(True, right.message, right.hint_key, right.values, solution)
    return Verdict(None, "", solution=solution)


def first_slip(tests: Iterable[tuple[bool, str]], otherwise: str) -> str:
    """The first slip whose test holds ((hit, name) in order), else `otherwise`."""
    return next((name for hit, name in tests if hit), otherwise)


class _Kept(dict):
    def __missing__(self, name: str) -> str:
        return "{" + name + "}"


def verdict(ok: bool | None, key: str, hints: dict[str, str], keys: str | dict, values: dict | None = None,
            solution: str | None = None) -> Verdict:
    """The Verdict of slip `key`: the English hint hints[key] (filled with values, if any), the
    catalogue key that says the same words (keys + key, or keys[key] for a table of keys), and the
    worked solution."""
    values = values or {}
    message = hints[key].format_map(_Kept(values))  # a formula's braces (c_{t-1}) stay as written
    return Verdict(ok, message, keys[key] if isinstance(keys, dict) else f"{keys}{key}", values, solution)
