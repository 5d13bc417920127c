"""Title, what to look at first, the in-page table of contents, the step choice."""

from __future__ import annotations

import streamlit as st

from rnnviz.explain.bptt import growth_verdict
from rnnviz.formatting import num

from ... import cache, session
from ...i18n import t
from ...widgets import shared_step, step_form
from .common import P, elman_1d, text, window_caption

SECTIONS = ("paths", "shared", "jacobians", "vanish", "precision", "gradcheck", "clipping", "notes", "byhand")


def intro() -> None:
    st.title(t("bptt.title"))
    text("intro")


def jacobians(cur: session.Current):
    """J (T, H, H) of the current model and sentence: computed once, passed to every view."""
    return cache.step_jacobians(cur.model, cur.trace)


def look_slot():
    """The place of 'What to look at', at the top; filled by look_here once the W_h scale is read."""
    return st.empty()


def look_here(cur: session.Current, view, slot) -> None:
    """'What to look at' with this sentence's numbers: T, and how much a gradient grows or
    shrinks from the last step back to the first at the CURRENT W_h scale (view.N2, the same
    numbers as the badge beside the slider, also after a preset or a link)."""
    v = growth_verdict(view.N2)
    verdict = t(f"bptt.verdict.{v['kind']}", factor=num(v["factor"]), n=v["n"])
    with slot.container(border=True):
        st.markdown(t("bptt.look_header"))
        text("look", T=cur.trace.T, verdict=verdict, scale=f"{view.scale:g}")
        window_caption(view.win)


def toc() -> None:
    links = " · ".join(f"[{t(f'bptt.h.{s}')}](#bptt-{s})" for s in SECTIONS)
    st.markdown(f"**{t('bptt.toc')}** {links}")


def not_elman(cur: session.Current) -> None:
    if cur.model.cfg.attention:
        st.info(t("bptt.attention_model"))
        return
    if not elman_1d(cur):
        st.info(
            t(
                "bptt.not_elman_kind",
                cell=cur.model.cfg.cell,
                bi=t("bptt.bi_yes") if cur.model.cfg.bidirectional else "",
            )
        )
        text("not_elman")


def step(cur: session.Current, deferred: bool = False) -> int:
    """The step t (0-based) the sections below explain, shared with the other pages. deferred:
    the slider in a step form (the parts follow it in the browser; ui/widgets.step_form)."""
    deferred = deferred and cur.trace.T > 1
    with step_form("bptt_step", deferred):
        t1 = shared_step(t("bptt.step"), cur.trace.T, cur.vocab.has_specials, "bptt_step", deferred=deferred,
                         help=t("bptt.step_help"))
    return t1 - 1


__all__ = ["P"]
