"""Page 5 (slot filling) sections, split by theme so each file stays small."""

from .common import SlotSetup, setup
from .compare import heldout, heldout_accuracy, pair, right_context
from .flat import flat_fnn, reach, shifted
from .practice import by_hand, jordan_part, retrain
from .sentence import choose, form, grid, intro, look, sentence_parts, toc

__all__ = [
    "SlotSetup",
    "by_hand",
    "choose",
    "flat_fnn",
    "form",
    "grid",
    "heldout",
    "heldout_accuracy",
    "look",
    "intro",
    "jordan_part",
    "look",
    "pair",
    "reach",
    "retrain",
    "right_context",
    "sentence_parts",
    "setup",
    "shifted",
    "toc",
]
