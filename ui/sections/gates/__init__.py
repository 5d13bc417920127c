"""Page 8 (gates) sections, one file per theme (the long-range task and the exercise are still in
ui/sections/gates_task.py):

runs.py      the learner's sentence read by Elman, LSTM and GRU (word or subword models), the gated run
compare.py   what to look at; how far back an input still moves the state, the three side by side
step.py      one gated step written out (LSTM or GRU), next to the model choice
sentence.py  the gates over the sentence, and what the LSTM's cell keeps
units.py     the unit search and clamp of page 2 on the trio's LSTM or GRU
"""

from .compare import compare, intro, look_here
from .runs import trio
from .sentence import over_sentence
from .step import step_section
from .units import unit_search

__all__ = ["compare", "intro", "look_here", "over_sentence", "step_section", "trio", "unit_search"]
