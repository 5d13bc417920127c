"""Page 9 (Attention: a short path back) sections, split by theme so each file stays small."""

from .hand import cost, hand_exercise
from .paths import lengths, long_range, paths, paths_split
from .reader import intro, look_here, read
from .weights import weights

__all__ = ["cost", "hand_exercise", "intro", "lengths", "long_range", "look_here", "paths", "paths_split",
           "read", "weights"]
