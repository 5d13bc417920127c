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


def test_paths_bars_draw_float32_heights_and_hover_the_float64_numbers():
    """Page 4's paths bars go to the browser as float32 (a step move's bytes, issue 24); what a
    learner reads on hover is the customdata text, made from the float64 row before."""
    import plotly.graph_objects as go

    from rnnviz.figures.bptt import paths_bar
    from rnnviz.formatting import num
    parts = np.array([[0.123456789012, -1.23456789e-7, 3.0], [2.5, 1e-12, -0.987654321]])  # (n, H)
    fig = paths_bar(parts, [1, 2], 1, ["a", "b", "c"])
    bars = [d for d in fig.data if d.type == "bar"]
    assert len(bars) == 2
    for bar, row in zip(bars, parts):
        assert np.asarray(bar.y).dtype == np.float32
        np.testing.assert_allclose(np.asarray(bar.y, float), row, rtol=1e-7)
        assert list(bar.customdata) == [num(v) for v in row]  # the float64 numbers, 4 digits
        assert "%{customdata}" in bar.hovertemplate and "%{y" not in bar.hovertemplate
    spec = go.Figure(fig).to_dict()
    assert spec["data"][0]["y"]["dtype"] == "f4"
    [total] = [d for d in fig.data if d.type == "scatter" and d.mode == "markers" and d.name]
    assert np.asarray(total.y).dtype == np.float64  # its hover shows y itself: kept whole
