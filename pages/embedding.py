"""1 · Embedding lookup: E[id] and one-hot x E, shapes and padding, dL/dE = x^T g_e and the
row update (GD, weight decay, Adam, a tied model), similar words, word order, word hashing,
and a hand exercise. A table of contents: the sections are in ui/sections/embedding/."""
from ui import session
from ui.sections import embedding as emb
from ui.sections.embedding.lookup import vocabulary_and_E
from ui.sections.embedding.steps import by_step, by_step_below, by_step_onehot, fixed
from ui.widgets import StepParts

emb.upgrade_old_link()  # links made before the page used codes keep working
session.start_page()  # the language and sidebar first, also when the page runs alone (a deep link)
emb.intro()
cur = session.current()
E = emb.embedding_matrix(cur)  # (V, d), float64
steps = StepParts()  # one step fragment: a step move reruns ...
steps.here(by_step, cur, E)  # ... the step slider, the guide, E[id] ...
vocabulary_and_E(cur, E)  # (the vocabulary and E do not depend on the step)
steps.here(by_step_onehot, cur, E)  # ... one-hot x E at the step ...
fixed(cur, E)  # (nn.Linear, the shapes and a padded batch do not either)
steps.draw(by_step_below, cur, E)  # ... and the gradient, the update and similar words
emb.order(cur, E)
emb.representations(cur, E)
emb.exercise_section(cur)
