"""bench/apps/fragment_floor.py, the page bench/bench_browser_floor.py measures Streamlit's own
floor with, and the fact that floor stands on: in Streamlit 1.67 a chart whose figure changes
gets a new element id (st.plotly_chart computes it from the figure; key_as_main_identity=False)
and the frontend keys the chart by that id, so every changed chart is mounted anew in the
browser. If a Streamlit upgrade keeps the id, this test says so and the floor has moved."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

pytestmark = pytest.mark.pages
PAGE = Path(__file__).resolve().parents[2] / "bench" / "apps" / "fragment_floor.py"


def _floor(parts: str) -> AppTest:
    at = AppTest.from_file(str(PAGE), default_timeout=30)
    at.query_params["parts"] = parts
    return at.run()


def _charts(at: AppTest) -> list:
    return [(c.proto.id, json.loads(c.proto.spec)) for c in at.get("plotly_chart")]


def test_each_part_is_drawn_and_moves_with_the_step():
    at = _floor("text,table,chart,same chart")
    assert not at.exception
    assert "Step **3**" in at.markdown[0].value
    assert len(at.dataframe) == 1 and at.dataframe[0].value.shape == (64, 5)
    (_, changing), (_, same) = _charts(at)
    assert len(changing["data"]) == 5 and len(changing["data"][0]["y"]) == 64
    table = at.dataframe[0].value.copy()
    at.slider(key="floor_step").set_value(4).run()
    assert "Step **4**" in at.markdown[0].value
    assert not at.dataframe[0].value.equals(table)
    (_, moved), (_, same_again) = _charts(at)
    assert moved["data"][0]["y"] != changing["data"][0]["y"]
    assert same_again == same


def test_a_changed_chart_gets_a_new_element_id_and_an_unchanged_one_keeps_its_id():
    at = _floor("chart,same chart")
    (changing_id, _), (same_id, _) = _charts(at)
    at.slider(key="floor_step").set_value(5).run()
    (moved_id, _), (same_id_again, _) = _charts(at)
    assert moved_id != changing_id  # the frontend's React key: the chart is mounted anew
    assert same_id_again == same_id


def test_no_parts_draws_the_slider_alone():
    at = _floor("")
    assert not at.exception
    assert len(at.slider) == 1 and not at.get("plotly_chart") and not at.markdown


def test_written_draws_page_8s_kind_of_step_and_bound_reads_the_step_from_the_link():
    at = _floor("written")
    assert not at.exception
    assert "At step $t = 3$" in at.markdown[0].value
    assert len(at.latex) == 1 and at.table[0].value.shape == (11, 3)
    assert at.table[0].value.iloc[0, 0].startswith("$A_{i}")
    at.slider(key="floor_step").set_value(6).run()
    assert "At step $t = 6$" in at.markdown[0].value
    linked = AppTest.from_file(str(PAGE), default_timeout=30)
    linked.query_params.update({"parts": "written,bound", "floor_step": "7"})
    assert "At step $t = 7$" in linked.run().markdown[0].value
    unbound = AppTest.from_file(str(PAGE), default_timeout=30)
    unbound.query_params.update({"parts": "written", "floor_step": "7"})
    assert "At step $t = 3$" in unbound.run().markdown[0].value


def test_page_draws_an_app_sized_page_around_the_fragment():
    at = _floor("page")
    assert not at.exception
    assert len(at.sidebar.selectbox) == 1 and len(at.sidebar.text_area) == 1
    assert len(at.get("plotly_chart")) == 4 and len(at.dataframe) == 3
    assert sum("Paragraph" in m.value for m in at.markdown) == 30
