"""Conventions that the engine, the text tools and the figures share (a leaf: imports nothing).

IGNORE: the target id that carries no loss (padding, or "no next token"), as torch's
cross-entropy's ignore_index. TAGS: note 004's slot tags, in the taggers' output order.
"""
IGNORE = -100
TAGS = ("other", "destination", "departure", "date", "time")
