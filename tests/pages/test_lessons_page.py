"""?lesson=NAME walks a lesson: its title and step above the page, Next / Back switch to the
step's page with its parameters, a control the step hides is not drawn, and in a class each
student's step reaches the teacher view."""
from __future__ import annotations

import pytest

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


def test_the_teacher_counts_students_on_each_step_in_words(app, tmp_path, monkeypatch):
    """'1 student', '2 students', '0 students' (and '1 名学生'): never '1 students'."""
    monkeypatch.setenv("RNNVIZ_DATA_DIR", str(tmp_path / "data"))
    store = ClassStore(data_dir=tmp_path / "data")
    c = store.create_class(lesson="vanishing")
    store.record_step(c.code, "a", 0)
    store.record_step(c.code, "b", 1)
    store.record_step(c.code, "c", 1)
    for lang, want in (("en", ["1 student", "2 students", "0 students"]), ("zh", ["1 名学生", "2 名学生", "0 名学生"])):
        teacher = app(query={"class": c.code, "teacher": c.teacher_token, "lang": lang})
        assert not teacher.exception
        assert [m.value for m in teacher.metric][:3] == want


def test_an_unknown_lesson_is_a_message(app):
    at = app(query={"lesson": "nope"})
    assert not at.exception and any("nope" in w.value for w in at.warning)


def test_a_lesson_in_chinese(app):
    at = app(query={"lesson": "context", "lang": "zh"})
    assert "为什么上下文很重要" in texts(at) and "第 1 步，共 3 步" in texts(at)


def drawn_keys(at) -> set[str]:
    return {k for e in at._tree if isinstance(k := getattr(e, "key", None), str)}


def walk(app, name: str):
    """(step, AppTest on that step's page), every step of the lesson, through Next."""
    from rnnviz.store.lessons import load_lesson

    lesson = load_lesson(name)
    at = app(query={"lesson": name})
    at.button(key="lesson_open").click()
    at.run()
    for i, step in enumerate(lesson.steps):
        assert not at.exception, [e.value for e in at.exception]
        assert f"Step {i + 1} of {len(lesson.steps)}" in texts(at)
        yield step, at
        if i + 1 < len(lesson.steps):
            at.button(key="lesson_next").click()
            at.run()


@pytest.mark.parametrize("name", ["vanishing", "context"])
def test_every_control_a_lesson_hides_is_absent_on_its_step_and_drawn_without_it(app, name):
    """One mechanism (ui/widgets.py's helpers ask the lesson): each hidden key is a real control
    (its page draws it without the lesson) and the step does not draw it."""
    hidden_somewhere = False
    for step, at in walk(app, name):
        keys = drawn_keys(at)
        assert not set(step.hide) & keys, (step.page, set(step.hide) & keys)
        hidden_somewhere |= bool(step.hide)
        if step.hide:
            free = app(f"pages/{step.page}.py", query=dict(step.params))
            assert set(step.hide) <= drawn_keys(free), (step.page, set(step.hide) - drawn_keys(free))
    assert hidden_somewhere


def test_a_hidden_control_takes_the_steps_value(app):
    steps = walk(app, "context")
    step, at = next(steps)  # page 1: its step slider hidden at emb_step = 3
    assert dict(step.params)["emb_step"] == "3" and "emb_step" in step.hide
    assert at.session_state["shared_step"] == 3  # the hidden slider's value: the step's parameter
    assert not [s for s in at.slider if s.key == "emb_step"]
    step, at = next(steps)  # page 2: the cell variant hidden at "bidirectional"
    assert dict(step.params)["hid_cell"] == "bidirectional"
    assert any("overleftarrow" in x.value for x in at.latex)  # the variant's equations are drawn
    assert not [r for r in at.radio if r.key == "hid_cell"]
