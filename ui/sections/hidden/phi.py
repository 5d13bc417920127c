"""Page 2: what φ does (folded): without it h_t is one linear map of the inputs (the expansion),
states grow or stay bounded, and tanh saturates or ReLU units die."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain import bptt as chains
from rnnviz.explain import hidden as hd
from rnnviz.explain.formulas import dead_units
from rnnviz.figures import hidden as fh
from rnnviz.formatting import num, num_inside, plain_math

from ... import cache, session
from ...cache import cached_trace
from ...i18n import prose, t
from ...page import figure_labels, folded, four_digits
from ...widgets import show_figure
from .common import BIND, PAGE, folds_drew


def why_phi(cur: session.Current, t1: int) -> None:
    """Folded: the linear expansion, ||h_t|| under three φ, growth, and saturation / dead units."""
    st.header(t("hidden.h_phi"), anchor="hid-phi")
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        linear_expansion(cur, t1)
        affine_fit(cur)
        growth()
        bounded_not_stable(cur)
    folded(t("hidden.phi_expander"), "hid_phi", _folded, opens_for=('hid_grow_w',))
    saturation(cur)


def linear_expansion(cur: session.Current, t1: int) -> None:
    cfg = cur.model.cfg
    if cfg.cell != "elman" or cfg.bidirectional:
        st.info(t("hidden.linear_only"))
        return
    lin_model = cache.with_nonlinearity(cur.model, "linear")
    lin_tr = cached_trace(lin_model, cur.input_ids, cur.target_ids)
    folds_drew(t1)
    k, case = hd.expansion_case(t1 - 1, cur.trace.T)
    expansion = hd.linear_expansion(lin_model, lin_tr.x, k)
    total, err = hd.expansion_check(expansion, lin_tr.h[k])
    names = [plain_math(n) for n, _ in expansion]
    st.markdown(prose(PAGE, "linear", t=k + 1, err=num(err), expansion=" + ".join(names)))
    st.caption(t(f"hidden.expansion_{case}", s=k + 1, slider=t1) + " " + t("hidden.linear_same_weights"))
    table = dict(zip(names, (v for _, v in expansion))) | {t("hidden.col_sum"): total,
                                                           t("hidden.col_lin_h"): lin_tr.h[k]}
    df = pd.DataFrame(
        {n: v.double().numpy() for n, v in table.items()}, index=[f"u{j + 1}" for j in range(cfg.hidden_size)]
    )
    st.dataframe(df, column_config=four_digits(df), height=min(400, 38 + 35 * cfg.hidden_size),
                 width="stretch")
    norms = {}
    for phi in ("tanh", "relu", "linear"):
        m = cur.model if phi == cfg.nonlinearity else cache.with_nonlinearity(cur.model, phi)
        norms[f"φ = {phi}"] = hd.state_norms(cached_trace(m, cur.input_ids, cur.target_ids).h)
    labels = figure_labels(
        title="hidden.fig_norms", log="hidden.log_scale", x="hidden.ax_step", y="hidden.ax_norm"
    )
    show_figure(fh.norms_plot(norms, cur.tokens, labels), t("hidden.fig_norms"), key="hid_fig_norms")


def affine_fit(cur: session.Current) -> None:
    """The best affine fit of h_2 over many input pairs: residual above 0 with φ, about 0 for
    the linear RNN (why nested φ cannot be merged into one affine map)."""
    cfg = cur.model.cfg
    if cfg.cell != "elman" or cfg.bidirectional or cfg.nonlinearity == "linear":
        return
    fit = hd.affine_fit_h2(cur.model)
    st.markdown(prose(PAGE, "affine", n=fit["n"], p=fit["params"], phi=fit["phi"], res=num(fit["rel_phi"]),
                      lin=num(fit["rel_linear"])))


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
        fh.growth_plot(
            {"linear": grow["linear"], "tanh": grow["tanh"]}, gw, 1.0, labels=figure_labels(x="hidden.ax_t")
        ),
        "growth",
        key="hid_fig_growth",
    )


def bounded_not_stable(cur: session.Current) -> None:
    """A bounded state is not a stable gradient: at W_h x3 the tanh states stay in (-1, 1)
    while page 4's verdict says the gradient grows (tanh, one-directional Elman only)."""
    cfg = cur.model.cfg
    if cfg.cell != "elman" or cfg.bidirectional or cfg.nonlinearity != "tanh":
        return
    scale = chains.SCALE_PRESETS["explode"]
    m3 = chains.scaled_model(cur.model, scale)
    tr3 = cached_trace(m3, cur.input_ids, cur.target_ids)
    win = cache.jacobian_window(cur.model, cur.trace)
    v = chains.growth_verdict(cache.jacobian_norms(m3, tr3, 2, win.start))
    verdict = t(f"bptt.verdict.{v['kind']}", factor=num(v["factor"]), n=v["n"])
    hmax = hd.largest_state(tr3.h)  # float32's tanh reaches 1.0 itself: said so, not left as "1" in (-1, 1)
    hmax_text = num_inside(hmax) + (t("hidden.float32_one") if abs(hmax) >= 1 else "")
    st.markdown(prose(PAGE, "bounded-gradient", scale=f"{scale:g}", hmax=hmax_text, verdict=verdict))


def saturation(cur: session.Current) -> None:
    """tanh: saturated share; ReLU: units that are off; linear: none. Per step as bars."""
    phi, h = cur.model.cfg.nonlinearity, cur.trace.h
    if phi == "linear":
        st.markdown(prose(PAGE, "saturation-linear"))
        return
    if phi == "relu":  # ReLU: the units that are off (zero slope)
        stats, key, name, extra = dead_units(h), "saturation-relu", "dead", {}
        per_step = hd.dead_per_step(h)  # (T,)
        labels = figure_labels(title="hidden.fig_dead", hover="hidden.dead_hover")
    else:  # tanh: the saturated units (slope below 1 - thr^2)
        stats, key, name = hd.saturation(h), "saturation", "sat"
        extra = {"thr": hd.SATURATION, "slope": num(1 - hd.SATURATION**2)}
        per_step = stats["per_step"]
        labels = figure_labels(title=("hidden.fig_sat", {"thr": hd.SATURATION}), hover="hidden.sat_hover")
    counts = {f"{name}_count": stats["count"], f"{name}_total": stats["total"],
              f"{name}_share": f"{stats['share']:.1%}"}
    st.markdown(prose(PAGE, key, **counts, **extra))
    labels |= figure_labels(x="hidden.ax_step", y="hidden.ax_share")
    show_figure(
        cache.figure(fh.saturation_bar, per_step, cur.tokens, hd.SATURATION, labels),
        labels["title"],
        key="hid_fig_saturation",
    )
