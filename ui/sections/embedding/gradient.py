"""Page 1 sections, backward: g_e (from the backward pass or typed), dL/dE = x^T g_e element by
element, the sum over the sentence, and one update under four rules (the tied one on a real tied
model, rnnviz.tied)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.explain import embedding as emb
from rnnviz.explain.formulas import repeat_example
from rnnviz.figures.embedding import row_change_figure
from rnnviz.formatting import num, sub

from ... import cache, resources, session
from ...i18n import error_text, prose
from ...page import folded
from ...widgets import FOLLOW, code_radio, md_escape, show_figure
from ..vectors import beside
from .common import PAGE, RADIUS, VIEW_ROWS, header, matrix_view, rows_note, say, table, tr, view_rows
from .lookup import encode

RULES = ("gd", "wd", "adam", "tied")
SHOWN = 6  # entries of a long vector kept in a table cell
BIND = {"bind": "query-params"}


def gradient(cur: session.Current, E, step: int):
    """The (T, d) gradient rows g_t and the typed g_e (None when from the backward pass)."""
    header("gradient")
    c1, c2 = st.columns(2)
    with c1:
        src = code_radio(tr("gsrc"), ["backward", "typed"], "emb_gsrc", lambda k: tr(f"gsrc_{k}"),
                          default=1 if cur.key == "notes" else 0, **FOLLOW)
    g_text = c2.text_input(tr("ge", d=E.shape[1]), "2, -1, 3", key="emb_ge", **BIND, **FOLLOW,
                           disabled=src == "backward")
    if src == "typed":
        try:
            g = emb.parse_vector(g_text, E.shape[1], "gₑ")
        except InputError as err:  # a typo (or a model with another d): said, and the section goes on
            st.error(error_text(err))
            st.info(tr("typed_fallback", d=E.shape[1]))
            src = "backward"
    if src == "backward":
        say("gradient-backward", loss=num(cur.trace.loss))
        return emb.f64(cur.trace.grad_x), None
    beside(prose(PAGE, "gradient-typed", t=step + 1, token=md_escape(cur.tokens[step])), [("gₑ", g)])
    return emb.typed_gradient(len(cur.input_ids), E.shape[1], step, g), g


def outer_and_sum(cur: session.Current, E, step: int, G):
    """x^T g_e for step t element by element, then dL/dE = sum_t x_t^T g_t. Returns dL/dE."""
    ids, itos, V, d = list(cur.input_ids), cur.vocab.itos, E.shape[0], E.shape[1]
    i = ids[step]
    text = prose(PAGE, "outer", i=i, token=md_escape(cur.tokens[step]), V=V, d=d)
    beside(text, [(f"g{sub(step + 1)}", G[step])])
    rows = emb.outer_rows(i, G[step], itos, RADIUS, dims=limits.MAX_SHOWN_DIMS)
    table(rows)
    say("outer-transpose", V=V, d=d)
    if d > limits.MAX_SHOWN_DIMS:
        st.caption(tr("dims_shown", n=limits.MAX_SHOWN_DIMS, d=d))
    if len(rows) < V:
        st.caption(tr("window", lo=rows[0]["k"], hi=rows[-1]["k"], V=V, why="xₖ = 0 ⇒ xₖ gⱼ = 0"))
    grad = emb.embedding_gradient(ids, G, V)  # (V, d)
    contribs = emb.row_contributions(ids, G, itos)
    say("sum", n_rows=len(contribs), n_zero=V - len(contribs))
    table(emb.contribution_rows(contribs, shown=SHOWN))
    repeated = [md_escape(f"“{r['token']}”") for r in contribs if len(r["steps"]) > 1]
    if repeated:
        say("repeated", repeated=", ".join(repeated))
    else:
        say("not-repeated", example=md_escape(repeat_example(cur.prepared.tokens)))
    matrix_view(cur, grad, view_rows(cur, V, width=d), tr("fig_grad", V=V, d=d), tr("file_grad"),
                "emb_grad", colorbar="dL/dE", hover_name="dL/dE", y_title=tr("fig_id_token"))
    return grad


def update(cur: session.Current, E, step: int, grad, g_typed) -> None:
    """One update step under the chosen rule, the rows it moved, and their numbers."""
    header("update")
    c1, c2 = st.columns(2)
    lr = c1.slider(tr("lr"), 0.0, 1.0, 0.1, 0.01, key="emb_lr", **BIND, **FOLLOW)
    with c2:
        rule = code_radio(tr("rule"), list(RULES), "emb_rule", lambda k: tr(f"rule_{k}"), **FOLLOW)
    try:
        before, after, used, itos, ids, key, values = apply_rule(cur, E, rule, step, grad, lr, g_typed)
    except InputError as err:
        st.error(error_text(err))
        return
    s = emb.change_summary(before, after, ids)
    V = before.shape[0]
    shown = values.pop("vectors", None)  # the example row's numbers, in a table beside the text
    text = prose(PAGE, key, lr=num(lr), V=V, n_changed=s["n_changed"], n_other=s["n_other"], **values)
    if shown:
        beside(text, shown)
    else:
        st.markdown(text)
    words = {k: tr(f"fig_change_{k}") for k in ("looked", "not_looked", "row", "change", "x", "y")}
    labels = emb.vocab_labels(itos)
    shown = emb.shown_rows(V, ids, bound=VIEW_ROWS, whole=VIEW_ROWS)  # the update's rows: not cur's sentence
    show_figure(cache.figure(row_change_figure, [labels[k] for k in shown], s["change"][shown].numpy(),
                                  emb.positions(shown, ids),
                                  tr("fig_moved", n=s["n_changed"], V=V, rule=tr(f"rule_{rule}")),
                                  text=words),
                tr("file_moved"), key="emb_moved")
    whole = None
    if len(shown) < V:
        whole = pd.DataFrame({tr("fig_change_x"): labels, tr("fig_change_y"): s["change"].numpy()})
    rows_note(shown, V, whole, tr("file_moved"), "emb_moved")
    table(emb.update_rows(before, after, used, itos, shown=SHOWN),
          height=min(400, 40 + 35 * max(1, s["n_changed"])))


def apply_rule(cur, E, rule: str, step: int, grad, lr: float, g_typed):
    """(E before, E after, gradient used, itos, ids read, prose key, prose values)."""
    itos, ids = cur.vocab.itos, list(cur.input_ids)
    if rule == "gd":
        new = emb.sgd_step(E, grad, lr)
        moved = emb.change_summary(E, new, ids)["moved"]
        values = {"example": ""}
        if moved:
            k = ids[step] if ids[step] in moved else moved[0]  # step t's row first
            values = {"example": tr("gd_example", token=md_escape(itos[k]), lr=num(lr)),
                      "vectors": [(tr("vec_before", k=k), E[k]), (tr("vec_grad", k=k), grad[k]),
                                  (tr("vec_after", k=k), new[k])]}
        return E, new, grad, itos, ids, "update-gd", values
    if rule == "wd":
        wd = st.slider(tr("wd"), 0.0, 0.5, 0.01, 0.01, key="emb_wd", **BIND, **FOLLOW)
        return E, emb.sgd_step(E, grad, lr, wd), grad, itos, ids, "update-wd", {"wd": num(wd)}
    if rule == "adam":
        return adam_rule(cur, E, grad, lr, g_typed)
    return tied_rule(cur, lr)


def adam_rule(cur, E, grad, lr: float, g_typed):
    """Adam's step 1 on an earlier sentence, step 2 on this one; returns step 2's change."""
    suggestion = "you like dogs" if cur.key == "notes" else tr("adam_placeholder")
    text = (st.text_input(tr("adam_prev"), key="emb_prev", **BIND, **FOLLOW, placeholder=suggestion).strip()
            or suggestion)
    inp, tgt = encode(cur, text)
    V = E.shape[0]
    if g_typed is None:
        G_prev = emb.f64(cache.cached_trace(cur.model, inp, tgt).grad_x)  # (T', d)
    else:
        st.caption(tr("adam_typed"))
        G_prev = emb.same_gradient(len(inp), g_typed)
    states = emb.adam_steps(E, [emb.embedding_gradient(inp, G_prev, V), grad], lr)
    folded(tr("adam_state"), "emb_adam_state", lambda: table(emb.adam_rows(states[0].E, states[1], grad,
                                                                           cur.vocab.itos)))
    return (states[0].E, states[1].E, grad, cur.vocab.itos, list(cur.input_ids), "update-adam",
            {"prev": md_escape(text)})


def tied_rule(cur, lr: float):
    """The update of a real tied model (d = H, W_o = E) on the sidebar's sentence: every row moves."""
    model, vocab, report = resources.tied_model()
    inp, tgt = encode_tied(cur, vocab)
    parts = cache.tied_parts(model, inp, tgt)
    E = emb.f64(model.E)  # (V, d)
    n_in = emb.nonzero_rows(parts["input"])
    n_out = emb.nonzero_rows(parts["output"])
    values = {"n_in": n_in, "n_out": n_out, "loss": num(parts["loss"]), "d": report["d"],
              "ppl": num(report["heldout_perplexity"]), "uniform": num(report["uniform_perplexity"]),
              "tokens": md_escape(" ".join(vocab.decode(inp)))}
    return E, emb.sgd_step(E, parts["total"], lr), parts["total"], vocab.itos, inp, "update-tied", values


def encode_tied(cur, vocab):
    """The sidebar's sentence in the tied model's vocabulary (word level; unknown words <unk>)."""
    from rnnviz.text.corpora import lm_pair
    from rnnviz.text.tokenize import prepare
    return lm_pair(list(prepare(cur.text, vocab, "word").ids), vocab)


def gradient_and_update(cur: session.Current, E, step: int) -> None:
    """The gradient, its sum over the sentence, and one update (a typo in g_e is a message)."""
    try:
        G, g_typed = gradient(cur, E, step)
    except InputError as err:
        st.error(error_text(err))
        return
    grad = outer_and_sum(cur, E, step, G)
    update(cur, E, step, grad, g_typed)


def embedding_matrix(cur: session.Current):
    """E of the current model in float64 (so the notes' one-decimal numbers come out exactly)."""
    return emb.f64(cur.model.E)  # (V, d)
