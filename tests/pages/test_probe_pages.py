"""Issue 28 in AppTest: the keyboard path of a clickable heatmap (two number inputs) on page 4
(one Jacobian cell opened, what-if toggles) and page 2 (one hidden-state cell opened), the unit
search and the clamp, every number against rnnviz recomputed here."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from rnnviz.engine import cellpath, units
from rnnviz.engine.trace import trace
from rnnviz.explain.home import hidden_peak
from rnnviz.formatting import num
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import figures, no_exception, skip_checkpoints
from tests.conftest import ROOT

pytestmark = pytest.mark.pages

TEXT = "Arrive Taipei on November 2nd and leave Boston"


def _page(path: str, text: str = TEXT, model: str = "default", **state):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / path), default_timeout=120)
    at.session_state["model"], at.session_state["text"] = model, text
    for k, v in state.items():
        at.session_state[k] = v
    skip_checkpoints(at)  # the heatmaps a checkpoint guards are what these tests click
    at.run()
    no_exception(at)
    return at


def _trace(text: str = TEXT, model: str = "default"):
    m, vocab, meta = load_builtin(model)
    ids, targets = lm_pair(list(prepare(text, vocab, meta.get("level", "word")).ids), vocab)
    return m, trace(m, ids, targets), ids


def _titled(at, start: str) -> dict:
    found = [f for f in figures(at) if (f["layout"].get("title") or {}).get("text", "").startswith(start)]
    assert found, start
    return found[0]


def test_page4_typed_cell_opens_its_strip():
    at = _page("pages/bptt.py")
    at.number_input(key="bptt_cell_s").set_value(7)
    at.number_input(key="bptt_cell_t").set_value(2).run()
    no_exception(at)
    model, tr, _ = _trace()
    strip = cellpath.cell_strip(model, tr, 6, 1, "fwd", 2)
    text = next(m.value for m in at.markdown if m.value.startswith("**Cell (7, 2) is"))
    assert f"**Cell (7, 2) is {num(strip['value'])}**" in text and "5 factors" in text
    fig = _titled(at, "Cell (s = 7, t = 2)")
    running = [tr_ for tr_ in fig["data"] if tr_.get("name", "").startswith("log10 ‖Jₖ ⋯")][0]
    assert np.allclose(running["y"], [r["log10"] for r in strip["rows"]], atol=1e-9)
    # the heatmap carries the clickable layer and the ring on (7, 2)
    hm = _titled(at, "log10 ‖∂hₛ/∂hₜ‖")
    layer, ring = hm["data"][1], hm["data"][3]
    assert len(layer["customdata"]) == tr.T * tr.T and list(layer["customdata"][6 * tr.T + 1]) == [6, 1]
    assert ring["marker"]["symbol"] == "square-open" and ring["y"][0].startswith("7 ")
    # what if: slopes set to 1 recomputes this one cell
    at.toggle(key="bptt_whatif_flat").set_value(True).run()
    no_exception(at)
    flat = cellpath.cell_strip(model, tr, 6, 1, "fwd", 2, unsaturated=True)
    assert any(f"the same cell is **{num(flat['value'])}**" in m.value for m in at.markdown)


def test_page4_cell_before_the_window_and_swapped():
    at = _page("pages/bptt.py")
    at.number_input(key="bptt_cell_s").set_value(2)
    at.number_input(key="bptt_cell_t").set_value(6).run()  # t after s: shown swapped
    no_exception(at)
    assert any("swapped" in c.value for c in at.caption)
    assert any(m.value.startswith("**Cell (6, 2) is") for m in at.markdown)


def test_page2_typed_cell_opens_the_unit():
    at = _page("pages/hidden.py")
    at.number_input(key="hid_unit").set_value(5)
    at.number_input(key="hid_at").set_value(3).run()
    no_exception(at)
    model, tr, _ = _trace()
    h = tr.h.numpy()
    assert any(m.value.startswith("**Cell: unit u5 at step 3") and f"h = {num(float(h[2, 4]))}" in m.value
               for m in at.markdown)
    line = _titled(at, "Unit u5 over the sentence")
    assert np.allclose(line["data"][0]["y"], h[:, 4], atol=1e-6)
    vec = _titled(at, "hₜ at step 3")
    assert np.allclose(vec["data"][0]["y"], h[2], atol=1e-6)
    ext = units.extremes(h, 4, 3)
    top = ext["most"][0][0]
    assert any(c.value.startswith("Unit u5 is highest at") and f"step {top + 1}," in c.value
               for c in at.caption)


def test_page2_unit_search_and_clamp():
    at = _page("pages/hidden.py", hid_search=True)
    model, tr, ids = _trace()
    # default: a span of the sentence (tokens 1-2), in sample
    found = units.unit_search(tr.h, units.span_mask(tr.T, 0, 1), None, torch.Generator().manual_seed(0))
    best = found["rows"][0]
    assert any(f"Unit u{best['unit'] + 1} separates" in s.value and "on the same tokens" in s.value
               for s in at.success)
    # the clamp: the best unit held at 0, delta log p against a run edited here
    delta = units.clamp_effect(model, ids, best["unit"], 0.0)["delta"]
    bars = _titled(at, f"Δ log p(next token) with unit {best['unit'] + 1} silenced")
    assert np.allclose(bars["data"][0]["y"], delta.numpy(), atol=1e-9)
    at.radio(key="hid_clamp_to").set_value("mean").run()
    no_exception(at)
    mean = float(tr.h[:, best["unit"]].mean())
    delta = units.clamp_effect(model, ids, best["unit"], mean)["delta"]
    assert np.allclose(_titled(at, "Δ log p(next token)")["data"][0]["y"], delta.numpy(), atol=1e-9)
    # the honest flag: the position property on a text, AUC on held-out lines
    at.radio(key="hid_src").set_value("text").run()
    at.radio(key="hid_prop").set_value("half").run()
    no_exception(at)
    assert [s for s in at.success] or [w for w in at.warning if "No unit tracks" in w.value]
    assert any("on held-out text" in (s.value if hasattr(s, "value") else "") for s in [*at.success, *at.warning])


def test_page2_slot_worked_example_in_both_languages():
    for lang, word in (("en", "Taipei"), ("zh", "台北")):
        at = _page("pages/hidden.py", hid_search=True, hid_src="slot", lang=lang)
        text = [m.value for m in at.markdown if "Elman" in m.value and word in m.value]
        assert text, lang
        assert not any("{" in m for m in text)  # every number filled in


def test_page8_typed_cell_of_the_lstm_map_opens_its_chain():
    at = _page("pages/gates.py")
    at.radio(key="gates_map").set_value("lstm")
    at.number_input(key="gates_cell_s").set_value(8)
    at.number_input(key="gates_cell_t").set_value(3).run()
    no_exception(at)
    model, tr, _ = _trace(model="lstm")
    strip = cellpath.cell_strip(model, tr, 7, 2, "fwd", 2)
    text = next(m.value for m in at.markdown if m.value.startswith("**LSTM, cell (s = 8, t = 3)**"))
    assert f"its spectral norm is {num(strip['value'])}" in text and "forget" in text
    fig = _titled(at, "Cell (s = 8, t = 3)")
    slope = [d for d in fig["data"] if d.get("name", "").startswith("mean forget")][0]
    assert np.allclose(slope["y"], [r["slope"] for r in strip["rows"]])
    assert np.allclose(slope["y"], tr.gates["f"][3:8].double().mean(1).numpy())


def _linked(path: str, params: dict, **state):
    """A fresh session opened from a link with these parameters."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / path), default_timeout=120)
    at.session_state["model"], at.session_state["text"] = "default", TEXT
    for k, v in {**params, "model": "default", "text": TEXT}.items():
        at.query_params[k] = v
    for k, v in state.items():
        at.session_state[k] = v
    skip_checkpoints(at)
    at.run()
    no_exception(at)
    return at


def _q(at, key: str) -> str:
    v = at.query_params[key]
    return v[-1] if isinstance(v, list) else v


def _notices(at) -> list[str]:
    """The link notices (a page run alone in AppTest does not draw the sidebar's end)."""
    said = list(at.session_state["_link_notices"]) if "_link_notices" in at.session_state else []
    return [n.replace("\\,", ",") for n in said]  # md_escape's comma, as the reader sees it


def test_page4_cell_travels_in_the_link_as_one_parameter():
    at = _page("pages/bptt.py")
    at.number_input(key="bptt_cell_s").set_value(7)
    at.number_input(key="bptt_cell_t").set_value(2).run()
    no_exception(at)
    assert _q(at, "cell") == "7,2"
    assert "bptt_cell_s" not in at.query_params and "bptt_cell_t" not in at.query_params
    model, tr, _ = _trace()
    strip = cellpath.cell_strip(model, tr, 6, 1, "fwd", 2)
    for params in ({"cell": "7,2"}, {"cell": " 7，2 "}, {"bptt_cell_s": "7", "bptt_cell_t": "2"}):  # new, full-width, old
        again = _linked("pages/bptt.py", params)
        assert again.number_input(key="bptt_cell_s").value == 7 and again.number_input(key="bptt_cell_t").value == 2
        assert any(m.value.startswith(f"**Cell (7, 2) is {num(strip['value'])}**") for m in again.markdown), params
        assert _q(again, "cell") == "7,2" and "bptt_cell_s" not in again.query_params
        assert not any("Ignored link" in n or "cell" in n for n in _notices(again)), _notices(again)


def test_page4_a_bad_cell_in_a_link_says_so():
    T = _trace()[1].T
    at = _linked("pages/bptt.py", {"cell": "six,2"})
    said = [n for n in _notices(at) if "cell=six,2" in n]
    assert said and "is not a cell this map can open" in said[0] and "cell=6,2" in said[0]
    assert at.number_input(key="bptt_cell_s").value == T  # the usual cell
    at = _linked("pages/bptt.py", {"cell": "99,2"})
    said = [n for n in _notices(at) if "cell=99,2" in n]
    assert said and f"cell={T},2" in said[0]
    assert at.number_input(key="bptt_cell_s").value == T and at.number_input(key="bptt_cell_t").value == 2
    at = _linked("pages/bptt.py", {"cell": "<b>1</b>"})  # shown as text
    assert any("\\<b\\>" in n or "&lt;b&gt;" in n for n in _notices(at)), _notices(at)


def test_page2_unit_travels_in_the_link():
    at = _page("pages/hidden.py")
    at.number_input(key="hid_unit").set_value(5)
    at.number_input(key="hid_at").set_value(3).run()
    no_exception(at)
    assert _q(at, "unit") == "5,3"
    h = _trace()[1].h.numpy()
    for params in ({"unit": "5,3"}, {"hid_unit": "5", "hid_at": "3"}):
        again = _linked("pages/hidden.py", params)
        assert again.number_input(key="hid_unit").value == 5 and again.number_input(key="hid_at").value == 3
        assert any(m.value.startswith("**Cell: unit u5 at step 3") and f"h = {num(float(h[2, 4]))}" in m.value
                   for m in again.markdown)
        assert not any("Ignored link" in n for n in _notices(again)), _notices(again)
    peak = hidden_peak(h)
    u = 1 if peak["unit"] != 0 else 2
    only = _linked("pages/hidden.py", {"unit": str(u)})  # a unit alone: the step stays the usual one
    assert only.number_input(key="hid_unit").value == u
    assert only.number_input(key="hid_at").value == peak["t"] + 1
    assert _q(only, "unit") == f"{u},{peak['t'] + 1}"


def test_a_link_into_a_guarded_figure_opens_after_the_checkpoint():
    """Page 4's map waits behind a predict-first checkpoint: the link's cell stays in the address
    while the question is open and opens once it is skipped (the "no Ignored link parameter"
    half runs in a browser: tests/browser/test_cell_click.py)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages/bptt.py"), default_timeout=120)
    at.session_state["model"], at.session_state["text"] = "default", TEXT
    for k, v in {"model": "default", "text": TEXT, "cell": "7,2", "bptt_whatif_flat": "true"}.items():
        at.query_params[k] = v
    at.run()
    no_exception(at)
    assert _q(at, "cell") == "7,2"
    at.button(key="checkpoint_bptt_1_skip").click().run()
    no_exception(at)
    assert at.number_input(key="bptt_cell_s").value == 7
    assert at.toggle(key="bptt_whatif_flat").value is True
    assert any(m.value.startswith("**Cell (7, 2) is") for m in at.markdown)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_page8_unit_search_on_the_gated_cells(cell):
    """Page 8 runs page 2's search on the trio's LSTM or GRU (their h units): the ranking, the
    verdict and the clamp against rnnviz recomputed here on that model."""
    at = _page("pages/gates.py", gates_probe_search=True, gates_probe_cell=cell)
    model, tr, ids = _trace(model=cell)
    assert tr.h.shape[1] == model.cfg.hidden_size
    found = units.unit_search(tr.h, units.span_mask(tr.T, 0, 1), None, torch.Generator().manual_seed(0))
    best = found["rows"][0]
    said = [s.value for s in [*at.success, *at.warning] if "on the same tokens" in s.value]
    assert said, [s.value for s in at.success]
    if found["tracked"]:
        assert f"Unit u{best['unit'] + 1} separates" in said[0]
    table = [d for d in at.dataframe if "AUC" in list(d.value.columns)][0].value
    assert table.iloc[0, 0] == f"u{best['unit'] + 1}"
    assert np.allclose(table["AUC"].to_numpy(), [r["auc"] for r in found["rows"]], atol=1e-9)
    delta = units.clamp_effect(model, ids, best["unit"], 0.0)["delta"]
    bars = _titled(at, f"Δ log p(next token) with unit {best['unit'] + 1} silenced")
    assert np.allclose(bars["data"][0]["y"], delta.numpy(), atol=1e-9)
    assert any(f"{model.cfg.hidden_size} units of h" in c.value for c in at.caption)
