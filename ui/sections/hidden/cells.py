"""Page 2: the parameter count (independent of T, the unrolled picture) and Elman / Jordan /
bidirectional on the same sentence (folded)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain import hidden as hd
from rnnviz.figures import hidden as fh
from rnnviz.formatting import num

from ... import cache, session
from ...cache import cached_trace
from ...i18n import prose, t
from ...page import figure_labels, folded
from ...widgets import code_radio, follow_part, named_part, show_figure
from .common import PAGE, folds_drew, heat_labels


def params(cur: session.Current) -> None:
    """Folded: the count is independent of T; the unrolled picture."""
    st.header(t("hidden.h_params"), anchor="hid-params")
    cfg, T = cur.model.cfg, cur.trace.T
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        tot = hd.param_totals(cfg, T)
        st.markdown(prose(PAGE, "params", T=T, **{k: f"{v:,}" for k, v in tot.items()}))
        c1, c2 = st.columns([2, 3])
        df = pd.DataFrame(hd.param_terms(cfg))
        c1.dataframe(
            df.rename(columns={"formula": t("hidden.col_formula"), "count": t("hidden.col_count")}),
            hide_index=True,
            width="stretch",
        )
        with c2:
            show_figure(
                cache.figure(fh.params_vs_T, tot["shared"], max(2 * T, 20), T, labels=params_labels()),
                t("hidden.fig_params"),
                key="hid_fig_params",
            )
        rec = "W_y" if cfg.cell == "jordan" else "W_h"
        show_figure(
            cache.figure(fh.unrolled,
                cur.tokens,
                rec,
                labels=figure_labels(title="hidden.fig_unrolled", more="hidden.fig_unrolled_more"),
            ),
            t("hidden.fig_unrolled"),
            key="hid_fig_unrolled",
        )
    folded(t("hidden.params_expander"), "hid_params", _folded)


def params_labels() -> dict:
    return figure_labels(
        "hidden.leg_",
        "shared",
        "per_step",
        "now",
        title="hidden.fig_params",
        x="hidden.ax_T",
        y="hidden.ax_params",
    )


VARIANTS_VIEW = "hid_variants_view"  # fragment key: the cell-kind radio reruns its section alone


def variants(cur: session.Current, t1: int) -> None:
    """Folded: the chosen cell kind on the same sentence (weights shared where names match). Open,
    it is a fragment of its own: choosing another kind redraws this section, not the page."""
    st.header(t("hidden.h_variants"), anchor="hid-variants")
    folded(t("hidden.variants_expander"), "hid_variants", named_part, VARIANTS_VIEW, variants_view, cur, t1,
           opens_for=("hid_cell",))


def variants_view(cur: session.Current, t1: int) -> None:
    """The expander's content (computed only when it is open, issue 24): the radio, the
    equations and prose of the chosen kind, and its heatmap beside the sentence's own."""
    kind = code_radio(t("hidden.cell"), hd.VARIANTS, "hid_cell", lambda k: t(f"hidden.kind_{k}"),
                      on_change=follow_part, args=(VARIANTS_VIEW,))
    for eq in hd.variant_equations(kind):
        st.latex(eq)
    H = cur.model.cfg.hidden_size
    st.markdown(prose(PAGE, f"variant-{kind}", K=cur.model.cfg.K, H=H, H2=2 * H))
    folds_drew(t1)
    variant_compare(cur, kind, t1)


def variant_compare(cur: session.Current, kind: str, t1: int) -> None:
    cfg = cur.model.cfg
    if cfg.cell not in ("elman", "jordan"):  # the variants share weights with an Elman / Jordan model
        st.info(t("hidden.elman_only", cell=cfg.cell))
        return
    same = kind == ("bidirectional" if cfg.bidirectional else cfg.cell)
    if same:
        v_model, shared, fresh = cur.model, [n for n, _ in cur.model.named_parameters()], []
    else:
        v_model, shared, fresh = cache.cell_variant(cur.model, kind)
    v_tr = cached_trace(v_model, cur.input_ids, cur.target_ids)
    vc = hd.variant_comparison(kind, cur.trace.h, v_tr.h, cfg.hidden_size)
    if same:
        compare = t("hidden.compare_same")
    elif kind == "bidirectional":
        compare = t("hidden.compare_bidi", diff=num(vc["forward_max_diff"]))
    else:
        compare = t("hidden.compare_final", diff=num(vc["final_diff"]))
    fresh_note = (" " + prose(PAGE, "variant-fresh", fresh=", ".join(fresh), seed=0)) if fresh else ""
    st.markdown(
        prose(
            PAGE,
            "variant-shared",
            shared=", ".join(shared) or t("hidden.none"),
            fresh_note=fresh_note,
            compare=compare,
        )
    )
    split = cfg.hidden_size if v_model.cfg.bidirectional else None
    title = t("hidden.fig_variant", kind=t(f"hidden.kind_{kind}")) + (
        t("hidden.fig_variant_bidi") if split else ""
    )
    show_figure(
        cache.figure(fh.time_heatmap, v_tr.h.numpy(), cur.tokens, t1 - 1, "h", split, title=title,
                     labels=heat_labels("h")),
        title,
        key="hid_fig_variant",
    )


def _tex(rows) -> str:
    body = r"\\".join("&".join(f"{x:g}" for x in r) for r in rows)
    return r"\begin{bmatrix}" + body + r"\end{bmatrix}"
