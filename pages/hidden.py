"""2 · Hidden states: h_t step by step on the learner's sentence.

Sections (ui/sections/hidden/), top to bottom: what to look at and the contents; one step
written out, with Play (redrawn alone on each tick); the whole sentence as a heatmap; a second
sentence's path; why order matters; what φ does (folded); the parameter count (folded); Elman,
Jordan and bidirectional (folded); the hand exercise.
"""
from ui import session
from ui.sections import hidden, probe

cur = session.current()
hidden.intro(cur)
t1 = hidden.step_and_sentence(cur)  # what to look at, one step (Play), the heatmap
probe.unit_search(cur, "hid")  # folded: find the units that track something, silence one
paths = hidden.trajectory(cur)  # [(name, trace, tokens)]: the sentence and a second one
hidden.scalar_order()
hidden.model_order(cur, paths)
hidden.summary(cur)  # h_t is a learned summary: the first word's reach (page 8)
hidden.why_phi(cur, t1)
hidden.params(cur)
hidden.variants(cur, t1)
hidden.by_hand()
