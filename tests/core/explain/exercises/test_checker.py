"""The one checker skeleton: numbers read strictly, parts matched within tol, slips in order,
and the Verdict's hint key and words."""
import numpy as np
import pytest

from rnnviz.errors import InputError
from rnnviz.explain.exercises.checker import first_slip, numbers, parts_match, smallest_gap, verdict
from rnnviz.explain.exercises.verdict import Verdict


def test_numbers_accepts_numbers_of_the_shape_only():
    assert numbers(["0.5", 2], (2,), "two").tolist() == [0.5, 2.0]
    assert numbers(np.array([1.0, -1.0]), (2,), "two").dtype == float
    for bad, said in ((["x", 1], "numbers"), ([1.0], "two"), ([1, 2, 3], "two"), ([np.nan, 0], "two"),
                      ([np.inf, 0], "two"), (None, "numbers")):
        with pytest.raises(InputError) as err:
            numbers(bad, (2,), "two", "numbers")
        assert str(err.value) == said, bad


def test_parts_match_names_the_first_fitting_slip():
    right = [np.array([0.1, 0.2]), np.array([0.3, 0.4])]
    slips = {"a": [np.array([0.1, 0.2]), np.array([9.0, 9.0])], "b": [np.array([5.0, 5.0]), np.array([9.0, 9.0])]}
    assert parts_match(right, right, slips, 0.01) == ([True, True], None)
    given = [np.array([0.1, 0.2]), np.array([9.0, 9.005])]
    assert parts_match(given, right, slips, 0.01) == ([True, False], "a")
    assert parts_match(given, right, {"b": slips["b"]}, 0.01) == ([True, False], None)
    # only_wrong: a right part is not compared with the slip's
    assert parts_match(given, right, {"b": slips["b"]}, 0.01, only_wrong=True) == ([True, False], "b")


def test_first_slip_and_verdict():
    assert first_slip([(False, "a"), (True, "b"), (True, "c")], "other") == "b"
    assert first_slip([], "other") == "other"
    v = verdict(False, "n", {"n": "There are {n} steps; c_{t-1} stays."}, "bptt.hint.", {"n": 3}, "x = 1")
    assert v == Verdict(False, "There are 3 steps; c_{t-1} stays.", "bptt.hint.n", {"n": 3}, "x = 1")
    v = verdict(True, "ok", {"ok": "Right."}, {"ok": "gates.ex_right"})
    assert v.ok and v.hint_key == "gates.ex_right" and v.message == "Right." and v.values == {}


def test_smallest_gap_is_the_closest_pair_of_answers():
    """By hand: the pairs' largest differences are 0.5 (first, second), 3 (first, third) and 2.5."""
    answers = [np.array([1.0, 2.0]), np.array([1.5, 2.0]), np.array([1.0, -1.0])]
    assert smallest_gap(answers) == 0.5
    assert smallest_gap(answers[::2]) == 3.0
    assert smallest_gap([np.zeros(3), np.zeros(3)]) == 0.0
