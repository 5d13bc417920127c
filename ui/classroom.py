"""A session in a class: `?class=CODE` (a student), `?class=CODE&teacher=TOKEN` (the teacher).

The code, the token and an anonymous random session id live in st.session_state (never the IP,
never a name). Every call to the store goes through here: a StoreError becomes one notice on the
page (errors.store_unavailable), and the page keeps drawing."""
from __future__ import annotations

import time

import streamlit as st

from rnnviz.errors import InputError, StoreError
from rnnviz.serve.classroom_store import ClassInfo, ClassStore, clean_code, new_session_id, store_from_env

from .i18n import error_text, t

CLASS, TEACHER, SID = "_class_code", "_class_teacher", "_class_sid"
RETRY_S = 30.0  # after a store failure, the session waits this long before trying again
LINK_PARAMS = ("class", "teacher", "lesson", "step")  # the link's class parameters: no widget's


def store() -> ClassStore | None:
    """The class store, or None (a notice says why) when it cannot be opened. After a failure
    the session does not try again for RETRY_S seconds: a down database never slows every run."""
    if time.time() < st.session_state.get("_class_store_down", 0.0):
        failed(StoreError())
        return None
    try:
        return store_from_env()
    except StoreError as err:
        failed(err)
        return None


def failed(err: Exception) -> None:
    """A store failure or a bad class: one notice, once per run."""
    if isinstance(err, StoreError):
        st.session_state["_class_store_down"] = time.time() + RETRY_S
    shown = st.session_state.setdefault("_class_notices", set())
    text = error_text(err) if isinstance(err, InputError) else t(f"errors.{getattr(err, 'key', '')}")
    if text not in shown:
        shown.add(text)
        st.warning(text, icon=":material/cloud_off:")


def read_link() -> None:
    """Each run, before the page: take ?class= and ?teacher= from the link into the session
    (kept when a page switch drops them from the URL)."""
    st.session_state["_class_notices"] = set()
    code = st.query_params.get("class")
    if code is not None:
        st.session_state[CLASS] = clean_code(code)
        st.session_state[TEACHER] = st.query_params.get("teacher", "")[:64]
    st.session_state.setdefault(SID, new_session_id())


def code() -> str:
    return st.session_state.get(CLASS, "")


def session_id() -> str:
    return st.session_state.setdefault(SID, new_session_id())


def current_class() -> ClassInfo | None:
    """The class this session is in (None: none, unknown, expired, or the store is down)."""
    if not code():
        return None
    s = store()
    if s is None:
        return None
    try:
        info = s.get_class(code())
    except StoreError as err:
        failed(err)
        return None
    if info is None:
        failed(InputError("This class does not exist or has expired.", "no_class"))
    return info


def is_teacher() -> bool:
    s = store()
    if s is None or not code():
        return False
    try:
        return s.is_teacher(code(), st.session_state.get(TEACHER, ""))
    except StoreError as err:
        failed(err)
        return False


def current_round(checkpoint: str) -> int | None:
    """The checkpoint's open round in this session's class (None: not in a class)."""
    s = store() if code() else None
    if s is None:
        return None
    try:
        return s.current_round(code(), checkpoint)
    except StoreError as err:
        failed(err)
        return None


def record(checkpoint: str, answer: str, correct: bool, seconds: float, label: str = "") -> int | None:
    """Write one answer of this session to its class (with the label the learner saw, e.g. a
    word); the round written (None: not in a class or not written, with a notice)."""
    s = store() if code() else None
    if s is None:
        return None
    try:
        return s.record_answer(code(), checkpoint, session_id(), answer, correct, seconds, label=label)
    except (StoreError, InputError) as err:
        failed(err)
        return None


def record_step(step: int) -> None:
    s = store() if code() else None
    if s is None:
        return
    try:
        s.record_step(code(), session_id(), step)
    except StoreError as err:
        failed(err)
