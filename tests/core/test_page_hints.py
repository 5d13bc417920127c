"""The BPTT and slot exercises name each slip by a catalogue key whose English text is the
checker's own message, and every language has it (with the same placeholders)."""
import numpy as np

from rnnviz.explain import bptt as chains
from rnnviz.explain import slots
from ui.i18n import text_for


def test_chain_slips_have_keys_matching_the_message():
    ex = {"w": 0.5, "n": 3, "slopes": [0.9, 0.8, 0.5], "answer": 0.045}
    for answer, key in ((0.045, "right"), (0.125, "w_only"), (-0.045, "sign"), (1.1, "added"),
                        (0.36, "slopes_only"), (float("nan"), "nan"), (7.0, "other")):
        v = chains.check_chain(ex, answer)
        assert v.hint_key == f"bptt.hint.{key}", (answer, v.hint_key)
        assert text_for("en", v.hint_key, **v.values) == v.message
        assert text_for("zh", v.hint_key, **v.values) != v.message  # translated
    assert chains.check_chain(ex, 0.045).ok and not chains.check_chain(ex, 0.125).ok


def test_jordan_slips_have_keys_matching_the_message():
    ex = slots.jordan_exercise(0)
    feedback = ex.W_y @ ex.y_prev
    cases = {"right": ex.answer(), "no_feedback": ex.W_x @ ex.x + ex.b, "no_bias": ex.W_x @ ex.x + feedback,
             "flipped": -ex.answer(), "other": ex.answer() + np.array([100.0, 0.0])}
    for key, a in cases.items():
        v = slots.check_jordan(ex, list(a))
        assert v.hint_key == f"slots.hint.{key}" and text_for("en", v.hint_key) == v.message, key
        assert v.ok == (key == "right")
