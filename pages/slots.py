"""5 · Slot filling: why context matters. FNN vs Elman vs Jordan vs bidirectional taggers."""
import pandas as pd
import streamlit as st

from rnnviz import limits
from rnnviz import tagging as tg
from rnnviz.data import TAGS
from rnnviz.errors import InputError
from rnnviz.figures import slots as figs
from rnnviz.figures.common import fmt
from rnnviz.prose import section
from rnnviz.text import prepare
from ui import cache
from ui import compat as ui

ARRIVE, LEAVE = "Arrive Taipei on November 2nd", "Leave Taipei on November 2nd"
RIGHT_A, RIGHT_B = "Tokyo is my destination", "Tokyo is my departure"
SIDEBAR, OWN = "The sidebar sentence", "Type your own…"
PRESETS = {f"Notes: {ARRIVE}": ARRIVE, f"Notes: {LEAVE}": LEAVE,
           f"Decided later: {RIGHT_A}": RIGHT_A, f"Decided later: {RIGHT_B}": RIGHT_B,
           "Two cities: Leave Boston and arrive in Paris at 5 pm":
               "Leave Boston and arrive in Paris at 5 pm",
           "Unknown city: Arrive Kaohsiung on November 2nd": "Arrive Kaohsiung on November 2nd"}


def taggers() -> dict:
    """label -> model: the four shipped taggers, plus this session's own one if trained."""
    out = {tg.LABELS[k]: m for k, (m, _, _) in cache.pretrained_taggers().items()}
    own = st.session_state.get("slot_own")
    if own:
        out[own["label"]] = own["model"]
    return out


def fmt_table(rows, fixed: bool = False) -> pd.DataFrame:
    """Floats as text: 3 significant digits, or 3 decimals (scores) with fixed=True."""
    return pd.DataFrame(rows).map(lambda v: (f"{v:.3f}" if fixed else fmt(v, 3))
                                  if isinstance(v, float) else v)


st.title("5 · Slot filling: why context matters")
cur = ui.current()
data = cache.tagging_data()
vocab = data.vocab
models = taggers()
st.markdown(section("slots", "intro", n_train=len(data.train), n_heldout=len(data.heldout)))

# ---- the sentence ---------------------------------------------------------------------------
source = st.selectbox("Sentence to tag", [SIDEBAR, *PRESETS, OWN], key="slot_source",
                      bind="query-params",
                      help="The notes' pair and other examples are presets; the sidebar sentence "
                           "is the one the other pages use.")
if source == OWN:
    text = st.text_input("Your sentence", "Arrive Seoul at 9 am", key="slot_text",
                         bind="query-params", max_chars=limits.MAX_TEXT_CHARS)
else:
    text = cur.text if source == SIDEBAR else PRESETS[source]
try:
    tagged = {label: tg.tag_sentence(m, vocab, text) for label, m in models.items()}
except InputError as err:
    st.error(str(err))
    st.info("Showing the notes' sentence instead.")
    text = ARRIVE
    tagged = {label: tg.tag_sentence(m, vocab, text) for label, m in models.items()}
first = next(iter(tagged.values()))
st.code(text[:2000], language=None, wrap_lines=True)
for notice in first.notices:
    st.warning(ui.md_escape(notice))

st.subheader("Tagged by all four")
st.markdown(section("slots", "grid", n_disagree=tg.disagreements(tagged), T=len(first.tokens)))
unknown = [tok for tok, w in zip(first.tokens, first.words) if w == "<unk>"]
if unknown:
    st.markdown(section("slots", "unknown", unknown=ui.md_escape(", ".join(dict.fromkeys(unknown)))))
st.plotly_chart(figs.tag_grid(first.tokens, {k: t.probs for k, t in tagged.items()},
                              title="Tag per word (probability in brackets)"), width="stretch")
st.markdown(section("slots", "form"))
forms = {label: tg.extract_slots(t.tokens, t.tags) for label, t in tagged.items()}
st.dataframe(pd.DataFrame(forms).rename_axis("slot"))

# ---- the notes' pair ------------------------------------------------------------------------
st.subheader("Arrive Taipei vs Leave Taipei: the hidden state at Taipei")
shipped = {k: m for k, (m, _, _) in cache.pretrained_taggers().items()}
pairs = {k: tg.compare_word(m, vocab, ARRIVE, LEAVE, "Taipei") for k, m in shipped.items()}
nums = {f"d_{k}": fmt(p.distance, 4) for k, p in pairs.items()}
st.markdown(section("slots", "pair", tag_fnn=pairs["fnn"].tag_a, tag_elman_a=pairs["elman"].tag_a,
                    tag_elman_b=pairs["elman"].tag_b, **nums))
st.dataframe(fmt_table([{"tagger": tg.LABELS[k], "tag after Arrive": p.tag_a,
                         "tag after Leave": p.tag_b, "size of h": len(p.h_a),
                         "distance ‖h_Arrive − h_Leave‖": p.distance} for k, p in pairs.items()]),
             hide_index=True)
kind = st.selectbox("Show the two vectors of", tg.KINDS, index=1, format_func=tg.LABELS.get,
                    key="slot_pair_tagger", bind="query-params")
p = pairs[kind]
st.plotly_chart(figs.hidden_pair(p.h_a, p.h_b, "in “Arrive Taipei …”", "in “Leave Taipei …”",
                                 f"{tg.LABELS[kind]}: hidden state at Taipei (step 2), "
                                 f"distance {fmt(p.distance, 4)}"), width="stretch")
st.markdown(section("slots", "pair_jordan", d_jordan=nums["d_jordan"],
                    tag_jordan_a=pairs["jordan"].tag_a, tag_jordan_b=pairs["jordan"].tag_b))

# ---- held-out evaluation ---------------------------------------------------------------------
st.subheader("How good is each tagger? (held-out sentences)")
scores = {label: cache.heldout_scores(m, data) for label, m in models.items()}
acc = {k: f"{scores[tg.LABELS[k]]['accuracy']:.3f}" for k in tg.KINDS}  # 1.000, never a bare "1"
st.markdown(section("slots", "heldout", n_heldout=len(data.heldout), acc_fnn=acc["fnn"],
                    acc_elman=acc["elman"], n_tokens=scores[tg.LABELS["fnn"]]["tokens"]))
st.dataframe(fmt_table(tg.score_rows(scores), fixed=True), hide_index=True)
cm_label = st.selectbox("Confusion matrix of", list(models), index=0, key="slot_cm_tagger",
                        bind="query-params")
st.plotly_chart(figs.confusion_figure(scores[cm_label]["confusion"],
                                      f"{cm_label}: true vs predicted tag on held-out words"),
                width="stretch")
right = {label: (tg.tag_sentence(m, vocab, RIGHT_A), tg.tag_sentence(m, vocab, RIGHT_B))
         for label, m in models.items()}
bi = right[tg.LABELS["bi"]]
st.markdown(section("slots", "right", right_a=RIGHT_A, right_b=RIGHT_B, bi_a=bi[0].tags[0],
                    bi_b=bi[1].tags[0], acc_bi=acc["bi"]))
st.dataframe(pd.DataFrame([{"tagger": label, f"Tokyo in “{RIGHT_A}”": a.tags[0],
                            f"Tokyo in “{RIGHT_B}”": b.tags[0]} for label, (a, b) in right.items()]),
             hide_index=True)
words = RIGHT_B.split()
rows = tg.streaming_tags(shipped["bi"], prepare(RIGHT_B, vocab).ids)
st.markdown(section("slots", "stream", sentence=RIGHT_B, n_changes=tg.revisions(rows)))
st.dataframe(pd.DataFrame([dict(zip(words, row)) for row in rows],
                          index=[f"after {n + 1} word(s)" for n in range(len(rows))]).fillna("…"))


# ---- Jordan's risk -----------------------------------------------------------------------------
@st.fragment
def jordan_risk(text: str, tokens: tuple):
    st.subheader("Jordan's risk: an early wrong tag feeds the next step")
    c1, c2 = st.columns(2)
    if len(tokens) > 1:
        t = c1.slider("Force the output at step t", 1, len(tokens), 1, key="slot_force_step",
                      bind="query-params") - 1
    else:
        t = 0
        c1.caption("A one-word sentence: the forced step is step 1, with no later step to reach.")
    tag = c2.selectbox("to the wrong tag", TAGS, index=TAGS.index("date"), key="slot_force_tag",
                       bind="query-params")
    ids = prepare(text, vocab).ids
    changes, rows = {}, []
    for kind in ("jordan", "elman"):
        m = shipped[kind]
        clean, forced = tg.tag_probs(m, ids), tg.force_tag(m, ids, t, tag)
        changes[tg.LABELS[kind]] = tg.distribution_change(clean, forced)
        rows += [{"tagger": tg.LABELS[kind], "run": "as trained",
                  **{f"{s + 1} {w}": TAGS[k] for s, (w, k) in enumerate(zip(tokens, clean.argmax(1)))}},
                 {"tagger": tg.LABELS[kind], "run": f"step {t + 1} forced to {tag}",
                  **{f"{s + 1} {w}": TAGS[k] for s, (w, k) in enumerate(zip(tokens, forced.argmax(1)))}}]
    later = {k: max(v[t + 1:], default=0.0) for k, v in changes.items()}
    st.markdown(section("slots", "jordan", t=t + 1, word=ui.md_escape(tokens[t]), tag=tag,
                        max_jordan=fmt(later[tg.LABELS["jordan"]], 3),
                        max_elman=fmt(later[tg.LABELS["elman"]], 3)))
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    st.plotly_chart(figs.forced_change(tokens, changes, t, f"How much each step's tags moved "
                                       f"after step {t + 1} was forced to “{tag}”"), width="stretch")


jordan_risk(text, first.tokens)


# ---- retrain ---------------------------------------------------------------------------------
@st.fragment
def retrain():
    st.subheader("Retrain a tagger")
    st.markdown(section("slots", "retrain"))
    with st.form("slot_train_form"):
        c1, c2, c3, c4 = st.columns(4)
        kind = c1.selectbox("Tagger", tg.KINDS, index=1, format_func=tg.LABELS.get, key="slot_kind")
        steps = c2.slider("Optimizer steps", 10, 1500, 300, 10, key="slot_steps")
        hidden = c3.slider("Hidden size H", 2, 64, 32, key="slot_hidden")
        seed = c4.number_input("Seed", 0, 10_000, 0, key="slot_seed")
        go = st.form_submit_button("Train", type="primary")
    if go:
        bar = st.progress(0.0, text="Training…")

        def report(rec):
            if rec["step"] % 10 == 0 or rec["step"] == steps:
                bar.progress(rec["step"] / steps, text=f"step {rec['step']} / {steps}, "
                                                       f"loss {rec['loss']:.4f}")

        model, history = tg.train_tagger(kind, data, hidden_size=int(hidden), seed=int(seed),
                                         steps=int(steps), callback=report)
        st.session_state["slot_own"] = {
            "label": f"Yours ({tg.LABELS[kind].split()[0]}, H={hidden})", "model": model,
            "history": history, "about": f"{tg.LABELS[kind]}, H={hidden}, {steps} steps, seed {seed}"}
        st.rerun()  # the whole page now shows your tagger as an extra column
    own = st.session_state.get("slot_own")
    if own:
        s = cache.heldout_scores(own["model"], data)
        st.success(ui.md_escape(f"{own['label']}: {own['about']}. Held-out accuracy "
                                f"{fmt(s['accuracy'], 3)} (final training loss "
                                f"{fmt(own['history'][-1]['loss'], 3)})."))
        st.plotly_chart(figs.loss_curve(own["history"], f"Training loss: {own['about']}"),
                        width="stretch")
        if st.button("Forget my tagger", key="slot_forget"):
            del st.session_state["slot_own"]
            st.rerun()


retrain()


# ---- try it by hand ----------------------------------------------------------------------------
@st.fragment
def by_hand():
    st.subheader("Try it by hand")
    seed = st.session_state.setdefault("slot_ex_seed", 0)
    ex = tg.jordan_exercise(seed)
    st.markdown(section("slots", "byhand", prev=tg.EXERCISE_TAGS[ex.prev_tag],
                        y_prev=str(ex.y_prev.astype(int).tolist())))
    rows = ["row 1", "row 2"]
    tables = {"W_x (2 x 2)": pd.DataFrame(ex.W_x, rows, ["col 1", "col 2"]),
              "x (2)": pd.DataFrame(ex.x, ["x_1", "x_2"], ["x"]),
              "W_y (2 x 3, one column per tag)": pd.DataFrame(ex.W_y, rows, tg.EXERCISE_TAGS),
              "b (2)": pd.DataFrame(ex.b, ["b_1", "b_2"], ["b"])}
    for col, (name, df) in zip(st.columns([2, 1, 3, 1]), tables.items()):
        col.caption(name)
        col.dataframe(df)
    c1, c2 = st.columns(2)
    a1 = c1.number_input("a_1", value=0.0, step=1.0, key="slot_ex_a1")
    a2 = c2.number_input("a_2", value=0.0, step=1.0, key="slot_ex_a2")
    b1, b2 = st.columns(2)
    if b1.button("Check", key="slot_ex_check"):
        with ui.guard():
            ok, msg = tg.check_jordan(ex, [a1, a2])
            (st.success if ok else st.warning)(msg)
    if b2.button("New exercise", key="slot_ex_new"):
        st.session_state["slot_ex_seed"] = seed + 1
        st.rerun(scope="fragment")


by_hand()
