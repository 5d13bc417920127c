"""Page 1 sections about words: similar words (cosine, PCA, before/after training), why a sum
loses word order, one-hot vs word hashing vs dense, and the hand exercise."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz.explain import embedding as emb
from rnnviz.explain import hidden as hd
from rnnviz.explain.notes.facts import why_marks
from rnnviz.explain.notes.silent import hashing_nonzeros
from rnnviz.figures.common import heatmap
from rnnviz.figures.embedding import matrix_figure, pca_figure
from rnnviz.formatting import num, vector
from rnnviz.text.bpe import MARK
from rnnviz.text.tokenize import SPECIALS, prepare

from ... import cache, session
from ...page import folded
from ...widgets import code_radio, exercise, exercise_number, guard, md_escape, show_figure
from ..vectors import beside
from .common import header, matrix_words, rows_note, say, step_labels, table, tr

BIND = {"bind": "query-params"}


def near_text(cur: session.Current, which: str, E, k, itos) -> str:
    """Row k's 5 nearest rows of E ("E", "W_o" or "E0:<seed>" of cur.model), cached per model."""
    near = cache.nearest(cur.model, which, E, k, 5)
    return ", ".join(f"“{md_escape(itos[j])}” ({num(c, 2)})" for j, c in near)


def pca_words() -> dict:
    return {"other": tr("fig_pca_other"), "in": tr("fig_pca_in"), "axis": tr("fig_pca_axis")}


def drift_of(cur: session.Current, E):
    """(drift, seed, cfg key): how far training moved E from its recorded start (None if unknown)."""
    cfg_key = tuple(sorted(cur.model.cfg.to_dict().items()))
    seed = emb.training_seed(cur.meta)
    drift = cache.neighbour_drift(cur.model, cfg_key, seed, E, cur.vocab.itos) if seed is not None else None
    return drift, seed, cfg_key


def _kept(drift: dict, E, E0, k: int) -> int:
    """How many of word k's nearest neighbours training kept: neighbour_drift's count, or counted
    for a word it leaves out (a special token)."""
    return drift["kept"][k] if k in drift["kept"] else emb.kept_neighbours(E, E0, k, drift["k"])


def similar(cur: session.Current, E, step: int) -> None:
    """Nearest words by cosine; PCA of E (and of the random start when it is known)."""
    header("similar")
    itos = cur.vocab.itos
    drift, seed, cfg_key = drift_of(cur, E)
    step_id = cur.input_ids[step]
    pick = emb.sentence_pick(drift, cur.input_ids, step_id) if drift else step_id  # the sentence's own
    preset = itos[pick]
    shown_for, this = st.session_state.get("_emb_word_for"), (cur.key, cur.text)
    if st.session_state.get("emb_word") not in itos or (shown_for is not None and shown_for != this):
        st.session_state["emb_word"] = preset  # a new sentence starts at its own word (a link's kept)
    st.session_state["_emb_word_for"] = this
    options = emb.picker_options(itos, [st.session_state["emb_word"], *cur.vocab.decode(cur.input_ids)])
    word = st.selectbox(tr("word"), options, key="emb_word", **BIND)
    if len(options) < len(itos):
        st.caption(tr("words_offered", n=len(options), V=len(itos)))
    k = cur.vocab.stoi[word]
    say("similarity", word=md_escape(word), near=near_text(cur, "E", E, k, itos),
        which=tr("which_trained" if drift else "which_this"))
    figs = [("E", E, tr("fig_pca_this"))]
    if drift is None:
        say("similarity-no-start")
    else:
        E0 = cache.initial_E(cfg_key, seed)
        say("similarity-drift", word=md_escape(word), near_init=near_text(cur, f"E0:{seed}", E0, k, itos),
            seed=seed,
            mean_cos=num(drift["mean_cos"], 2), how=tr(f"drift_{drift_level(drift['mean_cos'])}"),
            K=drift["k"], mean_kept=num(sum(drift["kept"].values()) / len(drift["kept"]), 2),
            kept=emb.kept_neighbours(E, E0, k, drift["k"]), own_cos=num(drift["row_cos"][k], 2),
            best=md_escape(itos[drift["best"]]), best_kept=drift["kept"][drift["best"]],
            pick=md_escape(itos[pick]), pick_kept=_kept(drift, E, E0, pick))
        figs = [("E", E, tr("fig_pca_trained")), (f"E0:{seed}", E0, tr("fig_pca_init", seed=seed))]
    shown = emb.shown_rows(len(itos), cur.input_ids, k)  # every word, up to MAX_WHOLE_VOCAB
    for n, (col, (which, M, title)) in enumerate(zip(st.columns(len(figs)), figs)):
        with col:
            pca_points(cur, which, M, shown, title, f"emb_pca_{n}", "file_pca")
    rows_note(shown, len(itos))
    output_rows(cur, k, word, shown)
    labels = step_labels(cur.tokens)
    C = cache.sentence_cosines(cur.model, E, cur.input_ids)  # (T, T), from E[ids]
    show_figure(cache.figure(heatmap, C.numpy(), labels, labels, tr("fig_cos"), tr("fig_step_token"),
                             tr("fig_step_token"), "cos", zmid=0.0, hover_name="cos"),
                tr("file_cos"), key="emb_cos")


def drift_level(mean_cos: float) -> str:
    return "little" if mean_cos >= 0.8 else "part" if mean_cos >= 0.5 else "lot"


def pca_points(cur: session.Current, which: str, M, shown, title: str, key: str, file: str) -> None:
    """M's rows on their 2 main directions (PCA of every row, cached per model), the `shown` rows drawn."""
    coords, share = cache.pca_2d(cur.model, which, M)
    itos = cur.vocab.itos
    show_figure(cache.figure(pca_figure, coords[shown].numpy(), [itos[j] for j in shown],
                           emb.positions(shown, cur.input_ids), share.numpy(), title, text=pca_words()),
                tr(file), key=key)


def output_rows(cur: session.Current, k: int, word: str, shown) -> None:
    """The output layer's own row per word (W_o), when the model predicts its vocabulary."""
    if cur.model.cfg.K != len(cur.vocab):
        return
    W_o = emb.f64(cur.model.W_o)  # (K, H)
    say("similarity-compare", word=md_escape(word), near_out=near_text(cur, "W_o", W_o, k, cur.vocab.itos))
    folded(tr("out_rows"), "emb_out_rows", pca_points, cur, "W_o", W_o, shown, tr("fig_pca_out"),
           "emb_pca_out", "file_pca_out")


def order_suggestions(cur: session.Current) -> tuple[str, str]:
    """Two sentences with the same words in another order, every word known to the model. A
    preset pair first (read with the model's own tokenizer, so subword models get "dog bites
    man" too, not their first vocabulary entries "▁", "!", '"'); else three whole words."""
    for pair in hd.order_presets(cur.vocab):
        return pair
    words = [w.removeprefix(MARK) for w in cur.vocab.itos if w not in SPECIALS]
    words = [w for w in words if w.isalpha()][:3] or words[:3]
    return " ".join(words), " ".join(reversed(words))


def order(cur: session.Current, E) -> None:
    """Two sentences with the same words: the same sum, different T x d matrices."""
    header("order")
    sug_a, sug_b = order_suggestions(cur)
    c1, c2 = st.columns(2)
    a = c1.text_input(tr("order_a"), key="emb_order_a", **BIND, placeholder=sug_a).strip() or sug_a
    b = c2.text_input(tr("order_b"), key="emb_order_b", **BIND, placeholder=sug_b).strip() or sug_b
    with guard():
        ids_a = list(prepare(a, cur.vocab, cur.level).ids)
        ids_b = list(prepare(b, cur.vocab, cur.level).ids)
        r = emb.order_comparison(E, ids_a, ids_b)
        toks_a, toks_b = cur.vocab.decode(ids_a), cur.vocab.decode(ids_b)
        say("order", a=md_escape(" ".join(toks_a)), b=md_escape(" ".join(toks_b)),
            same_sum=tr("same_sum" if r["same_sum"] else "different_sums"),
            same_matrix=tr("same_matrix" if r["same_matrix"] else "different_matrices"),
            flat_a=r["flat_a"], flat_b=r["flat_b"], mlp_3=r["mlp_3"], mlp_5=r["mlp_5"])
        table([{tr("col_sentence"): name, tr("col_tokens"): " ".join(toks), "T": len(toks),
                tr("col_vec_sum"): vector(s, shown=6)}
               for name, toks, s in (("A", toks_a, r["sum_a"]), ("B", toks_b, r["sum_b"]))])
        for col, ids, X, name in zip(st.columns(2), (ids_a, ids_b), (r["X_a"], r["X_b"]), "AB"):
            with col:
                show_figure(cache.figure(matrix_figure, X.numpy(), step_labels(cur.vocab.decode(ids)),
                                          tr("fig_order", name=name, T=len(ids), d=E.shape[1]),
                                          colorbar=tr("fig_x_value"), hover_name="x",
                                          y_title=tr("fig_step_token"), **matrix_words()),
                            tr("file_order", name=name), key=f"emb_order_{name}")


def representations(cur: session.Current, E) -> None:
    """One-hot vs word hashing (letter trigrams) vs dense rows of E."""
    header("hashing")
    itos, V = cur.vocab.itos, E.shape[0]
    say("onehot-repr", V=V)
    table(emb.distance_rows(cur.input_ids, E, itos))
    c1, c2 = st.columns([1, 2])
    top = limits.MAX_HASH_BUCKETS
    buckets = int(c1.number_input(tr("buckets", max=f"{top:,}"), 1, top, 1000, key="emb_buckets", **BIND))
    words = c2.text_input(tr("hash_words", max=limits.MAX_HASH_WORDS), "good apple Taipei",
                          key="emb_hash_words", **BIND)
    say("hashing", buckets=buckets)
    with guard():
        rows = emb.hash_table(emb.hash_rows(words.split(), buckets, known=itos))
        for r in rows:
            r["in the model's vocabulary"] = tr("in_vocab_yes" if r["in the model's vocabulary"] == "yes"
                                                 else "in_vocab_no")
        table(rows)
        z = hashing_nonzeros(words.split(), buckets)
        say("notes-hashing", mean=num(z["mean"], 3), max=z["max"], buckets=buckets, share=f"{z['share']:.2%}",
            zeros=num(z["zeros"], 6))
        marks(buckets)
        st.markdown(tr("three_ways"))
        toks = list(cur.prepared.tokens)
        cells = {k: tr(f"repr_{k}") for k in emb.REPRESENTATION_TEXT}
        rows = emb.representation_rows(toks, emb.word_ids(toks, cur.vocab), E, buckets, itos, cells, shown=6)
        labels = {f"word hashing (length {buckets:,})": tr("col_hashed", buckets=f"{buckets:,}"),
                  f"dense embedding (length {E.shape[1]})": tr("col_dense", d=E.shape[1])}
        table(rows, column_config=labels)
        folded(tr("collisions_title"), "emb_collisions", collisions, itos, buckets, E.shape[1])


def marks(buckets: int) -> None:
    """Why the word is wrapped in # before cutting trigrams (note 004), with good / goods."""
    folded(tr("marks_title"), "emb_marks", marks_text, buckets)


def marks_text(buckets: int) -> None:
    r = why_marks("good", "goods", buckets)
    w, wo = r["with"], r["without"]
    say("why-marks", with_a=" ".join(w["a"]), with_b=" ".join(w["b"]), wo_a=" ".join(wo["a"]),
        wo_b=" ".join(wo["b"]), only_a=" ".join(w["only_a"]) or "–", j_with=num(w["jaccard"], 3),
        j_without=num(wo["jaccard"], 3), short=" ".join(emb.hash_rows(["go"], buckets)[0]["trigrams"]))


def collisions(itos, buckets: int, d: int) -> None:
    col = emb.hash_collisions(itos, buckets)
    say("collisions", n_words=col["n_words"], n_trigrams=col["n_trigrams"], buckets=buckets,
        n_bucket=len(col["buckets"]), n_word=len(col["words"]))
    c1, c2 = st.columns(2)
    names = [tr("col_bucket"), tr("col_trigrams")]
    n = None if len(itos) <= limits.MAX_WHOLE_VOCAB else limits.MAX_SHOWN_ROWS  # a big vocabulary: the first
    c1.dataframe(pd.DataFrame([[b, " ".join(ts)] for b, ts in col["buckets"][:n]], columns=names),
                 hide_index=True, height=250)
    c2.dataframe(pd.DataFrame([{tr("col_same_vector"): ", ".join(ws)} for ws in col["words"][:n]],
                              columns=[tr("col_same_vector")]), hide_index=True, height=250)
    if n is not None and max(len(col["buckets"]), len(col["words"])) > n:
        st.caption(tr("first_rows", n=n))
    say("memory", d=d, buckets=buckets)
    mem = emb.memory_table(emb.NOTES_V, d, buckets)
    keys = ["representation", "numbers per word", "first layer to d dims (numbers)", "first layer (MB)"]
    names = [tr("mem_repr"), tr("mem_numbers"), tr("mem_first"), tr("mem_mb")]
    kinds = [tr("mem_onehot"), tr("mem_hashing", buckets=f"{buckets:,}"), tr("mem_dense", d=d)]
    df = pd.DataFrame([[kind] + [m[k] for k in keys[1:]] for kind, m in zip(kinds, mem)], columns=names)
    st.dataframe(df, hide_index=True, column_config={n: st.column_config.NumberColumn(format="localized")
                                                     for n in names[1:3]})
    say("memory-sizes")
    rows = [[tr(k, d=size, buckets=f"{buckets:,}")] + [m[c] for c in keys[1:]]
            for size in emb.REAL_SIZES for k, m in zip(("mem_onehot_d", "mem_dense"),
                                                        emb.memory_table(emb.NOTES_V, size, buckets)[::2])]
    st.dataframe(pd.DataFrame(rows, columns=names), hide_index=True,
                 column_config={n: st.column_config.NumberColumn(format="localized") for n in names[1:3]})


def exercise_section(cur: session.Current) -> None:
    """Look up a row, or update it, by hand (the notes' own numbers on the notes model)."""
    header("exercise")
    say("exercise")
    if cur.key == "notes":
        say("exercise-notes")
        ex = emb.notes_exercise()
    else:
        ex = emb.make_exercise(exercise_number("emb_ex"), cur.lang)
    table([{"id": k, tr("col_token"): w, "E[id]": vector(ex.E[k])} for k, w in enumerate(ex.itos)])
    kind = code_radio(tr("ex_kind"), ["lookup", "update"], "emb_ex_kind", lambda k: tr(f"ex_kind_{k}"))
    tok = md_escape(ex.itos[ex.token_id])
    if kind == "lookup":
        st.markdown(tr("ex_ask_lookup", token=tok, i=ex.token_id))
    else:
        beside(tr("ex_ask_update", token=tok, lr=num(ex.lr)), [("gₑ", ex.g)])
    exercise("emb_ex", ask=lambda: st.text_input(tr("ex_answer"), key="emb_ex_answer",
                                                 placeholder="0.1, -0.2, 0.3"),
             check=lambda answer: emb.check_answer(ex, kind, answer),
             solution=lambda: vector(ex.lookup_answer() if kind == "lookup" else ex.update_answer()))
