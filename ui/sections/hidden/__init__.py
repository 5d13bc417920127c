"""Page 2 (hidden states) sections, one file per theme:

common.py    the page name and URL binding, the heatmaps' labels
step.py      what to look at, one step written out (with Play), the whole sentence as a heatmap
order.py     a second sentence's path (PCA) and why order matters (by hand and in the model)
phi.py       what φ does: the linear expansion, growth, saturation or dead units
cells.py     the parameter count; Elman / Jordan / bidirectional on the same sentence
exercise.py  the hand exercise (two tanh steps)
"""

from .cells import params, variants
from .exercise import by_hand
from .order import model_order, scalar_order, summary, trajectory
from .phi import why_phi
from .step import intro, step_and_sentence

__all__ = [
    "by_hand",
    "intro",
    "model_order",
    "params",
    "scalar_order",
    "step_and_sentence",
    "summary",
    "trajectory",
    "variants",
    "why_phi",
]
