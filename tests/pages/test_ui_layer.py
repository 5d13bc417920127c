"""The ui/ layer's own pieces: the exercise widget, the tolerant step slider, the cache keying
rule, and J computed once per (model, sentence) on the BPTT page."""
import torch
from streamlit.testing.v1 import AppTest

import rnnviz.engine.jacobians
from tests.apptest_helpers import chart_elements, chart_json, move_step, no_exception

PAGE = "pages/bptt.py"


def exercise_script():
    import streamlit as st

    from rnnviz.explain.exercises.verdict import Verdict
    from ui.widgets import exercise

    def check(answer):
        if answer == 3.0:
            return Verdict(True, "Right: 1 + 2 = 3.", solution="1 + 2 = 3")
        return Verdict(False, "You subtracted." if answer == -1.0 else "Not yet.", solution="1 + 2 = 3")

    exercise("ex", lambda: st.number_input("1 + 2 = ?", value=None, key="ex_answer"), check)


def test_exercise_widget_checks_on_click_hints_and_shows_the_solution():
    at = AppTest.from_function(exercise_script, default_timeout=60).run()
    no_exception(at)
    assert not at.success and not at.error  # nothing checked before the button
    at.number_input(key="ex_answer").set_value(-1.0)
    at.button(key="ex_check").click().run()
    assert [e.value for e in at.error] == ["You subtracted\\."]
    at.number_input(key="ex_answer").set_value(3.0)
    at.button(key="ex_check").click().run()
    assert at.success and "Right" in at.success[0].value
    at.toggle(key="ex_solution").set_value(True).run()
    assert any("1 + 2 = 3" in i.value.replace("\\", "") for i in at.info)  # shown markdown-escaped


def slider_script():
    import streamlit as st

    from ui.widgets import step_slider

    hi = st.session_state.get("hi", 5)
    st.session_state["got"] = step_slider("Step t", 1, hi, 2, "s_step")


def test_step_slider_clamps_a_kept_value_out_of_range():
    at = AppTest.from_function(slider_script, default_timeout=60).run()
    at.slider(key="s_step").set_value(5).run()
    at.session_state["hi"] = 3  # a shorter sentence: the kept 5 is out of range
    at.run()
    no_exception(at)
    assert at.session_state["got"] == 3 and at.slider(key="s_step").value == 3
    at.session_state["hi"] = 1  # one step: a caption, no slider
    at.run()
    no_exception(at)
    assert at.session_state["got"] == 1 and any("the only step" in c.value for c in at.caption)


def cache_script():
    import streamlit as st

    from rnnviz import RNNConfig, RNNModel
    from ui import cache

    model = RNNModel(RNNConfig(7, 3, 4), seed=int(st.session_state.get("seed", 0)))
    tr = cache.cached_trace(model, [1, 2, 3], [2, 3, -100])
    st.session_state["J"] = cache.step_jacobians(model, tr)
    st.session_state["J_again"] = cache.step_jacobians(model, tr)


def test_cache_keys_on_the_weights_and_the_sentence(monkeypatch):
    calls = []
    real = rnnviz.engine.jacobians.step_jacobians
    monkeypatch.setattr(rnnviz.engine.jacobians, "step_jacobians", lambda m, tr: calls.append(1) or real(m, tr))
    at = AppTest.from_function(cache_script, default_timeout=60).run()
    no_exception(at)
    J0 = at.session_state["J"]
    assert len(calls) == 1 and torch.equal(J0, at.session_state["J_again"])
    at.session_state["seed"] = 1  # other weights, same ids: a new entry, not the old J
    at.run()
    assert len(calls) == 2 and not torch.equal(J0, at.session_state["J"])


def figure_script():
    import copy

    import numpy as np
    import streamlit as st

    from rnnviz.figures.bptt import jacobian_parts
    from ui import cache
    from ui.charts import chart, streamlit_look

    args = (np.linspace(0, 1, 3), np.eye(3), 0.5 * np.eye(3), 1)
    fig = cache.figure(jacobian_parts, *args)
    st.session_state["cached"] = copy.deepcopy(fig.to_dict())
    chart(fig, key="cached")  # shown as it is: st.plotly_chart reads the shared dict
    chart(jacobian_parts(*args), key="built")  # the builder's go.Figure, for comparison
    st.session_state["after"] = cache.figure(jacobian_parts, *args).to_dict()
    st.session_state["built"] = streamlit_look(jacobian_parts(*args).to_plotly_json())
    try:
        fig.layout.title.text = "edited"  # the shared dict has no editing API
        st.session_state["edit"] = "allowed"
    except AttributeError:
        st.session_state["edit"] = "refused"


def test_a_cached_figure_is_the_builders_shown_as_it_is_and_never_edited():
    """ui/cache.figure keeps one read-only dict per input, in Streamlit's look (ui/charts), and
    hands it out as a CachedFigure: ui.charts.chart sends the same spec as for the builder's own
    go.Figure, showing it leaves
    the cached dict as built, and an edit fails instead of reaching other sessions' figure."""
    import json

    import plotly.io as pio
    at = AppTest.from_function(figure_script, default_timeout=60).run()
    no_exception(at)
    charts = {c.proto.id: chart_json(c) for c in chart_elements(at)}
    cached, built = (json.loads(spec) for spec in charts.values())
    assert len(charts) == 2 and cached == built
    as_built = json.loads(pio.to_json(at.session_state["built"]))
    assert json.loads(pio.to_json(at.session_state["cached"])) == as_built
    assert json.loads(pio.to_json(at.session_state["after"])) == as_built
    assert at.session_state["edit"] == "refused"


def holding_script():
    import numpy as np
    import streamlit as st

    from rnnviz.figures.bptt import jacobian_parts
    from ui import cache
    from ui.resources import budget

    args = (np.linspace(0.1, 0.7, 3), np.eye(3), 0.3 * np.eye(3), 1)  # no other test's figure

    @cache.kept_steps("test_held_window", holds_figures=True)
    def window(scale: float, first: int, last: int) -> dict:
        return {"fig": [cache.figure(jacobian_parts, *args[:2], scale * args[2], 1).to_dict()]}

    from rnnviz.serve.bytecache import value_digest
    key = ("_figure", f"{jacobian_parts.__module__}.{jacobian_parts.__qualname__}", value_digest((args, {})))
    figures = budget().cache("figure")
    held = window(1.0, 1, 1)  # the same figure as `alone` below
    st.session_state["held_kept"] = key in figures
    st.session_state["held"] = held["fig"][0]
    st.session_state["alone"] = cache.figure(jacobian_parts, *args).to_dict()  # outside: kept as before
    st.session_state["alone_kept"] = key in figures


def test_a_window_that_holds_its_figures_does_not_put_them_in_the_figure_cache_too():
    """cache.kept_steps(holds_figures=True): the figures its function builds are the builder's, in
    Streamlit's look, and held once (by the window), not also by the figure cache."""
    import json

    import plotly.io as pio
    at = AppTest.from_function(holding_script, default_timeout=60).run()
    no_exception(at)
    assert not at.session_state["held_kept"]
    assert at.session_state["alone_kept"]
    assert json.loads(pio.to_json(at.session_state["held"])) == json.loads(pio.to_json(at.session_state["alone"]))


def steps_script():
    import streamlit as st

    from ui import cache

    made = st.session_state.setdefault("made", [])

    @cache.kept_steps("test_window_steps")
    def window(word: str, first: int, last: int) -> dict:
        made.extend(range(first, last + 1))
        return {"text": [f"{word} {s}" for s in range(first, last + 1)],
                "figs": {s: {"step": s} for s in range(first, last + 1)}, "pair": ([first], [last])}

    st.session_state["small"] = window("w", 2, 4)
    st.session_state["whole"] = window("w", 1, 6)
    st.session_state["other"] = window("v", 3, 3)


def test_a_window_kept_step_by_step_makes_each_step_once():
    """cache.kept_steps: a window grown from a small one makes only its new steps, and is the
    window its function would make in one call."""
    at = AppTest.from_function(steps_script, default_timeout=60).run()
    no_exception(at)
    assert at.session_state["made"] == [2, 3, 4, 1, 5, 6, 3]
    assert at.session_state["whole"] == {"text": [f"w {s}" for s in range(1, 7)],
                                         "figs": {s: {"step": s} for s in range(1, 7)},
                                         "pair": ([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6])}
    assert at.session_state["small"]["text"] == ["w 2", "w 3", "w 4"]
    assert at.session_state["other"]["text"] == ["v 3"]


def test_bptt_slider_moves_reuse_the_step_jacobians(app, monkeypatch):
    import streamlit as st

    from ui import cache
    st.cache_data.clear()
    cache.jacobian_store().clear()  # the step Jacobians are kept by bytes, outside st.cache_data
    calls = []
    real = rnnviz.engine.jacobians.step_jacobians
    monkeypatch.setattr(rnnviz.engine.jacobians, "step_jacobians", lambda m, tr: calls.append(1) or real(m, tr))
    at = app(PAGE)
    no_exception(at)
    first = len(calls)
    assert first >= 1
    for t in (3, 1, 4):
        move_step(at, "bptt_step", t).run()
        no_exception(at)
    assert len(calls) == first, "a slider move recomputed J"


def test_a_cold_bptt_page_computes_the_step_jacobians_once(app, monkeypatch):
    """Every module that calls step_jacobians is counted (errata imports it by name), so the
    notes' eigenvalue claim computing its own J shows up as a second call."""
    import sys

    import streamlit as st

    from ui import cache
    st.cache_data.clear()
    cache.jacobian_store().clear()
    calls = []
    real = rnnviz.engine.jacobians.step_jacobians
    counted = lambda *a, **k: calls.append(1) or real(*a, **k)  # noqa: E731
    for mod in list(sys.modules.values()):
        if (getattr(mod, "__name__", "") or "").startswith(("rnnviz", "ui")) and \
                getattr(mod, "step_jacobians", None) is real:
            monkeypatch.setattr(mod, "step_jacobians", counted)
    at = app(PAGE)
    no_exception(at)
    assert len(calls) == 1


def alone_script():
    import streamlit as st
    from streamlit.runtime.pages_manager import PagesManager

    from ui import links

    PagesManager.uses_pages_directory = bool(st.session_state.get("pretend_alone"))
    st.session_state["text"] = st.session_state.get("text", "kept text")
    st.session_state["alone"] = links.page_runs_alone()
    st.session_state["flag_after"] = PagesManager.uses_pages_directory


def test_page_runs_alone_switches_the_old_mode_off_once():
    from streamlit.runtime.pages_manager import PagesManager
    before = PagesManager.uses_pages_directory
    try:
        at = AppTest.from_function(alone_script, default_timeout=60).run()
        assert at.session_state["alone"] is False  # app.py's navigation ran: nothing to do
        at.session_state["pretend_alone"] = True
        at.run()
        no_exception(at)
        assert at.session_state["alone"] is True and at.session_state["flag_after"] is False
        assert at.session_state["text"] == "kept text"  # the sidebar's values survive
    finally:
        PagesManager.uses_pages_directory = before
