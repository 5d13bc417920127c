"""Page 1's step fragment (ui/widgets.step_view): the step slider and every section it drives,
from the guide to similar words; a step move, the update rule or the learning rate reruns
these alone (word order, hashing and the exercise below do not depend on them)."""
from __future__ import annotations

from ... import session
from .. import checkpoints
from .gradient import gradient_and_update
from .lookup import batch, guide, lookup, notes_numbers, shapes, step_choice
from .words import similar


def by_step(cur: session.Current, E) -> None:
    t = step_choice(cur)
    guide(cur, t)
    notes_numbers(cur)  # only on the notes model: the notes' own numbers
    lookup(cur, E, t)
    shapes(cur, E)
    batch(cur, E)
    gradient_and_update(cur, E, t)
    if checkpoints.embedding(cur, E, t):  # predict first: the nearest row, then the figure
        similar(cur, E, t)
