"""1 · Embedding lookup: E[id] and one-hot x E, shapes and padding, dL/dE = x^T g_e and the
row update (GD, weight decay, Adam, a tied model), similar words, word order, word hashing,
and a hand exercise. A table of contents: the sections are in ui/sections/embedding/."""
from ui import session
from ui.sections import embedding as emb
from ui.widgets import by_step, step_control

emb.upgrade_old_link()  # links made before the page used codes keep working
emb.intro()
cur = session.current()
E = emb.embedding_matrix(cur)  # (V, d), float64
step_control(emb.step_choice, cur)  # the step t; a move redraws only the by_step parts
by_step(emb.guide, cur)
emb.notes_numbers(cur)  # only on the notes model: the notes' own numbers
by_step(emb.lookup, cur, E)
emb.shapes(cur, E)
emb.batch(cur, E)
by_step(emb.gradient_and_update, cur, E)
by_step(emb.similar, cur, E)
emb.order(cur, E)
emb.representations(cur, E)
emb.exercise_section(cur)
