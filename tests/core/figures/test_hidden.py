"""Hidden-state figures: the step-terms legend follows the activation."""
import numpy as np

from rnnviz.figures.hidden import step_terms_bar


def test_step_terms_legend_follows_the_activation():
    terms = {k: np.zeros(2) for k in ("Wx_x", "Wh_h", "b", "a", "h")}
    names = lambda f: [tr.name for tr in f.data]
    assert "hₜ = tanh(aₜ)" in names(step_terms_bar(terms))  # rendered subscripts (issue 26)
    assert "hₜ = ReLU(aₜ)" in names(step_terms_bar(terms, activation="ReLU"))
    assert "hₜ = aₜ" in names(step_terms_bar(terms, activation="identity"))
