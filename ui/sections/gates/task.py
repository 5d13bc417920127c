"""Page 8 sections: the long-range task, read from the shipped measurements
(rnnviz/pretrained/longrange.json, made by scripts/build_longrange.py), and the LSTM step
"try it by hand". Every number comes from rnnviz (longrange, gated_exercise)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain import longrange
from rnnviz.explain.exercises import gates as gx
from rnnviz.figures.gates import longrange_figures
from rnnviz.formatting import num, num_inside, vector

from ... import resources, running
from ...i18n import prose, t
from ...widgets import download_csv, exercise, exercise_number, guard, labelled_choice, show_figure

PAGE = "gates"
CELLS = ("elman", "lstm", "gru")


def _learned(d: int) -> str:
    return t("gates.task.none") if d == 0 else t("gates.task.upto", d=d)


def long_range() -> None:
    """Accuracy against distance and the gradient reaching x_1, as measured, with what they show."""
    st.subheader(t("gates.task_header"), anchor="task")
    res = resources.longrange_results()
    f = longrange.findings(res)
    st.markdown(prose(PAGE, "task", chance=num(100 * res["fixed"]["chance"]), steps=f["fixed_steps"],
                      n_noise=longrange.N_NOISE))
    names = {c: t(f"gates.cell.{c}") for c in CELLS} | {"bias3": t("gates.cell.lstm_bias3")}
    labels = {k: t(f"gates.fig.task_{k}") for k in ("acc_title", "grad_title", "x", "acc", "grad",
                                                     "chance", "zero")}
    acc, grad = longrange_figures(longrange.result_rows(res), names, labels)
    show_figure(acc, t("gates.file.task_acc"), key="gates_task_acc")
    show_figure(grad, t("gates.file.task_grad"), key="gates_task_grad")
    g50 = f["grad50"]
    st.markdown(prose(PAGE, "task_reading", **{f"learned_{c}": _learned(f["learned"][c]) for c in CELLS},
                      g_elman=num(g50["elman"]), g_lstm=num(g50["lstm"]), g_gru=num(g50["gru"]),
                      ratio=num(f["grad_ratio"]), bias3=_learned(f["bias3"]), bias3_steps=f["bias3_steps"],
                      cur_max=f["curriculum_max_distance"], cur_reach=_reach(f["curriculum_min"]),
                      steps=f["fixed_steps"]))
    with st.expander(t("gates.task_table")):
        _task_table(res)
    st.markdown(t("gates.to_attention"))


def _task_table(res: dict) -> None:
    cols = {k: t(f"gates.task_col.{k}") for k in ("experiment", "cell", "distance", "steps",
                                                   "forget_bias", "accuracy", "grad_first_before",
                                                   "grad_first_after")}
    rows = longrange.result_rows(res)
    df = pd.DataFrame(rows).rename(columns=cols)
    shown = df.copy()
    for k in ("forget_bias", "accuracy", "grad_first_before", "grad_first_after"):
        shown[cols[k]] = shown[cols[k]].map(num)
    shown[cols["experiment"]] = [t(f"gates.task_exp.{r['experiment']}") for r in rows]
    shown[cols["cell"]] = [t(f"gates.cell.{r['cell']}") for r in rows]
    st.dataframe(shown, hide_index=True)
    download_csv(df, t("gates.file.task_table"), key="gates_task_csv")
    st.caption(t("gates.task_source"))


def hand_exercise() -> None:
    """One LSTM step by hand (H = 2): c_t and h_t from given pre-activations and c_{t-1}."""
    st.subheader(t("gates.ex_header"), anchor="exercise")
    ex = gx.make_exercise(exercise_number("gates_ex"))
    st.markdown(prose(PAGE, "exercise"))
    given = {"A_i": ex.A_i, "A_f": ex.A_f, "A_g": ex.A_g, "A_o": ex.A_o, "c_{t-1}": ex.c_prev}
    st.table(pd.DataFrame([{t("gates.col.quantity"): f"${k}$", t("gates.col.values"): vector(v)}
                           for k, v in given.items()]))
    exercise("gates_ex", ask=_ask, check=lambda answer: gx.check_verdict(ex, answer))


def _ask() -> tuple:
    cols = st.columns(4)
    names = ("c_1", "c_2", "h_1", "h_2")
    return tuple(col.number_input(t(f"gates.ex_in.{n}"), value=None, format="%.4f", key=f"gates_ex_{n}")
                 for col, n in zip(cols, names))


NOW_KEY = "gates_now_result"  # session key: the last "train one now" result
NOW_JOB = "gates_now_job"     # session key: its job while it waits or trains (ui.running)


def train_one() -> None:
    """Train one (cell, distance) here, at most TRAIN_NOW_SECONDS, and compare with the file."""
    seconds = num(longrange.TRAIN_NOW_SECONDS)
    job = running.take(NOW_JOB)
    if job is not None and job.result is not None:
        st.session_state[NOW_KEY] = job.result | {"stopped_by": job.reason}
    with st.expander(t("gates.now_header", seconds=seconds), icon=":material/model_training:"):
        st.markdown(prose(PAGE, "now", seconds=seconds))
        c1, c2, c3 = st.columns(3)
        names = [t(f"gates.cell.{c}") for c in CELLS]
        cell = labelled_choice(c1.selectbox, t("gates.now_cell"), CELLS, names, "gates_now_cell")
        dist = c2.selectbox(t("gates.now_distance"), [10, 25, 50, 100, 200], index=2, key="gates_now_dist",
                            bind="query-params")
        schedule = labelled_choice(c3.selectbox, t("gates.now_schedule"), longrange.SCHEDULES,
                                   [t(f"gates.schedule.{k}") for k in longrange.SCHEDULES], "gates_now_sched",
                                   help=t("gates.now_schedule_help"))
        steps = c1.number_input(t("gates.now_steps"), 10, longrange.MAX_STEPS, 400, step=50,
                                key="gates_now_steps")
        bias = c2.number_input(t("gates.now_bias"), -5.0, 5.0, 1.0, step=1.0, key="gates_now_bias",
                               disabled=cell != "lstm", help=t("gates.now_bias_help"))
        cfg = longrange.LongRangeConfig(cell=cell, distance=int(dist), schedule=schedule, steps=int(steps),
                                        forget_bias=float(bias) if cell == "lstm" else 1.0)
        if c3.button(t("gates.now_go"), key="gates_now_go", type="primary"):
            with guard():  # the short lane: one job per session, paced, its own time limit
                running.start(NOW_JOB, lambda on_step: longrange.train_now(cfg, callback=on_step), "short",
                              total=cfg.steps)
        running.watch(NOW_JOB, _progress, lambda pos: t("gates.now_queued", position=pos),
                      t("gates.now_stop"))
        _now_result(st.session_state.get(NOW_KEY))


def _progress(job) -> None:
    rec, steps = job.progress, job.total
    if rec is None:
        st.progress(0.0, text=t("gates.now_running"))
        return
    st.progress(rec["step"] / steps, text=t("gates.now_progress", step=rec["step"], steps=steps))


def _now_result(res: dict | None) -> None:
    if res is None:
        return
    c = res["config"]
    st.markdown(prose(PAGE, "now_result", cell=t(f"gates.cell.{c['cell']}"), d=c["distance"],
                      steps=res["steps_done"], acc=num(100 * res["accuracy"]),
                      g0=num(res["grad_first_before"]), g1=num(res["grad_first_after"])))
    if res["stopped_early"]:
        why = "now_stopped_here" if res.get("stopped_by") in ("stop", "heartbeat") else "now_stopped"
        st.warning(t(f"gates.{why}", steps=res["steps_done"], asked=c["steps"]))
    row = longrange.shipped_row(resources.longrange_results(), longrange.LongRangeConfig(**c))
    if row is not None:
        st.caption(t("gates.now_shipped", acc=num(100 * row["accuracy"])))


def _reach(least: float) -> str:
    """The curriculum's worst accuracy as the prose says it: "100 %" when every cell reached it at
    every distance ("at least 100 %" read like a mistake), else "at least 97.5 %"."""
    pct = num_inside(100 * least, bound=100)  # 99.996 is not "at least 100"
    return t("gates.reach_all") if least >= 1 else t("gates.reach_at_least", pct=pct)
