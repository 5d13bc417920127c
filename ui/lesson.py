"""Lesson links: `?lesson=NAME` walks lessons/NAME.toml step by step with Next / Back. Each step
opens its page with its URL parameters; the controls it hides are not drawn (the widget helpers
of ui/widgets.py ask `hidden_value(key)` and take the step's parameter instead); its checkpoint
is the one the step asks. In a class, each move is written to the store, so the teacher view
shows how many students are on each step."""
from __future__ import annotations

import streamlit as st

from rnnviz.errors import InputError
from rnnviz.store.lessons import Lesson, Step, load_lesson, note_in

from . import classroom
from .i18n import current_lang, error_text, t
from .navigation import APP_ROOT, PAGES
from .widgets import hide_controls_with, md_escape

NAME, STEP = "_lesson_name", "_lesson_step"


def read_link() -> None:
    """Each run, before the page: ?lesson= (and ?step=, 1-based) into the session."""
    name = st.query_params.get("lesson")
    if name is not None and name != st.session_state.get(NAME):
        st.session_state[NAME] = name[:40]
        try:
            st.session_state[STEP] = max(0, int(st.query_params.get("step", "1")) - 1)
        except ValueError:
            st.session_state[STEP] = 0


def current() -> tuple[Lesson, int] | None:
    """The lesson this session follows and its step (0-based), or None."""
    name = st.session_state.get(NAME)
    if not name:
        return None
    try:
        lesson = load_lesson(name)
    except InputError as err:
        st.warning(error_text(err))
        st.session_state.pop(NAME, None)
        return None
    step = min(max(int(st.session_state.get(STEP, 0)), 0), len(lesson.steps) - 1)
    return lesson, step


def step_now() -> Step | None:
    got = current()
    return got[0].steps[got[1]] if got else None


def hidden(key: str) -> bool:
    """Whether the current lesson step hides the control `key` on its page."""
    step = step_now()
    return bool(step) and key in step.hide and st.session_state.get("_page_url") == step.page


def hidden_value(key: str) -> tuple[bool, str | None]:
    """(whether the current step hides `key`, the step's parameter of that name or None): the
    widget helpers (ui/widgets.py) return it instead of drawing the control."""
    if not hidden(key):
        return False, None
    return True, dict(step_now().params).get(key)


hide_controls_with(hidden_value)


def page_file(url: str) -> str | None:
    return next((str(APP_ROOT / path) for path, _, u, _ in PAGES if u == url), None)


def _move(step: int) -> None:
    """Next / Back / Go (a callback: the step is set before the run that draws it)."""
    st.session_state[STEP] = step
    st.session_state["_lesson_go"] = True


def _go(lesson: Lesson, step: int) -> None:
    st.session_state.pop("_lesson_go", None)
    s = lesson.steps[step]
    params = dict(s.params) | {"lesson": lesson.name, "step": str(step + 1), "lang": current_lang()}
    if classroom.code():
        params["class"] = classroom.code()
    target = page_file(s.page)
    st.session_state["_page_url"] = s.page  # known before the page runs (AppTest runs it alone)
    if target:
        st.switch_page(target, query_params=params)


def bar(page_url: str) -> None:
    """Above the page: the lesson's title, the step, its note, Back / Next."""
    st.session_state["_page_url"] = page_url
    got = current()
    if got is None:
        return
    lesson, step = got
    if st.session_state.get("_lesson_recorded") != (classroom.code(), step):
        st.session_state["_lesson_recorded"] = (classroom.code(), step)
        classroom.record_step(step)
    s = lesson.steps[step]
    lang = current_lang()
    with st.container(border=True):
        st.markdown(f"**{t('lesson.header', title=md_escape(lesson.title_in(lang)))}** · "
                    f"{t('lesson.step', n=step + 1, total=len(lesson.steps))}")
        if note_in(s, lang):
            st.caption(md_escape(note_in(s, lang)))
        c1, c2, _ = st.columns([1, 1, 4])
        last = step == len(lesson.steps) - 1
        c1.button(t("lesson.back"), key="lesson_back", disabled=step == 0, on_click=_move, args=(step - 1,))
        c2.button(t("lesson.next"), key="lesson_next", disabled=last, type="primary", on_click=_move,
                  args=(step + 1,))
        if page_url != s.page:
            st.button(t("lesson.open_step", n=step + 1), key="lesson_open", on_click=_move, args=(step,))
        elif last:
            st.caption(t("lesson.done"))
    if st.session_state.get("_lesson_go"):
        _go(lesson, step)
