"""ui/stepped.py: page 2's step parts follow the slider in the browser (issue 24, twenty-third
session). The browser shows, for step s, what the server carried for s; these tests check that
what it carries for s is exactly what the page draws when the slider stands at s (the slides,
and each chart's figure once its patch is applied), and the pieces that build it: the window,
figure patches (with hypothesis), markdown and tables as HTML (escaped)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rnnviz.figures.patches import apply
from rnnviz.formatting import plain_math
from tests.apptest_helpers import (
    chart_elements,
    chart_json,
    move_step,
    no_exception,
    page_text,
    same_figure,
    stepped_elements,
    stepped_slide,
    table_frame,
)
from ui import charts, stepped

PAGE = "pages/hidden.py"
TEXT = "Arrive Taipei on November 2nd and leave Boston with the cat"


# ---- the window ------------------------------------------------------------------------------

@given(st.integers(1, 80), st.integers(1, 80), st.integers(1, 20))
def test_window_holds_the_step_and_stays_in_the_sentence(at, T, size):
    at = min(at, T)
    first, last = stepped.window(at, T, size)
    assert 1 <= first <= at <= last <= T
    assert last - first + 1 == min(size, T)


def test_window_is_the_whole_short_sentence():
    assert stepped.window(5, 9) == (1, 9)
    assert stepped.window(30, 60, 16) == (23, 38)  # 7 before, 8 after


# ---- markdown and tables as HTML ----------------------------------------------------------------

def test_markdown_html_escapes_html_and_keeps_math():
    out = stepped.markdown_html("**Step 3**: the token “<script>alert(1)</script>” and $W_x x_{3}$")
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "<strong>Step 3</strong>" in out and '<span class="math inline">W_x x_{3}</span>' in out


def test_table_html_writes_four_significant_digits_and_escapes():
    import pandas as pd
    df = pd.DataFrame({"a<b": [55.7442, 1.23e-07], "n": [3, 4]}, index=["u1", "<u2>"])
    markup = stepped.table_html(df)
    assert "&lt;u2&gt;" in markup and "a&lt;b" in markup and "<u2>" not in markup
    back = table_frame(markup)
    assert back.loc["u1", "a<b"] == "55.74" and back.loc["<u2>", "a<b"] == "1.23e-07" and back.loc["u1", "n"] == "3"


def test_an_arrow_table_is_written_as_its_pandas_frame_is():
    import pandas as pd
    import pyarrow as pa

    from ui.page import arrow_rows
    rows = [{"output": "<b>", "id": 3, "z_k": 55.7442, "y_k": None, "$x$": "$W_x$", "ok": True},
            {"output": "猫", "id": 4, "z_k": float("nan"), "y_k": 1, "$x$": "$b$", "ok": False},
            {"output": "", "id": 5, "z_k": 1.23e-07, "y_k": 0, "$x$": "$c$", "ok": True}]
    table = arrow_rows(rows, lang="en")
    assert isinstance(table, pa.Table)
    for math in ((), ("$x$",)):
        assert stepped.table_html(table, index=False, math=math) == \
            stepped.table_html(table.to_pandas(), index=False, math=math)
    assert stepped.table_html(table) == stepped.table_html(table.to_pandas())  # an index: pandas' own
    empty = pa.table({"a": pa.array([], pa.float64())})
    assert stepped.table_html(empty, index=False) == stepped.table_html(pd.DataFrame({"a": []}), index=False)


@pytest.mark.parametrize("page,key,part", [("pages/hidden.py", "hid_step", 0), ("pages/output.py", "out_step", 1),
                                           ("pages/bptt.py", "bptt_step", 0)])
def test_kept_slides_are_each_sentences_and_languages_own(app, page, key, part):
    """Pages 2, 3 and 4 keep their step parts for every session (ui/cache.kept, keyed by model,
    sentence, language and window): a session on another sentence or language gets its own."""
    other = "leave Boston with the cat"
    seen = {}
    for text, lang in ((TEXT, "en"), (TEXT, "zh"), (other, "en"), (TEXT, "en")):
        at = app(page, query={"text": text, "lang": lang})
        no_exception(at)
        block = stepped_elements(at)[part]
        seen[(text, lang)] = [stepped_slide(block, s) for s in range(block["first"], block["first"] + 3)]
        assert block["at"] == int(at.slider(key=key).value)
    assert seen[(TEXT, "en")] != seen[(TEXT, "zh")] != seen[(other, "en")]
    assert "第" in seen[(TEXT, "zh")][2] and "3" in seen[(TEXT, "zh")][2]
    assert "“Arrive”" in seen[(TEXT, "en")][1] and "“leave”" in seen[(other, "en")][1]  # step 2's token
    assert "“Arrive”" not in seen[(other, "en")][1] and "“leave”" not in seen[(TEXT, "en")][1]


# ---- page 2: what the browser shows for step s is what the page draws at s ----------------------

def _stepped_charts(at) -> list[tuple[dict, dict]]:
    """(figure as drawn, its "steps") of each chart that follows the slider, in page order."""
    out = []
    for el in chart_elements(at):
        if el.type != "bidi_component":
            continue
        data = json.loads(el.proto.bytes)
        if "steps" in data:
            out.append((json.loads(chart_json(el)), data["steps"]))
    return out


# page, its slider, how many stepped blocks and charts, their kinds, the text of step 3
PAGES = {
    "hidden": ("pages/hidden.py", "hid_step", 6, 2, {"info", "", "table"}, {"en": "Step 3 of", "zh": "第 3 步"}),
    "output": ("pages/output.py", "out_step", 6, 4, {"info", "", "table"}, {"en": "Step 3", "zh": "第 3 步"}),
    "bptt": ("pages/bptt.py", "bptt_step", 1, 1, {""}, {"en": "At step 3", "zh": "第 3 步"}),
    "gates": ("pages/gates.py", "gates_step", 3, 0, {"", "table"}, {"en": "Step t = 3, input", "zh": "第 t = 3 步"}),
}


@pytest.mark.parametrize("lang", ("en", "zh"))
@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_step_carried_is_the_page_drawn_at_that_step(app, name, lang):
    page, key, n_blocks, n_charts, kinds, step3 = PAGES[name]
    at = app(page, query={"text": TEXT, "lang": lang})
    no_exception(at)
    T = int(at.slider(key=key).max)
    parts, charts_at = stepped_elements(at), _stepped_charts(at)
    assert len(parts) == n_blocks and {p["kind"] for p in parts} == kinds
    assert len(charts_at) == n_charts
    first, last = parts[0]["first"], parts[0]["first"] + len(parts[0]["slides"]) - 1
    assert (first, last) == (1, T)  # a short sentence: all of it
    for s in (1, 3, T):
        move_step(at, key, s).run()
        no_exception(at)
        now = stepped_elements(at)
        assert [p["at"] for p in now] == [s] * n_blocks
        for before, drawn in zip(parts, now):  # the slide carried for s is the slide drawn at s
            assert stepped_slide(before, s) == stepped_slide(drawn)
        for (fig, steps), (drawn, _) in zip(charts_at, _stepped_charts(at)):
            patched = apply(fig, steps["patches"][s - steps["first"]])
            assert same_figure(patched, drawn), drawn["layout"]["title"]["text"]
    assert any(step3[lang] in stepped_slide(p, 3) for p in parts)


def test_a_long_sentence_carries_a_window_and_a_move_past_it_draws_the_page(app):
    words = " ".join(["the cat sat on the mat"] * 5)  # 30 words
    at = app(PAGE, query={"text": words})
    no_exception(at)
    parts = stepped_elements(at)
    T = int(at.slider(key="hid_step").max)
    assert T > stepped.WINDOW and all(len(p["slides"]) == stepped.WINDOW for p in parts)
    move_step(at, "hid_step", T).run()
    no_exception(at)
    assert all(p["first"] + len(p["slides"]) - 1 == T and p["at"] == T for p in stepped_elements(at))
    assert at.session_state[stepped.WINDOWS + "hid_step"] == (T - stepped.WINDOW + 1, T)


def test_without_served_code_the_step_view_is_streamlit_elements(app, monkeypatch):
    monkeypatch.setattr(charts, "_served", set())
    monkeypatch.setattr(charts, "serve_plotly", lambda app_dir=None: False)
    at = app(PAGE, query={"text": TEXT})
    no_exception(at)
    assert not stepped_elements(at)
    move_step(at, "hid_step", 3).run()
    md = "\n".join(m.value for m in at.markdown)
    assert "**Step 3 of" in md and "What to look at" in "\n".join(i.value for i in at.info)
    assert any(plain_math("a_t") in df.value.columns for df in at.dataframe)  # the terms table


def test_page_four_carries_its_paths_only_when_they_fit_the_visit(app):
    """Page 4's paths chart has a bar per later loss for every unit: a long sentence's steps would
    carry about 110 KB each, so its step fragment draws the chart at each move instead."""
    from ui.sections.bptt.paths import PATHS_BUDGET
    short = app("pages/bptt.py", query={"text": TEXT})
    no_exception(short)
    assert len(stepped_elements(short)) == 1 and len(_stepped_charts(short)) == 1
    assert len(json.dumps(_stepped_charts(short)[0][1])) <= PATHS_BUDGET
    words = " ".join(["the cat sat on the mat"] * 5)
    long = app("pages/bptt.py", query={"text": words})  # at step 2: 29 later losses a step
    no_exception(long)
    assert not stepped_elements(long) and not _stepped_charts(long)
    assert "At step 2 (" in page_text(long)
    move_step(long, "bptt_step", 25).run()  # near the end, few later losses: they fit
    no_exception(long)
    assert "At step 25 (" in page_text(long)
    charts_at = _stepped_charts(long)
    assert len(stepped_elements(long)) == 1 and len(json.dumps(charts_at[0][1])) <= PATHS_BUDGET


# ---- the step form: a move runs nothing until the learner stops (ui/widgets.step_form) ------------

@pytest.mark.parametrize(("page", "key", "buttons"), [
    ("pages/hidden.py", "hid_step", ("hid_prev", "hid_next")),
    ("pages/output.py", "out_step", ()),
    ("pages/bptt.py", "bptt_step", ()),
    ("pages/gates.py", "gates_step", ()),
])
def test_the_step_slider_is_in_a_form_whose_sync_keeps_the_step(app, page, key, buttons):
    from ui.widgets import SHARED_STEP, STEP_SYNC

    at = app(page, query={"text": TEXT})
    no_exception(at)
    slider = at.slider(key=key)
    form = slider.proto.form_id
    assert form and all(b.proto.form_id == form for b in at.button if b.key in (*buttons, STEP_SYNC + key))
    assert [b.key for b in at.button if b.key == STEP_SYNC + key]  # the sync, hidden by the page's style
    before = at.session_state[SHARED_STEP]
    slider.set_value(before + 2).run()  # a move the form has not sent: nothing changes on the server
    assert at.session_state[SHARED_STEP] == before and at.slider(key=key).value == before
    move_step(at, key, before + 2).run()  # the sync sends it: every page's step
    assert at.session_state[SHARED_STEP] == before + 2 and at.slider(key=key).value == before + 2
    no_exception(at)


def test_the_arrows_submit_the_form_with_the_slider_where_the_learner_left_it(app):
    at = app(PAGE, query={"text": TEXT, "hid_step": "2"})
    at.slider(key="hid_step").set_value(5)  # moved in the browser, not yet sent
    at.button(key="hid_next").click().run()  # ▶ submits the form: 5, then one step on
    no_exception(at)
    assert at.slider(key="hid_step").value == 6


def test_without_served_code_the_slider_is_no_form(app, monkeypatch):
    monkeypatch.setattr(charts, "_served", set())
    monkeypatch.setattr(charts, "serve_plotly", lambda app_dir=None: False)
    at = app(PAGE, query={"text": TEXT})
    no_exception(at)
    assert not at.slider(key="hid_step").proto.form_id  # every move reruns the step fragment
    assert not [b for b in at.button if (b.key or "").startswith("step_sync_")]


# ---- page 8: the step written out follows the slider ---------------------------------------------

def test_page_eight_carries_every_steps_gates_as_gated_step_computes_them(app):
    """Page 8's step table and its unit written out, carried for each step: the first 8 entries of
    each quantity at that step are rnnviz.explain.gates.gated_step's (the LSTM's own, run by
    rnnviz.engine.trace), the symbols drawn as math; the GRU choice carries the GRU's nine rows."""
    from rnnviz.engine.trace import trace
    from rnnviz.explain import gates
    from rnnviz.formatting import num, vector
    from rnnviz.store.catalog import load_builtin
    from rnnviz.text.corpora import lm_pair
    from tests.apptest_helpers import table_frame
    from ui.sections.gates.step import LSTM_ROWS, symbol

    at = app("pages/gates.py", query={"text": TEXT})
    no_exception(at)
    at_step, rows, unit = stepped_elements(at)
    assert rows["kind"] == "table" and rows["first"] == 1
    model, vocab, _ = load_builtin("lstm")
    ids, targets = lm_pair(vocab.encode(TEXT.split())[0], vocab)
    tr = trace(model, ids, targets)
    for s in (1, 4, tr.T):
        want = gates.gated_step(model, tr, s - 1)
        table = table_frame(stepped_slide(rows, s))  # (its first column, the quantity, as the index)
        assert list(table.index) == [symbol(tex) for _, tex in LSTM_ROWS]  # each as math, below
        assert list(table.iloc[:, 1]) == [vector(want[k], shown=8) for k, _ in LSTM_ROWS]
        assert set(table.iloc[:, 0]) == {"(32,)"}
        assert stepped_slide(rows, s).count('<span class="math inline">') == len(LSTM_ROWS)
        u = want["peak"]
        assert f"unit {u + 1}" in stepped_slide(unit, s) and f"= {num(want['h'][u])}" in stepped_slide(unit, s)
        assert f"Step t = {s}, input" in stepped_slide(at_step, s)
    at.radio(key="gates_cell").set_value("gru").run()
    no_exception(at)
    assert stepped_slide(stepped_elements(at)[1], 2).count("<tr>") == 1 + 9
