"""3 · Output and loss: softmax, cross-entropy and p - y on the current sentence and model."""
import numpy as np
import pandas as pd
import streamlit as st

from rnnviz import output as out
from rnnviz.catalog import NOTES_VOCAB
from rnnviz.data import lm_pair
from rnnviz.figures import output as figs
from rnnviz.figures.common import fmt, step_labels
from rnnviz.prose import section
from rnnviz.text import EOS, PAD, prepare
from ui import cache
from ui import compat as ui

esc = ui.md_escape


def table(rows, **kw):
    """Floats as the prose writes them (fmt, 4 significant digits) and every column wide enough
    for its header and its longest cell, so nothing is cut off."""
    rows = out.display_rows(rows)
    widths = {c: st.column_config.Column(width=w) for c, w in out.column_widths(rows).items()}
    st.dataframe(pd.DataFrame(rows), hide_index=True, column_config=widths, **kw)


st.title("3 · Output and loss: softmax, cross-entropy and p\u00a0−\u00a0y")
st.markdown(section("output", "intro"))
cur = ui.current()
tr, vocab, model = cur.trace, cur.vocab, cur.model
if model.cfg.K != len(vocab):
    st.info("This page is about next-token prediction; the chosen model predicts tags, not words.")
    st.stop()
labels, names, T, K = vocab.itos, step_labels(cur.tokens), tr.T, model.cfg.K
targets = out.target_tokens(vocab, tr.targets)
H = model.cfg.H_out

# ---- 1. where the labels come from ---------------------------------------------------------
st.header("1 · Where the labels come from")
sizes = out.vocab_size_note(vocab)
n_valid = int(tr.valid.sum())
st.markdown(section("output", "labels", T=T, n_valid=n_valid, **sizes,
                    no_target_note="" if n_valid == T else " (the last one has none: no word follows it)"))
if EOS not in vocab and "today" not in vocab:  # the notes' own example goes on with "today"
    st.markdown(section("output", "no_eos", V=len(vocab),
                        words=f" ({esc(', '.join(vocab.itos))})" if len(vocab) <= 12 else ""))
words = vocab.decode(cur.prepared.ids)
with_in, with_tg = out.shift_pairs(words, specials=True)
wo_in, wo_tg = out.shift_pairs(words, specials=False)
st.markdown(section("output", "labels_compare", n_with=len(with_in), n_without=len(wo_in)))
# the model's own shift, once; the other convention below it for comparison (full width: no column cut)
st.caption("This model's inputs and targets " + ("(with <bos> / <eos>)" if vocab.has_specials
                                                  else "(without special tokens)"))
table(out.context_rows(cur.tokens, targets))
st.caption("For comparison: " + ("without special tokens" if vocab.has_specials else "with <bos> / <eos>"))
other_in, other_tg = (wo_in, wo_tg) if vocab.has_specials else (with_in, with_tg)
if other_in:
    table(out.context_rows(other_in, other_tg))
else:
    st.info("One word: nothing to predict.")

# ---- 2. one step ----------------------------------------------------------------------------
st.header("2 · One step, written out")
t = st.slider("Step t", 1, T, min(2, T), key="out_step", bind="query-params",
              help="Time step of the sentence, counted from 1 as in the notes.") - 1 if T > 1 else 0
k_max = min(20, K)
k = st.number_input("Outputs shown (top-k)", 1, k_max, min(8, k_max), key="out_k", bind="query-params",
                    help=f"The model has K = {K} outputs; the target is always shown too.")
source = st.radio("Numbers", ["This step of your sentence", "Notes example (p = [0.1, 0.1, 0.4, 0.3, 0.1])"],
                  key="out_src", bind="query-params", horizontal=True)
notes = source.startswith("Notes")
view = out.notes_view(NOTES_VOCAB) if notes else out.step_view(tr, t, labels)
if notes:
    st.markdown(section("output", "notes", loss=f"{view.loss:.3f}",
                        grad="[" + ", ".join(f"{g:.1f}" for g in view.p_minus_y) + "]"))
elif view.target is None:
    st.markdown(section("output", "no_target", t=t + 1, tok=esc(cur.tokens[t])))
shown = out.shown_outputs(view, int(k))
if not notes:
    tgt_name = esc(labels[view.target]) if view.target is not None else "(none)"
    st.markdown(section("output", "step", t=t + 1, tok=esc(cur.tokens[t]), target=tgt_name, K=K, H=H,
                        shown_note=f"all {K} outputs" if len(shown) == K else
                        f"the {int(k)} most likely ones (and the target if it is not among them)"))
    st.caption("z_k = W_o[k] · h_t + b_o[k], row by row:")
    table(out.logit_rows(model, tr, t, shown, labels))
table(out.softmax_rows(view, shown))
if view.target is not None:
    tgt = view.target
    st.markdown(section("output", "softmax", K=len(view.z), normaliser=fmt(view.normaliser),
                        target=esc(view.labels[tgt]), exp_target=fmt(view.exps[tgt]),
                        p_target=fmt(view.p[tgt]), zmax=fmt(view.z.max())))
    st.markdown(section("output", "loss", target=esc(view.labels[tgt]), p_target=fmt(view.p[tgt]),
                        loss=fmt(view.loss)))
    diff = float(np.abs(view.p_minus_y - view.autograd).max())
    jordan = model.cfg.cell == "jordan" and not notes
    st.markdown(section("output", "grad", one_minus_p=fmt(1 - view.p[tgt]), autograd_diff=f"{diff:.1e}",
                        jordan_note=" " + section("output", "jordan_note") if jordan else ""))
title = "Notes example" if notes else f"Step {t + 1}: after “{cur.tokens[t]}”"
st.plotly_chart(figs.prob_and_grad_bars([view.labels[i] for i in shown], view.p[shown], view.p_minus_y[shown],
                                        shown.index(view.target) if view.target is not None else None,
                                        title), width="stretch")

# ---- 3. the whole sentence -------------------------------------------------------------------
st.header("3 · The whole sentence")
k_top = min(int(k), 10)
idx, vals = out.top_k(tr, k_top)
worst = out.worst_step(tr)  # None for a diverged model: every loss NaN/inf
if n_valid and worst is not None:
    st.markdown(section("output", "sentence", k=k_top, worst_t=worst + 1, worst_input=esc(cur.tokens[worst]),
                        worst_target=esc(targets[worst]), worst_loss=fmt(float(tr.loss_t[worst])),
                        worst_p=fmt(float(tr.p[worst, tr.targets[worst]]))))
lo, hi = out.step_window(T, t)
where = "each step" if (lo, hi) == (0, T) else f"steps {lo + 1}–{hi} of {T} (around step {t + 1}, chosen in section 2)"
st.plotly_chart(figs.topk_heatmap(np.vectorize(lambda i: labels[i])(idx[lo:hi]), vals[lo:hi], names[lo:hi],
                                  f"Top {k_top} next-token predictions at {where}"), width="stretch")
k_table = min(k_top, out.MAX_TABLE_TOP)  # all k are in the heatmap; the table keeps its row on screen
st.caption(f"Per step: the target, its probability and rank, L_t, and the top {k_table} guesses"
           + (f" (all {k_top} are in the heatmap above)." if k_table < k_top else "."))
table(out.sentence_rows(tr, vocab, k_table, cur.tokens))
st.plotly_chart(figs.loss_bars(names, tr.loss_t.numpy(), [x or "(none)" for x in targets], tr.valid.numpy(),
                               "Per-token loss L_t = -ln p_t(target)"), width="stretch")
if n_valid:
    tr_mean = ui.cached_trace(model, cur.input_ids, cur.target_ids, "mean")
    r = out.reductions(tr, tr_mean)
    st.markdown(section("output", "reduction", N=r["N"], sum=fmt(r["sum"]), mean=fmt(r["mean"]),
                        gsum=fmt(r["grad_norm_sum"]), gmean=fmt(r["grad_norm_mean"]),
                        gdiff=f"{r['grad_max_diff']:.1e}"))

# ---- 4. a padded batch ----------------------------------------------------------------------
st.header("4 · A padded batch")
half = " ".join(cur.prepared.tokens[: max(1, (len(cur.prepared.tokens) + 1) // 2)])
other = st.text_input("Second sentence of the batch", key="out_batch2", bind="query-params",
                      placeholder=half, max_chars=2000,
                      help="Leave it empty to use the first half of your sentence.") or half
with ui.guard():
    prep2 = prepare(other, vocab, cur.level)
    for notice in prep2.notices:
        st.warning(esc("Second sentence: " + notice))
    pairs = [(list(cur.input_ids), list(cur.target_ids)), lm_pair(list(prep2.ids), vocab)]
    red = st.radio("Reduction", ["sum", "mean"], key="out_batch_red", bind="query-params", horizontal=True)
    batch = out.padded_batch(model, pairs, vocab.stoi.get(PAD, 0), red)
    tr_b = ui.cached_trace(model, pairs[1][0], pairs[1][1])
    loss_a, loss_b, sum_ab = out.exact_sum(float(tr.loss), float(tr_b.loss))
    nums = dict(loss_a=loss_a, loss_b=loss_b, sum_ab=sum_ab, n_valid=batch.n_valid, BT=batch.ids.numel())
    st.markdown(section("output", "padding", T=batch.ids.shape[1], reduction=red, batch_loss=fmt(batch.loss),
                        reduction_line=section("output", f"padding_{red}", **nums)))
    if PAD not in vocab:
        st.caption(section("output", "pad_id"))
    if model.cfg.bidirectional:
        st.markdown(section("output", "padding_bidi"))
    rows = []
    for b in range(2):
        rows.append({"row": f"sentence {b + 1} tokens", **{str(j + 1): vocab.itos[int(i)] if m else "<pad>"
                     for j, (i, m) in enumerate(zip(batch.ids[b], batch.mask[b]))}})
        rows.append({"row": f"sentence {b + 1} mask", **{str(j + 1): str(int(m)) for j, m in enumerate(batch.mask[b])}})
    table(rows)
    st.plotly_chart(figs.batch_loss_heatmap(batch.loss_t.numpy(), batch.mask.numpy(),
                                            (batch.targets != out.IGNORE).numpy(), ["sentence 1", "sentence 2"],
                                            "Loss per position: padding carries none"), width="stretch")


# ---- 5. teacher forcing vs generation ---------------------------------------------------------
@st.fragment
def generation():
    st.header("5 · Teacher forcing vs free generation")
    n = st.slider("Start from the first n input tokens", 1, T, 1 if vocab.has_specials else min(2, T),
                  key="out_prefix", bind="query-params") if T > 1 else 1
    c = st.columns(4)
    strategy = c[0].radio("Choose by", ["greedy", "sample"], key="out_strategy", bind="query-params",
                          help="greedy: the most probable token; sample: draw from softmax(z / temperature).")
    temp = c[1].slider("Temperature", 0.1, 3.0, 1.0, 0.1, key="out_temp", bind="query-params",
                       disabled=strategy == "greedy", help="Below 1 sharpens p, above 1 flattens it.")
    topk = c[2].number_input("Top-k (0 = all)", 0, K, 0, key="out_gen_topk", bind="query-params",
                             disabled=strategy == "greedy")
    seed = c[3].number_input("Seed", 0, 2**31 - 1, 0, key="out_seed", bind="query-params",
                             disabled=strategy == "greedy")
    max_new = st.slider("Length limit (new tokens)", 1, out.MAX_NEW_TOKENS, 12, key="out_max_new",
                        bind="query-params")
    how = out.Sampling(strategy, float(temp), int(topk), int(seed), int(max_new))
    steps = cache.generate(model, cur.input_ids[:n], how, vocab.stoi.get("<eos>"))
    st.markdown(section("output", "generation", n=n))
    desc = ("Greedy: always the most probable token." if strategy == "greedy" else
            f"Sampling from softmax(z / {temp:g})" + (f" among the top {topk}." if topk else " over all tokens."))
    eos_key = "stop_eos" if vocab.has_specials else "stop_limit"
    st.markdown(section("output", "generation_how", how=desc,
                        stop=section("output", eos_key, max_new=max_new)))
    table(out.forcing_rows(tr, vocab, n, steps))
    st.code(" ".join(vocab.decode(cur.input_ids[:n]) + [vocab.itos[s.chosen] for s in steps]), language=None,
            wrap_lines=True)


generation()


# ---- 6. what the gradient does ---------------------------------------------------------------
@st.fragment
def gradient_step():
    st.header("6 · One gradient step on the output layer")
    if not bool(tr.valid[t]):
        st.info(f"Step {t + 1} has no target: choose another step in section 2.")
        return
    lr = st.slider("Learning rate lr", 0.005, 2.0, 0.05, 0.005, key="out_lr", bind="query-params",
                   format="%.3f", help="Large steps overshoot: the target's p jumps towards 1.")
    res = cache.output_layer_step(model, tr, t, float(lr))
    before, after = res.target_probs(tr.targets)
    la, lb = -np.log(before[t]), -np.log(after[t])
    moved = res.moved
    others = [s for s in range(T) if s != t]
    o = max(others, key=lambda s: moved[s]) if others else t
    dp = after - before
    st.markdown(section("output", "gradstep", t=t + 1, lr=lr, target=esc(targets[t]), before=fmt(before[t]),
                        after=fmt(after[t]), loss_before=fmt(la), loss_after=fmt(lb), other_t=o + 1,
                        other_tok=esc(cur.tokens[o]), other_moved=fmt(moved[o]),
                        other_dp=fmt(dp[o]) if np.isfinite(dp[o]) else "nothing (no target there)"))
    tgt = int(tr.targets[t])
    idx_shown = out.shown_outputs(out.step_view(tr, t, labels), min(int(k), 10))
    st.plotly_chart(figs.before_after_bars([labels[i] for i in idx_shown], res.p_before[t, idx_shown],
                                           res.p_after[t, idx_shown], idx_shown.index(tgt),
                                           f"p_t at step {t + 1} before and after one step (lr = {lr:g})"),
                    width="stretch")
    st.plotly_chart(figs.moved_bars(names, dp, moved, t,
                                    "Every position moves: W_o and b_o are shared by all steps"), width="stretch")


gradient_step()


# ---- 7. try it by hand ------------------------------------------------------------------------
def _new_exercise():
    st.session_state["out_ex_seed"] = int(st.session_state.get("out_ex_seed", 0)) + 1
    st.session_state["out_ex_loss"] = ""
    st.session_state["out_ex_grad"] = ""


@st.fragment
def exercise():
    st.header("7 · Try it by hand")
    c1, c2 = st.columns([1, 3])
    seed = c1.number_input("Exercise number", 0, 10**6, 0, key="out_ex_seed", bind="query-params")
    c2.button("New exercise", on_click=_new_exercise, key="out_ex_new")
    ex = out.make_exercise(int(seed))
    st.markdown(section("output", "exercise"))
    given = "p" if ex.kind == "probs" else "z (logits)"
    table([{"word": w, given: v, "target": "◀ target" if i == ex.target else ""}
           for i, (w, v) in enumerate(zip(ex.labels, ex.given))])
    loss_text = st.text_input("Your L", key="out_ex_loss", placeholder="e.g. 0.92")
    grad_text = st.text_input(f"Your p - y ({len(ex.labels)} numbers)", key="out_ex_grad",
                              placeholder="e.g. 0.1, -0.6, 0.5")
    for check, text in ((out.check_loss, loss_text), (out.check_grad, grad_text)):
        with ui.guard():
            fb = check(ex, text)
            if fb.correct:
                st.success(fb.message)
            elif fb.correct is False:
                st.error(fb.message)
    with st.expander("Show the solution"):
        table(out.softmax_rows(ex.view, list(range(len(ex.labels)))))
        st.markdown(f"L = -ln p({esc(ex.labels[ex.target])}) = **{ex.view.loss:.4f}**")


exercise()
