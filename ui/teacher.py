"""The teacher view (`?class=CODE&teacher=TOKEN`, refused without the right token) and the home
page's "Create a class". Per checkpoint, refreshed every 2 s: the answers as bars (rounds side by
side), how many answered, percent correct, "vote again"; the answers as CSV; the student link
and its QR code, large enough for a projector; with a lesson, how many students are on each step."""
from __future__ import annotations

import time
from html import escape
from urllib.parse import urlencode, urlsplit

import pandas as pd
import streamlit as st

from rnnviz.errors import InputError, StoreError
from rnnviz.explain.checkpoints import NUMERIC, TOL_FLOOR, parse_number
from rnnviz.figures.classroom import answer_bars, answer_histogram, qr_png
from rnnviz.serve.classroom_store import class_hours
from rnnviz.store.lessons import lesson_names, load_lesson

from . import classroom
from .charts import chart
from .i18n import current_lang, has, t
from .navigation import PAGES
from .widgets import download_csv, labels_of

CHECKPOINTS = ("checkpoint_embedding_1", "checkpoint_hidden_1", "checkpoint_output_1", "checkpoint_bptt_1",
               "checkpoint_gates_1")
REFRESH_S = 2


def asked() -> bool:
    return bool(st.query_params.get("teacher")) and bool(classroom.code())


def base_url() -> str:
    """This app's address (scheme and host) as the browser sees it."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    return f"{parts.scheme}://{parts.netloc}/"


def student_link(code: str, lesson: str) -> str:
    return base_url() + "?" + urlencode({"class": code} | ({"lesson": lesson} if lesson else {}))


def answer_name(code: str, label: str = "") -> str:
    """An answer code as the teacher reads it: 't3' -> 'step 4', 'w17' -> its word (the label the
    students saw, raw: the chart escapes it; 'word 17' without one), 'lstm' -> 'LSTM'."""
    if code[:1] == "w" and code[1:].isdigit() and label:
        return label
    if code[:1] in ("t", "w") and code[1:].isdigit():
        return t("classroom.step_option" if code[0] == "t" else "classroom.word_option",
                 n=int(code[1:]) + (code[0] == "t"))
    return t(f"checkpoint.option.{code}") if has(f"checkpoint.option.{code}") else code


def checkpoint_name(key: str) -> str:
    return t(f"classroom.cp.{key}") if has(f"classroom.cp.{key}") else key


def create_box() -> None:
    """Home page: make a class (optionally following a lesson) and show its two links."""
    with st.expander(t("classroom.create_header"), icon=":material/groups:"):
        st.caption(t("classroom.create_help", hours=f"{class_hours():g}"))
        names = [""] + lesson_names()
        lang = current_lang()
        titles = {n: load_lesson(n).title_in(lang) if n else t("classroom.no_lesson") for n in names}
        chosen = st.selectbox(t("classroom.lesson"), names, key="class_new_lesson",
                              format_func=labels_of(names, titles.__getitem__))
        if st.button(t("classroom.create"), key="class_create", type="primary"):
            s = classroom.store()
            if s is not None:
                try:
                    new = s.create_class(chosen)
                except (StoreError, InputError) as err:
                    classroom.failed(err)
                else:
                    st.session_state["_class_made"] = (new.code, new.teacher_token, new.lesson)
        made = st.session_state.get("_class_made")
        if made:
            code, token, lesson = made
            link = student_link(code, lesson)
            st.success(t("classroom.created", code=code))
            st.markdown(f"**{t('classroom.student_link')}**")
            st.code(link, language=None)
            st.markdown(f"**{t('classroom.teacher_link')}**")
            teacher = link + "&" + urlencode({"teacher": token})
            st.code(teacher, language=None)
            st.link_button(t("classroom.open_teacher"), teacher, type="primary")


def view() -> None:
    """The whole teacher page (instead of the page the navigation would draw)."""
    code = classroom.code()
    info = classroom.current_class() if classroom.is_teacher() else None
    if info is None:
        st.error(t("classroom.refused", code=code))
        return
    st.title(t("classroom.teacher_title", code=code))
    link = student_link(code, info.lesson)
    c1, c2 = st.columns([1, 2], vertical_alignment="center")
    c1.image(qr_png(link), width=300)
    with c2:
        st.markdown(f"### {t('classroom.join')}")
        big = "font-size:2.2rem;font-weight:700;word-break:break-all"
        st.markdown(f"<div style='{big}'>{escape(link)}</div>",
                    unsafe_allow_html=True)
        st.markdown(f"<div style='font-size:4rem;font-weight:800;letter-spacing:.3rem'>{code}</div>",
                    unsafe_allow_html=True)
        st.caption(t("classroom.expires", hours=f"{max(0.0, (info.expires - time.time()) / 3600):.1f}"))
    live(code, info.lesson)


@st.fragment(run_every=REFRESH_S)
def live(code: str, lesson: str) -> None:
    """Everything that changes while students answer: redrawn alone every 2 s."""
    s = classroom.store()
    if s is None:
        return
    try:
        counts, rounds, rows, names = s.counts(code), s.rounds(code), s.answers(code), s.labels(code)
        steps = s.steps(code) if lesson else {}
    except StoreError as err:
        classroom.failed(err)
        return
    if lesson:
        lesson_steps(lesson, steps)
    if not counts:
        st.info(t("classroom.no_answers"))
    for key in [k for k in CHECKPOINTS if k in counts] + sorted(set(counts) - set(CHECKPOINTS)):
        checkpoint_block(code, key, counts[key], rounds.get(key, 1), rows, names.get(key, {}))
    if rows:
        cols = [t(f"classroom.col.{c}") for c in ("checkpoint", "round", "answer", "correct", "seconds")]
        df = pd.DataFrame([(r["checkpoint"], r["round"], r["answer"], r["correct"], round(r["seconds"], 1))
                           for r in rows], columns=cols)
        download_csv(df, f"class-{code}", key="class_answers", label=t("classroom.download"))


def lesson_steps(name: str, steps: dict[int, int]) -> None:
    try:
        lesson = load_lesson(name)
    except InputError as err:
        classroom.failed(err)
        return
    st.subheader(t("classroom.lesson_steps", title=lesson.title_in(current_lang())))
    titles = {url: t(key) for _, key, url, _ in PAGES}
    cols = st.columns(len(lesson.steps))
    for i, (col, step) in enumerate(zip(cols, lesson.steps)):
        col.metric(t("classroom.step_n", n=i + 1, page=titles.get(step.page, step.page)),
                   t("classroom.students", n=steps.get(i, 0)))


def checkpoint_block(code: str, key: str, by_round: dict, open_round: int, rows: list[dict],
                     words: dict[str, str] | None = None) -> None:
    """One checkpoint: counts and percent correct per round, the bars (a histogram for a
    numeric checkpoint), vote again. words: answer code -> the label its students saw."""
    with st.container(border=True):
        st.subheader(t("classroom.checkpoint", name=checkpoint_name(key)))
        ordered = sorted(by_round, key=int)
        cols = st.columns(len(ordered) + 1)
        for col, rnd in zip(cols, ordered):
            cell = by_round[rnd]
            share = cell["correct"] / cell["answered"] if cell["answered"] else 0.0
            col.metric(t("classroom.round", round=rnd), f"{cell['answered']} {t('classroom.answered')}",
                       f"{share:.0%} {t('classroom.correct')}", delta_color="off")
        labels = {"title": t("classroom.fig.title", round=" · ".join(ordered)), "x": t("classroom.fig.x"),
                  "y": t("classroom.fig.y"), "round": t("classroom.round", round="{round}"),
                  "right": t("classroom.fig.right"), "wrong": t("classroom.fig.wrong")}
        mine = [r for r in rows if r["checkpoint"] == key]
        values = {rnd: [(x, r["correct"]) for r in mine if str(r["round"]) == rnd
                        and (x := parse_number(r["answer"])) is not None] for rnd in ordered}
        if key in NUMERIC and any(values.values()):
            labels["x"] = t("classroom.fig.x_number")
            fig = answer_histogram({rnd: v for rnd, v in values.items() if v}, labels, TOL_FLOOR)
        else:
            right = {r["answer"] for r in mine if r["correct"]}
            names = {a: answer_name(a, (words or {}).get(a, "")) for cell in by_round.values()
                     for a in cell["answers"]}
            fig = answer_bars({rnd: cell["answers"] for rnd, cell in by_round.items()}, names, right, labels)
        chart(fig, width="stretch", key=f"class_fig_{key}")
        if cols[-1].button(t("classroom.vote_again", round=open_round + 1), key=f"class_vote_{key}",
                           help=t("classroom.vote_help")):
            try:
                classroom.store().vote_again(code, key)
            except (StoreError, InputError) as err:
                classroom.failed(err)
            st.rerun(scope="fragment")
