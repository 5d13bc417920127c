"""2 · Hidden states: h_t step by step on the learner's sentence (with Play), the whole
sentence as a heatmap, a second sentence's path, why order and φ matter, the parameter count,
Elman vs Jordan vs bidirectional, and a hand exercise. Sections: ui/sections/hidden*.py."""
from ui import session
from ui.sections import hidden, hidden_extra, hidden_more

cur = session.current()
hidden.intro(cur)
t1 = hidden.step_and_sentence(cur)  # what to look at, one step (Play), the heatmap
paths = hidden.trajectory(cur)
hidden_more.scalar_order()
hidden_more.model_order(cur, paths)
hidden_more.why_phi(cur, t1)
hidden_extra.params(cur)
hidden_extra.variants(cur, t1)
hidden_extra.by_hand()
