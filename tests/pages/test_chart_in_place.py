"""ui.charts.chart draws the app's charts in place (issue 24, fifteenth session): once app.py has
served Plotly.js (serve_plotly), a chart is an st.components.v2 element ("rnnviz_chart",
ui/plotly_chart.js) that carries the very JSON st.plotly_chart would have sent, keyed so that a
changed figure updates the chart already drawn instead of mounting a new one. A chart that reports
clicks is drawn in place too (nineteenth session: it sends a click on a point as its "select"
event); every chart when Plotly.js is not served stays st.plotly_chart.
tests/browser/test_chart_look.py checks in Chromium that both draw the same pixels."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import chart_elements, chart_json, figures, no_exception
from tests.conftest import ROOT
from ui import charts

PLOTLY_NAME, CODE_NAME = charts.served_files()  # Plotly.js, then the chart's code


@pytest.fixture(autouse=True)
def served_here(monkeypatch):
    """The folders these tests serve stay in these tests: AppTest.from_function's scripts share one
    folder, and another test's script must still go to st.plotly_chart there."""
    monkeypatch.setattr(charts, "_served", set())


def in_place_script():
    import os

    import numpy as np
    import streamlit as st

    from rnnviz.figures.bptt import jacobian_parts
    from ui.charts import chart, looked, serve_plotly

    if os.environ.get("CHART_TEST_SERVE") == "1":
        st.session_state["served"] = serve_plotly()  # beside this script, as app.py does
        st.session_state["folder"] = os.path.dirname(os.path.abspath(__file__))
    k = int(st.session_state.get("k", 1))
    fig = jacobian_parts(np.linspace(0, 1, 3) * k, np.eye(3), 0.5 * k * np.eye(3), 1)
    if st.session_state.get("bars"):  # another kind of figure in the same chart
        chart(looked({"data": [{"type": "bar", "y": [1.0, 2.0 * k]}], "layout": {}}), key="drawn")
    else:
        chart(fig, key="drawn")  # the app's way
    st.plotly_chart(looked(fig), theme=None, key="reference")  # what st.plotly_chart sends
    chart(fig, key="clicked", on_select=lambda: None, selection_mode="points")


def _run(monkeypatch, serve: bool, k: int = 1, text: str | None = None, bars: bool = False) -> AppTest:
    monkeypatch.setenv("CHART_TEST_SERVE", "1" if serve else "0")
    at = AppTest.from_function(in_place_script, default_timeout=60)
    at.session_state["k"] = k
    at.session_state["bars"] = bars
    if text is not None:
        at.session_state["text"] = text  # the sidebar's sentence (ui.widgets.page_inputs)
    return at.run()


def test_a_chart_is_drawn_in_place_with_the_json_st_plotly_chart_sends(monkeypatch):
    at = _run(monkeypatch, serve=True)
    no_exception(at)
    assert at.session_state["served"] is True
    drawn, reference, clicked = chart_elements(at)
    assert (drawn.type, reference.type, clicked.type) == ("bidi_component", "plotly_chart", "bidi_component")
    assert drawn.proto.component_name == "rnnviz_chart" and drawn.proto.id.endswith("-drawn")
    assert chart_json(drawn) == reference.proto.spec == chart_json(clicked)  # the same bytes of figure
    payload = json.loads(drawn.proto.bytes)
    assert (payload["clicks"], json.loads(clicked.proto.bytes)["clicks"]) == (False, True)
    assert payload["failed"] == charts.t("widgets.chart_failed")  # what the chart says if Plotly.js fails
    # the full-screen button's labels, from the catalogue
    assert (payload["full"], payload["close"]) == ("View fullscreen", "Close fullscreen")
    loader = drawn.proto.js_content  # what every element carries: small, no comments
    assert len(loader) < 1000 and "//" not in loader.replace("://", "")
    assert f'"./app/static/{CODE_NAME}"' in loader  # it loads the chart's code that serve_plotly wrote
    code = (Path(at.session_state["folder"]) / "static" / CODE_NAME).read_text()
    assert "Plotly.react" in code and f'"./app/static/{PLOTLY_NAME}"' in code


def test_a_changed_figure_keeps_the_element_and_changes_its_data(monkeypatch):
    first, second = _run(monkeypatch, serve=True, k=1), _run(monkeypatch, serve=True, k=2)
    a, b = chart_elements(first)[0], chart_elements(second)[0]
    assert a.proto.id == b.proto.id  # the key names it: the browser updates the chart it has
    assert chart_json(a) != chart_json(b)
    fa, fb = figures(first)[0], figures(second)[0]
    assert list(fb["data"][0]["x"]) == [2 * v for v in fa["data"][0]["x"]]  # the slopes, doubled


def test_a_chart_keeps_its_margins_for_one_sentence_only(monkeypatch):
    """ui/plotly_chart.js keeps a chart's margins while the payload's "steady" stays the same
    (bench/bench_chart_react.py): a step move on one sentence keeps it; another sentence, or
    another kind of figure in the same chart, does not."""
    def steady(at):
        return json.loads(chart_elements(at)[0].proto.bytes)["steady"]
    one, moved = _run(monkeypatch, True, k=1, text="the cat sat"), _run(monkeypatch, True, k=2, text="the cat sat")
    other = _run(monkeypatch, True, k=2, text="a dog ran")
    assert chart_json(chart_elements(one)[0]) != chart_json(chart_elements(moved)[0])  # another figure,
    assert steady(one) == steady(moved) != steady(other)  # the same margins; another sentence: its own
    assert re.fullmatch(r"[0-9a-f]{12}", steady(one))
    bars, more_bars = (_run(monkeypatch, True, k=k, text="the cat sat", bars=True) for k in (1, 2))
    assert steady(bars) == steady(more_bars) != steady(moved)  # heatmaps, then bars: Plotly's margins


def test_without_plotly_served_every_chart_is_st_plotly_chart(monkeypatch):
    at = _run(monkeypatch, serve=False)
    no_exception(at)
    assert [el.type for el in chart_elements(at)] == ["plotly_chart"] * 3
    assert chart_json(chart_elements(at)[0]) == chart_json(chart_elements(at)[1])


def test_serve_plotly_copies_plotly_js_once_and_refuses_a_folder_it_cannot_write(tmp_path, monkeypatch):
    monkeypatch.setattr(st, "get_option", lambda name: name == "server.enableStaticServing")
    assert charts.serve_plotly(tmp_path)
    copied = tmp_path / "static" / PLOTLY_NAME
    # named by version and by content, for browsers' caches
    assert re.fullmatch(r"plotly-\d+\.\d+\.\d+\.min\.js", PLOTLY_NAME)
    assert re.fullmatch(r"rnnviz-chart-[0-9a-f]{12}\.js", CODE_NAME)
    assert copied.read_bytes()[:200] == charts.PLOTLY_JS.read_bytes()[:200]
    assert copied.stat().st_size == charts.PLOTLY_JS.stat().st_size
    assert sorted(p.name for p in copied.parent.iterdir()) == sorted(charts.served_files())  # no part file
    copied.write_bytes(b"stale")  # a copy of another plotly version, say
    assert charts.serve_plotly(tmp_path) and copied.read_bytes() == b"stale"  # once per process
    monkeypatch.setattr(charts, "_served", set())
    assert charts.serve_plotly(tmp_path) and copied.stat().st_size == charts.PLOTLY_JS.stat().st_size
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("x")
    assert charts.serve_plotly(not_a_folder) is False


def test_sessions_starting_together_serve_one_whole_file(tmp_path, monkeypatch):
    """Many sessions' first runs call serve_plotly at once (a server start, every tab
    reconnecting): each gets True, and the folder holds one whole copy and no part file."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(st, "get_option", lambda name: name == "server.enableStaticServing")
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: charts.serve_plotly(tmp_path), range(16)))
    assert results == [True] * 16
    folder = tmp_path / "static"
    assert sorted(p.name for p in folder.iterdir()) == sorted(charts.served_files())
    assert (folder / PLOTLY_NAME).read_bytes() == charts.PLOTLY_JS.read_bytes()
    assert (folder / CODE_NAME).read_bytes() == charts.served_files()[CODE_NAME]


def test_static_serving_off_keeps_st_plotly_chart(tmp_path, monkeypatch):
    monkeypatch.setattr(st, "get_option", lambda name: False)
    assert charts.serve_plotly(tmp_path) is False
    assert not (tmp_path / "static").exists()


def test_the_app_draws_its_charts_in_place(app):
    """app.py serves Plotly.js from its folder (.streamlit/config.toml turns static serving on):
    page 2's charts are drawn in place, the terms chart among them; only the charts that report
    clicks (ui.cellpick) are st.plotly_chart."""
    at = app("pages/hidden.py")
    no_exception(at)
    drawn = chart_elements(at)
    assert sum(el.type == "bidi_component" for el in drawn) >= 3
    assert all(el.proto.selection_mode for el in drawn if el.type == "plotly_chart")
    assert (ROOT / "static" / PLOTLY_NAME).stat().st_size == charts.PLOTLY_JS.stat().st_size
    assert any(el.proto.id.endswith("-hid_fig_terms_chart") for el in drawn), [el.proto.id for el in drawn]


def test_a_click_reaches_the_cell_as_either_chart_reports_it():
    """ui/cellpick reads a click from the chart drawn in place ({"select": {"points": ...}}, the
    component's event, ui/plotly_chart.js) and from st.plotly_chart's selection alike."""
    points = [{"customdata": [2, 5]}]
    assert charts.selected_points({"select": {"points": points}}) == points
    assert charts.selected_points({"selection": {"points": points}}) == points

    class Event:  # st.plotly_chart's event object
        selection = type("Selection", (), {"points": points})

    assert charts.selected_points(Event()) == points
    assert charts.selected_points({"select": None}) is None
    assert charts.selected_points(None) is None
