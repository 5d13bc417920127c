"""Predict, then reveal: on pages 1, 2, 3, 4 and 8 the figure a checkpoint guards is absent
until an answer is committed (or the checkpoint skipped), and present after; in a class the
answer goes to the store under an anonymous id, once; the teacher view needs its token; the
solution of a page's exercise opens only after a Check."""
from __future__ import annotations

import html
import math
import re

import pytest

from rnnviz.explain.checkpoints import NUMERIC
from rnnviz.serve.classroom_store import ClassStore
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import chart_elements, figures
from tests.conftest import ROOT
from tests.core.test_checkpoints import autograd_norm

PAGES = [  # page, checkpoint key, the key of the figure it guards
    ("pages/embedding.py", "checkpoint_embedding_1", "emb_pca_0_chart"),
    ("pages/hidden.py", "checkpoint_hidden_1", "hid_fig_heat_chart"),
    ("pages/output.py", "checkpoint_output_1", "out_fig_loss_chart"),
    ("pages/bptt.py", "checkpoint_bptt_1", "bptt_norms_chart"),  # a number: log10 of a norm
    ("pages/gates.py", "checkpoint_gates_1", "gates_influence_chart"),
]


def charts(at) -> list[str]:
    return [c.proto.id for c in chart_elements(at)]


def has_chart(at, key: str) -> bool:
    return any(i.endswith("-" + key) for i in charts(at))


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("RNNVIZ_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("RNNVIZ_DATABASE_URL", raising=False)
    return tmp_path / "data"


def answer_input(at, key: str):
    """The checkpoint's input: a radio, or page 4's number input."""
    radios = [r for r in at.radio if r.key == key]
    return radios[0] if radios else at.number_input(key=key)


def choose(at, key: str, first: bool = True, number: float = -3.0) -> None:
    box = answer_input(at, key)
    box.set_value((box.options[0] if first else box.options[-1]) if hasattr(box, "options") else number)


@pytest.mark.parametrize("page,key,figure", PAGES, ids=[p[1] for p in PAGES])
def test_the_figure_appears_only_after_the_answer(app, page, key, figure):
    at = app(page, checkpoints=True)
    assert not at.exception
    assert not has_chart(at, figure)
    box = answer_input(at, key)
    assert box.value is None and (len(box.options) >= 2 if hasattr(box, "options") else key in NUMERIC)
    at.button(key=f"{key}_commit").click()
    at.run()  # no answer chosen: still hidden, and the learner is told
    assert not has_chart(at, figure) and at.warning
    choose(at, key)
    at.run()
    assert not has_chart(at, figure)  # choosing is not committing
    at.button(key=f"{key}_commit").click()
    at.run()
    assert not at.exception
    assert has_chart(at, figure)  # in the same run: the page draws once, not twice
    assert len(at.success) + len(at.error) >= 1  # the answer beside the truth
    assert not [w for w in at.get("radio") + at.get("number_input") if w.key == key]


def test_page_4_grades_a_number_within_the_tolerance_of_autograd():
    """The notes model on "I like cats very much": the truth is log10 ||dh_T/dh_1||_2 by autograd
    through torch.nn.RNN in float64 (tests/core/test_checkpoints.py); an answer inside the live
    tolerance max(0.5, |log|/10) is right, one outside is wrong, and the truth is shown."""
    from streamlit.testing.v1 import AppTest

    text = "I like cats very much"
    model, vocab, meta = load_builtin("notes")
    model = model.double()
    ids, _ = lm_pair(list(prepare(text, vocab, meta.get("level", "word")).ids), vocab)
    log = math.log10(autograd_norm(model, ids, len(ids) - 1, 0))
    tol = max(0.5, 0.1 * abs(log))
    at = AppTest.from_file(str(ROOT / "pages/bptt.py"), default_timeout=120)
    at.session_state["model"], at.session_state["text"] = "notes", text
    at.run()
    for guess, right in ((log + 0.9 * tol, True), (log - 1.1 * tol, False)):
        at.number_input(key="checkpoint_bptt_1").set_value(round(guess, 3))
        at.button(key="checkpoint_bptt_1_commit").click()
        at.run()
        assert not at.exception
        assert (len(at.success), len(at.error)) == ((1, 0) if right else (0, 1)), guess
        truth = (at.success or at.error)[0].value.rsplit(" ", 1)[1].rstrip(".")
        assert float(truth) == pytest.approx(log, abs=1e-3)
        at.button(key="checkpoint_bptt_1_again").click()
        at.run()


def test_skip_reveals_and_records_nothing(app, data_dir):
    store = ClassStore(data_dir=data_dir)
    c = store.create_class()
    at = app("pages/bptt.py", query={"class": c.code}, checkpoints=True)
    assert not has_chart(at, "bptt_norms_chart")
    at.button(key="checkpoint_bptt_1_skip").click()
    at.run()
    assert has_chart(at, "bptt_norms_chart") and store.counts(c.code) == {}


def test_in_a_class_an_answer_is_stored_once_and_a_new_round_asks_again(app, data_dir):
    store = ClassStore(data_dir=data_dir)
    c = store.create_class()
    at = app("pages/output.py", query={"class": c.code}, checkpoints=True)
    at.radio(key="checkpoint_output_1").set_value(at.radio(key="checkpoint_output_1").options[0])
    at.button(key="checkpoint_output_1_commit").click()
    at.run()
    at.run()  # a rerun writes nothing twice
    counts = store.counts(c.code)["checkpoint_output_1"]
    assert counts["1"]["answered"] == 1
    rows = store._run("SELECT session FROM answers")
    assert len(rows) == 1 and len(rows[0][0]) == 16  # an anonymous random id, nothing else
    store.vote_again(c.code, "checkpoint_output_1")
    at.run()
    assert at.radio(key="checkpoint_output_1").value is None  # asked again, the figure stays
    assert has_chart(at, "out_fig_loss_chart")
    at.radio(key="checkpoint_output_1").set_value(at.radio(key="checkpoint_output_1").options[-1])
    at.button(key="checkpoint_output_1_commit").click()
    at.run()
    counts = store.counts(c.code)["checkpoint_output_1"]
    assert counts["1"]["answered"] == 1 and counts["2"]["answered"] == 1


def test_a_missing_class_is_a_notice_and_the_page_draws(app, data_dir):
    at = app("pages/bptt.py", query={"class": "ZZZZZZZZ"}, checkpoints=True)
    assert not at.exception and at.number_input(key="checkpoint_bptt_1")
    at.number_input(key="checkpoint_bptt_1").set_value(-2.5)
    at.button(key="checkpoint_bptt_1_commit").click()
    at.run()
    assert not at.exception and has_chart(at, "bptt_norms_chart")


def test_the_teacher_view_needs_the_token_and_shows_the_answers(app, data_dir):
    store = ClassStore(data_dir=data_dir)
    c = store.create_class()
    for i, value in enumerate(["-3.5", "-2", "-2.1"]):
        store.record_answer(c.code, "checkpoint_bptt_1", f"s{i}", value, i > 0, 5.0)
    refused = app(query={"class": c.code, "teacher": "wrong"})
    assert refused.error and not chart_elements(refused)
    at = app(query={"class": c.code, "teacher": c.teacher_token})
    assert not at.exception and not at.error
    assert has_chart(at, "class_fig_checkpoint_bptt_1")
    assert any("3" in m.value for m in at.metric)
    hist = next(f for f in figures(at) if any("right" in (d.get("name") or "") for d in f["data"]))
    right = sum(sum(d["y"]) for d in hist["data"] if d["name"].endswith("right"))
    wrong = sum(sum(d["y"]) for d in hist["data"] if d["name"].endswith("wrong"))
    assert (right, wrong) == (2, 1)  # a numeric checkpoint: a histogram, right under wrong
    at.button(key="class_vote_checkpoint_bptt_1").click()
    at.run()
    assert store.rounds(c.code) == {"checkpoint_bptt_1": 2}


def test_page_1_answers_show_their_word_in_the_teachers_chart(app, data_dir):
    store = ClassStore(data_dir=data_dir)
    c = store.create_class()
    at = app("pages/embedding.py", query={"class": c.code}, checkpoints=True)
    radio = at.radio(key="checkpoint_embedding_1")
    radio.set_value(radio.options[0])
    at.button(key="checkpoint_embedding_1_commit").click()
    at.run()
    assert not at.exception
    (code, word), = store.labels(c.code)["checkpoint_embedding_1"].items()
    _, vocab, _ = load_builtin("default")
    assert code == f"w{vocab.stoi[word]}"  # the label is the vocabulary's word of that id
    teacher = app(query={"class": c.code, "teacher": c.teacher_token})
    bars = next(f for f in figures(teacher) if f["data"] and f["data"][0].get("type") == "bar")
    assert list(bars["data"][0]["x"]) == [html.escape(word)]  # the word, escaped; not "word #id"


def test_the_home_page_creates_a_class(app, data_dir):
    at = app()
    at.button(key="class_create").click()
    at.run()
    assert not at.exception
    links = [c.value for c in at.code if "class=" in c.value]
    assert len(links) == 2 and "teacher=" in links[1]
    code = links[0].split("class=")[1][:8]
    assert ClassStore(data_dir=data_dir).get_class(code) is not None


def test_the_solution_opens_only_after_a_check(app):
    at = app("pages/output.py")
    toggle = next(tg for tg in at.toggle if tg.key.endswith("_solution"))
    assert toggle.proto.disabled
    at.button(key=toggle.key.removesuffix("_solution") + "_check").click()
    at.run()
    assert not next(tg for tg in at.toggle if tg.key == toggle.key).proto.disabled


def test_a_failing_database_is_a_notice_and_the_page_draws(app, monkeypatch):
    monkeypatch.setenv("RNNVIZ_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    at = app("pages/bptt.py", query={"class": "ABCDEFGH"}, checkpoints=True)
    at.number_input(key="checkpoint_bptt_1").set_value(-4.0)
    at.button(key="checkpoint_bptt_1_commit").click()
    at.run()
    assert not at.exception and has_chart(at, "bptt_norms_chart")
    assert any("class store cannot be reached" in w.value for w in at.warning)


def test_an_answer_the_store_refused_is_sent_on_a_later_run(app, data_dir, monkeypatch):
    store = ClassStore(data_dir=data_dir)
    c = store.create_class()
    monkeypatch.setenv("RNNVIZ_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")  # down
    at = app("pages/output.py", query={"class": c.code}, checkpoints=True)
    at.radio(key="checkpoint_output_1").set_value(at.radio(key="checkpoint_output_1").options[0])
    at.button(key="checkpoint_output_1_commit").click()
    at.run()
    assert store.counts(c.code) == {}
    monkeypatch.delenv("RNNVIZ_DATABASE_URL")  # back up (this session waits out its back-off)
    at.session_state["_class_store_down"] = 0.0
    at.run()
    assert store.counts(c.code)["checkpoint_output_1"]["1"]["answered"] == 1


def test_a_new_round_reopens_only_an_answered_checkpoint():
    """The polling fragment's rule (ui/checkpoint.reopened): a round opened after the one this
    session answered in asks again; a skip, no answer, or no class (None) never does."""
    from ui.checkpoint import reopened

    assert reopened({"round": 1}, 2) and reopened({"round": 2}, 5)
    assert not reopened({"round": 2}, 2) and not reopened({"round": 3}, 2)
    assert not reopened({"skipped": True}, 2) and not reopened(None, 2) and not reopened({"round": 1}, None)
    assert not reopened({"round": None, "pending": ("w1", True, 1.0, "")}, 2)  # not stored yet


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_4_asks_with_its_steps_written_as_subscripts(app, lang):
    """The question names its two steps as subscripts, ‖∂h₅/∂h₁‖, as the page's prose and charts
    write them (not ‖∂h_5/∂h_1‖), in the question, the number's label and the answer."""
    at = app("pages/bptt.py", query={"lang": lang}, checkpoints=True)
    label = at.number_input(key="checkpoint_bptt_1").label
    asked = [m.value for m in at.markdown if "log₁₀" in m.value]
    assert asked and re.search(r"‖∂h[₀-₉]+/∂h[₀-₉]+‖", asked[0]) and "Wₕ" in asked[0]
    assert re.search(r"‖∂h[₀-₉]+/∂h[₀-₉]+‖", label) and "h_" not in asked[0] + label
