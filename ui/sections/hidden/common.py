"""What every page-2 section shares: the page name, URL binding and the heatmaps' labels."""

from __future__ import annotations

import streamlit as st

from ...page import figure_labels

PAGE = "hidden"
BIND = {"bind": "query-params"}
# The folded sections below the step fragment that show the step too (the linear expansion at t,
# the cell kinds at t), and the step they last drew: a step moved in the fragment alone while one
# of them is open reruns the page, so they never show another step than the slider.
STEP_FOLDS = ("hid_phi", "hid_variants")
FOLDS_STEP = "hid_folds_step"


def folds_drew(t1: int) -> None:
    """An open folded section drew step t1 (1-based)."""
    st.session_state[FOLDS_STEP] = t1


def folds_behind(t1: int) -> bool:
    """Is an open folded section below showing another step than t1?"""
    if not any(st.session_state.get(k) for k in STEP_FOLDS):
        return False
    drawn = st.session_state.get(FOLDS_STEP)
    return drawn is not None and drawn != t1


def heat_labels(name: str) -> dict:
    return figure_labels(x="hidden.ax_step", y="hidden.ax_unit", colorbar=("hidden.ax_named", {"name": name}))
