"""Issue 25: a first visit in 中文 opens the Chinese model and a Chinese sentence; a sentence in
the other script moves an unpinned built-in to the matching one (with an undo); a link's model
stays."""
from __future__ import annotations

import pytest

from rnnviz.store.catalog import BUILTINS, START_MODEL

from ..apptest_helpers import no_exception

PAGES = ("pages/home.py", "pages/embedding.py", "pages/hidden.py", "pages/output.py", "pages/bptt.py",
         "pages/slots.py", "pages/train.py", "pages/origins.py", "pages/gates.py")


def test_first_visit_in_zh_opens_the_chinese_model(app):
    at = app(query={"lang": "zh"}, model=None)
    no_exception(at)
    assert at.session_state["model"] == "zh"
    assert at.sidebar.text_area(key="text").value == BUILTINS["zh"].default_sentence
    assert at.sidebar.selectbox(key="model").index == 0  # the Chinese model first in 中文


def test_first_visit_in_english_keeps_the_start_model(app):
    at = app(model=None)
    assert at.session_state["model"] == START_MODEL


def test_a_link_model_still_opens_that_model_in_zh(app):
    at = app(query={"lang": "zh", "model": "subword"})
    assert at.session_state["model"] == "subword"
    at.sidebar.text_area(key="text").input("我喜欢猫。").run()
    assert at.session_state["model"] == "subword"  # pinned by the link: no move


def test_a_link_text_in_chinese_opens_the_chinese_model(app):
    at = app(query={"text": "我喜欢猫。"}, model=None)
    assert at.session_state["model"] == "zh"


def test_typing_the_other_script_moves_and_undo_goes_back(app):
    at = app(model=None)
    assert at.session_state["model"] == START_MODEL
    at.sidebar.text_area(key="text").input("我喜欢猫，也喜欢狗。").run()
    no_exception(at)
    assert at.session_state["model"] == "zh"
    assert at.sidebar.text_area(key="text").value == "我喜欢猫，也喜欢狗。"
    assert any("zh" in i.value or "中文" in i.value or "Chinese" in i.value for i in at.info)
    at.button(key="model_move_undo").click().run()
    no_exception(at)
    assert at.session_state["model"] == START_MODEL
    assert at.sidebar.text_area(key="text").value == "我喜欢猫，也喜欢狗。"
    at.sidebar.text_area(key="text").input("我喜欢狗。").run()
    assert at.session_state["model"] == START_MODEL  # undone: the learner's choice stays


def test_typing_english_in_zh_moves_to_the_english_model(app):
    at = app(query={"lang": "zh"}, model=None)
    at.sidebar.text_area(key="text").input("I like cats").run()
    assert at.session_state["model"] == START_MODEL
    assert not at.exception


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_on_the_chinese_model_from_a_zh_first_visit(app, page):
    at = app(page, query={"lang": "zh"}, model=None)
    no_exception(at)
    assert at.session_state["model"] == "zh"
