"""The model-dependent placeholders of the prose, in the learner's language.

rnnviz.explain.formulas.prose_values(cfg) gives every placeholder (formulas, LaTeX, English phrases);
here the phrases are replaced by the catalogue's (locales/<lang>/formulas.toml), so a Chinese
page never carries an English sentence. Symbols and LaTeX pass through unchanged.
"""
from __future__ import annotations

from rnnviz.engine.model import RNNConfig
from rnnviz.explain import formulas

from .i18n import t

PHRASES = ("activation", "value_range", "slope_range", "range_sentence", "saturation_hint", "act_text")


def prose_values(cfg: RNNConfig) -> dict:
    """formulas.prose_values(cfg) with its phrases in the learner's language."""
    values = formulas.prose_values(cfg)
    for name in PHRASES:
        values[name] = t(f"formulas.{name}.{cfg.nonlinearity}")
    return values
