"""Page 1's step fragment (ui/widgets.step_view) in two parts around the sections the step does
not drive: the step slider, the guide and the lookup (by_step); the shapes and a padded batch
(between, drawn once per page run); the gradient and the update, and similar words
(by_step_below, which reads the step the first part handed on). The update rule and the
learning rate rerun the second part alone; word order, hashing and the exercise below do not
depend on any of them."""
from __future__ import annotations

from ... import session
from ...widgets import hand_on, handed
from .. import checkpoints
from .gradient import gradient_and_update
from .lookup import batch, guide, lookup, notes_numbers, shapes, step_choice
from .words import similar

STEP = "emb_t"  # the step (0-based) by_step hands on to by_step_below


def by_step(cur: session.Current, E) -> None:
    t = hand_on(STEP, step_choice(cur))
    guide(cur, t)
    notes_numbers(cur)  # only on the notes model: the notes' own numbers
    lookup(cur, E, t)


def fixed(cur: session.Current, E) -> None:
    """The sections between the two parts: they depend on the model and sentence alone."""
    shapes(cur, E)
    batch(cur, E)


def by_step_below(cur: session.Current, E) -> None:
    t = handed(STEP)
    gradient_and_update(cur, E, t)
    if checkpoints.embedding(cur, E, t):  # predict first: the nearest row, then the figure
        similar(cur, E, t)
