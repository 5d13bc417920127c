"""1 · Embedding lookup: E[id] and one-hot x E, shapes and padding, dL/dE = x^T g_e and the
row update (GD, weight decay, Adam, a tied model), similar words, word order, word hashing,
and a hand exercise. A table of contents: the sections are in ui/sections/embedding/."""
from ui import session
from ui.sections import embedding as emb

emb.upgrade_old_link()  # links made before the page used codes keep working
emb.intro()
cur = session.current()
E = emb.embedding_matrix(cur)  # (V, d), float64
t = emb.step_choice(cur)
emb.guide(cur, t)
emb.notes_numbers(cur)  # only on the notes model: the notes' own numbers
emb.lookup(cur, E, t)
emb.shapes(cur, E)
emb.batch(cur, E)
emb.gradient_and_update(cur, E, t)
emb.similar(cur, E, t)
emb.order(cur, E)
emb.representations(cur, E)
emb.exercise_section(cur)
