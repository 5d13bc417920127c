"""Gradient checking by finite differences, clipping, and the "try it by hand" chain."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.engine import gradcheck
from rnnviz.explain import bptt as chains
from rnnviz.explain.notes.errata import note003_first_layer
from rnnviz.figures import bptt as figs
from rnnviz.formatting import num

from ... import cache, resources, session
from ...i18n import t
from ...page import folded
from ...widgets import exercise, exercise_number, show_figure
from ...widgets import labelled_choice as coded
from .common import BIND, anchor, elman_1d, frame, headers, labels, table, text


def gradcheck_view(cur: session.Current) -> None:
    """Finite differences against autograd: the notes' setting or the current model."""
    anchor("gradcheck")
    codes = ("notes", "model")
    setting = coded(st.radio, t("bptt.gc_setting"), codes, [t(f"bptt.gc_{k}") for k in codes], "bptt_gc")
    if setting == "notes":
        rows, sweep = resources.notes_check()
        text("gradcheck_notes", mark=gradcheck.PASS_MARK)
        table(rows)
        _sweep(sweep)
    elif elman_1d(cur):
        text("gradcheck_model", mark=gradcheck.PASS_MARK)
        table(cache.model_gradient_check(cur.model, cur.input_ids, cur.target_ids))
    else:
        text("not_elman")


# rnnviz's sweep rows keep their plain keys (API); the table shows the page's notation
_SWEEP_COLUMNS = {"||dL/dW_x||": "‖∂L/∂W_x‖", "||dL/dW||, W = [W_x W_h]": "‖∂L/∂W‖, W = [W_x W_h]"}


def _sweep(sweep: list[dict]) -> None:
    """note 003's T sweep: the mean loss's ||dL/dW_x||, the sum's, and the long-range part."""
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        parts = note003_first_layer()
        text(
            "sweep",
            first=num(sweep[0]["||dL/dW_x||"]),
            last=num(sweep[-1]["||dL/dW_x||"]),
            sum_first=num(parts[0]["sum"]),
            sum_last=num(parts[-1]["sum"]),
            long_first=num(parts[0]["long_range"]),
            long_last=num(parts[-1]["long_range"]),
        )
        frame(pd.DataFrame(sweep).rename(columns=_SWEEP_COLUMNS))
        names = {k: t(f"bptt.sweep_{k}") for k in ("mean", "sum", "long_range")}
        show_figure(
            figs.t_sweep_plot(parts, labels=labels("sweep", *figs.SWEEP_LABELS), names=names),
            "bptt-sweep",
            key="bptt_sweep",
        )
    folded(t("bptt.sweep_header"), "bptt_sweep_open", _folded)


def clipping() -> None:
    """clip_grad_norm_ on an exploding setting (its own scale: a different W_h slider)."""
    anchor("clipping")
    c1, c2 = st.columns(2)
    explode = c1.select_slider(
        t("bptt.clip_scale"),
        [1.0, 3.0, 6.0, 10.0],
        value=6.0,
        key="bptt_explode",
        **BIND,
        help=t("bptt.clip_scale_help"),
    )
    max_norm = c2.select_slider(
        t("bptt.max_norm_label"), [0.1, 0.5, 1.0, 5.0, 10.0, 100.0], value=1.0, key="bptt_maxnorm", **BIND
    )
    demo, steps = resources.clipping(explode, max_norm)
    text(
        "clipping" if demo["was_clipped"] else "clipping-none",
        before=num(demo["norm before"]),
        after=num(demo["norm after"]),
        cos=num(demo["cosine"]),  # 4 significant digits, as every number on screen
        max_norm=max_norm,
    )
    show_figure(
        figs.clip_bar(
            demo["norm before"], demo["norm after"], max_norm, labels=labels("clip", *figs.CLIP_LABELS)
        ),
        "bptt-clip",
        key="bptt_clip",
    )
    names = (t("bptt.clip_row_none"), t("bptt.clip_row_clipped", max_norm=f"{max_norm:g}"))
    frame(headers(pd.DataFrame([{**row, "update": name} for row, name in zip(steps, names)])))


def byhand() -> None:
    """A scalar chain with slopes: multiply n factors w * phi'(a_k)."""
    anchor("byhand")
    ex = chains.chain_exercise(exercise_number("bptt_ex") - 1)
    text("byhand", w=ex["w"], n=ex["n"], slopes=", ".join(map(str, ex["slopes"])))
    exercise(
        "bptt_ex",
        ask=lambda: st.number_input(t("bptt.answer"), value=None, format="%.6f", key="bptt_answer"),
        check=lambda answer: chains.check_chain(ex, answer),
    )
