"""Page 1 (embedding lookup) sections, in page order: lookup.py (forward), gradient.py
(backward and updates), words.py (similar words, order, hashing, exercise); common.py holds the
page's strings and tables, legacy.py turns old links into today's."""
from .gradient import embedding_matrix, gradient, gradient_and_update, outer_and_sum, update
from .legacy import upgrade_old_link
from .lookup import batch, guide, intro, lookup, notes_numbers, shapes, step_choice
from .words import exercise_section, order, representations, similar

__all__ = ["batch", "embedding_matrix", "exercise_section", "gradient", "gradient_and_update", "guide",
           "intro", "lookup", "notes_numbers", "order", "outer_and_sum", "representations", "shapes",
           "similar", "step_choice", "update", "upgrade_old_link"]
