"""Page 4's step fragment (ui/widgets.step_view): the step slider, the W_h scale and every
section they drive, from where ∂L/∂h_t comes from to the Jacobian view and the distance view
(the scalar chains, float32, gradient checking, clipping and the notes below do not depend on
them). J is computed once per (model, sentence) by the page and passed in."""
from __future__ import annotations

from ... import session
from .. import checkpoints
from .intro import look_here, step
from .norms import chain, heatmap, jacobian_view, scale_control, verdict
from .notes import backward_cost, notation_key, vector_chain
from .paths import paths, recursion, shared
from .vanish import distance


def by_step(cur: session.Current, J, look) -> None:
    t = step(cur)
    paths(cur, t)
    recursion(cur, t)
    shared(cur)
    notation_key(cur)
    vector_chain(cur)
    backward_cost(cur)
    view = scale_control(cur, J)
    look_here(cur, view, look)
    if checkpoints.bptt(view):  # predict first: the verdict and the heatmap answer it
        verdict(view)
        cell = heatmap(cur, view)  # (s, t, direction): clicked or typed
        chain(cur, view, cell)
    jacobian_view(cur, view, t)
    distance(cur, view)
