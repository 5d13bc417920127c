"""Where ∂L/∂h_t comes from, the delta recursion, and the shared-weight sums."""

from __future__ import annotations

import pandas as pd
import plotly.io as pio
import streamlit as st

from rnnviz.engine.jacobians import delta_steps
from rnnviz.explain import bptt as chains
from rnnviz.figures import bptt as figs
from rnnviz.formatting import num, plain_subscripts

from ... import cache, session, stepped
from ...i18n import current_lang, prose, t
from ...page import folded
from ...widgets import md_escape
from .common import P, anchor, elman_1d, frame, labels, table, text


def paths(cur: session.Current, steps: stepped.Steps, data: dict | None = None) -> None:
    """∂L/∂h_t as a sum over the losses at t and after, bar per source loss, for each step of
    `steps` (ui/stepped.py; 1-based): where live, their slides and figures made once per model,
    sentence, language and step for every session (_slides). data: the chart's steps as
    paths_fit made them for these steps, if it did."""
    anchor("paths")
    model, tr, tokens = cur.model, cur.trace, tuple(cur.tokens)
    kept = _slides(model, tr, tokens, current_lang(), steps.first, steps.last) if steps.live else {}
    if data is not None and (data["at"], data["first"]) != (steps.at, steps.first):
        data = None
    stepped.markdown(steps, "bptt_paths_text", lambda s: _words(model, tr, tokens, s),
                     slides=kept.get("text"))
    stepped.chart(steps, "bptt_paths", lambda s: paths_figure(model, tr, tokens, s), "bptt-paths",
                  figs=kept.get("figs"), data=data)


@cache.kept_steps("bptt_paths_slides", holds_figures=True)
def _slides(model, tr, tokens: tuple, lang: str, first: int, last: int) -> dict:
    """paths' slides and figures for steps first..last (lang: the catalogue's, read by prose and
    t): shared by every session, never edited."""
    steps = stepped.span("bptt_step", first, last)
    return {"text": stepped.markdown_slides(steps, lambda s: _words(model, tr, tokens, s)),
            "figs": stepped.plain_figures(steps, lambda s: paths_figure(model, tr, tokens, s))}


def _words(model, tr, tokens: tuple, s: int) -> str:
    """Where ∂L/∂h_s (1-based) comes from, in words, with its numbers (markdown)."""
    t_, part = s - 1, cache.grad_sources(model, tr, s - 1)  # cached step Jacobians
    norms = chains.paths_norms(part, tr.grad_h[t_])
    direct = (
        prose(P, "paths_direct", t=s, direct=num(norms["direct"]))
        if part["has_direct"]
        else prose(P, "paths_no_direct", t=s)
    )
    later = (
        prose(
            P,
            "paths_later",
            n_later=len(part["later_steps"]),
            later=num(part["later_norm"]),
            names=_names(part["later_steps"]),
        )
        if part["later_steps"]
        else prose(P, "paths_no_later")
    )
    none = " " + prose(P, "paths_none", none=num(part["none_norm"])) if tr.T > 1 else ""
    return prose(P, "paths", t=s, tok=md_escape(tokens[t_]), direct_part=direct, later_part=later,
                 total=num(norms["total"]), none_part=none)


def paths_figure(model, tr, tokens, s: int):
    """The sources of ∂L/∂h_s (1-based), a bar per source loss; built once per step and sentence
    (a step moved back to pays nothing)."""
    src = cache.grad_sources(model, tr, s - 1)
    return cache.figure(figs.paths_bar, src["parts"].numpy(), src["steps"], s - 1, list(tokens),
                        model.cfg.hidden_size, labels=labels("paths", *figs.PATHS_LABELS))


PATHS_BUDGET = 150_000  # bytes: the paths chart's other steps a page visit may carry (visit <= 400 KB)


def paths_fit(cur: session.Current, at: int) -> dict | None:
    """The paths chart's steps around `at` (1-based), as stepped.chart sends them, if they fit
    PATHS_BUDGET, else None. Each step's chart has a bar per later loss for every unit, so a long
    sentence's steps do not (a 49-step sentence: about 110 KB a step); then the step fragment
    draws the chart at each move, as before."""
    first, last = stepped.window(at, cur.trace.T)
    figs_ = _slides(cur.model, cur.trace, tuple(cur.tokens), current_lang(), first, last)["figs"]
    data = stepped.steps_data(stepped.Steps("bptt_step", at, first, last, True), figs_)
    return data if len(pio.to_json(data, validate=False)) <= PATHS_BUDGET else None


def _names(steps: list[int]) -> str:
    """$L_{3}$, $L_{4}$, $L_{5}$ (LaTeX, as the prose around it) — or $L_{3}, L_{4}, \\dots, L_{71}$
    when there are many (a long sentence)."""
    if len(steps) > 6:
        return f"$L_{{{steps[0] + 1}}}, L_{{{steps[1] + 1}}}, \\dots, L_{{{steps[-1] + 1}}}$"
    return ", ".join(f"$L_{{{s + 1}}}$" for s in steps)


def recursion(cur: session.Current, t_: int) -> None:
    """delta_t = phi'(a_t) * (W_o^T e_t + W_h^T delta_{t+1}), row by row from the end."""
    if not elman_1d(cur):
        return
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        ds = delta_steps(cur.model, cur.trace)
        c = {k: t(f"bptt.col.{k}") for k in ("step", "token", "own", "later", "slope", "delta", "unit")}
        rows = [
            {c["step"]: r["step"] + 1, c["token"]: cur.tokens[r["step"]]}
            | {c[k]: r[k] for k in ("own", "later", "slope", "delta")}
            for r in chains.recursion_rows(ds)
        ]
        text("delta", t=t_ + 1)
        frame(pd.DataFrame(rows))
        st.caption(t("bptt.unit_caption", t=t_ + 1))
        H = cur.model.cfg.hidden_size
        frame(
            pd.DataFrame(
                {
                    c["unit"]: [f"u{j + 1}" for j in range(H)],
                    "φ'(a_t)": ds["slope"][t_].numpy(),
                    "W_oᵀ e_t": ds["from_output"][t_].numpy(),
                    "Wₕᵀ δₜ₊₁": ds["from_later"][t_].numpy(),
                    "δ_t": ds["delta"][t_].numpy(),
                }
            ),
            height=min(35 * (H + 1) + 3, 400),
        )
    folded(t("bptt.recursion_header"), "bptt_recursion", _folded)


def shared(cur: session.Current) -> None:
    """dL/dW_h = sum_t delta_t h_{t-1}^T: T outer products summed, equal to autograd."""
    if not elman_1d(cur):
        return
    anchor("shared")
    summ = cache.shared_summary(cur.model, cur.trace)  # no (T, K, H) stack of W_o's terms
    terms = summ["params"]
    text("shared", max_diff=num(terms["W_h"]["max_diff"]), T=cur.trace.T)
    c = {
        k: t(f"bptt.col.{k}")
        for k in (
            "step",
            "token",
            "term_norm",
            "running",
            "param",
            "term",
            "sum_norm",
            "auto_norm",
            "max_diff",
        )
    }
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        frame(
            pd.DataFrame(
                [
                    {
                        c["step"]: k + 1,
                        c["token"]: cur.tokens[k],
                        c["term_norm"]: float(summ["W_h_term"][k]),
                        c["running"]: float(summ["W_h_running"][k]),
                    }
                    for k in range(cur.trace.T)
                ]
            )
        )
    folded(t("bptt.shared_terms"), "bptt_shared", _folded)
    table(
        [
            {
                c["param"]: plain_subscripts(r["param"]),  # Wₕ, as the prose writes it
                c["term"]: term,
                c["sum_norm"]: r["sum_norm"],
                c["auto_norm"]: r["auto_norm"],
                c["max_diff"]: r["max_diff"],
            }
            for r, term in zip(
                chains.shared_param_rows(terms), ("δₜ hₜ₋₁ᵀ", "δₜ xₜᵀ", "δₜ", "eₜ hₜᵀ", "eₜ")
            )
        ]
    )
    dc = chains.double_counted(cur.model, cur.trace)
    # "against {right} for the sum above": the W_h row's own figure, as the paragraph above and the
    # table quote it (double_counted's own sum rounds differently in float32)
    text("double-count", wrong=num(dc["off_wrong"]), rel=f"{dc['rel']:.0%}",
         right=num(terms["W_h"]["max_diff"]))
