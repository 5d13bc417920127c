"""1 · Embedding lookup: E[id] and one-hot x E, shapes and padding, dL/dE = x^T g_e and the
row update (GD, weight decay, Adam, tied weights), similar words, word order, word hashing,
and a hand exercise. Every number comes from rnnviz.embedding; this file only draws."""
from dataclasses import dataclass

import pandas as pd
import streamlit as st
import torch

from rnnviz import embedding as emb
from rnnviz.data import lm_pair
from rnnviz.errors import InputError
from rnnviz.figures.common import heatmap
from rnnviz.figures.embedding import batch_figure, matrix_figure, pca_figure, row_change_figure
from rnnviz.prose import section
from rnnviz.text import PAD, Vocab, prepare
from ui import cache
from ui import compat as ui

PAGE = "embedding"
CHOICES = {"current": "Current model and sentence", **{k: p.label for k, p in emb.PRESETS.items()}}
RULES = {"gd": "Plain gradient descent", "wd": "SGD + weight decay", "adam": "Adam (its 2nd step)",
         "tied": "Tied input/output weights"}


RADIUS = 3  # rows shown either side of the looked-up row in the term-by-term tables


def choose(label: str, options: dict, key: str, **kwargs) -> str:
    """A radio bound to the URL. The URL holds the shown text, so it is short and readable;
    the page works with the internal key."""
    shown = st.radio(label, list(options.values()), key=key, bind="query-params", horizontal=True,
                     **kwargs)
    return {v: k for k, v in options.items()}[shown]


def say(key, **numbers):
    st.markdown(section(PAGE, key, **numbers))


def window_note(rows, V: int, why: str):
    if len(rows) < V:
        st.caption(f"Rows {rows[0]['k']} to {rows[-1]['k']} of {V} shown; every other row is zero ({why}).")


@dataclass(frozen=True)
class View:
    """What the page works on: the current model and sentence, or one of the notes' presets."""
    preset: str
    label: str
    vocab: Vocab
    E: torch.Tensor       # (V, d) float64
    ids: list
    tokens: list
    cur: ui.Current

    @property
    def itos(self):
        return self.vocab.itos

    @property
    def labels(self):
        return emb.vocab_labels(self.itos)

    @property
    def V(self):
        return self.E.shape[0]

    @property
    def d(self):
        return self.E.shape[1]

    @property
    def T(self):
        return len(self.ids)

    def encode(self, text: str) -> tuple[list[int], list[int]]:
        """A learner's sentence in this view's vocabulary: (input ids, next-token targets)."""
        prep = prepare(text, self.vocab, self.cur.level if self.preset == "current" else "word")
        for notice in prep.notices:
            st.caption(ui.md_escape(notice))
        if self.preset == "current":
            return lm_pair(list(prep.ids), self.vocab)
        return list(prep.ids), []


def _on_preset():
    chosen = {v: k for k, v in CHOICES.items()}[st.session_state["emb_preset"]]
    p = emb.PRESETS.get(chosen)
    if p is not None:
        st.session_state.update(emb_step=p.focus + 1, emb_ge=", ".join(f"{v:g}" for v in p.g),
                                emb_lr=p.lr, emb_rule=RULES["gd"])


def pick_view(cur) -> View:
    key = choose("Example", CHOICES, "emb_preset", on_change=_on_preset, captions=[
        "the sidebar's model and sentence", "cats, g_e = [2, -1, 3], lr 0.1", "Taipei"])
    if key == "current":
        say("source-current", label=ui.md_escape(cur.label), T=len(cur.input_ids),
            V=len(cur.vocab), d=cur.model.cfg.embed_dim)
        return View(key, cur.label, cur.vocab, emb.f64(cur.model.E), list(cur.input_ids),
                    cur.tokens, cur)
    p = emb.PRESETS[key]
    say("source-preset", label=p.label, V=len(p.itos), d=len(p.E[0]))
    return View(key, p.label, Vocab(p.itos), emb.f64(p.E), p.ids, list(p.tokens), cur)


def pick_step(view: View) -> int:
    if view.T == 1:
        return 0
    if not 1 <= st.session_state.get("emb_step", 1) <= view.T:
        st.session_state["emb_step"] = 1
    if view.preset != "current":
        first_word = emb.PRESETS[view.preset].focus + 1  # the word the notes follow
    else:
        first_word = 2 if view.vocab.has_specials and view.T > 1 else 1  # skip <bos>
    return st.slider("Step t (which token to follow)", 1, view.T, first_word, key="emb_step",
                     bind="query-params") - 1


# ---- tab 1: lookup and shapes -----------------------------------------------------------

def lookup_tab(view: View, t: int):
    i = view.ids[t]
    row = emb.vector_text(view.E[i])
    say("lookup", t=t + 1, token=ui.md_escape(view.tokens[t]), i=i, row=i + 1, row_vec=row)
    left, right = st.columns([2, 3])
    left.dataframe(pd.DataFrame(emb.vocab_rows(view.itos, view.ids)), hide_index=True,
                   height=320 if view.V > 8 else "auto")
    right.plotly_chart(matrix_figure(view.E.numpy(), view.labels, f"E ({view.V} x {view.d}); boxed: "
                                     "rows this sentence reads", boxed=view.ids, colorbar="E value",
                                     hover_name="E"), width="stretch")
    say("onehot", token=ui.md_escape(view.tokens[t]), V=view.V, i=i, row_vec=row,
        zeros=(view.V - 1) * view.d)
    rows = emb.one_hot_rows(view.E, i, view.itos, RADIUS)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", column_config={
        "k": st.column_config.NumberColumn(width="small"), "x_k": st.column_config.NumberColumn(width="small"),
        "E[k]": st.column_config.TextColumn(width="large"),
        "x_k · E[k]": st.column_config.TextColumn(width="large")})
    window_note(rows, view.V, "0 · E[k] = 0")
    say("shapes", V=view.V, d=view.d, T=view.T,
        same=f"; here both happen to be {view.T}" if view.T == view.d else "")
    st.plotly_chart(matrix_figure(emb.lookup(view.E, view.ids).numpy(), [f"t={s + 1} {tok}" for s, tok
                                  in enumerate(view.tokens)], f"The sentence as T x d = {view.T} x {view.d}",
                                  colorbar="x value", hover_name="x", y_title="step, token"),
                    width="stretch")
    batch_part(view)


def batch_part(view: View):
    hint = (" ".join(emb.PRESETS[view.preset].second) if view.preset != "current" else "")
    text = st.text_input("Add a second sentence to make a batch", key="emb_batch2",
                         bind="query-params", placeholder=hint or "e.g. man bites dog",
                         help=f"Up to {ui.limits.MAX_TOKENS} tokens. Empty = "
                              + ("the notes' second sentence." if hint else "no batch."))
    text = text.strip() or hint
    if not text:
        return
    with ui.guard():
        second = view.encode(text)[0]
        pad_id = view.vocab.stoi.get(PAD, 0)
        r = emb.batch_embeddings(view.E, [view.ids, second], pad_id)
        B, T, d = r["shape"]
        say("batch", B=B, T=T, d=d, n_pad=int((~r["mask"]).sum()),
            pad_row=ui.md_escape(emb.pad_note(view.itos, pad_id)))
        rows = [view.vocab.decode(s) + [""] * (T - len(s)) for s in (view.ids, second)]
        st.dataframe(pd.DataFrame(r["mask"].numpy(), index=["sentence 1", "sentence 2"],
                                  columns=[f"t={s + 1}" for s in range(T)]))
        st.plotly_chart(batch_figure(r["X"].numpy(), r["mask"].numpy(), rows,
                                     f"A padded batch: B x T x d = {B} x {T} x {d}"), width="stretch")


# ---- tab 2: gradient and update ------------------------------------------------------------

def gradient_rows(view: View, t: int):
    """(T, d) g_t per step, whether it came from the real backward pass, and the typed g_e."""
    backward = False
    if view.preset == "current":
        backward = choose("g_e comes", {"backward": "from the backward pass of this sentence",
                                        "typed": "typed in by you"}, "emb_gsrc") == "backward"
    g_text = st.text_input(f"g_e (d = {view.d} numbers)", "2, -1, 3", key="emb_ge",
                           bind="query-params", disabled=backward)
    if backward:
        tr = view.cur.trace
        say("gradient-backward", loss=emb.num(tr.loss))
        return emb.f64(tr.grad_x), True, None
    g = emb.parse_vector(g_text, view.d, "g_e")
    say("gradient-typed", g=emb.vector_text(g), t=t + 1, token=ui.md_escape(view.tokens[t]))
    return emb.typed_gradient(view.T, view.d, t, g), False, g


def gradient_tab(view: View, t: int):
    lr = st.slider("Learning rate lr", 0.0, 1.0, 0.1, 0.01, key="emb_lr", bind="query-params")
    try:
        G, backward, g_typed = gradient_rows(view, t)
    except InputError as err:
        st.error(str(err))
        return
    i = view.ids[t]
    say("outer", i=i, token=ui.md_escape(view.tokens[t]), g_t=emb.vector_text(G[t]), V=view.V, d=view.d)
    rows = emb.outer_rows(i, G[t], view.itos, RADIUS)
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    window_note(rows, view.V, "x_k = 0, so x_k g_j = 0")
    grad = emb.embedding_gradient(view.ids, G, view.V)
    contribs = emb.row_contributions(view.ids, G, view.itos)
    say("sum", n_rows=len(contribs), n_zero=view.V - len(contribs))
    st.dataframe(pd.DataFrame(emb.contribution_rows(contribs)), hide_index=True)
    repeated = [ui.md_escape(f"“{r['token']}”") for r in contribs if len(r["steps"]) > 1]
    if repeated:
        say("repeated", repeated=", ".join(repeated))
    else:
        say("not-repeated")
    st.plotly_chart(matrix_figure(grad.numpy(), view.labels, f"dL/dE ({view.V} x {view.d})",
                                  boxed=view.ids, colorbar="dL/dE", hover_name="dL/dE"), width="stretch")
    update_part(view, t, grad, lr, g_typed)


def update_part(view: View, t: int, grad, lr: float, g_typed):
    st.subheader("One update step")
    rule = choose("Update rule", RULES, "emb_rule")
    try:
        step = apply_rule(view, rule, t, grad, lr, g_typed)
    except InputError as err:
        st.error(str(err))
        return
    if step is None:
        say("update-tied-off")
        return
    before, after, used_grad, (key, numbers) = step
    summary = emb.change_summary(before, after, view.ids)
    n_changed = summary["n_changed"]
    say(key, lr=emb.num(lr), V=view.V, n_changed=n_changed, n_other=summary["n_other"], **numbers)
    st.plotly_chart(row_change_figure(view.labels, summary["change"].numpy(), view.ids,
                                      f"Which rows moved: {n_changed} of {view.V} ({RULES[rule]})"),
                    width="stretch")
    st.dataframe(pd.DataFrame(emb.update_rows(before, after, used_grad, view.itos)), hide_index=True,
                 height=min(400, 40 + 35 * max(1, n_changed)))


def apply_rule(view: View, rule: str, t: int, grad, lr: float, g_typed):
    """(E before, E after, the gradient used, (prose key, numbers)) for the chosen rule."""
    if rule == "gd":
        new = emb.sgd_step(view.E, grad, lr)
        example = ""
        moved = emb.change_summary(view.E, new, view.ids)["moved"]
        if moved:
            k = view.ids[t] if view.ids[t] in moved else moved[0]  # step t's row first
            example = (f"For “{ui.md_escape(view.itos[k])}”: {emb.vector_text(view.E[k])} - {emb.num(lr)} · "
                       f"{emb.vector_text(grad[k])} = {emb.vector_text(new[k])}.")
        return view.E, new, grad, ("update-gd", {"example": example})
    if rule == "wd":
        wd = st.slider("Weight decay wd", 0.0, 0.5, 0.01, 0.01, key="emb_wd", bind="query-params")
        return view.E, emb.sgd_step(view.E, grad, lr, wd), grad, ("update-wd", {"wd": emb.num(wd)})
    if rule == "adam":
        return adam_rule(view, grad, lr, g_typed)
    if g_typed is not None:
        return None
    cur = view.cur
    r = cache.tied_gradients(cur.model, cur.input_ids, cur.target_ids)
    st.caption(f"Input side (x^T g_e) reaches {int((r['input'].norm(dim=1) > 0).sum())} rows; output "
               f"side reaches {int((r['output'].norm(dim=1) > 0).sum())} rows.")
    return (view.E, emb.sgd_step(view.E, r["total"], lr), r["total"],
            ("update-tied", {"fit": emb.num(r["fit_error"], 3), "loss": emb.num(r["loss"])}))


def adam_rule(view: View, grad, lr: float, g_typed):
    """Adam's step 1 on an earlier sentence, step 2 on this one; returns step 2's change."""
    suggestion = {"notes": "you like dogs", "travel": "Leave November"}.get(view.preset, "man bites dog")
    text = st.text_input("Earlier sentence (Adam's step 1)", key="emb_prev", bind="query-params",
                         placeholder=suggestion).strip() or suggestion
    inp, tgt = view.encode(text)
    if g_typed is None:
        G_prev = emb.f64(ui.cached_trace(view.cur.model, inp, tgt).grad_x)
    else:
        st.caption("With a typed g_e, the earlier sentence gets your g_e at each of its steps.")
        G_prev = emb.same_gradient(len(inp), g_typed)
    states = emb.adam_steps(view.E, [emb.embedding_gradient(inp, G_prev, view.V), grad], lr)
    with st.expander("Adam's state after step 2 (m and v of the rows that moved)"):
        st.dataframe(pd.DataFrame(emb.adam_rows(states[0].E, states[1], grad, view.itos)), hide_index=True)
    return states[0].E, states[1].E, grad, ("update-adam", {"prev": ui.md_escape(text)})


# ---- tab 3: similar words ------------------------------------------------------------------

def near_text(E, k, itos) -> str:
    return ", ".join(f"“{ui.md_escape(itos[j])}” ({c:.2f})" for j, c in emb.nearest(E, k, 5))


def similarity_tab(view: View, t: int):
    drift, seed = None, None
    if view.preset == "current":
        cfg_key = tuple(sorted(view.cur.model.cfg.to_dict().items()))
        seed = emb.training_seed(view.cur.meta)
        if seed is not None:
            drift = cache.neighbour_drift(view.cur.model, cfg_key, seed, view.E, view.itos)
    if st.session_state.get("emb_word") not in view.itos:
        # the current model: the word whose neighbours training changed most; a preset: step t's word
        st.session_state["emb_word"] = view.itos[drift["best"] if drift else view.ids[t]]
    word = st.selectbox("Word", list(view.itos), key="emb_word", bind="query-params")
    k = view.itos.index(word)
    if view.preset != "current":
        say("similarity-preset", word=ui.md_escape(word), near=near_text(view.E, k, view.itos))
        figs = [(view.E, f"PCA of E ({view.V} words)")]
    else:
        model = view.cur.model
        say("similarity", word=ui.md_escape(word), near=near_text(view.E, k, view.itos),
            which="the trained E" if drift else "this model's E")
        figs = [(view.E, "This model's E, projected on its 2 main directions (PCA)")]
        if drift is None:
            say("similarity-no-start")
        else:
            E0 = cache.initial_E(cfg_key, seed)
            best = drift["best"]
            say("similarity-drift", word=ui.md_escape(word), near_init=near_text(E0, k, view.itos),
                seed=seed, mean_cos=emb.num(drift["mean_cos"], 2), how=emb.drift_words(drift["mean_cos"]),
                K=drift["k"], mean_kept=emb.num(sum(drift["kept"].values()) / len(drift["kept"]), 2),
                kept=emb.kept_neighbours(view.E, E0, k, drift["k"]),
                own_cos=emb.num(drift["row_cos"][k], 2),
                best=ui.md_escape(view.itos[best]), best_kept=drift["kept"][best])
            figs = [(view.E, "Trained E, projected on its 2 main directions (PCA)"),
                    (E0, f"Random initial E (seed {seed}), before training")]
        if model.cfg.K == view.V:
            W_o = emb.f64(model.W_o)
            say("similarity-compare", word=ui.md_escape(word), near_out=near_text(W_o, k, view.itos))
    cols = st.columns(len(figs))
    for col, (E, title) in zip(cols, figs):
        coords, share = emb.pca_2d(E)
        col.plotly_chart(pca_figure(coords.numpy(), list(view.itos), view.ids, share.numpy(), title),
                         width="stretch")
    if view.preset == "current" and view.cur.model.cfg.K == view.V:
        with st.expander("The output layer's rows W_o (one per word), projected the same way"):
            coords, share = emb.pca_2d(view.cur.model.W_o)
            st.plotly_chart(pca_figure(coords.numpy(), list(view.itos), view.ids, share.numpy(),
                                       "Output rows W_o (K x H), PCA"), width="stretch")
    labels = [f"t={s + 1} {tok}" for s, tok in enumerate(view.tokens)]
    C = emb.cosine_matrix(view.E)[view.ids][:, view.ids]
    st.plotly_chart(heatmap(C.numpy(), labels, labels, "Cosine similarity of the sentence's embeddings",
                            "step, token", "step, token", "cosine", zmid=0.0, hover_name="cos"),
                    width="stretch")


# ---- tab 4: word order -----------------------------------------------------------------------

def order_tab(view: View):
    if all(w in view.vocab.stoi for w in ("dog", "bites", "man")):
        sug_a, sug_b = "dog bites man", "man bites dog"
    else:
        words = [w for w in view.itos if w not in ("<pad>", "<unk>", "<bos>", "<eos>")][:3]
        sug_a, sug_b = " ".join(words), " ".join(reversed(words))
    c1, c2 = st.columns(2)
    a = c1.text_input("Sentence A", key="emb_order_a", bind="query-params", placeholder=sug_a).strip() or sug_a
    b = c2.text_input("Sentence B", key="emb_order_b", bind="query-params", placeholder=sug_b).strip() or sug_b
    with ui.guard():
        ids_a = list(prepare(a, view.vocab).ids)
        ids_b = list(prepare(b, view.vocab).ids)
        r = emb.order_comparison(view.E, ids_a, ids_b)
        say("order", a=ui.md_escape(a), b=ui.md_escape(b), sum_a=emb.vector_text(r["sum_a"]),
            sum_b=emb.vector_text(r["sum_b"]),
            same_sum="the same sum" if r["same_sum"] else "different sums",
            same_matrix="the same matrix" if r["same_matrix"] else "different matrices",
            flat_a=r["flat_a"], flat_b=r["flat_b"], mlp_3=r["mlp_3"], mlp_5=r["mlp_5"])
        p1, p2 = st.columns(2)
        for col, ids, X, name in ((p1, ids_a, r["X_a"], "A"), (p2, ids_b, r["X_b"], "B")):
            labels = [f"t={s + 1} {view.itos[i]}" for s, i in enumerate(ids)]
            col.plotly_chart(matrix_figure(X.numpy(), labels, f"Sentence {name}: T x d = {len(ids)} x {view.d}",
                                           colorbar="x value", hover_name="x", y_title="step, token"),
                             width="stretch")


# ---- tab 5: one-hot vs hashing vs dense ---------------------------------------------------------

def representations_tab(view: View):
    say("onehot-repr", V=view.V)
    st.dataframe(pd.DataFrame(emb.distance_rows(view.ids, view.E, view.itos)), hide_index=True)
    buckets = st.number_input(f"Hash buckets (1 to {emb.MAX_HASH_BUCKETS:,})", 1, emb.MAX_HASH_BUCKETS,
                              1000, key="emb_buckets", bind="query-params")
    words = st.text_input(f"Words to hash (up to {emb.MAX_HASH_WORDS})", "good apple Taipei",
                          key="emb_hash_words", bind="query-params")
    say("hashing", buckets=int(buckets))
    with ui.guard():
        rows = emb.hash_rows(words.split(), int(buckets), known=view.itos)
        st.dataframe(pd.DataFrame(emb.hash_table(rows)), hide_index=True)
        st.markdown("**The words of your sentence, three ways** (an unknown word keeps its trigrams)")
        words = list(view.cur.prepared.tokens) if view.preset == "current" else view.tokens
        st.dataframe(pd.DataFrame(emb.representation_rows(words, emb.word_ids(words, view.vocab), view.E,
                                                          int(buckets), view.itos)), hide_index=True)
        col = emb.hash_collisions(view.itos, int(buckets))
        say("collisions", n_words=col["n_words"], n_trigrams=col["n_trigrams"], buckets=int(buckets),
            n_bucket=len(col["buckets"]), n_word=len(col["words"]))
        c1, c2 = st.columns(2)
        c1.dataframe(pd.DataFrame([{"bucket": b, "trigrams": " ".join(ts)} for b, ts in col["buckets"]],
                                  columns=["bucket", "trigrams"]), hide_index=True, height=250)
        c2.dataframe(pd.DataFrame([{"words with the same vector": ", ".join(ws)} for ws in col["words"]],
                                  columns=["words with the same vector"]), hide_index=True, height=250)
        say("memory", d=view.d, buckets=int(buckets))
        mem = pd.DataFrame(emb.memory_table(emb.NOTES_V, view.d, int(buckets)))
        st.dataframe(mem, hide_index=True, column_config={
            c: st.column_config.NumberColumn(format="localized") for c in mem.columns
            if c in ("numbers per word", "first layer to d dims (numbers)")})


# ---- tab 6: try it by hand -----------------------------------------------------------------------

def _new_exercise():
    st.session_state["emb_ex_seed"] = int(st.session_state.get("emb_ex_seed", 1)) + 1
    st.session_state["emb_ex_answer"] = ""


@st.fragment
def exercise_tab(notes: bool):
    say("exercise")
    if notes:
        say("exercise-notes")
        ex = emb.notes_exercise()
    else:
        c1, c2 = st.columns([1, 3])
        seed = c1.number_input("Exercise number", 1, 1_000_000, 1, key="emb_ex_seed", bind="query-params")
        c2.button("New exercise", key="emb_ex_new", on_click=_new_exercise)
        ex = emb.make_exercise(int(seed))
    st.dataframe(pd.DataFrame([{"id": k, "token": w, "E[id]": emb.vector_text(ex.E[k])}
                               for k, w in enumerate(ex.itos)]), hide_index=True)
    kind = choose("Question", {"lookup": "the lookup E[id]", "update": "the row after one step"},
                  "emb_ex_kind")
    tok = ui.md_escape(ex.itos[ex.token_id])
    if kind == "lookup":
        st.markdown(f"The sentence reads “{tok}”, token id {ex.token_id}. What is its embedding?")
    else:
        st.markdown(f"“{tok}” was read once and its g_e is {emb.vector_text(ex.g)}. With plain gradient "
                    f"descent and lr = {ex.lr:g}, what is its row after one step?")
    answer = st.text_input("Your answer (d = 3 numbers)", key="emb_ex_answer", placeholder="e.g. 0.1, -0.2, 0.3")
    if answer.strip():
        try:
            verdict = emb.check_answer(ex, kind, answer)
        except InputError as err:
            st.error(str(err))
        else:
            (st.success if verdict.ok else st.error)(ui.md_escape(verdict.message))


# ---- the page ----------------------------------------------------------------------------------

st.title("1 · Embedding lookup, its gradient, and word representations")
say("intro")
cur = ui.current()
view = pick_view(cur)
t = pick_step(view)
tabs = st.tabs(["Lookup and shapes", "Gradient and update", "Similar words", "Word order",
                "One-hot, hashing, dense", "Try it by hand"])
with tabs[0]:
    lookup_tab(view, t)
with tabs[1]:
    gradient_tab(view, t)
with tabs[2]:
    similarity_tab(view, t)
with tabs[3]:
    order_tab(view)
with tabs[4]:
    representations_tab(view)
with tabs[5]:
    exercise_tab(view.preset == "notes")
