"""Page 3's step view. Where the chart code is served (ui/stepped.py), the parts the step drives
follow the slider in the browser: the step fragment holds the header, the slider and top-k alone,
and the page run draws what to look at, the step written out, the whole sentence (a fragment of
its own, behind its checkpoint) and the gradient step (its learning rate reruns it alone) for a
window of steps. Else (ui/widgets.StepParts) the step fragment draws them in two parts around the
sections the step does not drive: the step slider to the whole sentence (by_step); a padded batch
and free generation (between, drawn once per page run); the gradient step (by_step_below), which
reads the step and k the first part handed on. The hand exercise below does not depend on the
step."""
from __future__ import annotations

import streamlit as st

from ... import session, stepped
from ...links import in_fragment_rerun
from ...widgets import StepParts, hand_on, handed
from ...widgets import step_view as step_fragment
from .. import checkpoints
from .generation import generation
from .gradstep import gradient_step
from .sentence import padded_batch, whole_sentence
from .step import labels, labels_and_step, look_here, notes_example, one_step, step_controls

STEP = "out_t_k"  # (t1, k): the step (1-based) and how many outputs, handed to by_step_below
DRAWN_K = "_out_drawn_k"  # the top-k the page run drew the step's parts with


def draw(cur: session.Current) -> None:
    """The page's sections from what to look at to the gradient step."""
    if not stepped.live():
        steps = StepParts()  # one step fragment: a step move reruns ...
        steps.here(by_step, cur)  # ... the step slider to the whole sentence ...
        fixed(cur)  # (a padded batch and free generation do not depend on the step)
        steps.draw(by_step_below, cur)  # ... and the gradient step
        return
    top = st.container()
    labels(cur)
    t1, k = step_fragment(controls, cur)
    st.session_state[DRAWN_K] = k
    steps = stepped.around("out_step", t1, cur.trace.T)
    with top:
        look_here(cur, steps)
    notes_example(cur)
    one_step(cur, steps, k)
    st.fragment(sentence_part)(cur, t1, k)
    fixed(cur)
    gradient_step(cur, t1, k)


def controls(cur: session.Current) -> tuple[int, int]:
    """The step fragment where the parts follow the slider: the slider and top-k. A new top-k, or
    a step past the window the page carries, draws the page."""
    t1, k = step_controls(cur, deferred=cur.trace.T > 1)
    if in_fragment_rerun() and (k != st.session_state.get(DRAWN_K) or stepped.outside("out_step", t1)):
        st.rerun(scope="app")
    return t1, k


def sentence_part(cur: session.Current, t1: int, k: int) -> None:
    """Predict first (which step's loss is largest), then the whole sentence, at the step the
    slider is at now (this fragment's own reruns come after moves)."""
    if checkpoints.output(cur):
        whole_sentence(cur, stepped.followed("out_step", t1, cur.trace.T), k)


def by_step(cur: session.Current) -> None:
    t1, k = hand_on(STEP, labels_and_step(cur))  # what to look at, 1 · labels, 2 · the step
    notes_example(cur)  # the notes model: the notes' own p_t, L and p - y
    steps = stepped.still("out_step", t1)
    one_step(cur, steps, k)
    if checkpoints.output(cur):  # predict first: which step has the largest loss
        whole_sentence(cur, steps, k)


def fixed(cur: session.Current) -> None:
    """The sections between the two parts: they depend on the model and sentence alone."""
    padded_batch(cur)
    generation(cur)


def by_step_below(cur: session.Current) -> None:
    t1, k = handed(STEP)
    gradient_step(cur, t1, k)
