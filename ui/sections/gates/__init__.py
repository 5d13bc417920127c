"""Page 8 (gates) sections, one file per theme:

runs.py      the learner's sentence read by Elman, LSTM and GRU (word or subword models), the gated run
compare.py   what to look at; how far back an input still moves the state, the three side by side
step.py      one gated step written out (LSTM or GRU), next to the model choice
sentence.py  the gates over the sentence, and what the LSTM's cell keeps
task.py      the long-range task (shipped measurements, train one now) and one LSTM step by hand
units.py     the unit search and clamp of page 2 on the trio's LSTM or GRU
"""

from .compare import compare, intro, look_here
from .runs import trio
from .sentence import over_sentence
from .step import step_section
from .task import hand_exercise, long_range, train_one
from .units import unit_search

__all__ = ["compare", "hand_exercise", "intro", "long_range", "look_here", "over_sentence", "step_section",
           "train_one", "trio", "unit_search"]
