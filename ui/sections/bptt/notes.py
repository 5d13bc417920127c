"""The course notes next to the app: errors in the notes (computed literally, beside the correct
form), note 002's notation key and derivation with numbers, note 000's vector chain, and the
backward pass's cost."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain.notes import errata, facts, notation, silent
from rnnviz.formatting import num, plain_math, vector

from ... import cache, resources, session
from ...i18n import counted_frame, t
from ...model_text import prose_values
from ...page import folded
from .common import anchor, elman_1d, text, window_caption


def notes_errata(cur: session.Current) -> None:
    """'Errors in the notes': each claim as written, what it would give, and why."""
    anchor("notes")
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        pv = prose_values(cur.model.cfg)
        if elman_1d(cur):
            win = cache.jacobian_window(cur.model, cur.trace)
            e = cache.note002_errata(cur.model, cur.trace, win.start)
            r, g = e["recursion"], e["eigen"]
            text("notes-recursion", **{k: num(v) for k, v in r.items()})
            text(
                "notes-eigen" if g["above_one"] else "notes-eigen-below",
                **{k: num(g[k]) for k in ("rho_w", "rho_power", "peak", "last", "rho_j", "norm_w",
                                          "norm_power", "slope_thr")},
                n=g["n"], peak_d=g["peak_d"], saturated=g["saturated"],
                first=num(g["by_distance"][0] if g["by_distance"] else 1.0),
                **pv,
            )
            window_caption(win)
            _silent_slips(cur)
        else:
            text("not_elman")
        gc = resources.note003_gradient_check()
        text(
            "notes-gradcheck",
            error=gc["printed"]["error"] or "",
            gradcheck_verdict=t(f"bptt.gradcheck_{'passes' if gc['fixed']['gradcheck'] else 'fails'}"),
            finite=t(f"bptt.finite_{'yes' if gc['fixed']['finite'] else 'no'}",
                     n=f"{gc['fixed']['entries']:,}"),
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
    folded(t("bptt.errata_header"), "bptt_errata", _folded)


def _silent_slips(cur: session.Current) -> None:
    """note 002's dh_t/dW (a 3-tensor) and note 003's Gelfand limit (a Lyapunov rate)."""
    last = cur.trace.T - 1
    d = silent.dh_dW(cur.model, cur.trace, last)
    text("notes-dh-dw", shape=" × ".join(map(str, d["shape"])), entries=f"{d['entries']:,}",
         nonzero=f"{d['nonzero']:,}", t=last + 1, off=num(d["off"]))
    r = silent.product_rate(cur.model, cur.trace, J=cache.step_jacobians(cur.model, cur.trace))
    if r["n"] >= 2:
        text("notes-lyapunov", n=r["n"], **{k: num(r[k]) for k in ("rate", "root", "rho_w", "rho_j")})


def notation_key(cur: session.Current) -> None:
    """note 002's symbols against the app's, and its derivation on this sentence."""
    if not elman_1d(cur):
        return
    def _folded():  # the expander's content: computed only when it is open (issue 24)
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
    folded(t("bptt.notation_header"), "bptt_notation", _folded)


def vector_chain(cur: session.Current) -> None:
    """note 000: grad_{h_1} L_3 = J_2^T J_3^T grad_{h_3} L_3 with numbers, and two wrong orders."""
    if not elman_1d(cur):
        return
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        if cur.trace.T < 3 or not bool(cur.trace.valid[2]):  # step 3 must exist and have a loss L_3
            st.info(t("bptt.vector_need"))
            return
        v = facts.vector_chain(cur.model, cur.trace, 2, 0, J=cache.step_jacobians(cur.model, cur.trace))
        text(
            "vector-chain",
            g=num(v["norms"]["grad_h_s"]),
            right=num(v["norms"]["right"]),
            swapped=num(v["off_by"]["swapped"]),
            plain=num(v["off_by"]["no_transpose"]),
        )
        rows = [
            {t("bptt.col.order"): plain_math(t(f"bptt.order_{k}")),
             t("bptt.col.vector"): vector(v[k], shown=8)}
            for k in ("grad_h_s", "right", "swapped", "no_transpose")
        ]
        st.dataframe(counted_frame(pd.DataFrame(rows)), hide_index=True)
    folded(t("bptt.vector_header"), "bptt_vector", _folded)


def backward_cost(cur: session.Current) -> None:
    """The backward pass costs O(T H^2) multiply-adds, step after step: this sentence's count."""
    cfg = cur.model.cfg
    f = facts.backward_flops(cur.trace.T, cfg.embed_dim, cfg.hidden_size, cfg.K)
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        text(
            "cost",
            T=cur.trace.T,
            H=cfg.hidden_size,
            total=f"{f['total']:,}",
            recurrent=f"{f['recurrent']:,}",
            share=f"{f['recurrent'] / f['total']:.0%}",
        )
        st.dataframe(
            pd.DataFrame([{t("bptt.col.term"): plain_math(k.replace("^T", "ᵀ")), t("bptt.col.flops"): v}
                          for k, v in f["per_step"].items()]),
            hide_index=True,
        )
    folded(t("bptt.cost_header"), "bptt_cost", _folded)
