"""AppTest of the slot-filling page: presets, a typed sentence with unknown words, Jordan's
forced error, the hand exercise and a small retrain that stays in the session."""
from __future__ import annotations

import numpy as np

from rnnviz import tagging as tg
from rnnviz.data import TAGS
from tests.apptest_helpers import figure_titles, figures, no_exception

PAGE = "pages/slots.py"
ARRIVE = "Notes: Arrive Taipei on November 2nd"  # the options are the learner's labels (the URL
LEAVE = "Notes: Leave Taipei on November 2nd"    # carries them, and the link check compares them)
LEAVE_LINK = LEAVE


def grid(at) -> dict:
    """The token x tagger figure as {tagger: [tag per word]} and the row labels."""
    fig = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Tag per word"))
    hm = fig["data"][0]
    z = np.asarray(hm["z"], dtype=float)
    tags = {label: [TAGS[int(z[t, j])] for t in range(z.shape[0])] for j, label in enumerate(hm["x"])}
    return tags, list(hm["y"])


def form(at):
    return next(df.value for df in at.dataframe if df.value.index.name == "slot")


def test_default_page_renders(app):
    at = app(PAGE)
    no_exception(at)
    tags, rows = grid(at)
    assert list(tags) == [tg.LABELS[k] for k in tg.KINDS]
    titles = figure_titles(at)
    assert any("hidden state at Taipei" in t for t in titles)
    assert any("true vs predicted" in t for t in titles)
    assert any("forced" in t for t in titles)
    stream = next(df.value for df in at.dataframe if "after 1 word(s)" in df.value.index)
    assert list(stream.columns) == "Tokyo is my departure".split()
    assert stream.iloc[0, 1:].tolist() == ["…"] * 3 and stream.iloc[-1, 0] == "departure"


def test_preset_pair(app):
    at = app(PAGE)
    at.selectbox(key="slot_source").set_value(ARRIVE).run()
    no_exception(at)
    arrive, rows = grid(at)
    assert rows[1] == "2 Taipei"
    assert form(at).loc["Destination", tg.LABELS["elman"]] == "Taipei"
    assert form(at).loc["Date", tg.LABELS["elman"]] == "November 2nd"
    at.selectbox(key="slot_source").set_value(LEAVE).run()
    no_exception(at)
    leave, _ = grid(at)
    fnn, elman = tg.LABELS["fnn"], tg.LABELS["elman"]
    assert arrive[fnn][1] == leave[fnn][1]
    assert (arrive[elman][1], leave[elman][1]) == ("destination", "departure")
    assert form(at).loc["Departure", elman] == "Taipei"
    assert form(at).loc["Date/time of", elman] == "departure"
    assert form(at).loc["Date/time of", fnn] == "arrival"  # the FNN's wrong city misleads it
    # the distances table: 0 for the FNN, clearly not for Elman
    dist = next(df.value for df in at.dataframe if "tag after Leave" in df.value.columns)
    col = [c for c in dist.columns if c.startswith("distance")][0]
    values = dict(zip(dist["tagger"], dist[col]))
    assert float(values[fnn]) == 0.0 and float(values[elman]) > 1.0


def test_typed_sentence_with_unknown_words(app):
    at = app(PAGE)
    at.selectbox(key="slot_source").set_value("Type your own…").run()
    at.text_input(key="slot_text").set_value("Arrive Qwertyville on November 2nd 🙂").run()
    no_exception(at)
    tags, rows = grid(at)
    assert rows[1] == "2 Qwertyville" and len(rows) == 6
    assert any("Qwertyville" in m.value and "<unk>" in m.value for m in at.markdown)
    at.text_input(key="slot_text").set_value("   ").run()
    no_exception(at)
    assert at.error and "empty" in at.error[0].value
    assert grid(at)[1][1] == "2 Taipei"  # the notes' sentence is shown instead
    at.text_input(key="slot_text").set_value("Taipei").run()  # one word: no step slider
    no_exception(at)
    assert grid(at)[1] == ["1 Taipei"]
    at.text_input(key="slot_text").set_value("Leave Paris " * 150).run()
    no_exception(at)
    assert any("100 more were dropped" in w.value for w in at.warning)
    assert len(grid(at)[1]) == 200


def test_jordan_forced_error_changes_the_table(app):
    at = app(PAGE)
    at.selectbox(key="slot_source").set_value(ARRIVE).run()
    at.slider(key="slot_force_step").set_value(1).run()
    at.selectbox(key="slot_force_tag").set_value("time").run()
    no_exception(at)
    table = next(df.value for df in at.dataframe if "run" in df.value.columns)
    jordan = table[table["tagger"] == tg.LABELS["jordan"]]
    elman = table[table["tagger"] == tg.LABELS["elman"]]
    assert list(jordan["1 Arrive"]) == ["other", "time"]
    assert jordan["2 Taipei"].iloc[0] != jordan["2 Taipei"].iloc[1]  # the error travelled on
    assert elman["2 Taipei"].iloc[0] == elman["2 Taipei"].iloc[1]    # Elman did not care


def test_exercise_checker(app):
    at = app(PAGE)
    ex = tg.jordan_exercise(0)
    at.number_input(key="slot_ex_a1").set_value(float(ex.answer()[0]))
    at.number_input(key="slot_ex_a2").set_value(float(ex.answer()[1]))
    at.button(key="slot_ex_check").click().run()
    no_exception(at)
    assert any("Right" in s.value for s in at.success)
    wrong = ex.W_x @ ex.x + ex.b
    at.number_input(key="slot_ex_a1").set_value(float(wrong[0]))
    at.number_input(key="slot_ex_a2").set_value(float(wrong[1]))
    at.button(key="slot_ex_check").click().run()
    assert any("W_y y_prev" in w.value.replace("\\", "") for w in at.error)


def test_small_retrain_lives_in_the_session_only(app):
    at = app(PAGE)
    before = grid_text(at)
    at.slider(key="slot_steps").set_value(20)
    at.slider(key="slot_hidden").set_value(4)
    next(b for b in at.button if b.label == "Train").click().run()
    no_exception(at)
    own = at.session_state["slot_own"]
    assert len(own["history"]) == 20 and own["model"].cfg.hidden_size == 4
    tags, _ = grid(at)
    assert len(tags) == 5 and list(tags)[-1].startswith("Yours")
    assert any(t.startswith("Training loss") for t in figure_titles(at))
    assert grid_text(at)[:, :4].tolist() == before.tolist()  # the shared taggers did not change
    fresh = app(PAGE)  # another session does not see it
    assert "slot_own" not in fresh.session_state
    assert len(grid(fresh)[0]) == 4


def grid_text(at) -> np.ndarray:
    """The tag grid's cell texts ("destination (0.99)"), words x taggers."""
    fig = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Tag per word"))
    return np.asarray(fig["data"][0]["text"])


def test_a_link_reproduces_the_view(app):
    at = app(PAGE, query={"slot_source": LEAVE_LINK, "slot_pair_tagger": "Bidirectional Elman"})
    no_exception(at)
    assert at.selectbox(key="slot_source").value == LEAVE
    assert grid(at)[0][tg.LABELS["elman"]][1] == "departure"
    assert any(t.startswith("Bidirectional Elman: hidden state") for t in figure_titles(at))


def test_title_accuracy_wording_and_wrapped_sentence(app):
    import re

    at = app(PAGE)
    no_exception(at)
    assert at.title[0].value.startswith("5 · Slot filling")
    assert at.code[0].proto.wrap_lines
    prose = " ".join(m.value for m in at.markdown)
    m = re.search(r"leads on the held-out\s+split \(accuracy (\d\.\d{3})\)", prose)
    assert m, "the bidirectional accuracy is written as (accuracy 0.xxx)"
    data = tg.tagging_data()
    bi = tg.load_tagger((tg.TAGGERS_DIR / "bi.pt").read_bytes())[0]
    assert m[1] == f"{tg.evaluate(bi, data)['accuracy']:.3f}"


def test_fifth_tagger_reach_and_shifted_scores(app):
    """The flattened FNN's context map and its held-out accuracy before and after the shift,
    against rnnviz recomputed here."""
    at = app(PAGE)
    at.selectbox(key="slot_source").set_value(ARRIVE).run()
    no_exception(at)
    flat = tg.load_tagger((tg.TAGGERS_DIR / "flat.pt").read_bytes())[0]
    fnn = tg.load_tagger((tg.TAGGERS_DIR / "fnn.pt").read_bytes())[0]
    data = tg.tagging_data()
    ids = tg.prepare("Arrive Taipei on November 2nd", data.vocab).ids
    fig = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("How far each tag"))
    np.testing.assert_allclose(fig["data"][0]["z"], tg.context_reach(fnn, ids), rtol=1e-6)
    np.testing.assert_allclose(fig["data"][1]["z"], tg.context_reach(flat, ids), rtol=1e-6)
    table = next(df.value for df in at.dataframe if "accuracy with “please” in front" in df.value.columns)
    row = table[table["tagger"] == tg.LABELS[tg.FLAT]].iloc[0]
    assert row["held-out accuracy"] == f"{tg.evaluate(flat, data)['accuracy']:.3f}"
    assert row["accuracy with “please” in front"] == f"{tg.evaluate(flat, tg.shifted_heldout(data))['accuracy']:.3f}"
    assert any("plays no part here" in i.value for i in at.info)
    assert any("(#slots-flat)" in m.value for m in at.markdown)


def test_chinese_page_is_mostly_chinese(app):
    at = app(PAGE)
    at.session_state["lang"] = "zh"
    at.run()
    no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    han = sum("\u4e00" <= ch <= "\u9fff" for ch in text)
    latin = sum(ch.isascii() and ch.isalpha() for ch in text)
    assert han > latin, (han, latin)
