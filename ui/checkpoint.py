"""Predict, then reveal: a checkpoint asks what the next figure will show, takes a committed
answer (or a skip), and only then lets the page draw the figure; the learner's answer then
stands beside the truth with one sentence of why.

    q = checkpoints.output_question(...)          # rnnviz.explain.checkpoints: computed live
    if checkpoint.ask(q):                         # False until answered or skipped
        output_more.whole_sentence(cur, t1, k)    # the guarded figure

Widget keys: the answer is `q.key` (checkpoint_<page>_<n>: a radio, or a number input for a
numeric question), the commit button `q.key + "_commit"`, skip `q.key + "_skip"`. In a class
(?class=CODE) a committed answer is written to the store under the session's anonymous id, in
the checkpoint's open round; a skip records nothing. While an answered checkpoint is on screen
in a class, a small fragment asks the store every POLL_S seconds for the checkpoint's open round
(one indexed query) and, when the teacher has opened a new one, reruns the page: the checkpoint
asks again without waiting for the learner's next click."""
from __future__ import annotations

import numbers
import time

import streamlit as st

from rnnviz.explain.checkpoints import KEYS, Question, grade, number_text
from rnnviz.formatting import sub

from . import classroom, lesson
from .i18n import t
from .widgets import md_escape

NUMBER_RANGE = 1000.0  # a numeric answer's bounds (page 4's log10 of a float64 norm is within ±330)
POLL_S = 3  # seconds between two looks at the class's open round (only on a class page)


def _done_key(q: Question) -> str:
    return f"_{q.key}_done"


def option_text(q: Question, code: str) -> str:
    """An option as shown: a token of the learner's (escaped) or the catalogue's name; a
    numeric answer as its number."""
    if q.kind == "number":
        return number_text(code)
    label = q.label_of(code)
    return md_escape(label) if label else t(f"checkpoint.option.{code}")


def _values(d: dict) -> dict:
    """A question's values as its catalogue string reads them: text escaped, and each step
    number also as a subscript ({T_sub}: ‖∂h₁₁/∂h₁‖, not ‖∂h_11/∂h_1‖)."""
    steps = {k: v for k, v in d.items() if isinstance(v, numbers.Integral) and not isinstance(v, bool)}
    subs = {f"{k}_sub": sub(v) for k, v in steps.items()}
    return {k: md_escape(v) if isinstance(v, str) else v for k, v in d.items()} | subs


def ask(q: Question | None) -> bool:
    """Draw the checkpoint; True once the guarded figure may be drawn (answered or skipped, in
    this session). None (no question for this sentence) shows nothing and reveals."""
    if q is None or lesson.hidden(q.key):
        return True
    done = st.session_state.get(_done_key(q))
    if done and done.get("pending") and classroom.code():  # the store failed at commit: send again
        done["round"] = classroom.record(q.key, *done["pending"])
        if done["round"] is not None:
            done.pop("pending")
    open_round = classroom.current_round(q.key) if done and not done.get("skipped") else None
    new_round = reopened(done, open_round)
    with st.container(border=True):
        question = t(f"checkpoint.{q.page}.ask", **_values(q.values))
        if done and not new_round:
            _shown(q, done)
            return True
        slot = st.empty()  # the question; replaced by the result in the run that commits
        with slot.container():
            st.markdown(f"**{t('checkpoint.title')}** · {question}")
            if new_round:
                st.info(t("checkpoint.new_round", round=open_round))
            else:
                st.caption(t("checkpoint.lead"))
            done = _pose(q, question)
        if done is None:  # not yet; in a new round the figure stays (this session has seen it)
            return st.session_state.get(_done_key(q)) is not None
        if done.get("pending"):  # committed just now: to the class (a failure is a notice, kept)
            done["round"] = classroom.record(q.key, *done["pending"])
            if done["round"] is not None or not classroom.code():
                done["pending"] = None
        slot.empty()  # the question and its buttons go; the answer beside the truth follows in this
        _shown(q, done)  # same run (no second run), below: a container in the question's place kept
        # the buttons it did not cover in Chromium
    return True


def _shown(q: Question, done: dict) -> None:
    _result(q, done)
    if done.get("round") and classroom.code():
        _watch(q.key, done["round"])


def reopened(done: dict | None, open_round: int | None) -> bool:
    """Whether the teacher opened a round after the one this session answered in."""
    return bool(done and done.get("round") and open_round and open_round > done["round"])


@st.fragment(run_every=POLL_S)
def _watch(key: str, answered: int) -> None:
    """In a class, under an answered checkpoint: every POLL_S s one look at its open round; a
    new one reruns the page, which asks again ("vote again" reaches the learner by itself)."""
    if reopened({"round": answered}, classroom.current_round(key)):
        st.rerun(scope="app")


def send_pending() -> None:
    """Each run, in a class: answers the store could not take at commit are sent again (the
    write is idempotent), whichever page the learner is on now."""
    if not classroom.code():
        return
    for key in KEYS:
        done = st.session_state.get(f"_{key}_done")
        if done and done.get("pending"):
            done["round"] = classroom.record(key, *done["pending"])
            if done["round"] is None:
                return  # still down: the next run tries again (after the store's back-off)
            done.pop("pending")


def _pose(q: Question, question: str) -> dict | None:
    """The question's input, Commit and Skip; the session's new answer (or skip) once given."""
    t0 = st.session_state.setdefault(f"_{q.key}_t0", time.time())
    names = {c: option_text(q, c) for c in q.options}
    if q.kind == "number":
        value = st.number_input(t(f"checkpoint.{q.page}.your_number", **_values(q.values)), value=None,
                                step=0.5, format="%.2f", min_value=-NUMBER_RANGE, max_value=NUMBER_RANGE,
                                key=q.key)
        answer = None if value is None else number_text(value)
        names = {answer: answer} if answer is not None else {}
    else:
        answer = st.radio(t("checkpoint.your_answer"), q.options, index=None, key=q.key, horizontal=True,
                          format_func=names.__getitem__)
    c1, c2 = st.columns([1, 1])
    commit = c1.button(t("checkpoint.commit"), key=f"{q.key}_commit", type="primary")
    skip = c2.button(t("checkpoint.skip"), key=f"{q.key}_skip")
    if commit and answer is None:
        st.warning(t("checkpoint.choose_first"))
        return None
    if commit:
        ok = grade(q, answer)
        st.session_state[_done_key(q)] = {
            "answer": names.get(answer, ""), "truth": option_text(q, q.truth), "ok": ok, "round": None,
            "why": t(f"checkpoint.{q.page}.why", **_values(q.why)), "question": question,
            "number": q.kind == "number",
            "pending": (answer, ok, time.time() - t0, q.label_of(answer))}  # ask() sends it
    elif skip:
        st.session_state[_done_key(q)] = {"skipped": True, "question": question}
    return st.session_state[_done_key(q)] if commit or skip else None


def _result(q: Question, done: dict) -> None:
    """The committed answer beside the truth (as it was when answered), with why."""
    st.caption(t("checkpoint.asked", question=done["question"]))
    if done.get("skipped"):
        st.caption(t("checkpoint.skipped"))
    else:
        key = "checkpoint.right" if done["ok"] else "checkpoint.wrong"
        key += "_number" if done.get("number") else ""
        (st.success if done["ok"] else st.error)(t(key, answer=done["answer"], truth=done["truth"]))
        st.markdown(done["why"])
        if done.get("round"):
            st.caption(t("checkpoint.recorded", code=classroom.code(), round=done["round"]))
    if st.button(t("checkpoint.again"), key=f"{q.key}_again"):
        st.session_state.pop(_done_key(q), None)
        st.session_state.pop(f"_{q.key}_t0", None)
        st.session_state.pop(q.key, None)
        st.rerun()
