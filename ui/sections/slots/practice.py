"""Jordan's risk (a forced wrong tag), retraining a tagger in the session, and the hand exercise."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.conventions import TAGS
from rnnviz.engine import taggers
from rnnviz.explain import slots
from rnnviz.figures import slots as figs
from rnnviz.formatting import num
from rnnviz.text.tokenize import prepare

from ... import cache
from ...charts import chart
from ...i18n import t
from ...widgets import exercise, exercise_number, handed, md_escape
from ...widgets import labelled_choice as coded
from .common import BIND, SENTENCE, SlotSetup, anchor, own_tagger, tag_name, tagger_label, text
from .sentence import _axes


def jordan_part(s: SlotSetup) -> None:
    """The last part of the page's sentence fragment, a fragment of its own inside it
    (ui/widgets.StepParts): its step slider and tag redraw it alone."""
    sentence, tagged = handed(SENTENCE)
    jordan_risk(s, sentence, next(iter(tagged.values())).tokens)


def jordan_risk(s: SlotSetup, sentence: str, tokens: tuple) -> None:
    """Force the output at step t to a wrong tag: Jordan feeds it on, Elman does not."""
    anchor("jordan")
    c1, c2 = st.columns(2)
    if len(tokens) > 1:
        step = c1.slider(t("slots.force_step"), 1, len(tokens), 1, key="slot_force_step", **BIND) - 1
    else:
        step = 0
        c1.caption(t("slots.force_one_word"))
    tag = coded(c2.selectbox, t("slots.force_tag"), TAGS, [tag_name(x) for x in TAGS], "slot_force_tag",
                index=TAGS.index(s.force))
    ids = prepare(sentence, s.data.vocab).ids
    changes, rows = _forced(s, ids, tokens, step, tag)
    later = {k: max(v[step + 1 :], default=0.0) for k, v in changes.items()}
    text(
        "jordan",
        t=step + 1,
        word=md_escape(tokens[step]),
        tag=tag_name(tag),
        max_jordan=num(later[tagger_label("jordan")]),
        max_elman=num(later[tagger_label("elman")]),
    )
    if slots.top_tags(taggers.tag_probs(s.shipped["jordan"], ids))[step] == tag:
        st.info(t("slots.force_same", t=step + 1, tag=tag_name(tag)))
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    chart(
        cache.figure(
            figs.forced_change, tokens, changes, step, t("slots.fig.forced", t=step + 1, tag=tag_name(tag)),
            labels=_axes(),
        ),
        width="stretch",
        key="slot_forced_chart",  # keyed: a step move updates the chart in place
    )


def _forced(s: SlotSetup, ids, tokens, step: int, tag: str) -> tuple[dict, list]:
    """({label: change per step}, table rows): Jordan and Elman as trained and with step forced."""
    changes, rows = {}, []
    cols = [f"{k + 1} {w}" for k, w in enumerate(tokens)]
    forced_run = t("slots.run_forced", t=step + 1, tag=tag_name(tag))
    for kind in ("jordan", "elman"):
        m, label = s.shipped[kind], tagger_label(kind)
        clean, forced = taggers.tag_probs(m, ids), slots.force_tag(m, ids, step, tag)
        changes[label] = slots.distribution_change(clean, forced)
        for run, p in ((t("slots.run_trained"), clean), (forced_run, forced)):
            rows.append(
                {
                    t("slots.col.tagger"): label,
                    t("slots.col.run"): run,
                    **{c: tag_name(k) for c, k in zip(cols, slots.top_tags(p))},
                }
            )
    return changes, rows


@st.fragment
def retrain(s: SlotSetup) -> None:
    """Train a tagger of any kind in this session; it joins the page as an extra column."""
    anchor("retrain")
    text("retrain")
    with st.form("slot_train_form"):
        c1, c2, c3, c4 = st.columns(4)
        kind = c1.selectbox(
            t("slots.train_kind"), taggers.KINDS, index=1, format_func=tagger_label, key="slot_kind"
        )
        steps = c2.slider(t("slots.train_steps"), 10, 1500, 300, 10, key="slot_steps")
        hidden = c3.slider(t("slots.train_hidden"), 2, 64, 32, key="slot_hidden")
        seed = c4.number_input(t("slots.train_seed"), 0, 10_000, 0, key="slot_seed")
        go = st.form_submit_button(t("slots.train"), type="primary")
    if go:
        _train(s, kind, int(steps), int(hidden), int(seed))
    own = own_tagger(s)
    if own:
        sc = cache.heldout_scores(own["model"], s.data)
        st.success(
            md_escape(
                t(
                    "slots.own_done",
                    label=own["label"],
                    about=own["about"],
                    acc=num(sc["accuracy"]),
                    loss=num(own["history"][-1]["loss"]),
                )
            )
        )
        chart(
            figs.loss_curve(own["history"], t("slots.fig.loss", about=own["about"]), labels=_axes()),
            width="stretch",
            key="slot_loss_chart",
        )
        if st.button(t("slots.forget"), key="slot_forget"):
            del st.session_state["slot_own"]
            st.rerun()


def _train(s: SlotSetup, kind: str, steps: int, hidden: int, seed: int) -> None:
    bar = st.progress(0.0, text=t("slots.training"))

    def report(rec):
        if rec["step"] % 10 == 0 or rec["step"] == steps:
            bar.progress(
                rec["step"] / steps,
                text=t("slots.progress", step=rec["step"], steps=steps, loss=num(rec["loss"])),
            )

    model, history = slots.train_tagger(
        kind, s.data, hidden_size=hidden, seed=seed, steps=steps, callback=report
    )
    short = t(f"slots.short.{kind}")
    st.session_state["slot_own"] = {
        "lang": s.lang,  # the data it was trained on: shown only beside the same data
        "label": t("slots.own_label", kind=short, H=hidden),
        "model": model,
        "history": history,
        "about": t("slots.own_about", tagger=tagger_label(kind), H=hidden, steps=steps, seed=seed),
    }
    st.rerun()  # the whole page now shows your tagger as an extra column


def by_hand() -> None:
    """One Jordan step by hand: a = W_x x + W_y y_prev + b."""
    anchor("byhand")
    ex = slots.jordan_exercise(exercise_number("slot_ex") - 1)
    prev = tag_name(slots.EXERCISE_TAGS[ex.prev_tag])
    text("byhand", prev=prev, y_prev=str(ex.y_prev.astype(int).tolist()))
    rows = [t("slots.row", i=1), t("slots.row", i=2)]
    tables = {
        "$W_x$ (2 × 2)": pd.DataFrame(ex.W_x, rows, [t("slots.colnum", i=1), t("slots.colnum", i=2)]),
        "x (2)": pd.DataFrame(ex.x, ["x₁", "x₂"], ["x"]),
        t("slots.wy_caption"): pd.DataFrame(ex.W_y, rows, [tag_name(x) for x in slots.EXERCISE_TAGS]),
        "b (2)": pd.DataFrame(ex.b, ["b₁", "b₂"], ["b"]),
    }
    for col, (name, df) in zip(st.columns([2, 1, 3, 1]), tables.items()):
        col.caption(name)
        col.dataframe(df)

    def ask():
        c1, c2 = st.columns(2)
        return [
            c1.number_input("$a_1$", value=0.0, step=1.0, key="slot_ex_a1"),
            c2.number_input("$a_2$", value=0.0, step=1.0, key="slot_ex_a2"),
        ]

    exercise("slot_ex", ask=ask, check=lambda answer: slots.check_jordan(ex, answer))
