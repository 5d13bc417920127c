"""Step Jacobians: the W_h scale with presets and a live verdict, J_t's parts, the all-pairs
heatmap (forward or backward direction), gradient flow, and the chain behind one cell."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
import torch

from rnnviz import limits
from rnnviz.engine import cellpath
from rnnviz.engine.jacobians import jacobian_factors
from rnnviz.explain import bptt as chains
from rnnviz.figures import bptt as figs
from rnnviz.formatting import num

from ... import cache, session
from ...cellpick import pick_cell
from ...charts import chart
from ...i18n import t
from ...model_text import prose_values
from ...page import folded
from ...widgets import FOLLOW, download_figure, follow_share, show_figure
from ...widgets import labelled_choice as coded
from .common import BIND, P, anchor, elman_1d, labels, text, window_caption, window_note

SCALES = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0]


@dataclass(frozen=True)
class View:
    """The model the Jacobian views show: the current one, or a copy with W_h scaled."""

    scale: float
    model: object
    trace: object
    J: torch.Tensor  # (T, H, H)
    N: torch.Tensor  # (w, w) in the chosen norm, steps win.start..T-1
    N2: torch.Tensor  # (w, w) spectral (the bound needs it)
    ord_: object
    win: object  # rnnviz.engine.jacwindow.Window: the steps the all-pairs views cover


def _preset(value: float) -> None:
    st.session_state["bptt_scale"] = value
    follow_share()  # an open share box: the link with the new scale


def scale_control(cur: session.Current, J: torch.Tensor) -> View:
    """'Scale W_h by' with vanish / neutral / explode presets and the live verdict beside it."""
    anchor("jacobians")
    elman = cur.model.cfg.cell == "elman"
    c1, c2 = st.columns([3, 2])
    scale = c1.select_slider(
        t("bptt.scale"),
        SCALES,
        value=1.0,
        key="bptt_scale",
        **BIND,
        **FOLLOW,
        disabled=not elman,
        help=t("bptt.scale_help"),
    )
    norms = ("2", "fro")
    names = [t(f"bptt.norm_{k}") for k in norms]
    # (a lesson may hide it)
    ord_ = coded(c2.radio, t("bptt.norm"), norms, names, "bptt_ord", horizontal=True, **FOLLOW)
    ord_ = 2 if ord_ == "2" else "fro"
    cols = c1.columns(3)
    for col, (name, value) in zip(cols, chains.SCALE_PRESETS.items()):
        col.button(
            t(f"bptt.preset.{name}", v=f"{value:g}"),
            key=f"bptt_preset_{name}",
            on_click=_preset,
            args=(value,),
            disabled=not elman,
            width="stretch",
        )
    scale = scale if elman else 1.0
    m2 = cur.model if scale == 1.0 else chains.scaled_model(cur.model, scale)
    tr2 = cur.trace if scale == 1.0 else cache.cached_trace(m2, cur.input_ids, cur.target_ids)
    J2 = J if scale == 1.0 else cache.step_jacobians(m2, tr2)
    win = cache.jacobian_window(cur.model, cur.trace)  # same T and state size at every scale
    N2 = cache.jacobian_norms(m2, tr2, 2, win.start)
    N = N2 if ord_ == 2 else cache.jacobian_norms(m2, tr2, ord_, win.start)
    return View(scale, m2, tr2, J2, N, N2, ord_, win)


def verdict(view: View) -> None:
    """The live verdict of the chosen scale (after the page's checkpoint: it gives the answer)."""
    v = chains.growth_verdict(view.N2)
    with st.container(border=True):
        st.caption(t("bptt.verdict_label", scale=f"{view.scale:g}"))
        said = t(f"bptt.verdict.{v['kind']}", factor=num(v["factor"]), n=v["n"])
        st.markdown(f"**{said}**")
        window_caption(view.win)


def jacobian_view(cur: session.Current, view: View, t_: int) -> None:
    """J_t = diag(phi'(a_t)) W_h at the chosen step, its parts side by side."""
    if not elman_1d(cur):
        return
    pv = prose_values(cur.model.cfg)
    jf = jacobian_factors(view.model, view.trace, t_, view.J)
    smin, smax = chains.slope_range(jf["slope"])
    text(
        "jacobian",
        t=t_ + 1,
        smin=num(smin),
        smax=num(smax),
        wnorm=num(jf["norm_W"]),
        jnorm=num(jf["norm_J"]),
        wmax=num(jf["max_W"]),
        jmax=num(jf["max_J"]),
        **pv,
    )
    phi, L = cur.model.cfg.nonlinearity, labels("jacobian", *figs.JACOBIAN_LABELS)
    slope, W_h, J = jf["slope"].numpy(), jf["W_h"].numpy(), jf["J"].numpy()  # (H,), (H, H), (H, H)
    # two charts in a row, each built once per input: W_h's is the same at every step, so a
    # step move sends it as a reference to the copy the browser has (not its 48 KB again)
    for col, fig, key in zip(st.columns([0.4, 0.6], gap="small"),
                             (cache.figure(figs.jacobian_weights, W_h, labels=L),
                              cache.figure(figs.jacobian_step, slope, J, t_, phi, labels=L)),
                             ("bptt_jacobian_weights", "bptt_jacobian")):
        with col:
            chart(fig, width="stretch", key=f"{key}_chart")
    # the download is the three parts as one figure, made on click
    download_figure(lambda: figs.jacobian_parts(slope, W_h, J, t_, nonlinearity=phi, labels=L),
                    "bptt-jacobian", key="bptt_jacobian")


def heatmap(cur: session.Current, view: View) -> tuple[int, int, str]:
    """All-pairs ||dh_s/dh_t|| (log colour); a bidirectional model offers both directions.
    A click on a cell (or its two numbers) chooses it: returns (s, t, direction), 0-based."""
    cfg = cur.model.cfg
    N = view.N
    direction = "fwd"
    if cfg.bidirectional:
        dirs = ("fwd", "bwd")
        direction = coded(st.radio, t("bptt.direction"), dirs, [t(f"bptt.dir_{k}") for k in dirs], "bptt_dir",
                          horizontal=True, **FOLLOW)
        if direction == "bwd":
            N = cache.backward_jacobian_norms(view.model, view.trace, view.ord_, view.win.start)
        text(
            "heatmap-bidirectional",
            direction=t(f"bptt.dir_{direction}"),
            H=cfg.hidden_size,
            H2=2 * cfg.hidden_size,
        )
    text(
        "heatmap",
        T=view.trace.T,
        limit=limits.MAX_JACOBIAN_T,
        **chains.map_counts(N),
        **prose_values(cfg),
    )
    window_note(view.win, view.J.shape[1])
    title = t("bptt.fig.heatmap.title", norm=t(f"bptt.norm_short_{'2' if view.ord_ == 2 else 'fro'}"))
    fig = cache.figure(figs.log_norm_heatmap,
        N.numpy(),
        cur.tokens,
        title,
        t("bptt.fig.heatmap.colorbar"),
        "‖∂h_s/∂h_t‖",
        labels=labels("heatmap", *figs.HEATMAP_LABELS),
        start=view.win.start,  # the axes keep the true step numbers of the window
    )
    T, first = view.trace.T, view.win.first
    default = (T, first) if direction == "fwd" else (first, T)
    cell = pick_cell(fig, "bptt-norms", "bptt_norms", ("bptt_cell_s", "bptt_cell_t"),
                     (t("bptt.cell_s_row"), t("bptt.cell_t_col")), ((1, T), (1, T)), default, (first, first))
    if view.scale == 1.0:
        def _folded():  # the expander's content: computed only when it is open (issue 24)
            text("flow")
            _, F = cache.gradient_flow(cur.model, cur.trace)
            show_figure(
                figs.log_norm_heatmap(
                    F.numpy(),
                    cur.tokens,
                    t("bptt.fig.flow.title"),
                    t("bptt.fig.heatmap.colorbar"),
                    "‖∂L_s/∂h_t‖",
                    labels=labels("heatmap", *figs.HEATMAP_LABELS),
                ),
                "bptt-flow",
                key="bptt_flow",
            )
        folded(t("bptt.flow_header"), "bptt_flow", _folded, follow=follow_share)
    return cell[0] - 1, cell[1] - 1, direction


def chain(cur: session.Current, view: View, cell: tuple[int, int, str]) -> None:
    """The clicked cell opened: its factors J_s ... J_(t+1) as a strip, with what-if toggles."""
    s, t_, direction = cell
    if s == t_:
        st.caption(t("bptt.same_step"))
        return
    if (direction == "fwd") != (t_ < s):  # no path runs against the reading direction
        st.caption(t("bptt.swapped" if direction == "fwd" else "bptt.swapped_bwd"))
        s, t_ = t_, s
    st.subheader(t("bptt.strip_header", s=s + 1, t=t_ + 1))
    c1, c2 = st.columns(2)
    elman = view.model.cfg.cell == "elman"
    flat = c1.toggle(t("bptt.whatif_flat"), key="bptt_whatif_flat", bind="query-params", **FOLLOW,
                     help=t("bptt.whatif_flat_help"))
    rho = c2.toggle(t("bptt.whatif_rho"), key="bptt_whatif_rho", bind="query-params", **FOLLOW,
                    disabled=not elman,
                    help=t("bptt.whatif_rho_help" if elman else "bptt.whatif_rho_elman"))
    rho = rho and elman
    strip = cache.cell_strip(view.model, view.trace, s, t_, direction, view.ord_, _J=view.J)
    alt = None
    if flat or rho:  # the same cell recomputed with the what-if factors
        alt = cache.cell_strip(view.model, view.trace, s, t_, direction, view.ord_, flat, rho)
    _strip_text(view, strip, alt, s, t_)
    show_figure(
        figs.factor_strip(strip["rows"], s, t_, strip["largest_drop"], strip["start"],
                          None if alt is None else alt["rows"],
                          labels=labels("strip", *figs.STRIP_LABELS)
                          | {"slope": t(f"bptt.fig.strip.slope_{cellpath.slope_name(view.model.cfg.cell)}")}),
        "bptt-strip",
        key="bptt_strip",
    )


def _strip_text(view: View, strip: dict, alt: dict | None, s: int, t_: int) -> None:
    """The cell's value, where it fell most, and the what-if value, in words."""
    win = view.win
    if min(s, t_) < win.start:
        st.caption(t("bptt.chain_outside", first=win.first, last=win.last))
    rows = strip["rows"]
    drop = rows[strip["largest_drop"]] if strip["largest_drop"] is not None else None
    text("strip", s=s + 1, t=t_ + 1, n=len(rows), value=num(strip["value"]), log=f"{strip['log10']:.2f}",
         norm=t(f"bptt.norm_short_{'2' if view.ord_ == 2 else 'fro'}"))
    if drop is not None:
        st.markdown(t("bptt.strip_drop", k=drop["k"] + 1, drop=f"{-drop['drop']:.2f}",
                      factor=num(drop["factor"]), slope=num(drop["slope"])))
    if alt is not None:
        st.markdown(t("bptt.strip_whatif", value=num(alt["value"]), log=f"{alt['log10']:.2f}",
                      diff=f"{alt['log10'] - strip['log10']:+.2f}"))


__all__ = ["P", "View"]
