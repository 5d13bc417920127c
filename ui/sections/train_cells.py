"""Page 6, after one's own model is trained: the offer to train the other two of Elman, LSTM
and GRU on the same corpus, vocabulary, d, H and settings (rnnviz.explain.gates.twin_run), so
that page 8 compares three cells that read the learner's text the same way. Kept apart from
ui/sections/train.py (the training runner): the twins train here, one after the other, in the
long lane, and join this session's own models without changing the current one."""
from __future__ import annotations

import streamlit as st

from rnnviz import limits
from rnnviz.explain import gates
from rnnviz.explain.train import model_meta
from rnnviz.serve.jobs import LANES, ClientBusy, Pacer, RunCap

from .. import session
from ..i18n import t
from ..running import client_id
from ..widgets import guard, md_escape

KEY = "train_cells_go"


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
    if st.button(t("train_cells.go", n=len(todo)), key=KEY, icon=":material/model_training:"):
        with guard():
            train_twins(run, todo)


def train_twins(run, cells: list[str]) -> None:
    """Each missing cell trained in turn (the long lane, its time cap and share), kept as an own
    model; the current model stays the one the learner trained. Reruns the page when done."""
    client = client_id()
    if LANES.busy(client):
        raise ClientBusy()
    for cell in cells:
        twin = gates.twin_run(run, cell)
        bar = st.progress(0.0, text=t("train_cells.training", cell=t(f"gates.cell.{cell}")))
        wait_box = st.empty()

        def on_wait(pos, box=wait_box):
            box.info(t("train.queued", position=pos, k=limits.MAX_CONCURRENT_TRAININGS),
                     icon=":material/hourglass:")

        with LANES.slot("long", client, on_wait=on_wait):
            wait_box.empty()
            cap, pacer = RunCap(limits.MAX_TRAIN_SECONDS), Pacer(limits.TRAINING_TIME_SHARE)
            total = twin.cfg.steps

            def on_step(record, _run, bar=bar, cap=cap, pacer=pacer, total=total):
                pacer.step_done()
                if record["step"] % 10 == 0 or record["step"] == total:
                    bar.progress(record["step"] / total, text=t("train_cells.progress", step=record["step"],
                                                                 total=total, loss=record["loss"]))
                return cap.check(record["step"])

            twin.run(on_step)
            twin.stop_reason = cap.reason
        twin.finish()
        session.use_model(twin.name, twin.model, twin.vocab, model_meta(twin, twin.name))
    st.session_state.pop("pending_model", None)  # the learner's own model stays the current one
    st.rerun()
