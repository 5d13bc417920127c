"""BPTT figures: titles and labels follow the model's nonlinearity."""
import numpy as np

from rnnviz.figures.bptt import jacobian_parts


def test_jacobian_figure_titles_follow_the_nonlinearity():
    one = np.ones(2)
    texts = lambda f: " ".join(a.text for a in f.layout.annotations) + f.layout.title.text
    assert "1 - h₂²" in texts(jacobian_parts(one, np.eye(2), np.eye(2), 1))  # default unchanged (rendered, issue 26)
    relu = texts(jacobian_parts(one, np.eye(2), np.eye(2), 1, "relu"))
    assert "tanh" not in relu and "1[a₂ > 0]" in relu and "ReLU" in relu
    lin = texts(jacobian_parts(one, np.eye(2), np.eye(2), 1, "linear"))
    assert "tanh" not in lin and "1 - h" not in lin and "identity slopes and Wₕ" in lin and "J₂ (own scale)" in lin and "W_h" not in lin
