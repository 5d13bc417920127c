"""Lesson links: the shipped lessons load, name real pages and checkpoints in both languages,
and a broken lesson file is an InputError naming what is wrong."""
from __future__ import annotations

import pytest

from rnnviz.errors import InputError
from rnnviz.explain.checkpoints import KEYS
from rnnviz.store.lessons import lesson_names, load_lesson, note_in, parse_lesson
from ui.navigation import PAGES

URLS = {u for _, _, u, _ in PAGES}


def test_the_two_lessons_ship_in_both_languages():
    assert {"vanishing", "context"} <= set(lesson_names())
    vanish, context = load_lesson("vanishing"), load_lesson("context")
    assert [s.page for s in vanish.steps] == ["hidden", "bptt", "gates"]  # pages 2 -> 4 -> 8
    assert [s.page for s in context.steps] == ["embedding", "hidden", "slots"]  # pages 1 -> 2 -> 5
    assert vanish.title_in("en") == "Why gradients vanish" and vanish.title_in("zh") != vanish.title_in("en")
    assert context.title_in("en") == "Why context matters"
    for lesson in (vanish, context):
        for s in lesson.steps:
            assert s.page in URLS and (not s.checkpoint or s.checkpoint in KEYS)
            assert note_in(s, "en") and note_in(s, "zh") != note_in(s, "en")


@pytest.mark.parametrize("data,where", [
    ({"title": {"en": "x"}}, "steps"),
    ({"title": {"zh": "只有中文"}, "steps": [{"page": "bptt"}]}, "title"),
    ({"title": {"en": "x"}, "steps": [{"page": "../app"}]}, "step 1"),
    ({"title": {"en": "x"}, "steps": [{"page": "bptt", "hide": "bptt_ord"}]}, "step 1"),
    ({"title": {"en": "x"}, "steps": [{"page": "bptt", "checkpoint": "<b>"}]}, "step 1"),
])
def test_a_broken_lesson_says_where(data, where):
    with pytest.raises(InputError) as err:
        parse_lesson("mine", data)
    assert where in err.value.values["where"]


def test_an_unknown_or_unreadable_lesson(tmp_path):
    with pytest.raises(InputError):
        load_lesson("../README")
    (tmp_path / "bad.toml").write_text("title = [", encoding="utf-8")
    with pytest.raises(InputError):
        load_lesson("bad", tmp_path)
