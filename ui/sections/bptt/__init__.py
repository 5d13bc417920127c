"""Page 4 (BPTT and Jacobians) sections, split by theme so each file stays small."""

from .checks import byhand, clipping, gradcheck_view
from .intro import intro, jacobians, look_here, look_slot, not_elman, step, toc
from .norms import chain, heatmap, jacobian_view, scale_control, verdict
from .notes import backward_cost, notation_key, notes_errata, vector_chain
from .paths import paths, recursion, shared
from .vanish import distance, precision, scalar

__all__ = [
    "backward_cost",
    "byhand",
    "chain",
    "clipping",
    "distance",
    "gradcheck_view",
    "heatmap",
    "intro",
    "jacobian_view",
    "jacobians",
    "look_here",
    "look_slot",
    "not_elman",
    "notation_key",
    "notes_errata",
    "paths",
    "precision",
    "recursion",
    "scalar",
    "scale_control",
    "shared",
    "step",
    "toc",
    "vector_chain",
    "verdict",
]
