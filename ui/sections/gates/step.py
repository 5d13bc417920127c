"""Page 8: one gated step written out (LSTM or GRU): the cell's formulas once, then, for the step
chosen, every gate's pre-activation, value and the new state, with the model choice next to the
header. The formulas and the shapes follow the model choice only, so they are drawn outside the
step's own fragment: a step move redraws the numbers, not the formulas (issue 24: the formulas
were most of what Chromium redrew on a move, `python bench/bench_draw_work.py --pages gates`)."""

from __future__ import annotations

import functools

import pandas as pd
import streamlit as st

from rnnviz.explain import gates
from rnnviz.formatting import num, vector

from ... import cache, session, stepped
from ...i18n import counted_frame, current_lang, prose, t
from ...links import in_fragment_rerun
from ...widgets import guard, inner_part, md_escape, shared_step, step_form
from .runs import PAGE, Run, gated_run

LSTM_ROWS = (("pre_i", "A_i = W_{xi} x_t + b_{xi} + W_{hi} h_{t-1} + b_{hi}"), ("i", "i = \\sigma(A_i)"),
             ("pre_f", "A_f = W_{xf} x_t + b_{xf} + W_{hf} h_{t-1} + b_{hf}"), ("f", "f = \\sigma(A_f)"),
             ("pre_g", "A_g = W_{xg} x_t + b_{xg} + W_{hg} h_{t-1} + b_{hg}"), ("g", "g = \\tanh(A_g)"),
             ("pre_o", "A_o = W_{xo} x_t + b_{xo} + W_{ho} h_{t-1} + b_{ho}"), ("o", "o = \\sigma(A_o)"),
             ("c_prev", "c_{t-1}"), ("c", "c_t = f \\odot c_{t-1} + i \\odot g"),
             ("h", "h_t = o \\odot \\tanh(c_t)"))
GRU_ROWS = (("pre_r", "A_r = W_{xr} x_t + b_{xr} + W_{hr} h_{t-1} + b_{hr}"), ("r", "r = \\sigma(A_r)"),
            ("pre_z", "A_z = W_{xz} x_t + b_{xz} + W_{hz} h_{t-1} + b_{hz}"), ("z", "z = \\sigma(A_z)"),
            ("hn", "W_{hn} h_{t-1} + b_{hn}"),
            ("pre_n", "A_n = W_{xn} x_t + b_{xn} + r \\odot (W_{hn} h_{t-1} + b_{hn})"),
            ("n", "n = \\tanh(A_n)"), ("h_prev", "h_{t-1}"),
            ("h", "h_t = (1 - z) \\odot n + z \\odot h_{t-1}"))


def symbol(tex: str) -> str:
    """A row's quantity as the table names it: the left side of its formula ('A_i = ...' -> 'A_i')."""
    return tex.split(" = ", 1)[0]


def formulas(rows) -> str:
    """The cell's formulas, two to a line (a pre-activation beside its gate), as one aligned LaTeX
    block: every row of the table that is defined by a formula."""
    defined = [tex.replace(" = ", " &= ", 1) for _, tex in rows if " = " in tex]
    lines = [", &\\qquad ".join(defined[k:k + 2]) for k in range(0, len(defined), 2)]
    return "\\begin{aligned}" + " \\\\ ".join(lines) + "\\end{aligned}"


def the_cell(run: Run) -> None:
    """What the chosen gated model computes at every step: its blocks and shapes, and its formulas."""
    H, d = run.model.cfg.hidden_size, run.model.cfg.embed_dim
    lstm = run.model.cfg.cell == "lstm"
    st.markdown(prose(PAGE, "step_lstm" if lstm else "step_gru", H=H, d=d, G=4 * H if lstm else 3 * H))
    st.latex(formulas(LSTM_ROWS if lstm else GRU_ROWS))


def one_step(run: Run) -> None:
    """Step t of the chosen gated model, as Streamlit elements under its slider (the parts do not
    follow the slider in the browser: ui/stepped.live() is off)."""
    t1 = shared_step(t("gates.step"), run.trace.T, run.has_bos, key="gates_step")
    written_out(run, stepped.still("gates_step", t1))


def written_out(run: Run, steps: stepped.Steps) -> None:
    """Every pre-activation and gate with its shape, and one unit's update written with numbers,
    at the slider's step: live, for each step of the window (ui/stepped.py), made once per model,
    sentence, language and step for every session (the LSTM/GRU choice redraws them)."""
    if steps.live:
        at, rows, unit = _slides(run.model, run.trace, current_lang(), steps.first, steps.last,
                                 tuple(run.tokens))
        stepped.shown(steps, "gates_step_at", at)
        stepped.shown(steps, "gates_rows", rows, table=True)
        stepped.shown(steps, "gates_unit", unit)
        return
    words, table, unit = _step_parts(run.model, run.trace, run.tokens)
    st.markdown(words(steps.at))
    st.table(table(steps.at))
    st.markdown(unit(steps.at))


@cache.kept_steps("gates_step_slides")
def _slides(model, tr, lang: str, first: int, last: int, tokens: tuple) -> tuple[list, list, list]:
    """The three parts' slides for steps first..last (lang: the catalogue's, read by prose and t)."""
    steps = stepped.span("gates_step", first, last)
    words, table, unit = _step_parts(model, tr, tokens)
    quantity = t("gates.col.quantity")
    return (stepped.markdown_slides(steps, words), stepped.table_slides(steps, table, False, (quantity,)),
            stepped.markdown_slides(steps, unit))


def _step_parts(model, tr, tokens):
    """(words, table, unit): step t1's sentence above the table, its table of every quantity
    (the first 8 entries of each, from gates.gated_step), and its unit written out."""
    H, lstm = model.cfg.hidden_size, model.cfg.cell == "lstm"
    rows = LSTM_ROWS if lstm else GRU_ROWS
    step = functools.cache(lambda t1: gates.gated_step(model, tr, t1 - 1))  # t1 in 1..T (the window)
    quantity, shape, values = t("gates.col.quantity"), t("gates.col.shape"), t("gates.col.values")

    def words(t1: int) -> str:
        return prose(PAGE, "step_at", t=t1, tok=md_escape(tokens[t1 - 1]), H=H)

    def table(t1: int) -> pd.DataFrame:
        s = step(t1)
        return counted_frame(pd.DataFrame([{quantity: f"${symbol(tex)}$", shape: f"({H},)",
                                            values: vector(s[k], shown=8)} for k, tex in rows]))

    return words, table, lambda t1: unit_written_out(step(t1), t1, lstm)


def unit_written_out(s: dict, t1: int, lstm: bool) -> str:
    """The update of the unit that moved most at step t1 (s: gates.gated_step), with its numbers."""
    u = s["peak"]
    factors = ("f", "c_prev", "i", "g", "o") if lstm else ("z", "n", "h_prev")
    vals = {k: _factor(s[k][u]) for k in factors} | {k: _tex(s[k][u]) for k in ("c", "h") if k in s}
    return prose(PAGE, "unit_lstm" if lstm else "unit_gru", u=u + 1, t=t1, **vals)


def _tex(v) -> str:
    """num(v) for inside LaTeX: '2.71e-05' becomes '2.71 \\times 10^{-5}' (not 'e − 05')."""
    text = num(v)
    if "e" in text and text not in ("inf", "-inf"):
        mant, exp = text.split("e")
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return text


def _factor(v) -> str:
    """A number inside a written-out product: negatives in parentheses, 0.9 × (−0.5)."""
    return f"({_tex(v)})" if float(v) < 0 else _tex(v)


def step_section(cur: session.Current, runs: dict) -> Run:
    """The 'one step' section: header, the model choice next to it, the step written out."""
    st.subheader(t("gates.step_header"), anchor="step")
    run = gated_run(cur, runs)
    with guard():
        the_cell(run)
    if stepped.live() and run.trace.T > 1:  # the step written out follows the slider in the browser
        t1 = inner_part(_slider, run)  # a move runs nothing; its sync reruns the slider alone
        with guard():
            written_out(run, stepped.around("gates_step", t1, run.trace.T))
    else:
        inner_part(_written_out, run)  # its step slider reruns this part alone
    return run


def _slider(run: Run) -> int:
    """The step slider in a step form (ui/widgets.step_form); a step past the window the page
    carries draws the page, which carries the window around it."""
    with step_form("gates_step", deferred=True):
        t1 = shared_step(t("gates.step"), run.trace.T, run.has_bos, key="gates_step", deferred=True)
    if in_fragment_rerun() and stepped.outside("gates_step", t1):
        st.rerun(scope="app")
    return t1


def _written_out(run: Run) -> None:
    with guard():
        one_step(run)
