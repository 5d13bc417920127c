"""6 · Your own data: train a language model on your text, watch it learn, keep and download it."""
import math
import time
from pathlib import Path

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz import streamlit_ui as ui
from rnnviz.bundle import load_bundle, save_bundle
from rnnviz.corpus import (MIN_VOCAB, build_vocab, check_language_model, clean_meta,
                           progress_text, read_corpus, read_upload, sample_text, start_run,
                           unknown_share)
from rnnviz.data import everyday_corpus
from rnnviz.errors import InputError
from rnnviz.safe_text import quote
from rnnviz.export import safe_filename, token_frame
from rnnviz.figures.train import loss_curve, moving_average
from rnnviz.prose import section
from rnnviz.train import TrainConfig

EXAMPLE = "\n".join(" ".join(s) for s in everyday_corpus(60))
LEVELS = {"word": "words", "char": "characters"}
BIND = {"bind": "query-params"}


def load_model_file(up) -> None:
    """Read an uploaded bundle and make it the current model (a message if it is refused)."""
    try:
        model, vocab, meta = load_bundle(up.getvalue())
        check_language_model(model, vocab)
        meta = clean_meta(meta, Path(up.name).stem)
    except InputError as err:
        st.error(f"{quote(up.name)}: {err}")  # the file's name is a stranger's text too
        return
    ui.use_model(meta["name"], model, vocab, meta)
    st.rerun()


def read_text(level: str):
    """The corpus from the paste box or the upload (None, with a message, if unusable)."""
    if st.session_state.get("train_source", "paste") == "paste":
        text = st.text_area("Your text, one sentence per line", EXAMPLE, key="train_text",
                            height=180, help=f"Up to {limits.MAX_UPLOAD_BYTES:,} bytes.")
        with ui.guard():
            return read_corpus(text, level)
    up = st.file_uploader("A .txt file (UTF-8), one sentence per line", type=["txt"],
                          key="train_upload", help=f"Up to {limits.MAX_UPLOAD_BYTES:,} bytes.",
                          max_upload_size=max(1, limits.MAX_UPLOAD_BYTES // 1_000_000))
    if up is None:
        st.info("Upload a .txt file to train on it.")
        return None
    with ui.guard():
        return read_upload(up.getvalue(), level)
    return None


def settings() -> dict:
    c1, c2, c3 = st.columns(3)
    vocab = c1.number_input("Maximum vocabulary size", MIN_VOCAB, limits.MAX_VOCAB, 200, key="train_vocab", **BIND,
                            help="An upper limit: a corpus with fewer distinct tokens uses fewer (V used, below).")
    out = dict(
        vocab=vocab,
        vocab_slot=c1.empty(),  # "V used = N", filled once the vocabulary is built
        d=c1.number_input("Embedding size d", 1, limits.MAX_EMBED, 16, key="train_d", **BIND),
        H=c1.number_input("Hidden size H", 1, limits.MAX_HIDDEN, 32, key="train_H", **BIND),
        cell=c2.selectbox("Cell", ["elman", "jordan"], key="train_cell", **BIND,
                          help="Elman feeds back h_{t-1}; Jordan feeds back the previous output y_{t-1}."),
        nonlin=c2.selectbox("Nonlinearity", ["tanh", "relu", "linear"], key="train_nonlin", **BIND),
        optimizer=c2.selectbox("Optimizer", ["adam", "sgd"], key="train_opt", **BIND),
        lr=c3.number_input("Learning rate", 0.0001, 10.0, 0.01, format="%.4f", key="train_lr", **BIND),
        clip=c3.number_input("Clip gradient norm at (0 = off)", 0.0, 100.0, 1.0, key="train_clip", **BIND),
        steps=c3.number_input("Steps", 1, limits.MAX_TRAIN_STEPS, 300, key="train_steps", **BIND),
        batch=c1.number_input("Batch size (sequences per step)", 1, limits.MAX_BATCH, 32,
                              key="train_batch", **BIND),
        seed=c2.number_input("Seed", 0, 2**31 - 1, 0, key="train_seed", **BIND),
    )
    out["name"] = c3.text_input("Model name", "my-model", max_chars=40, key="train_name")
    return out


def train_now(corpus, s: dict) -> None:
    """Build the run, train it with a live bar and curve, keep the model, rerun."""
    cfg = TrainConfig(steps=int(s["steps"]), batch_size=int(s["batch"]), optimizer=s["optimizer"],
                      lr=float(s["lr"]), clip=float(s["clip"]) or None, seed=int(s["seed"]))
    run = start_run(corpus, int(s["vocab"]), int(s["d"]), int(s["H"]), s["cell"], s["nonlin"],
                    cfg, s["name"])
    st.session_state[ui.TRAIN_RUN] = run
    st.button("Stop (keep the model trained so far)", key="train_stop", icon=":material/stop:")
    bar, chart, box = st.progress(0.0, text="starting…"), st.empty(), st.empty()
    start, shown = time.perf_counter(), {"bar": -1.0, "chart": -1.0, "samples": 0}

    def on_step(record, run):
        now = time.perf_counter() - start
        last = record["step"] == cfg.steps
        if now - shown["bar"] > 0.2 or last:
            bar.progress(record["step"] / cfg.steps, text=progress_text(record["step"], cfg.steps, now)
                         + f" · loss {record['loss']:.3f}")
            shown["bar"] = now
        if now - shown["chart"] > 1.0 or last:
            chart.plotly_chart(curve(run), width="stretch", key=f"train_live_{record['step']}")
            shown["chart"] = now
        if len(run.samples) != shown["samples"]:
            box.dataframe(samples_frame(run), hide_index=True)
            shown["samples"] = len(run.samples)

    run.run(on_step)
    ui.keep_run(run)
    st.rerun()


def curve(run):
    steps = [r["step"] for r in run.history]
    return loss_curve(steps, [r["loss"] for r in run.history], window=smoothing(run),
                      vocab_size=len(run.vocab))


def smoothing(run) -> int:
    return max(5, min(50, run.cfg.steps // 30))


def samples_frame(run) -> pd.DataFrame:
    return pd.DataFrame(run.samples, columns=["after step", "the model wrote"])


def show_result(run) -> None:
    losses = [r["loss"] for r in run.history]
    if not losses:
        return
    avg = moving_average(losses, smoothing(run))
    status = {"done": "finished", "stopped": "stopped early", "diverged": "stopped: the loss became NaN/inf"}
    if run.status == "diverged":
        st.error(f"At step {len(losses)} the loss became {losses[-1]}: the weights blew up. Lower the "
                 "learning rate or turn clipping on. The model is kept so that you can see the NaN/inf "
                 "on the other pages.")
    ppl = run.final_perplexity if run.final_perplexity is not None else float("nan")
    st.markdown(section("train", "result", steps=len(losses), total=run.cfg.steps,
                        status=status.get(run.status, run.status), first=avg[0], last=avg[-1],
                        rows=min(256, run.inputs.shape[0]), ppl=ppl, V=len(run.vocab),
                        name=ui.md_escape(run.name)))
    ui.show_figure(curve(run), "training curve", key="train_curve")
    ui.download_csv(pd.DataFrame(run.history), "training history", key="train_history")
    if run.samples:
        st.markdown(section("train", "samples"))
        st.dataframe(samples_frame(run), hide_index=True)
    with st.expander("Write more samples", icon=":material/edit_note:"):
        c1, c2 = st.columns(2)
        temp = c1.slider("Temperature (low: safe choices, high: surprises)", 0.1, 2.0, 1.0, 0.1,
                         key="train_temp", **BIND)
        seed = c2.number_input("Sample seed", 0, 10_000, 0, key="train_sample_seed", **BIND)
        with ui.guard():
            st.dataframe(pd.DataFrame({"sample": [sample_text(run.model, run.vocab, run.corpus.level,
                                                              temperature=temp, seed=int(seed) + k)
                                                  for k in range(3)]}), hide_index=True)


def model_files() -> None:
    st.subheader("4 · Download or upload a model file")
    st.markdown(section("train", "files"))
    own = ui.own_models()
    c1, c2 = st.columns(2)
    if own:
        name = c1.selectbox("Your model", list(own), key="train_dl_pick")
        model, vocab, meta = own[name]
        c1.download_button("Download it (.pt)", data=lambda: save_bundle(model, vocab, meta),
                           file_name=safe_filename(name, "pt"), mime="application/octet-stream",
                           key="train_download", on_click="ignore", icon=":material/download:")
    else:
        c1.info("Train a model (or upload one) to download it.")
    up = c2.file_uploader(f"Upload a model file (.pt, up to {limits.MAX_MODEL_FILE_BYTES:,} bytes)",
                          type=["pt"], key="train_model_file",
                          max_upload_size=max(1, limits.MAX_MODEL_FILE_BYTES // 1_000_000))
    if c2.button("Load it and make it the current model", key="train_load", disabled=up is None):
        with c2:
            load_model_file(up)


ui.finish_interrupted_training()  # a stopped run keeps its model (the sidebar does it first)
def try_current() -> None:
    """The current model (yours once trained) on the sidebar's sentence, step by step."""
    st.subheader("5 · The current model reads the sidebar's sentence")
    cur = ui.current()
    df = token_frame(cur.trace, cur.vocab)
    st.markdown(section("train", "try", label=ui.md_escape(cur.label), T=cur.trace.T,
                        loss=float(cur.trace.loss), hits=int((df["guess"] == df["target"]).sum()),
                        n=int(cur.trace.valid.sum())))
    st.dataframe(df[["t", "token", "guess", "p_guess", "target", "p_target", "loss_t"]],
                 hide_index=True)


st.title("6 · Your own data")
st.markdown(section("train", "intro", max_bytes=limits.MAX_UPLOAD_BYTES))

st.subheader("1 · Your text")
c1, c2 = st.columns(2)
c1.radio("Text from", ["paste", "upload"], key="train_source", horizontal=True, **BIND,
         format_func={"paste": "pasted text", "upload": "a .txt file"}.get)
level = c2.radio("Tokens", list(LEVELS), key="train_level", horizontal=True, format_func=LEVELS.get,
                 **BIND, help="Words (and punctuation; CJK one character each) or single characters.")
corpus = read_text(level)
if corpus is not None:
    distinct = len({t for s in corpus.sequences for t in s})
    st.markdown(section("train", "corpus", n_lines=corpus.n_lines, n_seq=len(corpus.sequences),
                        n_tokens=corpus.n_tokens, unit=LEVELS[level][:-1], n_distinct=distinct))
    for notice in corpus.notices:
        st.info(notice)

st.subheader("2 · The model and its training")
s = settings()
if corpus is not None:
    with ui.guard():
        vocab = build_vocab(corpus, int(s["vocab"]))
        s["vocab_slot"].markdown(section("train", "vocab_used", V=len(vocab), max_V=int(s["vocab"])))
        st.markdown(section("train", "vocab", V=len(vocab), unk_pct=100 * unknown_share(corpus, vocab),
                            lnV=math.log(len(vocab))))
with st.expander("What do these settings do?"):
    st.markdown(section("train", "settings"))

st.subheader("3 · Train")
st.markdown(section("train", "training"))
go = st.button("Train", key="train_go", type="primary", disabled=corpus is None,
               icon=":material/model_training:")
if go and corpus is not None:
    with ui.guard():
        train_now(corpus, s)
run = st.session_state.get(ui.TRAIN_RUN)
if run is not None and run.status in ("done", "stopped", "diverged"):
    show_result(run)
model_files()
try_current()
