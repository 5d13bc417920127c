"""Page 2: a second sentence's path beside the first (one PCA plane), and why order matters:
two numbers in both orders by hand, then the model on a sentence and its reversal."""

from __future__ import annotations

import streamlit as st

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.explain import gates
from rnnviz.explain import hidden as hd
from rnnviz.figures import hidden as fh
from rnnviz.formatting import num

from ... import cache, session
from ...cache import cached_trace
from ...i18n import prose, t
from ...page import figure_labels
from ...widgets import first_word_step, follow_part, guard, md_escape, named_part, show_figure
from .common import BIND, PAGE


def _pair(a: str, b: str) -> None:
    st.session_state.update(text=a, hid_overlay=b)


def overlay_input(cur: session.Current) -> tuple[str, bool]:
    """Preset pairs and the second sentence box; (text to trace, typed by the learner?)."""
    st.header(t("hidden.h_trajectory"), anchor="hid-trajectory")
    default, note = hd.default_overlay(
        cur.tokens, cur.vocab, cur.level, text=hd.reversal_source(cur.level, cur.tokens, cur.text)
    )
    row = st.container(horizontal=True)
    for a, b in hd.order_presets(cur.vocab):
        row.button(f"{a} ⇄ {b}", key=f"hid_pair_{a}", on_click=_pair, args=(a, b), help=t("hidden.pair_help"))
    overlay = st.text_input(
        t("hidden.overlay"),
        value=default,
        key="hid_overlay",
        **BIND,
        max_chars=limits.MAX_LINE_CHARS,
        help=t("hidden.overlay_help", n=limits.MAX_TOKENS),
    )
    typed = bool(overlay.strip()) and overlay.strip() != default.strip()
    if not typed and note:
        st.info(t("hidden.overlay_preset", b=md_escape(default)) if default else t("hidden.overlay_none"))
    return (overlay if typed else default), typed


def trajectory(cur: session.Current) -> list:
    """The PCA picture of h_1..h_T for the sentence and the second one; returns the paths
    [(name, trace, tokens)] for the order section."""
    text, typed = overlay_input(cur)
    paths = [(t("hidden.yours"), cur.trace, cur.tokens)]
    if text:
        try:
            ids, targets, prep = hd.sentence_pair(text, cur.vocab, cur.level)
        except InputError as err:
            if typed:  # only text the learner typed gets an error; a derived default stays off
                st.error(t("hidden.second_error", err=md_escape(str(err))))
        else:
            for notice in prep.notices:
                st.caption(md_escape(t("hidden.second_prefix") + notice))
            paths.append((t("hidden.second"), cached_trace(cur.model, ids, targets), cur.vocab.decode(ids)))
    with guard():
        pca_view(cur, paths)
    return paths


def pca_view(cur: session.Current, paths: list) -> None:
    coords, share = hd.pca_2d([p[1].h.numpy() for p in paths])
    H = paths[0][1].h.shape[1]
    pn = hd.pca_numbers(share, paths[0][1].h, paths[-1][1].h)
    if len(paths) > 1:
        st.markdown(prose(PAGE, "pca", H=H, share=f"{pn['share']:.0%}", dist=num(pn["dist"])))
    else:
        st.markdown(prose(PAGE, "pca-one", H=H, share=f"{pn['share']:.0%}"))
    labels = figure_labels(
        title="hidden.fig_pca",
        final="hidden.final_state",
        x=("hidden.ax_pc", {"pc": "PC1"}),
        y=("hidden.ax_pc", {"pc": "PC2"}),
    )
    show_figure(
        fh.pca_trajectory([(n, xy, tk) for (n, _, tk), xy in zip(paths, coords)], share, labels),
        t("hidden.fig_pca"),
        key="hid_fig_pca",
    )


ORDER_VIEW = "hid_order_view"  # fragment key: the preset and the four numbers redraw this section alone


def _notes_scalar() -> None:
    st.session_state.update(hid_wx=2.0, hid_wh=0.5, hid_x1=1.0, hid_x2=3.0)
    follow_part(ORDER_VIEW)


def scalar_order() -> None:
    """h_t = w_x x_t + w_h h_{t-1} on two numbers in both orders (the notes' example preset). Its
    controls redraw it alone (a fragment of its own: nothing else on the page depends on them)."""
    st.header(t("hidden.h_order"), anchor="hid-order")
    named_part(ORDER_VIEW, _scalar_order)


def _scalar_order() -> None:
    st.button(t("hidden.scalar_preset"), key="hid_scalar_preset", on_click=_notes_scalar)
    cols = st.columns(4)
    follow = {"on_change": follow_part, "args": (ORDER_VIEW,), **BIND}
    w_x = cols[0].number_input("wₓ", -10.0, 10.0, 2.0, 0.1, key="hid_wx", **follow)
    w_h = cols[1].number_input("wₕ", -10.0, 10.0, 0.5, 0.1, key="hid_wh", **follow)
    x1 = cols[2].number_input(t("hidden.first_input"), -100.0, 100.0, 1.0, 1.0, key="hid_x1", **follow)
    x2 = cols[3].number_input(t("hidden.second_input"), -100.0, 100.0, 3.0, 1.0, key="hid_x2", **follow)
    ab, ba = hd.scalar_rnn([x1, x2], w_x, w_h)[-1], hd.scalar_rnn([x2, x1], w_x, w_h)[-1]
    diff = ab - ba
    verdict = prose(PAGE, "scalar-equal" if diff == 0 else "scalar-differ")
    st.markdown(prose(PAGE, "scalar", h_ab=num(ab), h_ba=num(ba), diff=num(diff), verdict=verdict))
    st.code(
        "\n".join(
            [t("hidden.inputs", a=f"{x1:g}", b=f"{x2:g}")]
            + hd.scalar_steps([x1, x2], w_x, w_h)
            + ["", t("hidden.inputs", a=f"{x2:g}", b=f"{x1:g}")]
            + hd.scalar_steps([x2, x1], w_x, w_h)
        ),
        language=None,
    )


def model_order(cur: session.Current, paths: list) -> None:
    """The same effect on the model: sum of embeddings vs final state for the two sentences."""
    if len(paths) < 2:
        return
    (_, tr_a, tok_a), (_, tr_b, tok_b) = paths[0], paths[1]
    cmp = hd.order_comparison(tr_a.x, tr_b.x, tr_a.h, tr_b.h)
    st.markdown(
        prose(
            PAGE,
            "order_model",
            sent_a=md_escape(" ".join(hd.plain_words(tok_a))),
            sent_b=md_escape(" ".join(hd.plain_words(tok_b))),
            sum_diff=num(cmp["sum_diff"]),
            final_diff=num(cmp["final_diff"]),
            bag_note=t("hidden.bag_same" if cmp["same_bag"] else "hidden.bag_other"),
        )
    )


def summary(cur: session.Current) -> None:
    """h_t is a learned summary with no guarantee: the first word's reach on the last state
    (the number page 8 compares across cells), with a link to that section."""
    if cur.trace.T < 2:
        return
    start = min(first_word_step(cur.vocab.has_specials) - 1, cur.trace.T - 1)
    reach = gates.first_word_reach_row(cache.last_state_input_norms(cur.model, cur.trace), start)
    st.markdown(prose(PAGE, "summary", H=cur.model.cfg.hidden_size, first=md_escape(cur.tokens[start]),
                      reach=num(reach), s=start + 1, T=cur.trace.T))
