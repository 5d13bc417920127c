"""2 · Hidden states: h_t step by step on the learner's sentence.

Sections (ui/sections/hidden*.py), top to bottom: what to look at and the contents; one step
written out, with Play (redrawn alone on each tick); the whole sentence as a heatmap; a second
sentence's path; why order matters; what φ does (folded); the parameter count (folded); Elman,
Jordan and bidirectional (folded); the hand exercise.
"""
from ui import session
from ui.sections import hidden, hidden_extra, hidden_more

cur = session.current()
hidden.intro(cur)
t1 = hidden.step_and_sentence(cur)  # what to look at, one step (Play), the heatmap
paths = hidden.trajectory(cur)  # [(name, trace, tokens)]: the sentence and a second one
hidden_more.scalar_order()
hidden_more.model_order(cur, paths)
hidden_more.why_phi(cur, t1)
hidden_extra.params(cur)
hidden_extra.variants(cur, t1)
hidden_extra.by_hand()
