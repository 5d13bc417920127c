"""The course notes next to the app: errors in the notes (computed literally, beside the correct
form), note 002's notation key and derivation with numbers, note 000's vector chain, and the
backward pass's cost."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain.notes import errata, facts, notation
from rnnviz.formatting import num, vector

from ... import cache, session
from ...i18n import counted_frame, t
from ...model_text import prose_values
from .common import anchor, elman_1d, text, window_caption


def notes_errata(cur: session.Current) -> None:
    """'Errors in the notes': each claim as written, what it would give, and why."""
    anchor("notes")
    with st.expander(t("bptt.errata_header")):
        pv = prose_values(cur.model.cfg)
        if elman_1d(cur):
            win = cache.jacobian_window(cur.model, cur.trace)
            e = cache.note002_errata(cur.model, cur.trace, win.start)
            r, g = e["recursion"], e["eigen"]
            text("notes-recursion", **{k: num(v) for k, v in r.items()})
            text(
                "notes-eigen",
                rho_w=num(g["rho_w"]),
                n=g["n"],
                rho_power=num(g["rho_power"]),
                peak=num(g["peak"]),
                peak_d=g["peak_d"],
                last=num(g["last"]),
                saturated=g["saturated"],
                thr=num(g["thr"]),
                rho_j=num(g["rho_j"]),
                **pv,
            )
            window_caption(win)
        else:
            text("not_elman")
        gc = cache.note003_gradient_check()
        text(
            "notes-gradcheck",
            error=gc["printed"]["error"] or "",
            gradcheck_verdict=t(f"bptt.gradcheck_{'passes' if gc['fixed']['gradcheck'] else 'fails'}"),
        )
        f = errata.float32_floor()
        text(
            "notes-floor",
            eps=num(f["eps"]),
            small_stored=num(f["small_stored"]),
            small_err=f["small_err"],
            tiny=num(f["tiny"]),
            subnormal=num(f["subnormal"]),
        )


def notation_key(cur: session.Current) -> None:
    """note 002's symbols against the app's, and its derivation on this sentence."""
    if not elman_1d(cur):
        return
    with st.expander(t("bptt.notation_header")):
        text("notation")
        c = {k: t(f"bptt.col.{k}") for k in ("note", "app", "shape", "meaning")}
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        c["note"]: r["note 002"],
                        c["app"]: r["app"],
                        c["shape"]: r["shape"],
                        c["meaning"]: t(f"bptt.meaning.{i}"),  # the core's English, translated
                    }
                    for i, r in enumerate(notation.key_rows())
                ]
            ),
            hide_index=True,
        )
        b = cache.note002_derivation(cur.model, cur.trace)
        text("derivation", corrected=num(b["delta_h_corrected"]), printed=num(b["delta_h_as_printed"]))
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        c["note"]: r["note"],
                        c["app"]: r["app"],
                        t("bptt.col.vs_autograd"): num(r["vs_autograd"]),
                        t("bptt.col.vs_hand"): num(r["vs_hand_bptt"]),
                    }
                    for r in b["params"]
                ]
            ),
            hide_index=True,
        )
        st.caption(t("bptt.correction"))


def vector_chain(cur: session.Current) -> None:
    """note 000: grad_{h_1} L_3 = J_2^T J_3^T grad_{h_3} L_3 with numbers, and two wrong orders."""
    if not elman_1d(cur):
        return
    with st.expander(t("bptt.vector_header")):
        if cur.trace.T < 3 or not bool(cur.trace.valid[2]):  # step 3 must exist and have a loss L_3
            st.info(t("bptt.vector_need"))
            return
        v = facts.vector_chain(cur.model, cur.trace, 2, 0, J=cache.step_jacobians(cur.model, cur.trace))
        text(
            "vector-chain",
            g=num(float(v["grad_h_s"].norm())),
            right=num(float(v["right"].norm())),
            swapped=num(v["off_by"]["swapped"]),
            plain=num(v["off_by"]["no_transpose"]),
        )
        rows = [
            {t("bptt.col.order"): t(f"bptt.order_{k}"), t("bptt.col.vector"): vector(v[k], shown=8)}
            for k in ("grad_h_s", "right", "swapped", "no_transpose")
        ]
        st.dataframe(counted_frame(pd.DataFrame(rows)), hide_index=True)


def backward_cost(cur: session.Current) -> None:
    """The backward pass costs O(T H^2) multiply-adds, step after step: this sentence's count."""
    cfg = cur.model.cfg
    f = facts.backward_flops(cur.trace.T, cfg.embed_dim, cfg.hidden_size, cfg.K)
    with st.expander(t("bptt.cost_header")):
        text(
            "cost",
            T=cur.trace.T,
            H=cfg.hidden_size,
            total=f"{f['total']:,}",
            recurrent=f"{f['recurrent']:,}",
            share=f"{f['recurrent'] / f['total']:.0%}",
        )
        st.dataframe(
            pd.DataFrame([{t("bptt.col.term"): k, t("bptt.col.flops"): v} for k, v in f["per_step"].items()]),
            hide_index=True,
        )
