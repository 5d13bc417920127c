"""Vanishing and exploding: norm against distance, the notes' scalar chains, float32's limits."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain import bptt as chains
from rnnviz.figures import bptt as figs
from rnnviz.formatting import num

from ... import cache, session
from ...i18n import t
from ...model_text import prose_values
from ...page import folded
from ...widgets import labelled_choice as coded
from ...widgets import show_figure
from .common import BIND, anchor, headers, labels, text, window_caption
from .norms import View


def distance(cur: session.Current, view: View) -> None:
    """||dh_s/dh_t||_2 against s - t, with the bound (max ||J_k||)^d and rho(W_h)^d."""
    anchor("vanish")
    dist = cache.distance_data(view.model, view.trace, view.win.start)  # the window's steps, as N2
    rho = num(dist["rho"]) if dist["rho"] is not None else t("bptt.na")
    text(
        "distance",
        maxj=num(dist["max_J"]),
        rho=rho,
        scale=f"{view.scale:g}",
        rho_j=num(dist["rho_j"]),
        **prose_values(cur.model.cfg),
    )
    window_caption(view.win)
    show_figure(
        cache.figure(figs.distance_plot, dist, chains.PRACTICAL_FLOOR,  # a step move: the same figure
                     labels=labels("distance", *figs.DISTANCE_LABELS)),
        "bptt-distance",
        key="bptt_distance",
    )


def scalar() -> None:
    """The notes' scalar chains w^n, and the long-range 0.9^195 / 1.1^195."""
    st.subheader(t("bptt.scalar_header"))
    names = [t("bptt.scalar_option", w=f"{w:g}", n=n) for w, n in chains.SCALAR_PRESETS.values()]
    preset = coded(st.selectbox, t("bptt.scalar_choice"), chains.SCALAR_PRESETS, names, "bptt_chain")
    w, n = chains.SCALAR_PRESETS[preset]
    prods = chains.scalar_chain(w, n)
    text("scalar", w=f"{w:g}", n=n, value=num(float(prods[-1])))
    tanh = chains.scalar_tanh_products(w, n)
    text("scalar-tanh", u=f"{tanh['u']:g}", n=n, prod=num(float(tanh["products"][-1])),
         bound=num(float(tanh["bound"][-1])), slopes=num(float(tanh["products"][-1] / tanh["bound"][-1])))
    show_figure(
        figs.scalar_chain_plot(tanh["products"], w, labels=labels("scalar", *figs.SCALAR_LABELS),
                               bound=tanh["bound"]),
        "bptt-scalar",
        key="bptt_scalar",
    )
    lr = [chains.long_range(r) for r in chains.LONG_RANGE["rhos"]]
    text("longrange", n=lr[0]["n"], small=num(lr[0]["factor"], 3), big=num(lr[1]["factor"], 3))
    st.markdown(t("bptt.to_attention"))


def _at(pc: dict, key: str, n: int) -> str:
    return t("bptt.at_k", k=pc[key]) if pc[key] is not None else t("bptt.not_within", n=n)


def precision() -> None:
    """The same chain in float32 and float64: where float32 leaves the normal range, hits 0 or inf."""
    anchor("precision")
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        c1, c2 = st.columns(2)
        pw = c1.select_slider(
            t("bptt.factor_w"), [0.1, 0.25, 0.5, 0.9, 1.1, 2.0, 4.0, 10.0], value=0.5, key="bptt_pw", **BIND
        )
        pn = c2.slider(t("bptt.steps_n"), 10, 400, 200, key="bptt_pn", **BIND)
        pc = chains.precision_chain(pw, pn)
        text(
            "precision",
            sub=_at(pc, "subnormal", pn),
            zero=_at(pc, "zero", pn),
            inf=_at(pc, "inf", pn),
            floor=_at(pc, "floor", pn),
            eps=num(chains.FLOAT32_EPS, 3),
        )
        show_figure(
            figs.precision_plot(
                pc,
                pw,
                chains.FLOAT32_SMALLEST_NORMAL,
                chains.FLOAT32_MAX,
                chains.PRACTICAL_FLOOR,
                labels=labels("precision", *figs.PRECISION_LABELS),
            ),
            "bptt-precision",
            key="bptt_precision",
        )
        big_w = max(pw, 1 / pw)
        st.caption(t("bptt.nan_caption", w=f"{big_w:g}", n=pn))
        st.dataframe(
            headers(
                pd.DataFrame(chains.nan_examples(big_w, pn)).map(
                    lambda v: num(v) if isinstance(v, float) else v
                )
            ),
            hide_index=True,
        )
    folded(t("bptt.precision_open"), "bptt_precision", _folded, opens_for=('bptt_pw', 'bptt_pn'))
