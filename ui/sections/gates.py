"""Page 8 sections: the learner's sentence through Elman, LSTM and GRU side by side, one gated
step written out, and the gates over the sentence. (The long-range task and the exercise are
in gates_task.py.) Every number comes from rnnviz (gates, formatting); nothing is computed here."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from rnnviz.engine import cells, jacobians, jacwindow
from rnnviz.errors import InputError
from rnnviz.explain import gates
from rnnviz.figures.gates import gate_heatmaps, influence_heatmaps, kept_figure
from rnnviz.formatting import num, vector
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare

from .. import cache, session
from ..i18n import counted_frame, prose, t
from ..widgets import first_word_step, guard, md_escape, shared_step, show_figure

PAGE = "gates"
TRIO = ("elman", "lstm", "gru")
BUILTIN_OF = {"elman": "default", "lstm": "lstm", "gru": "gru"}  # word-level: 79 words
SUBWORD_OF = {"elman": "subword", "lstm": "subword_lstm", "gru": "subword_gru"}  # one BPE table
SECTIONS = ("compare", "step", "sentence", "task", "exercise")  # anchors of the table of contents


@dataclass(frozen=True)
class Run:
    """One model read on the learner's sentence (or the model's own sentence if none is known)."""

    cell: str
    label: str
    model: object
    tokens: list
    trace: object
    has_bos: bool
    own_sentence: bool  # True: the learner's words could not be read, its default sentence is used
    tokenizer: str = "word"  # what cut the text: "word", "bpe", ... (rnnviz.text.tokenize.Prepared.tokenizer)


def intro() -> None:
    st.title(t("gates.title"))
    st.markdown(prose(PAGE, "intro"))


def builtin_of(cur: session.Current) -> dict:
    """The trio's built-ins, following the current model's tokenizer: a model that reads BPE
    subwords (the start model) gets the subword Elman, LSTM and GRU, which share its merge
    table, so the learner's English sentence reads without <unk>; any other, the word-level ones."""
    return SUBWORD_OF if cur.level == "bpe" else BUILTIN_OF


def _read(cell: str, cur: session.Current) -> Run:
    """The current model if it is this cell (gated, or a subword Elman), else the built-in of
    the current model's tokenizer family; the learner's text."""
    if cur.model.cfg.cell == cell and (cell != "elman" or cur.level == "bpe"):
        key, model, vocab, level, label = cur.key, cur.model, cur.vocab, cur.level, cur.label
    else:
        key = builtin_of(cur)[cell]
        model, vocab, meta = cache.builtin(key)
        level, label = meta.get("level", "word"), session.model_label(key)
    text, own = cur.text, False
    try:
        prep = prepare(text, vocab, level)
    except InputError:
        text, own = session.default_sentence(key), True
        prep = prepare(text, vocab, level)
    ids, targets = lm_pair(list(prep.ids), vocab)
    return Run(cell, label, model, vocab.decode(ids), cache.cached_trace(model, ids, targets),
               vocab.has_specials, own, prep.tokenizer)


def trio(cur: session.Current) -> dict:
    """{cell: (Run, norms (w, w), horizon dict with 'reach' and 'window')} for Elman, LSTM and
    GRU, once. A long sentence with a large state is shown on its last w steps, the same w for
    the three maps (one figure, one axis): the smallest window of the three within
    limits.MAX_JACOBIAN_WORK. The reach on the last state is exact over the whole sentence."""
    runs = [_read(cell, cur) for cell in TRIO]
    w = min(cache.jacobian_window(r.model, r.trace, k=r.model.cfg.embed_dim).size for r in runs)
    out = {}
    for run in runs:
        win = jacwindow.last_steps(run.trace.T, w)
        norms = cache.input_jacobian_norms(run.model, run.trace, win.start)  # (w, w)
        horizon = jacobians.memory_horizon(norms)
        row = cache.last_state_input_norms(run.model, run.trace)  # (T,)
        horizon["reach"] = gates.first_word_reach_row(row, first_word_step(run.has_bos) - 1)
        horizon["window"] = win
        out[run.cell] = (run, norms, horizon)
    return out


def window_note(runs: dict) -> None:
    """Next to the maps of a long sentence: which steps they show, and why."""
    win = runs["lstm"][2]["window"]
    if not win.full:
        st.info(t("gates.window", T=win.T, first=win.first, last=win.last, n=win.size, n1=win.size - 1))


def look_here(runs: dict) -> None:
    """'What to look at' with this sentence's horizons, and the page's table of contents."""
    hz = {c: runs[c][2] for c in TRIO}
    T = runs["lstm"][0].trace.T
    st.markdown(prose(PAGE, "look", T=T, **{f"h_{c}": hz[c]["horizon"] for c in TRIO},
                      **{f"r_{c}": num(hz[c]["reach"]) for c in TRIO}))
    st.markdown("\n".join(f"- [{t(f'gates.toc.{s}')}](#{s})" for s in SECTIONS))


def compare(runs: dict) -> None:
    """||dh_s/dx_t|| of the three cells on one log colour scale, and their memory horizons."""
    st.subheader(t("gates.compare_header"), anchor="compare")
    readers(runs)
    names = {c: t(f"gates.cell.{c}") for c in TRIO}
    for c in TRIO:
        run = runs[c][0]
        if run.own_sentence:
            st.info(t("gates.own_sentence", model=md_escape(run.label)))
    st.markdown(prose(PAGE, "compare", **{f"h_{c}": runs[c][2]["horizon"] for c in TRIO},
                      **{f"r_{c}": num(runs[c][2]["reach"]) for c in TRIO}, T=runs["lstm"][0].trace.T))
    rows = [{t("gates.col.cell"): names[c], t("gates.col.model"): runs[c][0].label,
             t("gates.col.horizon"): runs[c][2]["horizon"], t("gates.col.median"): runs[c][2]["median"],
             t("gates.col.reach"): num(runs[c][2]["reach"])} for c in TRIO]
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    window_note(runs)
    if any(runs[c][2]["reached_start"] for c in TRIO) and runs["lstm"][2]["window"].full:
        st.caption(t("gates.horizon_all"))
    labels = {k: t(f"gates.fig.infl_{k}") for k in ("title", "x", "y", "colorbar", "hover", "blank")}
    fig = influence_heatmaps({names[c]: runs[c][1].numpy() for c in TRIO}, runs["lstm"][0].tokens,
                             labels, start=runs["lstm"][2]["window"].start)  # true step numbers
    show_figure(fig, t("gates.file.influence"), key="gates_influence")
    with st.expander(t("gates.compare_more")):
        st.markdown(prose(PAGE, "compare_more"))


def readers(runs: dict) -> None:
    """One line naming the tokenizer the three models read the sentence with, and (folded) the
    tokens each one read, so a learner sees the three compare the same tokens."""
    kinds = list(dict.fromkeys(runs[c][0].tokenizer for c in TRIO))
    if len(kinds) == 1:
        st.caption(t("gates.reads_one", tokenizer=t(f"tokenizer.{kinds[0]}")))
    else:
        st.caption(t("gates.reads_mixed", which=", ".join(
            f"{t(f'gates.cell.{c}')}: {t(f'tokenizer.{runs[c][0].tokenizer}')}" for c in TRIO)))
    with st.expander(t("gates.tokens_header")):
        st.dataframe(pd.DataFrame([{t("gates.col.model"): runs[c][0].label,
                                    t("gates.col.tokenizer"): t(f"tokenizer.{runs[c][0].tokenizer}"),
                                    t("gates.col.tokens"): " · ".join(runs[c][0].tokens)} for c in TRIO]),
                     hide_index=True)


def gated_run(cur: session.Current, runs: dict) -> Run:
    """The model of the step and gate views: the current one if gated, else the built-in LSTM
    or GRU chosen here (bound to the URL: gates_cell=lstm|gru)."""
    if cur.model.cfg.cell in cells.GATED:
        st.caption(t("gates.using_current", model=md_escape(cur.label)))
        return runs[cur.model.cfg.cell][0]
    cell = st.radio(t("gates.pick_cell"), ["lstm", "gru"],  # no format_func: the URL keeps the code
                    key="gates_cell", horizontal=True, bind="query-params",
                    help=t("gates.pick_cell_help"))
    return runs[cell][0]


LSTM_ROWS = (("pre_i", "A_i = W_{xi} x_t + b_{xi} + W_{hi} h_{t-1} + b_{hi}"), ("i", "i = \\sigma(A_i)"),
             ("pre_f", "A_f = W_{xf} x_t + b_{xf} + W_{hf} h_{t-1} + b_{hf}"), ("f", "f = \\sigma(A_f)"),
             ("pre_g", "A_g = W_{xg} x_t + b_{xg} + W_{hg} h_{t-1} + b_{hg}"), ("g", "g = \\tanh(A_g)"),
             ("pre_o", "A_o = W_{xo} x_t + b_{xo} + W_{ho} h_{t-1} + b_{ho}"), ("o", "o = \\sigma(A_o)"),
             ("c_prev", "c_{t-1}"), ("c", "c_t = f \\odot c_{t-1} + i \\odot g"),
             ("h", "h_t = o \\odot \\tanh(c_t)"))
GRU_ROWS = (("pre_r", "A_r = W_{xr} x_t + b_{xr} + W_{hr} h_{t-1} + b_{hr}"), ("r", "r = \\sigma(A_r)"),
            ("pre_z", "A_z = W_{xz} x_t + b_{xz} + W_{hz} h_{t-1} + b_{hz}"), ("z", "z = \\sigma(A_z)"),
            ("hn", "W_{hn} h_{t-1} + b_{hn}"),
            ("pre_n", "A_n = W_{xn} x_t + b_{xn} + r \\odot (W_{hn} h_{t-1} + b_{hn})"),
            ("n", "n = \\tanh(A_n)"), ("h_prev", "h_{t-1}"),
            ("h", "h_t = (1 - z) \\odot n + z \\odot h_{t-1}"))
LSTM_TEX = (r"c_t = f \odot c_{t-1} + i \odot g,\qquad h_t = o \odot \tanh(c_t)")
GRU_TEX = r"h_t = (1 - z) \odot n + z \odot h_{t-1}"


def one_step(run: Run) -> None:
    """Step t of the chosen gated model: every pre-activation and gate with its shape, and one
    unit's update written with numbers."""
    H, d = run.model.cfg.hidden_size, run.model.cfg.embed_dim
    t1 = shared_step(t("gates.step"), run.trace.T, run.has_bos, key="gates_step")
    s = gates.gated_step(run.model, run.trace, t1 - 1)
    lstm = run.model.cfg.cell == "lstm"
    st.markdown(prose(PAGE, "step_lstm" if lstm else "step_gru", t=t1, tok=md_escape(run.tokens[t1 - 1]),
                      H=H, d=d, G=4 * H if lstm else 3 * H))
    st.latex(LSTM_TEX if lstm else GRU_TEX)
    rows = [{t("gates.col.quantity"): f"${tex}$", t("gates.col.shape"): f"({H},)",
             t("gates.col.values"): vector(s[k], shown=8)} for k, tex in (LSTM_ROWS if lstm else GRU_ROWS)]
    st.table(counted_frame(pd.DataFrame(rows)))
    u = s["peak"]
    factors = ("f", "c_prev", "i", "g", "o") if lstm else ("z", "n", "h_prev")
    vals = {k: _factor(s[k][u]) for k in factors} | {k: _tex(s[k][u]) for k in ("c", "h") if k in s}
    st.markdown(prose(PAGE, "unit_lstm" if lstm else "unit_gru", u=u + 1, t=t1, **vals))


def _tex(v) -> str:
    """num(v) for inside LaTeX: '2.71e-05' becomes '2.71 \\times 10^{-5}' (not 'e − 05')."""
    text = num(v)
    if "e" in text and text not in ("inf", "-inf"):
        mant, exp = text.split("e")
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return text


def _factor(v) -> str:
    """A number inside a written-out product: negatives in parentheses, 0.9 × (−0.5)."""
    return f"({_tex(v)})" if float(v) < 0 else _tex(v)


def over_sentence(run: Run) -> None:
    """Every gate over the sentence as heatmaps, the sigmoid gates' saturation, and (LSTM) the
    units whose cell state survives from the first word to the last step."""
    st.subheader(t("gates.sentence_header"), anchor="sentence")
    cell, H = run.model.cfg.cell, run.model.cfg.hidden_size
    sat = gates.gate_saturation(run.trace, cell, H)
    st.markdown(prose(PAGE, "sentence_" + cell, **{f"sat_{g}": num(100 * v) for g, v in sat.items()}))
    values = {g: run.trace.gates[g][:, :H].numpy() for g in cells.GATE_NAMES[cell]}  # (T, H) each
    labels = {k: t(f"gates.fig.gate_{k}") for k in ("title", "x", "y", "gate_bar", "cand_bar", "hover")}
    titles = {g: t(f"gates.gate.{g}") for g in values}
    show_figure(gate_heatmaps(values, run.tokens, "g" if cell == "lstm" else "n", labels, titles),
                t("gates.file.gates"), key="gates_heat")
    st.dataframe(pd.DataFrame([{t("gates.col.gate"): titles[g], t("gates.col.saturated"): num(100 * v)}
                               for g, v in sat.items()]), hide_index=True)
    if cell == "lstm":
        _kept(run, H)
    else:
        st.markdown(prose(PAGE, "kept_gru"))


def _kept(run: Run, H: int) -> None:
    start = first_word_step(run.has_bos) - 1
    k = gates.kept_cells(run.trace, H, start=start, threshold=0.5)
    top = ", ".join(f"u{u + 1} ({num(k['kept'][u])})" for u in k["order"][:3])
    st.markdown(prose(PAGE, "kept_lstm", n=k["n_kept"], H=H, thr=num(k["threshold"]), top=top,
                      t0=start + 1, tok=md_escape(run.tokens[start]), T=run.trace.T))
    labels = {k_: t(f"gates.fig.kept_{k_}") for k_ in ("title", "x", "y", "line")}
    show_figure(kept_figure(k["kept"].numpy(), k["order"], k["threshold"], labels),
                t("gates.file.kept"), key="gates_kept")


def step_section(cur: session.Current, runs: dict) -> Run:
    """The 'one step' section: header, the model choice next to it, the step written out."""
    st.subheader(t("gates.step_header"), anchor="step")
    run = gated_run(cur, runs)
    with guard():
        one_step(run)
    return run
