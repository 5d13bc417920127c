"""Page 2 sections, second half: why order matters (by hand and in the model), what φ does
(linear expansion, growth, saturation or dead units), the parameter count, Elman / Jordan /
bidirectional, and the hand exercise. The advanced views are folded in expanders."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain import hidden as hd
from rnnviz.explain.formulas import dead_units
from rnnviz.figures import hidden as fh
from rnnviz.formatting import num

from .. import cache, session
from ..cache import cached_trace
from ..i18n import prose, t
from ..widgets import md_escape, show_figure

PAGE = "hidden"
BIND = {"bind": "query-params"}


def _notes_scalar() -> None:
    st.session_state.update(hid_wx=2.0, hid_wh=0.5, hid_x1=1.0, hid_x2=3.0)


def scalar_order() -> None:
    """h_t = w_x x_t + w_h h_{t-1} on two numbers in both orders (the notes' example preset)."""
    st.header(t("hidden.h_order"), anchor="hid-order")
    st.button(t("hidden.scalar_preset"), key="hid_scalar_preset", on_click=_notes_scalar)
    cols = st.columns(4)
    w_x = cols[0].number_input("w_x", -10.0, 10.0, 2.0, 0.1, key="hid_wx", **BIND)
    w_h = cols[1].number_input("w_h", -10.0, 10.0, 0.5, 0.1, key="hid_wh", **BIND)
    x1 = cols[2].number_input(t("hidden.first_input"), -100.0, 100.0, 1.0, 1.0, key="hid_x1", **BIND)
    x2 = cols[3].number_input(t("hidden.second_input"), -100.0, 100.0, 3.0, 1.0, key="hid_x2", **BIND)
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


def why_phi(cur: session.Current, t1: int) -> None:
    """Folded: the linear expansion, ||h_t|| under three φ, growth, and saturation / dead units."""
    st.header(t("hidden.h_phi"), anchor="hid-phi")
    with st.expander(t("hidden.phi_expander"), expanded=False):
        linear_expansion(cur, t1)
        growth()
    saturation(cur)


def linear_expansion(cur: session.Current, t1: int) -> None:
    cfg = cur.model.cfg
    if cfg.cell != "elman" or cfg.bidirectional:
        st.info(t("hidden.linear_only"))
        return
    lin_model = cache.with_nonlinearity(cur.model, "linear")
    lin_tr = cached_trace(lin_model, cur.input_ids, cur.target_ids)
    k, case = hd.expansion_case(t1 - 1, cur.trace.T)
    expansion = hd.linear_expansion(lin_model, lin_tr.x, k)
    total = sum(v for _, v in expansion)
    err = float((total - lin_tr.h[k].double()).abs().max())
    st.markdown(
        prose(PAGE, "linear", t=k + 1, err=num(err), expansion=" + ".join(f"`{n}`" for n, _ in expansion))
    )
    st.caption(t(f"hidden.expansion_{case}", s=k + 1, slider=t1) + " " + t("hidden.linear_same_weights"))
    table = {n: v for n, v in expansion} | {t("hidden.col_sum"): total, t("hidden.col_lin_h"): lin_tr.h[k]}
    df = pd.DataFrame(
        {n: v.double().numpy() for n, v in table.items()}, index=[f"u{j + 1}" for j in range(cfg.hidden_size)]
    )
    st.dataframe(df.style.format(num), height=min(400, 38 + 35 * cfg.hidden_size), width="stretch")
    norms = {}
    for phi in ("tanh", "relu", "linear"):
        m = cur.model if phi == cfg.nonlinearity else cache.with_nonlinearity(cur.model, phi)
        norms[f"φ = {phi}"] = hd.state_norms(cached_trace(m, cur.input_ids, cur.target_ids).h)
    labels = {
        "title": t("hidden.fig_norms"),
        "log": t("hidden.log_scale"),
        "x": t("hidden.ax_step"),
        "y": t("hidden.ax_norm"),
    }
    show_figure(cache.figure(fh.norms_plot, norms, cur.tokens, labels), t("hidden.fig_norms"),
                key="hid_fig_norms")


def growth() -> None:
    gw = st.slider(t("hidden.grow_w"), -3.0, 3.0, 2.0, 0.1, key="hid_grow_w", **BIND)
    grow = hd.growth(gw, 1.0, 10)
    st.markdown(
        prose(
            PAGE,
            "growth",
            w=f"{gw:g}",
            h0=1,
            n=10,
            lin_last=num(grow["linear"][-1]),
            tanh_last=num(grow["tanh"][-1]),
        )
    )
    show_figure(
        cache.figure(fh.growth_plot,
            {"linear": grow["linear"], "tanh": grow["tanh"]}, gw, 1.0, labels={"x": t("hidden.ax_t")}
        ),
        "growth",
        key="hid_fig_growth",
    )


def saturation(cur: session.Current) -> None:
    """tanh: saturated share; ReLU: units that are off; linear: none. Per step as bars."""
    phi, h = cur.model.cfg.nonlinearity, cur.trace.h
    if phi == "linear":
        st.markdown(prose(PAGE, "saturation-linear"))
        return
    if phi == "relu":
        dead = dead_units(h)
        st.markdown(
            prose(
                PAGE,
                "saturation-relu",
                dead_count=dead["count"],
                dead_total=dead["total"],
                dead_share=f"{dead['share']:.1%}",
            )
        )
        per_step = hd.dead_per_step(h)  # (T,)
        labels = {"title": t("hidden.fig_dead"), "hover": t("hidden.dead_hover")}
    else:
        sat = hd.saturation(h)
        st.markdown(
            prose(
                PAGE,
                "saturation",
                sat_count=sat["count"],
                sat_total=sat["total"],
                sat_share=f"{sat['share']:.1%}",
                thr=hd.SATURATION,
                slope=num(1 - hd.SATURATION**2),
            )
        )
        per_step = sat["per_step"]
        labels = {"title": t("hidden.fig_sat", thr=hd.SATURATION), "hover": t("hidden.sat_hover")}
    labels |= {"x": t("hidden.ax_step"), "y": t("hidden.ax_share")}
    show_figure(
        cache.figure(fh.saturation_bar, per_step, cur.tokens, hd.SATURATION, labels),
        labels["title"],
        key="hid_fig_saturation",
    )
