"""Page 4's step fragment (ui/widgets.StepParts) in two parts around the sections the step does
not drive: the step slider, where ∂L/∂h_t comes from and the delta recursion (by_step); the
shared-weight sum, the notation key, the vector chain and the backward cost (between, drawn
once per page run); then the W_h scale and every view it and the step drive, from the verdict
to the distance view (by_scale). J is computed once per (model, sentence) by the page and
passed in."""
from __future__ import annotations

from ... import session
from ...widgets import hand_on, handed
from .. import checkpoints
from .intro import look_here, step
from .norms import chain, heatmap, jacobian_view, scale_control, verdict
from .notes import backward_cost, notation_key, vector_chain
from .paths import paths, recursion, shared
from .vanish import distance

STEP = "bptt_t"  # the step (0-based) by_step hands on to by_scale


def by_step(cur: session.Current) -> None:
    t = hand_on(STEP, step(cur))
    paths(cur, t)
    recursion(cur, t)


def fixed(cur: session.Current) -> None:
    """The sections between the two parts: they depend on the model and sentence alone."""
    shared(cur)
    notation_key(cur)
    vector_chain(cur)
    backward_cost(cur)


def by_scale(cur: session.Current, J, look) -> None:
    t = handed(STEP)
    view = scale_control(cur, J)
    look_here(cur, view, look)
    if checkpoints.bptt(view):  # predict first: the verdict and the heatmap answer it
        verdict(view)
        cell = heatmap(cur, view)  # (s, t, direction): clicked or typed
        chain(cur, view, cell)
    jacobian_view(cur, view, t)
    distance(cur, view)
