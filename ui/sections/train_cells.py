"""Page 6, after one's own model is trained: the offer to train the other two of Elman, LSTM
and GRU on the same corpus, vocabulary, d, H and settings (rnnviz.explain.gates.twin_run), so
that page 8 compares three cells that read the learner's text the same way. Kept apart from
ui/sections/train.py (the training runner): the twins train one after the other as one job of the
one runner (ui.running: a worker thread in the long lane, a poller with Stop), and join this
session's own models without changing the current one."""
from __future__ import annotations

import streamlit as st

from rnnviz import limits
from rnnviz.explain import gates
from rnnviz.explain.train import model_meta
from rnnviz.serve.jobs import LANES, ClientBusy

from .. import running, session
from ..i18n import t
from ..widgets import guard, md_escape

KEY = "train_cells_go"
JOB = "train_cells_job"     # session key of the twins' job (ui.running)


def _same_reader(vocab_a, vocab_b) -> bool:
    return vocab_a.itos == vocab_b.itos and vocab_a.tokenizer == vocab_b.tokenizer


def missing(run) -> list[str]:
    """The cells of Elman, LSTM, GRU that this session has no own model of with `run`'s
    vocabulary (the run's own cell excluded)."""
    have = {m.cfg.cell for m, v, _ in session.own_models().values()
            if not m.cfg.bidirectional and not getattr(m.cfg, "attention", False)
            and _same_reader(v, run.vocab)}
    return [c for c in gates.TRIO if c != run.model.cfg.cell and c not in have]


def offer(run) -> None:
    """Below the result of a kept run of Elman, LSTM or GRU: train the two others, or say they exist."""
    job = running.take(JOB)
    if job is not None:
        keep(job)
    if run is None or run.status not in ("done", "stopped") or not run.history:
        return
    cfg = run.model.cfg
    if cfg.cell not in gates.TRIO or getattr(cfg, "attention", False) or cfg.bidirectional:
        return
    st.subheader(t("train_cells.header"), anchor="train-cells")
    names = {c: t(f"gates.cell.{c}") for c in gates.TRIO}
    todo = missing(run)
    if not todo:
        st.success(t("train_cells.ready", name=md_escape(run.name)))
        return
    others = t("train_cells.and").join(names[c] for c in todo)
    st.markdown(t("train_cells.text", cell=names[cfg.cell], others=others, d=cfg.embed_dim,
                  H=cfg.hidden_size, steps=run.cfg.steps, name=md_escape(run.name)))
    if running.active(JOB) is None and st.button(t("train_cells.go", n=len(todo)), key=KEY,
                                                 icon=":material/model_training:"):
        with guard():
            train_twins(run, todo)
    running.watch(JOB, live, lambda pos: t("train.queued", position=pos, k=limits.MAX_CONCURRENT_TRAININGS),
                  t("train.stop"), every=1.0)


def train_twins(run, cells: list[str]) -> None:
    """Start the job that trains each missing cell in turn (the one runner: ui.running, the long
    lane, its time cap and share)."""
    if LANES.busy(running.client_id()):
        raise ClientBusy()
    twins = [gates.twin_run(run, cell) for cell in cells]
    running.start(JOB, lambda on_step: _train(twins, on_step), "long", limits.MAX_TRAIN_SECONDS,
                  total=sum(tw.cfg.steps for tw in twins))


def _train(twins: list, on_step) -> list:
    """The worker's job (no st call): each twin trains in place, so a stop keeps what each
    learned; a record counts the steps of the twins before it, and names the cell."""
    done = 0
    for twin in twins:
        twin.run(lambda record, _run, done=done, cell=twin.model.cfg.cell:
                 on_step(record | {"step": done + record["step"], "cell": cell}))
        if twin.status != "done":   # stopped (or diverged) inside this twin: the rest are not trained
            break
        done += twin.cfg.steps
    return twins


def live(job) -> None:
    """The twins' progress while they train."""
    rec, total = job.progress, job.total or 1
    if not rec:
        st.progress(0.0, text=t("train.starting"))
        return
    st.progress(min(1.0, rec["step"] / total), text=t(
        "train_cells.training", cell=t(f"gates.cell.{rec['cell']}")) + " · " + t(
        "train_cells.progress", step=rec["step"], total=total, loss=rec["loss"]))


def keep(job) -> None:
    """An ended job's twins that learned something join the own models; the current model stays
    the one the learner trained."""
    for twin in job.result or []:
        if twin.history:
            twin.finish()
            session.use_model(twin.name, twin.model, twin.vocab, model_meta(twin, twin.name))
    st.session_state.pop("pending_model", None)
