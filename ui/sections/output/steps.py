"""Page 3's step fragment (ui/widgets.StepParts) in two parts around the sections the step does
not drive: the step slider to the whole sentence (by_step); a padded batch and free generation
(between, drawn once per page run); the gradient step (by_step_below), which reads the step
and k the first part handed on. The hand exercise below does not depend on the step."""
from __future__ import annotations

from ... import session
from ...widgets import hand_on, handed
from .. import checkpoints
from .generation import generation
from .gradstep import gradient_step
from .sentence import padded_batch, whole_sentence
from .step import labels_and_step, notes_example, one_step

STEP = "out_t_k"  # (t1, k): the step (1-based) and how many outputs, handed to by_step_below


def by_step(cur: session.Current) -> None:
    t1, k = hand_on(STEP, labels_and_step(cur))  # what to look at, 1 · labels, 2 · the step
    notes_example(cur)  # the notes model: the notes' own p_t, L and p - y
    one_step(cur, t1, k)
    if checkpoints.output(cur):  # predict first: which step has the largest loss
        whole_sentence(cur, t1, k)


def fixed(cur: session.Current) -> None:
    """The sections between the two parts: they depend on the model and sentence alone."""
    padded_batch(cur)
    generation(cur)


def by_step_below(cur: session.Current) -> None:
    t1, k = handed(STEP)
    gradient_step(cur, t1, k)
