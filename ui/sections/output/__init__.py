"""Page 3 (output and loss) sections, one file per theme:

common.py      the page name, URL binding and the page's table (headers in the learner's language)
step.py        what to look at, 1 where the labels come from, 2 one step written out, the notes' example
sentence.py    3 the whole sentence (top-k, per-token loss, sum vs mean), 4 a padded batch
generation.py  5 teacher forcing vs free generation
gradstep.py    6 one gradient step on the output layer
exercise.py    7 the hand exercise (L and p - y)
"""

from .exercise import by_hand
from .generation import generation
from .gradstep import gradient_step
from .sentence import padded_batch, whole_sentence
from .step import intro, labels_and_step, notes_example, one_step

__all__ = [
    "by_hand",
    "generation",
    "gradient_step",
    "intro",
    "labels_and_step",
    "notes_example",
    "one_step",
    "padded_batch",
    "whole_sentence",
]
