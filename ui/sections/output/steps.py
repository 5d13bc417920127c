"""Page 3's step fragment (ui/widgets.step_view): the step slider and every section it drives,
from what to look at to the gradient step (the hand exercise below does not depend on it)."""
from __future__ import annotations

from ... import session
from .. import checkpoints
from .generation import generation
from .gradstep import gradient_step
from .sentence import padded_batch, whole_sentence
from .step import labels_and_step, notes_example, one_step


def by_step(cur: session.Current) -> None:
    t1, k = labels_and_step(cur)  # what to look at, 1 · labels, 2 · the step
    notes_example(cur)  # the notes model: the notes' own p_t, L and p - y
    one_step(cur, t1, k)
    if checkpoints.output(cur):  # predict first: which step has the largest loss
        whole_sentence(cur, t1, k)
    padded_batch(cur)
    generation(cur)
    gradient_step(cur, t1, k)
