"""The notes' pair (the hidden state at Taipei), held-out scores, and right context."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.engine import taggers
from rnnviz.explain import slots
from rnnviz.figures import slots as figs
from rnnviz.formatting import num
from rnnviz.text.tokenize import prepare

from ... import cache
from ...charts import chart
from ...i18n import t
from ...widgets import follow_part, named_part
from ...widgets import labelled_choice as coded
from .common import (
    SlotSetup,
    anchor,
    fmt_table,
    labelled,
    tag_name,
    tag_names,
    tagger_label,
    text,
)
from .sentence import _axes


def pair(s: SlotSetup) -> None:
    """Arrive Taipei vs Leave Taipei (到达台北 vs 离开台北): the state each tagger holds at
    Taipei (at 北, the last character of 台北, whose state has read all of it)."""
    anchor("pair")
    a, b, word = s.pair
    pairs = {k: cache.word_pair(m, s.data.vocab, a, b, word) for k, m in s.shipped.items()}
    nums = {f"d_{k}": num(p.distance) for k, p in pairs.items()}
    text(
        "pair",
        tag_fnn=tag_name(pairs["fnn"].tag_a),
        tag_elman_a=tag_name(pairs["elman"].tag_a),
        tag_elman_b=tag_name(pairs["elman"].tag_b),
        **nums,
    )
    c = {k: t(f"slots.col.{k}") for k in ("tagger", "tag_a", "tag_b", "size", "distance")}
    st.dataframe(
        fmt_table(
            [
                {
                    c["tagger"]: tagger_label(k),
                    c["tag_a"]: tag_name(p.tag_a),
                    c["tag_b"]: tag_name(p.tag_b),
                    c["size"]: len(p.h_a),
                    c["distance"]: p.distance,
                }
                for k, p in pairs.items()
            ]
        ),
        hide_index=True,
    )
    kinds = taggers.KINDS
    kind = coded(st.selectbox, t("slots.pair_tagger"), kinds, [tagger_label(k) for k in kinds],
                 "slot_pair_tagger", index=1)
    p = pairs[kind]
    chart(
        cache.figure(
            figs.hidden_pair,
            p.h_a,
            p.h_b,
            t("slots.in_sentence", s=a),
            t("slots.in_sentence", s=b),
            t("slots.fig.pair", tagger=tagger_label(kind), word=p.token, d=num(p.distance),
              step=p.position + 1),
            labels=_axes(),
        ),
        width="stretch",
        key="slot_pair_chart",  # keyed: a new tagger or pair updates the chart in place
    )
    text(
        "pair_jordan",
        d_jordan=nums["d_jordan"],
        tag_jordan_a=tag_name(pairs["jordan"].tag_a),
        tag_jordan_b=tag_name(pairs["jordan"].tag_b),
    )


def heldout_accuracy(s: SlotSetup) -> dict:
    """kind -> held-out accuracy written with 3 decimals (cached per tagger)."""
    return {k: f"{cache.heldout_scores(m, s.data)['accuracy']:.3f}" for k, m in s.shipped.items()}


def heldout(s: SlotSetup) -> dict:
    """Accuracy and F1 per slot on the held-out split, and a confusion matrix; returns the scores."""
    anchor("heldout")
    models = labelled(s)
    scores = {label: cache.heldout_scores(m, s.data) for label, m in models.items()}
    acc = {k: f"{scores[tagger_label(k)]['accuracy']:.3f}" for k in taggers.KINDS}  # 1.000, never a bare "1"
    text(
        "heldout",
        n_heldout=len(s.data.heldout),
        acc_fnn=acc["fnn"],
        acc_elman=acc["elman"],
        n_tokens=scores[tagger_label("fnn")]["tokens"],
    )
    cols = {"tagger": t("slots.col.tagger"), "accuracy": t("slots.col.accuracy")}
    cols |= {f"F1 {name}": f"F1 {t(f'slots.slot.{key}')}" for key, name in slots.SLOTS.items()}
    st.dataframe(fmt_table(slots.score_rows(scores), fixed=True).rename(columns=cols), hide_index=True)
    named_part(CONFUSION_VIEW, confusion, scores, [*s.shipped, "own"][: len(models)])
    return acc


CONFUSION_VIEW = "slot_confusion_view"  # fragment key: choosing the tagger redraws its matrix alone


def confusion(scores: dict, codes: list) -> None:
    """The confusion matrix of the tagger chosen (its held-out scores in `scores`, by label;
    codes: the taggers' codes in the same order)."""
    names = list(scores)
    label = names[codes.index(coded(st.selectbox, t("slots.cm_tagger"), codes, names, "slot_cm_tagger",
                                    on_change=follow_part, args=(CONFUSION_VIEW,)))]
    chart(
        cache.figure(
            figs.confusion_figure,
            scores[label]["confusion"],
            t("slots.fig.confusion", tagger=label),
            labels=_axes(),
            tag_names=tag_names(),
        ),
        width="stretch",
        key="slot_confusion_chart",
    )


def right_context(s: SlotSetup, acc: dict) -> None:
    """When the deciding word comes later, and what reading it costs (streaming)."""
    anchor("right")
    ra, rb, word = s.right
    right = {
        label: (cache.tagged_sentence(m, s.data.vocab, ra), cache.tagged_sentence(m, s.data.vocab, rb))
        for label, m in labelled(s).items()
    }

    def city(tagged) -> str:
        return "/".join(tag_name(x) for x in slots.word_tag(tagged, word).split("/"))

    bi = right[tagger_label("bi")]
    text("right", right_a=ra, right_b=rb, bi_a=city(bi[0]), bi_b=city(bi[1]), acc_bi=acc["bi"])
    st.dataframe(
        pd.DataFrame(
            [
                {
                    t("slots.col.tagger"): label,
                    t("slots.col.first_in", w=word, s=ra): city(x),
                    t("slots.col.first_in", w=word, s=rb): city(y),
                }
                for label, (x, y) in right.items()
            ]
        ),
        hide_index=True,
    )
    _stream(s, rb)


def _stream(s: SlotSetup, sentence: str) -> None:
    """The bidirectional tagger re-tagging the sentence as its tokens arrive."""
    prep = prepare(sentence, s.data.vocab)
    rows = cache.streaming_tags(s.shipped["bi"], prep.ids)
    text("stream", sentence=sentence, n_changes=slots.revisions(rows))
    st.dataframe(
        pd.DataFrame(
            [dict(zip(prep.tokens, map(tag_name, row))) for row in rows],
            index=[t("slots.after_words", n=n + 1) for n in range(len(rows))],
        ).fillna("…")
    )
