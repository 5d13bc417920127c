"""Page 6 sections: your text, the model's settings, training with a live curve, the result,
model files, and the current model on the sidebar's sentence."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.engine.train import TrainConfig
from rnnviz.errors import InputError
from rnnviz.explain.train import (
    ATTENTION_CELL,
    MIN_VOCAB,
    build_vocab,
    progress_rate,
    read_corpus,
    read_upload,
    sample_text,
    start_run,
    try_counts,
    uniform_loss,
    unknown_share,
)
from rnnviz.explain.upload import read_model_file
from rnnviz.figures.train import CURVE_LABELS, loss_curve, moving_average
from rnnviz.formatting import num
from rnnviz.serve.jobs import LANES, ClientBusy
from rnnviz.store.bundle import save_bundle
from rnnviz.store.export import safe_filename, token_frame
from rnnviz.text.corpora import everyday_corpus

from .. import running, session
from ..charts import chart
from ..i18n import error_text, prose, t
from ..widgets import download_csv, guard, labelled_choice, md_escape, show_figure

PAGE = "train"
EXAMPLE = "\n".join(" ".join(s) for s in everyday_corpus(60))
LEVELS = ("word", "char")
BIND = {"bind": "query-params"}


def intro() -> None:
    st.title(t("train.title"))
    st.markdown(prose(PAGE, "intro", max_bytes=limits.MAX_UPLOAD_BYTES))
    st.subheader(t("train.text_header"))


def source() -> tuple[str, str]:
    """(paste | upload, word | char): where the corpus comes from and how it is tokenized."""
    c1, c2 = st.columns(2)
    srcs = ("paste", "upload")  # kept in the link by code (labelled_choice), whatever the language
    src = labelled_choice(c1.radio, t("train.source"), srcs, [t(f"train.source_{k}") for k in srcs],
                          "train_source", horizontal=True)
    level = labelled_choice(c2.radio, t("train.level"), LEVELS, [t(f"train.level_{k}") for k in LEVELS],
                            "train_level", horizontal=True, help=t("train.level_help"))
    return src, level


def read_text(src: str, level: str):
    """The corpus from the paste box or the upload; None (with a message) if unusable. An error
    in paste mode stays in paste mode (no uploader appears beside it)."""
    if src == "paste":
        text = st.text_area(t("train.paste"), EXAMPLE, key="train_text", height=180,
                            help=t("train.max_bytes", max_bytes=f"{limits.MAX_UPLOAD_BYTES:,}"))
        return _checked(read_corpus, text, level)
    up = st.file_uploader(t("train.upload"), type=["txt"], key="train_upload",
                          help=t("train.max_bytes", max_bytes=f"{limits.MAX_UPLOAD_BYTES:,}"),
                          max_upload_size=max(1, limits.MAX_UPLOAD_BYTES // 1_000_000))
    if up is None:
        st.info(t("train.upload_prompt"))
        return None
    return _checked(read_upload, up.getvalue(), level)


def _checked(read, data, level: str):
    """read(data, level), or None with the InputError shown."""
    try:
        return read(data, level)
    except InputError as err:
        st.error(error_text(err))
        return None


def corpus_summary(corpus, level: str) -> None:
    distinct = len({tok for s in corpus.sequences for tok in s})
    st.markdown(prose(PAGE, "corpus", n_lines=corpus.n_lines, n_seq=len(corpus.sequences),
                      n_tokens=corpus.n_tokens, unit=t(f"train.unit_{level}"), n_distinct=distinct))
    for name, values in corpus.notice_items:
        st.info(t(f"notices.{name}", **values))


def settings() -> dict:
    """The model's sizes and the training's settings (all bound to the URL but the name)."""
    st.subheader(t("train.settings_header"))
    c1, c2, c3 = st.columns(3)
    out = {"vocab": c1.number_input(t("train.vocab"), MIN_VOCAB, limits.MAX_VOCAB, 200, key="train_vocab",
                                    **BIND, help=t("train.vocab_help"))}
    out["vocab_slot"] = c1.empty()  # "V used = N", filled once the vocabulary is built
    out["d"] = c1.number_input(t("train.d"), 1, limits.MAX_EMBED, 16, key="train_d", **BIND)
    out["H"] = c1.number_input(t("train.H"), 1, limits.MAX_HIDDEN, 32, key="train_H", **BIND)
    choice = {"cell": ("elman", "jordan", "lstm", "gru", ATTENTION_CELL),
              "nonlin": ("tanh", "relu", "linear"), "opt": ("adam", "sgd")}
    names = {k: [t(f"train.{k}_{c}") for c in codes] for k, codes in choice.items()}
    out["cell"] = labelled_choice(c2.selectbox, t("train.cell"), choice["cell"], names["cell"], "train_cell",
                                  help=t("train.cell_help"))
    out["nonlin"] = labelled_choice(c2.selectbox, t("train.nonlin"), choice["nonlin"], names["nonlin"],
                                    "train_nonlin")
    out["optimizer"] = labelled_choice(c2.selectbox, t("train.optimizer"), choice["opt"], names["opt"],
                                       "train_opt")
    out["lr"] = c3.number_input(t("train.lr"), 0.0001, 10.0, 0.01, format="%.4f", key="train_lr", **BIND)
    out["clip"] = c3.number_input(t("train.clip"), 0.0, 100.0, 1.0, key="train_clip", **BIND)
    out["steps"] = c3.number_input(t("train.steps"), 1, limits.MAX_TRAIN_STEPS, 300, key="train_steps",
                                   **BIND)
    out["batch"] = c1.number_input(t("train.batch"), 1, limits.MAX_BATCH, 32, key="train_batch", **BIND)
    out["seed"] = c2.number_input(t("train.seed"), 0, 2**31 - 1, 0, key="train_seed", **BIND)
    out["name"] = c3.text_input(t("train.name"), "my-model", max_chars=40, key="train_name")
    return out


def vocab_info(corpus, s: dict) -> None:
    """The vocabulary the settings give on this corpus: V used, <unk> share, ln V."""
    if corpus is not None:
        with guard():
            vocab = build_vocab(corpus, int(s["vocab"]))
            s["vocab_slot"].markdown(prose(PAGE, "vocab_used", V=len(vocab), max_V=int(s["vocab"])))
            st.markdown(prose(PAGE, "vocab", V=len(vocab), unk_pct=100 * unknown_share(corpus, vocab),
                              lnV=uniform_loss(len(vocab))))
    with st.expander(t("train.settings_what")):
        st.markdown(prose(PAGE, "settings"))


def train_button(corpus, s: dict) -> None:
    """'Train': build the run and start it (ui.running); while it waits or trains, the live bar,
    curve and samples and a Stop button. The model is kept when the run ends (session)."""
    st.subheader(t("train.train_header"))
    st.markdown(prose(PAGE, "training"))
    go = st.button(t("train.train"), key="train_go", type="primary", disabled=corpus is None,
                   icon=":material/model_training:")
    st.caption(t("train.cap", minutes=num(limits.MAX_TRAIN_MINUTES)))
    if go and corpus is not None:
        with guard():
            train_now(corpus, s)
    running.watch(session.TRAIN_JOB, live_view, lambda pos: t("train.queued", position=pos,
                                                               k=limits.MAX_CONCURRENT_TRAININGS),
                  t("train.stop"), every=1.0)


def train_now(corpus, s: dict) -> None:
    """Build the run and start training it in the long lane (one job per session)."""
    cfg = TrainConfig(steps=int(s["steps"]), batch_size=int(s["batch"]), optimizer=s["optimizer"],
                      lr=float(s["lr"]), clip=float(s["clip"]) or None, seed=int(s["seed"]))
    if LANES.busy(running.client_id()):
        raise ClientBusy()  # before this session's last run is replaced
    run = start_run(corpus, int(s["vocab"]), int(s["d"]), int(s["H"]), s["cell"], s["nonlin"],
                    cfg, s["name"])
    running.start(session.TRAIN_JOB, lambda on_step: _train(run, on_step), "long", limits.MAX_TRAIN_SECONDS)
    st.session_state[session.TRAIN_RUN] = run


def _train(run, on_step):
    """The worker's job (no st call): the run trains in place, so a stop keeps every step done."""
    run.run(lambda record, run: on_step(record))
    return run


def live_view(job) -> None:
    """The run as it trains: a progress bar (with where the time cap falls), the curve and the
    samples so far."""
    run = st.session_state.get(session.TRAIN_RUN)
    history = list(run.history) if run is not None else []
    if not history:
        st.progress(0.0, text=t("train.starting"))
        return
    total, step, now = run.cfg.steps, len(history), job.cap.elapsed()
    at = job.cap.steps_within_cap(total)
    cap = t("train.cap_suffix", minutes=num(limits.MAX_TRAIN_MINUTES), step=at) if at < total else ""
    rate, eta = progress_rate(step, total, now)
    left = "" if eta != eta else t("train.progress_left", s=f"{eta:,.0f}")
    now_text = t("train.progress", step=f"{step:,}", total=f"{total:,}", rate=f"{rate:,.1f}")
    st.progress(step / total, text=now_text + left + t("train.loss_suffix", loss=history[-1]["loss"]) + cap)
    chart(curve(run, history), width="stretch", key="train_live_curve")  # one element, updated
    if run.samples:
        st.dataframe(samples_frame(run), hide_index=True)


def curve(run, history: list | None = None):
    history = run.history if history is None else history
    steps = [r["step"] for r in history]
    return loss_curve(steps, [r["loss"] for r in history], window=smoothing(run),
                      vocab_size=len(run.vocab), labels={k: t(f"train.fig_{k}") for k in CURVE_LABELS})


def smoothing(run) -> int:
    return max(5, min(50, run.cfg.steps // 30))


def samples_frame(run) -> pd.DataFrame:
    return pd.DataFrame(list(run.samples), columns=[t("train.col_after"), t("train.col_wrote")])


def result(run) -> None:
    """The finished (or stopped, or diverged) run: what it learned, its curve, its samples."""
    if run is None or run.status not in ("done", "stopped", "diverged") or not run.history:
        return
    losses = [r["loss"] for r in run.history]
    avg = moving_average(losses, smoothing(run))
    if run.status == "diverged":
        st.error(t("train.diverged", step=len(losses), loss=losses[-1]))
    if run.status == "stopped" and run.stop_reason == "time":
        st.warning(t("train.capped", minutes=num(limits.MAX_TRAIN_MINUTES), steps=len(losses),
                     total=run.cfg.steps))
    ppl = run.final_perplexity if run.final_perplexity is not None else float("nan")
    st.markdown(prose(PAGE, "result", steps=len(losses), total=run.cfg.steps,
                      status=t(f"train.status_{run.status}"), first=avg[0], last=avg[-1],
                      rows=min(256, run.inputs.shape[0]), ppl=ppl, V=len(run.vocab),
                      name=md_escape(run.name)))
    show_figure(curve(run), "training curve", key="train_curve")
    download_csv(pd.DataFrame(run.history), t("train.history_file"), key="train_history")
    if run.samples:
        st.markdown(prose(PAGE, "samples"))
        st.dataframe(samples_frame(run), hide_index=True)
    more_samples(run)


def more_samples(run) -> None:
    """Three fresh samples at a chosen temperature and seed."""
    with st.expander(t("train.more_samples"), icon=":material/edit_note:"):
        c1, c2 = st.columns(2)
        temp = c1.slider(t("train.temperature"), 0.1, 2.0, 1.0, 0.1, key="train_temp", **BIND)
        seed = c2.number_input(t("train.sample_seed"), 0, 10_000, 0, key="train_sample_seed", **BIND)
        with guard():
            texts = [sample_text(run.model, run.vocab, run.corpus.level, temperature=temp, seed=int(seed) + k)
                     for k in range(3)]
            st.dataframe(pd.DataFrame({t("train.col_sample"): texts}), hide_index=True)


def model_files(own: dict) -> None:
    """Download one of this session's models, or upload a model file and make it current."""
    st.subheader(t("train.files_header"))
    st.markdown(prose(PAGE, "files"))
    c1, c2 = st.columns(2)
    if own:
        name = c1.selectbox(t("train.your_model"), list(own), key="train_dl_pick")
        model, vocab, meta = own[name]
        c1.download_button(t("train.download"), data=lambda: save_bundle(model, vocab, meta),
                           file_name=safe_filename(name, "pt"), mime="application/octet-stream",
                           key="train_download", on_click="ignore", icon=":material/download:")
    else:
        c1.info(t("train.nothing_to_download"))
    up = c2.file_uploader(t("train.upload_model", max_bytes=f"{limits.MAX_MODEL_FILE_BYTES:,}"),
                          type=["pt"], key="train_model_file",
                          max_upload_size=max(1, limits.MAX_MODEL_FILE_BYTES // 1_000_000))
    if c2.button(t("train.load"), key="train_load", disabled=up is None):
        with c2:
            load_model_file(up)


def load_model_file(up) -> None:
    """Read an uploaded bundle and make it the current model (a message if it is refused)."""
    try:
        model, vocab, meta = read_model_file(up.getvalue(), up.name)
    except InputError as err:
        st.error(f"{md_escape(up.name)}: {error_text(err)}")
        return
    session.use_model(meta["name"], model, vocab, meta)
    st.rerun()


def try_current(cur: session.Current) -> None:
    """The current model (yours once trained) on the sidebar's sentence, step by step."""
    st.subheader(t("train.try_header"))
    df = token_frame(cur.trace, cur.vocab)
    st.markdown(prose(PAGE, "try", label=md_escape(cur.label), T=cur.trace.T, loss=float(cur.trace.loss),
                      **try_counts(df, cur.trace)))
    cols = ["t", "token", "guess", "p_guess", "target", "p_target", "loss_t"]
    st.dataframe(df[cols].rename(columns={c: t(f"train.try_col.{c}") for c in cols}), hide_index=True)
