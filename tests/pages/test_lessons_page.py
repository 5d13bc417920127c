"""?lesson=NAME walks a lesson: its title and step above the page, Next / Back switch to the
step's page with its parameters, a control the step hides is not drawn, and in a class each
student's step reaches the teacher view."""
from __future__ import annotations

from rnnviz.serve.classroom_store import ClassStore


def texts(at) -> str:
    return " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)


def test_a_lesson_walks_its_pages_and_hides_its_controls(app, tmp_path, monkeypatch):
    monkeypatch.setenv("RNNVIZ_DATA_DIR", str(tmp_path / "data"))
    store = ClassStore(data_dir=tmp_path / "data")
    c = store.create_class(lesson="vanishing")
    at = app(query={"lesson": "vanishing", "class": c.code})
    assert not at.exception
    assert "Why gradients vanish" in texts(at) and "Step 1 of 3" in texts(at)
    assert at.button(key="lesson_back").disabled
    at.button(key="lesson_open").click()
    at.run()
    assert not at.exception and at.toggle(key="hid_play")  # page 2
    at.button(key="lesson_next").click()
    at.run()
    assert not at.exception and "Step 2 of 3" in texts(at)
    assert at.select_slider(key="bptt_scale").value == 0.5  # the step's parameter
    assert not [r for r in at.radio if r.key == "bptt_ord"]  # hidden by the step
    assert store.steps(c.code) == {1: 1}
    teacher = app(query={"class": c.code, "teacher": c.teacher_token})
    assert any(m.label.startswith("Step 2") and m.value.startswith("1 ") for m in teacher.metric)
    at.button(key="lesson_back").click()
    at.run()
    assert "Step 1 of 3" in texts(at) and store.steps(c.code) == {0: 1}


def test_an_unknown_lesson_is_a_message(app):
    at = app(query={"lesson": "nope"})
    assert not at.exception and any("nope" in w.value for w in at.warning)


def test_a_lesson_in_chinese(app):
    at = app(query={"lesson": "context", "lang": "zh"})
    assert "为什么上下文很重要" in texts(at) and "第 1 步，共 3 步" in texts(at)
