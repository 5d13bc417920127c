"""Page 1 sections, forward: the guide, the notes' worked numbers, the lookup E[id] and one-hot
x E, nn.Embedding as a bias-free Linear, shapes and a padded batch."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.explain import embedding as emb
from rnnviz.explain.formulas import step_formula
from rnnviz.explain.notes.facts import embedding_as_linear
from rnnviz.explain.notes.silent import lookup_cost
from rnnviz.figures.embedding import batch_figure, matrix_figure
from rnnviz.formatting import num, vector
from rnnviz.text.tokenize import PAD, prepare

from ... import cache, session
from ...i18n import prose
from ...page import folded
from ...widgets import guard, md_escape, shared_step, show_figure
from ..vectors import beside
from .common import (
    PAGE,
    RADIUS,
    header,
    matrix_view,
    matrix_words,
    named_frame,
    rows_note,
    say,
    step_labels,
    table,
    tr,
    view_rows,
)

TOC = ("notes", "lookup", "shapes", "gradient", "update", "similar", "order", "hashing", "exercise")


def intro() -> None:
    st.title(tr("title"))
    say("intro")


def guide(cur: session.Current, step: int) -> None:
    """What to look at first, with this sentence's numbers, and the page's table of contents."""
    i = cur.input_ids[step]
    say("look-here", T=len(cur.input_ids), V=len(cur.vocab), d=cur.model.cfg.embed_dim, t=step + 1,
        token=md_escape(cur.tokens[step]), i=i, label=md_escape(cur.label))
    keys = [k for k in TOC if k != "notes" or cur.key == "notes"]
    st.markdown(" · ".join(f"[{tr('toc_' + k)}](#emb-{k})" for k in keys))


def step_choice(cur: session.Current) -> int:
    """The step t whose token the page follows (0-based), shared with the other pages."""
    return shared_step(tr("step"), len(cur.input_ids), cur.vocab.has_specials, key="emb_step") - 1


def notes_numbers(cur: session.Current) -> None:
    """The notes' worked numbers, computed live, whenever the notes model is chosen."""
    if cur.key != "notes":
        return
    header("notes")
    p, tp = emb.PRESETS["notes"], emb.PRESETS["travel"]
    i = p.ids[p.focus]
    G = emb.typed_gradient(len(p.ids), len(p.g), p.focus, p.g)  # (T, d)
    new = emb.sgd_step(p.E, emb.embedding_gradient(p.ids, G, len(p.itos)), p.lr)  # (V, d)
    second = [p.itos.index(w) for w in p.second]
    B, T, d = emb.batch_embeddings(p.E, [p.ids, second], 0)["shape"]
    k = tp.ids[tp.focus]
    text = prose(PAGE, "notes-example", token=p.itos[i], i=i, row=i + 1, lr=num(p.lr),
                 sentence=" ".join(p.tokens), second=" ".join(p.second), B=B, T=T, d=d, travel=tp.itos[k],
                 k=k, slip=num(-float(new[i][0])), old2=num(float(p.E[i][1])), g2=num(float(p.g[1])),
                 new2=num(float(new[i][1])))
    beside(text, [(f"E[{i}]", emb.lookup(p.E, [i])[0]), ("gₑ", p.g),
                  (f"E[{i}] − {num(p.lr)} · gₑ", new[i])])
    table([{tr("col_token"): w, "id": n, tr("col_row1"): n + 1, "E[id]": vector(r)}
           for n, (w, r) in enumerate(zip(tp.itos, tp.E))])


def lookup(cur: session.Current, E, step: int) -> None:
    """E[id] for step t (the start of the lookup section; vocabulary_and_E and one_hot follow)."""
    header("lookup")
    i, tok = list(cur.input_ids)[step], md_escape(cur.tokens[step])
    beside(prose(PAGE, "lookup", t=step + 1, token=tok, i=i, row=i + 1), [(f"E[{i}]", E[i])])


def vocabulary_and_E(cur: session.Current, E) -> None:
    """The vocabulary table beside E with the sentence's rows boxed: the same at every step."""
    ids, V, d = list(cur.input_ids), E.shape[0], E.shape[1]
    shown = view_rows(cur, V)  # every row of a small vocabulary; the whole table is a CSV
    left, right = st.columns([2, 3])
    with left:
        vocab = emb.vocab_rows(cur.vocab.itos, ids)
        table([vocab[k] for k in shown], height=320 if V > 8 else "auto")
    rows_note(shown, V, named_frame(vocab) if len(shown) < V else None, tr("file_vocab"), "emb_vocab")
    with right:
        matrix_view(cur, E, view_rows(cur, V, width=d), tr("fig_E", V=V, d=d), tr("file_E"), "emb_E",
                    colorbar=tr("fig_E_value"), hover_name="E", y_title=tr("fig_id_token"))


def one_hot(cur: session.Current, E, step: int) -> None:
    """one-hot x E at step t, row by row, and what a lookup costs against the product."""
    ids, V, d = list(cur.input_ids), E.shape[0], E.shape[1]
    i, tok = ids[step], md_escape(cur.tokens[step])
    say("onehot", token=tok, V=V, i=i, zeros=(V - 1) * d)
    rows = emb.one_hot_rows(E, i, cur.vocab.itos, RADIUS)
    table(rows, width="stretch")
    if len(rows) < V:
        st.caption(tr("window", lo=rows[0]["k"], hi=rows[-1]["k"], V=V, why="0 · E[k] = 0"))
    c = lookup_cost(E, ids)
    say("notes-lookup", token=tok, per_token=c["per_token"], per_sentence=c["per_sentence"], T=c["T"],
        onehot=c["onehot_per_token"])


def as_linear(cur: session.Current, E) -> None:
    """nn.Embedding equals nn.Linear(V, d, bias=False) on one-hot rows (weight E^T), with numbers."""
    folded(tr("linear_title"), "emb_linear", linear_rows, cur, E)


def linear_rows(cur: session.Current, E) -> None:
    ids = list(cur.input_ids)
    r = embedding_as_linear(E, ids)
    say("as-linear", V=E.shape[0], d=E.shape[1], params=r["linear_params"], diff=num(r["max_diff"]),
        T=len(ids))
    table([{"t": s + 1, tr("col_token"): tok, "E[id]": vector(r["lookup"][s], shown=5),
            "x_t Wᵀ": vector(r["linear"][s], shown=5)} for s, tok in enumerate(cur.tokens)])


def shapes(cur: session.Current, E) -> None:
    header("shapes")
    V, d, T = E.shape[0], E.shape[1], len(cur.input_ids)
    say("shapes", V=V, d=d, T=T, same=tr("same_size", T=T) if T == d else "")
    show_figure(cache.figure(matrix_figure, emb.lookup(E, cur.input_ids).numpy(), step_labels(cur.tokens),
                              tr("fig_sentence", T=T, d=d), colorbar=tr("fig_x_value"), hover_name="x",
                              y_title=tr("fig_step_token"), **matrix_words()), tr("file_sentence"),
                key="emb_Td")


def encode(cur: session.Current, text: str) -> tuple[list[int], list[int]]:
    """Another sentence in the current vocabulary: (input ids, next-token targets), as the model
    would read it (with <bos> when the vocabulary has one)."""
    from rnnviz.text.corpora import lm_pair
    prep = prepare(text, cur.vocab, cur.level)
    for notice in prep.notices:
        st.caption(md_escape(notice))
    return lm_pair(list(prep.ids), cur.vocab)


def batch(cur: session.Current, E) -> None:
    """Two sentences padded into B x T x d, with the mask."""
    notes = " ".join(emb.PRESETS["notes"].second) if cur.key == "notes" else ""
    text = st.text_input(tr("batch_input"), key="emb_batch2", bind="query-params",
                         placeholder=notes or tr("batch_placeholder"),
                         help=tr("batch_help_notes" if notes else "batch_help", max_tokens=limits.MAX_TOKENS))
    text = text.strip() or notes
    if not text:
        return
    with guard():
        ids = list(cur.input_ids)
        second = encode(cur, text)[0]
        pad_id = cur.vocab.stoi.get(PAD, 0)
        r = emb.batch_embeddings(E, [ids, second], pad_id)
        B, T, d = r["shape"]
        say("batch", B=B, T=T, d=d, n_pad=emb.padded_positions(r["mask"]),
            pad_row=md_escape(pad_note(cur, pad_id)),
            step_formula=step_formula(cur.model.cfg))  # LaTeX of this cell (any cell kind)
        rows = [cur.vocab.decode(s) + [""] * (T - len(s)) for s in (ids, second)]
        st.dataframe(pd.DataFrame(r["mask"].numpy(), index=[tr("sentence_n", n=1), tr("sentence_n", n=2)],
                                  columns=[f"t={s + 1}" for s in range(T)]))
        words = {"sentence": tr("fig_batch_sentence"), "pad": "pad", "dim": tr("fig_dim"),
                 "value": tr("fig_x_value"), "step": tr("fig_step"), "x": tr("fig_dim_axis")}
        show_figure(cache.figure(batch_figure, r["X"].numpy(), r["mask"].numpy(), rows,
                                 tr("fig_batch", B=B, T=T, d=d), text=words),
                    tr("file_batch"), key="emb_batch")


def pad_note(cur: session.Current, pad_id: int) -> str:
    tok = cur.vocab.itos[pad_id]
    return tr("pad_is_pad", i=pad_id) if tok == PAD else tr("pad_is_word", i=pad_id, token=tok)
