"""Page 4's step fragment (ui/widgets.StepParts) in parts around the sections the step does not
drive: the step slider, where ∂L/∂h_t comes from and the delta recursion (by_step); the
shared-weight sum, the notation key, the vector chain and the backward cost (between, drawn
once per page run); then the W_h scale and every view it and the step drive, from the verdict
to the distance view (by_scale). Where the chart code is served (ui/stepped.py), where ∂L/∂h_t
comes from (in view under the slider) follows the slider in the browser instead, drawn by the
page run for a window of steps between the slider and the recursion (draw). J is computed once
per (model, sentence) by the page and passed in."""
from __future__ import annotations

import streamlit as st

from ... import session, stepped
from ...links import in_fragment_rerun
from ...widgets import SHARED_STEP, StepParts, first_word_step, hand_on, handed
from .. import checkpoints
from .intro import look_here, step
from .norms import chain, heatmap, jacobian_view, scale_control, verdict
from .notes import backward_cost, notation_key, vector_chain
from .paths import paths, paths_fit, recursion, shared
from .vanish import distance

STEP = "bptt_t"  # the step (0-based) by_step hands on to by_scale


def draw(cur: session.Current, J, look) -> None:
    """The step fragment's parts and the sections between them. Where the chart code is served
    (ui/stepped.py), where ∂L/∂h_t comes from (its words and chart, in view under the slider)
    follows the slider in the browser: the page run draws it for a window of steps, between the
    fragment's slider and its delta recursion."""
    steps = StepParts()  # one step fragment: a step move reruns its parts
    fit = paths_fit(cur, step_now(cur)) if stepped.live() else None
    if fit is None:
        steps.here(by_step, cur)  # the step, paths and recursion
        fixed(cur)  # shared weights, notation, the vector chain, the backward cost: not the step's
        steps.draw(by_scale, cur, J, look)  # the W_h scale to the distance view (and J_t at the step)
        return
    steps.here(slider, cur)
    slot = st.container()  # where ∂L/∂h_t comes from: drawn below, once the step is known
    steps.here(below_paths, cur)
    fixed(cur)
    steps.draw(by_scale, cur, J, look)
    with slot:
        paths(cur, stepped.around("bptt_step", handed(STEP) + 1, cur.trace.T), fit)


def step_now(cur: session.Current) -> int:
    """The step (1-based) this run will most likely draw, before its slider is drawn: the slider's
    kept value, else the link's, else the one shared by the pages, else the first word's."""
    T = cur.trace.T
    for value in (st.session_state.get("bptt_step"), st.query_params.get("bptt_step"),
                  st.session_state.get(SHARED_STEP)):
        try:
            return min(max(int(value), 1), T)
        except (TypeError, ValueError):
            continue
    return min(first_word_step(cur.vocab.has_specials), T)


def slider(cur: session.Current) -> None:
    """The step slider; a step past the window the page carries draws the page."""
    t = hand_on(STEP, step(cur, deferred=True))
    if in_fragment_rerun() and stepped.outside("bptt_step", t + 1):
        st.rerun(scope="app")


def below_paths(cur: session.Current) -> None:
    recursion(cur, handed(STEP))


def by_step(cur: session.Current) -> None:
    t = hand_on(STEP, step(cur))
    paths(cur, stepped.still("bptt_step", t + 1))
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
