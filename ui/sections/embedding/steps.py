"""Page 1's step fragment (ui/widgets.StepParts) in three parts, around the sections the step
does not drive (drawn once per page run): the step slider, the guide and E[id] at the step
(by_step); the vocabulary and E (lookup.vocabulary_and_E); one-hot x E at the step
(by_step_onehot); nn.Linear, the shapes and a padded batch (fixed); the gradient, the update and similar words
(by_step_below). A later part reads the step the first handed on. The update rule and the
learning rate rerun the last part alone; word order, hashing and the exercise below depend on
none of them."""
from __future__ import annotations

from ... import session
from ...widgets import hand_on, handed
from .. import checkpoints
from .gradient import gradient_and_update
from .lookup import (
    as_linear,
    batch,
    guide,
    lookup,
    notes_numbers,
    one_hot,
    shapes,
    step_choice,
)
from .words import similar

STEP = "emb_t"  # the step (0-based) by_step hands on to the later parts


def by_step(cur: session.Current, E) -> None:
    t = hand_on(STEP, step_choice(cur))
    guide(cur, t)
    notes_numbers(cur)  # only on the notes model: the notes' own numbers
    lookup(cur, E, t)


def by_step_onehot(cur: session.Current, E) -> None:
    one_hot(cur, E, handed(STEP))


def fixed(cur: session.Current, E) -> None:
    """Between the last two parts: they depend on the model and sentence alone."""
    as_linear(cur, E)
    shapes(cur, E)
    batch(cur, E)


def by_step_below(cur: session.Current, E) -> None:
    t = handed(STEP)
    gradient_and_update(cur, E, t)
    if checkpoints.embedding(cur, E, t):  # predict first: the nearest row, then the figure
        similar(cur, E, t)
