"""Page 2: what to look at, one step written out (a_t = W_x x_t + memory + b_h, h_t = φ(a_t)) with
Play (redrawn alone on each tick), h_0, the shapes, and the whole sentence as a heatmap."""

from __future__ import annotations

import functools
import time
from types import SimpleNamespace

import pandas as pd
import streamlit as st

from rnnviz.explain import hidden as hd
from rnnviz.explain.home import hidden_peak
from rnnviz.explain.notes.facts import initial_state
from rnnviz.figures import hidden as fh
from rnnviz.formatting import num, num_inside, plain_math, sub

from ... import cache, session, stepped
from ...cellpick import follow_link
from ...i18n import current_lang, prose, t
from ...links import in_fragment_rerun
from ...model_text import prose_values
from ...page import figure_labels
from ...widgets import md_escape, share_step, shared_step, show_figure, step_button, step_form
from ...widgets import step_view as step_fragment
from .. import checkpoints, probe
from .common import BIND, PAGE, folds_behind, folds_drew, heat_labels

now = time.monotonic  # Play's clock (a test replaces it with a steady fake)
MEANING = {"x_t": "x", "h_{t-1}, h_t": "h", "W_x": "wx", "W_y": "wy", "W_h": "wh", "b_h": "b", "W_o": "wo"}
TOC = ("step", "sentence", "trajectory", "order", "phi", "params", "variants", "byhand")


def intro(cur: session.Current) -> None:
    st.title(t("hidden.title"))
    vals = prose_values(cur.model.cfg)
    vals |= {k: plain_math(vals[k]) for k in ("pre_text", "act_text")}  # plain text: hₜ₋₁, not h_{t-1}
    T = cur.trace.T
    bos = t("hidden.bos_steps", n=T - 1, T=T) if cur.vocab.has_specials else ""  # the sidebar counts T - 1
    st.markdown(prose(PAGE, "intro", label=md_escape(cur.label), T=T, H=cur.model.cfg.hidden_size,
                      bos_note=bos, **vals))


def look_here(cur: session.Current, steps: stepped.Steps) -> None:
    """The three things to look at, with this sentence's numbers (step by step), and the in-page
    contents."""
    h = cur.trace.h.numpy()  # (T, H)
    peak = hidden_peak(h)

    def text(t1: int) -> str:
        step = hidden_peak(h[t1 - 1 : t1])
        return prose(
            PAGE,
            "look",
            t=t1,
            tok=md_escape(cur.tokens[t1 - 1]),
            hmax=num_inside(step["value"]),
            hmax_u=step["unit"] + 1,
            peak=num_inside(peak["signed"]),  # with its sign: the heatmap's darkest cell
            peak_t=peak["t"] + 1,
            peak_tok=md_escape(cur.tokens[peak["t"]]),
        )

    stepped.markdown(steps, "hid_look", text, box="info")
    st.markdown(" · ".join(f"[{t('hidden.h_' + k)}](#hid-{k})" for k in TOC))


def playing(T: int) -> bool:
    """Is Play on? (Off for a one-step sentence.) The clock is dropped when it is off."""
    on = T > 1 and bool(st.session_state.get("hid_play", False))
    if not on:
        st.session_state.pop("hid_play_clock", None)
    return on


def step_and_sentence(cur: session.Current) -> int:
    """What to look at, the step view and the heatmap. A step move (slider, ◀ ▶) reruns the step
    fragment alone (ui/widgets.step_view), unless a folded section below that shows the step is
    open (then the page). While Play is on, the fragment is redrawn alone on each Play tick, so
    the steps come evenly. Where the chart code is served (ui/stepped.py), the parts the step
    drives follow the slider in the browser: the page run draws them for a window of steps, and
    the fragment holds the header, Play, ◀ ▶ and the slider alone; else the fragment draws them
    as Streamlit elements. Returns the step (1-based)."""
    T, on, live = cur.trace.T, playing(cur.trace.T), stepped.live()
    top = st.container()

    def view() -> int:
        if on:
            advance(T)
        st.header(t("hidden.h_step"), anchor="hid-step")
        now_on = st.toggle(
            t("hidden.play"),
            key="hid_play",
            disabled=T == 1,
            help=t("hidden.play_help", period=num(hd.PLAY_PERIOD)),
        )
        if bool(now_on) != on and T > 1:
            st.rerun(scope="app")  # the timer is set when the page is drawn: redraw it
        t1 = step_controls(cur, deferred=live and T > 1 and not on)  # Play moves the server's step
        if not on and folds_behind(t1):  # an open section below shows the step: redraw the page
            folds_drew(t1)
            st.rerun(scope="app")
        if live and in_fragment_rerun() and stepped.outside("hid_step", t1):  # past the steps carried
            st.rerun(scope="app")  # the page carries the window around t1
        if not live:
            steps = stepped.still("hid_step", t1)
            with top:
                look_here(cur, steps)
            step_view(cur, steps)
            sentence_part(cur, t1)
        follow_link(ignore=("hid_step",))  # Play moves the step on every tick: not a reason
        return t1

    t1 = st.fragment(view, run_every=hd.PLAY_PERIOD)() if on else step_fragment(view)
    if live:
        steps = stepped.around("hid_step", t1, T)
        with top:
            look_here(cur, steps)
        step_view(cur, steps)
        st.fragment(sentence_part)(cur, t1)
    return t1


def sentence_part(cur: session.Current, t1: int) -> None:
    """Predict first (the step of the largest |h_t|), then the whole sentence. Where the parts
    follow the slider, a fragment of its own: its controls (a vs h, the units, a cell) rerun it
    alone, at the step the slider is at now."""
    steps = stepped.followed("hid_step", t1, cur.trace.T)
    if checkpoints.hidden(cur):
        sentence(cur, steps)
    if steps.live:
        follow_link(ignore=("hid_step",))


def advance(T: int) -> None:
    """While playing, move the slider's state one step on each tick of the timer (none on other
    redraws); a step the learner chose meanwhile is kept and the count goes on from there."""
    shown = st.session_state.get("hid_step")
    shown = shown if isinstance(shown, int) else 1
    clock = st.session_state.get("hid_play_clock") or {}
    last = clock.get("last") if clock.get("shown") == shown else None  # just started, or moved
    step, last = hd.play_tick(shown, last, now(), T)
    st.session_state["hid_step"] = step
    st.session_state["hid_play_clock"] = {"last": last, "shown": step}


def _move(delta: int, T: int) -> None:
    st.session_state["hid_step"] = min(T, max(1, int(st.session_state.get("hid_step", 1)) + delta))
    share_step("hid_step")  # the other pages' step, the step fragment and the share link


def step_controls(cur: session.Current, deferred: bool = False) -> int:
    """◀ ▶ and the shared step slider; returns the 1-based step. deferred: in a step form (the
    parts follow the slider in the browser; ui/widgets.step_form)."""
    T = cur.trace.T
    with step_form("hid_step", deferred):
        c1, c2, c3 = st.columns([0.8, 0.8, 10], vertical_alignment="bottom")
        for where, label, key, delta, tip in ((c1, "◀", "hid_prev", -1, "hidden.prev"),
                                              (c2, "▶", "hid_next", 1, "hidden.next")):
            step_button(where, label, key, deferred, on_click=_move, args=(delta, T), disabled=T == 1,
                        help=t(tip), width="stretch")
        with c3:
            t1 = shared_step(t("hidden.step"), T, cur.vocab.has_specials, "hid_step", deferred=deferred,
                             help=t("hidden.step_help"))
    return t1


def step_view(cur: session.Current, steps: stepped.Steps) -> None:
    """a_t = W_x x_t + (memory) + b_h and h_t = φ(a_t) for each step, as a table and a bar chart."""
    model, tr, cfg = cur.model, cur.trace, cur.model.cfg
    if cfg.cell not in ("elman", "jordan"):  # gated cells: their step is written out on the Gates page
        st.info(t("hidden.elman_only", cell=cfg.cell))
        return
    tokens = tuple(cur.tokens)
    parts = _parts(model, tr, tokens)
    kept = _slides(model, tr, tokens, current_lang(), steps.first, steps.last) if steps.live else {}
    stepped.markdown(steps, "hid_step_text", parts.text, caption_of=parts.caption, slides=kept.get("text"))
    st.latex(prose_values(cfg)["step_formula"])
    left, right = st.columns([3, 2])
    with left:
        stepped.table(steps, "hid_terms", parts.terms, height=min(600, 38 + 35 * cfg.hidden_size),
                      slides=kept.get("terms"))
    with right:
        shapes(cur)
    stepped.table(steps, "hid_x_row", parts.x_row, slides=kept.get("x_row"))
    stepped.markdown(steps, "hid_column", parts.column, slides=kept.get("column"))
    stepped.chart(steps, "hid_fig_terms", parts.figure, t("hidden.fig_terms"), figs=kept.get("figs"))


@cache.kept_steps("hidden_step_slides", holds_figures=True)
def _slides(model, tr, tokens: tuple, lang: str, first: int, last: int) -> dict:
    """step_view's slides and figures for steps first..last (lang: the catalogue's, read by prose
    and t): shared by every session, never edited."""
    steps, parts = stepped.span("hid_step", first, last), _parts(model, tr, tokens)
    return {"text": stepped.markdown_slides(steps, parts.text, parts.caption),
            "terms": stepped.table_slides(steps, parts.terms),
            "x_row": stepped.table_slides(steps, parts.x_row),
            "column": stepped.markdown_slides(steps, parts.column),
            "figs": stepped.plain_figures(steps, parts.figure)}


def _parts(model, tr, tokens: tuple) -> SimpleNamespace:
    """Step t1's parts (t1 in 1..T), each a function of t1: text (its caption at step 1: h_0),
    the terms table, x_t's row, E's column and the terms chart. Each step's terms are made once,
    when a part first asks for them."""
    cfg = model.cfg
    vals = prose_values(cfg)
    rec = plain_math("W_y y_{t-1}" if cfg.cell == "jordan" else "W_h h_{t-1}")
    terms = functools.cache(lambda t1: hd.step_terms(model, tr, t1 - 1))
    cols = functools.cache(lambda t1: hd.input_column(model, tr, t1 - 1))

    def text(t1: int) -> str:
        peak = hidden_peak(terms(t1)["h"].double().numpy()[None, :])
        norms = hd.term_norms(terms(t1))
        return prose(
            PAGE,
            "step",
            t=t1,
            T=tr.T,
            tok=md_escape(tokens[t1 - 1]),
            H=cfg.hidden_size,
            rec=rec,
            n_wx=num(norms["Wx_x"]),
            n_wh=num(norms["Wh_h"]),
            n_b=num(norms["b"]),
            hmax=num_inside(peak["value"]),  # 0.999999, not 1, beside "every value in (-1, 1)"
            hmax_u=peak["unit"] + 1,
            first_note=t("hidden.first_note") if t1 == 1 else "",
            activation=vals["activation"],
            value_range=vals["value_range"],
        )

    def x_row(t1: int) -> pd.DataFrame:
        col = cols(t1)
        return pd.DataFrame([terms(t1)["x"].tolist()], index=[f"x{sub(t1)} = E[{col['id']}]ᵀ"],
                            columns=[f"{j + 1}" for j in range(col["d"])])

    def column(t1: int) -> str:
        col = cols(t1)
        return prose(PAGE, "column", t=t1, id=col["id"], d=col["d"], H=col["H"], V=col["V"],
                     err=num(col["err"]))

    def figure(t1: int):
        return cache.figure(fh.step_terms_bar, terms(t1), rec, vals["activation_short"],
                            labels=figure_labels(title="hidden.fig_terms", x="hidden.ax_unit",
                                                 y="hidden.ax_value", a="hidden.leg_a"))

    return SimpleNamespace(text=text, caption=lambda t1: h0_text(model, tr) if t1 == 1 else None,
                           terms=lambda t1: step_table(terms(t1), rec, cfg.nonlinearity),
                           x_row=x_row, column=column, figure=figure)


def step_table(terms: dict, rec: str, phi: str) -> pd.DataFrame:
    """One row per hidden unit: the three terms, their sum a_t, and h_t (full precision; shown
    with 4 significant digits by ui.page.four_digits)."""
    h_name = plain_math("h_t = a_t" if phi == "linear" else f"h_t = {phi}(a_t)")
    cols = {
        plain_math("W_x x_t"): terms["Wx_x"],
        rec: terms["Wh_h"],
        plain_math("b_h"): terms["b"],
        plain_math("a_t"): terms["a"],
        h_name: terms["h"],
    }
    df = pd.DataFrame(
        {k: v.double().numpy() for k, v in cols.items()}, index=[f"u{j + 1}" for j in range(len(terms["a"]))]
    )
    return df


def h0_text(model, tr) -> str:
    """h_0 = 0 is fixed, not learned: said where the first step uses it (Elman models)."""
    if model.cfg.cell != "elman" or model.cfg.bidirectional:
        return t("hidden.h0_other")
    facts = initial_state(model)
    err = hd.first_step_check(model, tr)
    return prose(PAGE, "h0", n_tensors=len(facts["parameters"]), H=facts["params_if_learned"],
                 h1_err=num(err))


def shapes(cur: session.Current) -> None:
    cfg = cur.model.cfg
    st.markdown(prose(PAGE, "shapes", d=cfg.embed_dim, H=cfg.hidden_size, K=cfg.K))
    rows = [{**r, "symbol": plain_math(r["symbol"]), "meaning": t(f"hidden.meaning_{MEANING[r['symbol']]}")}
            for r in hd.shape_table(cfg)]
    names = {
        "symbol": t("hidden.col_symbol"),
        "shape": t("hidden.col_shape"),
        "meaning": t("hidden.col_meaning"),
    }
    df = pd.DataFrame(rows).rename(columns=names)
    st.dataframe(df, hide_index=True, width="stretch")


def sentence(cur: session.Current, steps: stepped.Steps) -> None:
    """The whole sentence: h_t (or a_t) heatmap, time left to right, the step's column boxed, and
    chosen units as lines."""
    st.header(t("hidden.h_sentence"), anchor="hid-sentence")
    tr, cfg = cur.trace, cur.model.cfg
    show_a = st.toggle(t("hidden.show_a"), key="hid_show_a", **BIND)
    vals = prose_values(cfg)
    stepped.markdown(steps, "hid_heat_text", lambda t1: prose(
        PAGE, "heatmap", t=t1, activation=vals["activation"], saturation_hint=vals["saturation_hint"]))
    name = "a" if show_a else "h"
    values = (tr.a if show_a else tr.h).numpy()  # (T, H) or (T, 2H)
    split = cfg.hidden_size if cfg.bidirectional else None

    def heat(t1: int):
        return cache.figure(fh.time_heatmap, values, cur.tokens, t1 - 1, name, split,
                            title=t("hidden.fig_heat", name=name), labels=heat_labels(name))

    follow = download = None
    if steps.live:  # the box moves with the slider: each step's figure as a patch of this one's
        follow = stepped.steps_data(steps, {s: stepped.plain(heat(s)) for s in steps.window})
        download = stepped.shown_figure(steps, heat)  # the step shown when it is clicked
    probe.hidden_map(values, cur.tokens, heat(steps.at), "hid_fig_heat", ("hid_unit", "hid_at"), split, name,
                     steps=follow, download=download)
    units = list(range(values.shape[1]))
    picked = st.multiselect(
        t("hidden.units"),
        units,
        default=units[:4],
        format_func=lambda j: f"u{j + 1}",
        key="hid_units",
        **BIND,
    )
    if picked:
        show_figure(
            cache.figure(fh.unit_lines,
                values,
                cur.tokens,
                picked,
                name,
                labels=figure_labels(
                    title=("hidden.fig_lines", {"name": name}),
                    x="hidden.ax_step",
                    y=("hidden.ax_named", {"name": name}),
                ),
            ),
            t("hidden.fig_lines", name=name),
            key="hid_fig_units",
        )
