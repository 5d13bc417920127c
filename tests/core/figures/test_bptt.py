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


def test_jacobian_row_charts_match_the_one_figure_and_line_up():
    """Page 4's row of two charts (issue 24), W_h and then the slopes with J_t, draws what
    jacobian_parts' three panels draw: the same slopes, W_h and J_t (float32 maps), panel titles
    and hovers; the two share height and top and bottom margins that nothing pushes out, so their
    rows of units line up."""
    import plotly.graph_objects as go

    from rnnviz.figures.bptt import jacobian_step, jacobian_title, jacobian_weights
    rng = np.random.default_rng(4)
    slope, W = rng.uniform(0, 1, 5), rng.normal(0, 0.5, (5, 5))
    J = slope[:, None] * W
    for phi in ("tanh", "relu", "linear"):
        whole = jacobian_parts(slope, W, J, 2, phi)
        weights, step = jacobian_weights(W), jacobian_step(slope, J, 2, phi)
        for fig in (weights, step):
            go.Figure(fig.to_plotly_json())  # valid as plotly validates it
        titles = [a.text for a in whole.layout.annotations][:3]
        assert weights.layout.title.text == titles[1] and not weights.layout.annotations
        assert [a.text for a in step.layout.annotations] == [titles[0], titles[2]]
        assert jacobian_title(2, phi) == whole.layout.title.text == step.layout.title.text
        for mine, trace in zip([step.data[0], weights.data[0], step.data[1]], whole.data):  # slopes, W_h, J
            assert mine.type == trace.type and mine.hovertemplate == trace.hovertemplate
            for k in ("x", "y", "z"):
                if getattr(trace, k, None) is not None:
                    np.testing.assert_array_equal(np.asarray(getattr(mine, k)), np.asarray(getattr(trace, k)))
        np.testing.assert_array_equal(np.asarray(weights.data[0].z), W.astype(np.float32))
        margins = {(f.layout.height, f.layout.margin.t, f.layout.margin.b, f.layout.margin.autoexpand)
                   for f in (weights, step)}
        assert margins == {(500, 60, 150, False)}
