"""Word2Vec on a corpus: where the text comes from, the settings, training with a progress bar
and a stop button, what it learned at each checkpoint, and the vectors beside the RNN's E."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.explain import origins
from rnnviz.explain import word2vec as w2v
from rnnviz.figures.word2vec import loss_curve, overlap_figure, projection_figure
from rnnviz.formatting import num

from ... import cache, resources, running, session
from ...i18n import prose, t
from ...widgets import code_radio, guard, md_escape, show_figure
from .intro import PAGE, header

BIND = {"bind": "query-params"}
RUN = "origins_w2v_run"        # session key: this session's last Word2Vec run (bounded below)
JOB = "origins_w2v_job"        # session key: its job while it waits or trains (ui.running)
MAX_VOCAB = 2_000              # words kept from a learner's text (keeps a run under ~5 MB)
SOURCES = ("travel", "english", "zh", "page6", "paste")


def source(cur: session.Current) -> tuple[str, list | None]:
    """(code, sentences as word lists or None): a built-in corpus, the text of the page-6
    training run, or a text box. The default follows the current model's corpus."""
    header("settings")
    st.markdown(prose(PAGE, "settings"))
    default = origins.default_corpus(cur.lang, cur.text, cur.prepared.tokenizer,
                                     st.session_state.get(session.TRAIN_RUN) is not None)
    code = code_radio(t("origins.source"), SOURCES, "origins_source", lambda k: t(f"origins.source_{k}"),
                      default=SOURCES.index(default))
    if code in origins.CORPORA:
        return code, None
    run = st.session_state.get(session.TRAIN_RUN)
    if code == "page6" and run is not None:
        st.caption(t("origins.page6_used", name=md_escape(run.name), n=len(run.corpus.sequences)))
        return code, origins.sentences_of(run.corpus.sequences, run.corpus.level)
    if code == "page6":
        st.info(t("origins.page6_none"))
    text = st.text_area(t("origins.paste"), t("origins.paste_example"), key="origins_text", height=120,
                        max_chars=limits.MAX_UPLOAD_BYTES)
    with guard():
        return code, w2v.text_sentences(text)
    return code, None




def pairs(src: tuple[str, list | None], radius: int):
    """The corpus's window pairs (cached), or None with the reason shown."""
    code, sentences = src
    with guard():
        if sentences is None and code in origins.CORPORA:
            resources.builtin_pairs_warmed(radius, MAX_VOCAB)  # all three, the first time
            return resources.w2v_builtin_pairs(code, radius, MAX_VOCAB)
        if sentences is not None:
            return cache.w2v_text_pairs(tuple(map(tuple, sentences)), radius, MAX_VOCAB)
    return None


def settings(pc) -> w2v.W2VConfig | None:
    """d, k, steps, learning rate and seed (bound to the URL), with the corpus's size."""
    if pc is not None:
        st.markdown(prose(PAGE, "corpus", n=len(pc.vocab), sentences=pc.n_sentences, P=len(pc.centres),
                          r=pc.radius, dropped=pc.dropped_types))
    c1, c2, c3 = st.columns(3)
    dim = c1.number_input(t("origins.dim"), 2, limits.W2V_MAX_DIM, 16, key="origins_dim", **BIND)
    k = c2.number_input(t("origins.negatives"), 1, limits.W2V_MAX_NEGATIVES, 5, key="origins_k", **BIND)
    steps = c3.number_input(t("origins.steps"), 1, limits.W2V_MAX_STEPS, 800, step=100, key="origins_steps",
                            **BIND)
    lr = c1.number_input(t("origins.lr"), 0.001, limits.W2V_MAX_LR, 0.025, step=0.005, format="%.3f",
                         key="origins_lr", help=t("origins.lr_help"), **BIND)
    seed = c2.number_input(t("origins.seed"), 0, 10_000, 0, key="origins_seed", **BIND)
    with guard():
        return w2v.W2VConfig(dim=int(dim), negatives=int(k), steps=int(steps), lr=float(lr), seed=int(seed))
    return None


def kept_run() -> dict | None:
    """This session's Word2Vec run: result, corpus, views; None before the first run. A run that
    ended since the last page run (done, or stopped: it keeps what it learned) is kept here."""
    job = running.take(JOB)
    if job is not None and job.result is not None:
        st.session_state[RUN] = job.result
    return st.session_state.get(RUN)


def train(pc, cfg: w2v.W2VConfig | None, code: str) -> None:
    """The Train button; while the run waits or trains, its progress bar and a Stop button."""
    header("train")
    st.markdown(prose(PAGE, "train"))
    go = st.button(t("origins.train"), key="origins_go", type="primary", icon=":material/model_training:",
                   disabled=pc is None or cfg is None)
    st.caption(t("origins.cap", seconds=num(limits.SHORT_JOB_SECONDS)))
    if go and pc is not None and cfg is not None:
        with guard():
            running.start(JOB, lambda on_step: _work(pc, cfg, code, on_step), "short")
    running.watch(JOB, _progress, lambda pos: t("origins.queued", position=pos), t("origins.stop"))


def _work(pc, cfg: w2v.W2VConfig, code: str, on_step) -> dict:
    """The worker's job (no st call): train, then the views of every checkpoint."""
    result = w2v.train_word2vec(pc, cfg, on_step)
    return {"result": result, "pc": pc, "source": code, "cfg": cfg,
            "views": w2v.checkpoint_views(result, [], 5)}


def _progress(job) -> None:
    rec = job.progress
    if rec is None:
        st.progress(0.0, text=t("origins.starting"))
        return
    st.progress(rec["step"] / rec["steps"], text=t(
        "origins.progress", step=rec["step"], steps=rec["steps"], loss=num(rec["loss"]),
        s=num(job.cap.elapsed(), 2)))


def checkpoints(run: dict | None, words: list[str]) -> None:
    """The loss curve, and per checkpoint (slider) the 2-D map and the sentence words' neighbours."""
    header("learned")
    if run is None:
        st.info(t("origins.no_run"))
        return
    res, views = run["result"], run["views"]
    st.markdown(prose(PAGE, "learned", steps=len(res.history), total=run["cfg"].steps,
                      first=num(res.history[0]["loss"]), last=num(res.history[-1]["loss"]),
                      seconds=num(res.seconds, 2), n=len(res.vocab),
                      stopped=t("origins.stopped") if res.stopped else ""))
    if res.diverged:
        st.error(t("origins.diverged", step=len(res.history), loss=num(res.history[-1]["loss"])))
    show_figure(loss_curve(res.history, t("origins.loss_title"), [s for s, _ in res.snapshots[1:]],
                           labels=_loss_labels()), "word2vec loss", key="origins_loss")
    n = len(views)
    j = st.slider(t("origins.checkpoint"), 1, n, n, key="origins_ckpt", help=t("origins.checkpoint_help")) \
        if n > 1 else 1
    view, chosen = views[j - 1], origins.known_words(words, res.vocab)
    st.caption(t("origins.checkpoint_step", j=j, n=n, step=view["step"]))
    ids = origins.shown_ids(res.vocab.itos, chosen)
    show_figure(projection_figure(view["coords"][ids], [res.vocab.itos[i] for i in ids], view["share"],
                                  t("origins.map_title", step=view["step"]), highlight=chosen,
                                  names=_map_labels()), "word2vec map", key="origins_map")
    _neighbour_table(res, j - 1, chosen)


def _neighbour_table(res, j: int, chosen: list[str]) -> None:
    if not chosen:
        st.info(t("origins.no_known_words"))
        return
    V = res.snapshots[j][1]
    rows = [{t("origins.col_word"): w, **{t("origins.col_nb", i=i + 1): f"{nb} ({num(c)})"
                                         for i, (nb, c) in enumerate(w2v.neighbours(V, res.vocab, w, 5))}}
            for w in chosen[:12]]
    st.markdown(prose(PAGE, "neighbours"))
    st.dataframe(pd.DataFrame(rows), hide_index=True)


def beside_e(run: dict | None, cur: session.Current) -> None:
    """Word2Vec's V beside a word-level RNN language model's E: shared neighbours vs chance."""
    header("beside")
    if run is None:
        st.info(t("origins.no_run"))
        return
    own = origins.tokenizer_of(cur.meta) == "word" and cur.key != "notes"
    model, vocab = (cur.model, cur.vocab) if own else resources.builtin("default")[:2]
    label = md_escape(cur.label) if own else t("origins.default_model")
    with guard():
        ov = w2v.neighbour_overlap(run["result"].V, run["result"].vocab.itos, model.E.detach(), vocab.itos, 5)
        st.markdown(prose(PAGE, "beside", label=label, m=len(ov["words"]), k=ov["k"], mean=num(ov["mean"]),
                          chance=num(ov["chance"])))
        _side_by_side(ov, cur.text)
        per = dict(sorted(ov["per_word"].items(), key=lambda kv: -kv[1])[:40])
        show_figure(overlap_figure(per, ov["k"], ov["chance"], t("origins.overlap_title"),
                                   labels=_overlap_labels(ov["k"])), "neighbour overlap",
                    key="origins_overlap")


def _side_by_side(ov: dict, text: str) -> None:
    """The sentence's words (those both know): their k nearest words in V and in E."""
    words = [w for w in dict.fromkeys(origins.sentence_words(text)) if w in ov["per_word"]]
    if not words:
        return
    st.dataframe(pd.DataFrame({
        t("origins.col_word"): words,
        t("origins.col_w2v"): [", ".join(n for n, _ in ov["neighbours_a"][w]) for w in words],
        t("origins.col_rnn"): [", ".join(n for n, _ in ov["neighbours_b"][w]) for w in words],
        t("origins.col_shared", k=ov["k"]): [ov["per_word"][w] for w in words]}), hide_index=True)


def _loss_labels() -> dict:
    return {"step": t("origins.fig_step"), "batch": t("origins.fig_batch"), "loss": t("origins.fig_loss"),
            "y": t("origins.fig_loss_y")}


def _map_labels() -> dict:
    return {"words": t("origins.fig_words"), "chosen": t("origins.fig_chosen"),
            "axis": t("origins.fig_axis", n="{n}"), "axis_title": t("origins.fig_axis_title", n="{n}",
                                                                     pct="{pct:.0f}")}


def _overlap_labels(k: int) -> dict:
    return {"word": t("origins.fig_word"), "chance": t("origins.fig_chance", chance="{chance:.2f}"),
            "y": t("origins.fig_overlap_y", k="{k}"), "hover": t("origins.fig_overlap_hover")}
