"""Old links keep working. Before the page used codes, its radios put their shown English
labels in the URL (emb_rule=Plain+gradient+descent), the exercise number was emb_ex_seed, and a
page-level emb_preset radio picked the notes' example. Each old value is turned into today's
before any widget reads the URL; an old emb_preset that named the notes switches the sidebar's
model to the notes model (where the notes' numbers now appear)."""
from __future__ import annotations

import streamlit as st

from ...links import set_initial_param

OLD_VALUES = {
    "emb_rule": {"Plain gradient descent": "gd", "SGD + weight decay": "wd", "Adam (its 2nd step)": "adam",
                 "Tied input/output weights": "tied"},
    "emb_gsrc": {"from the backward pass of this sentence": "backward", "typed in by you": "typed"},
    "emb_ex_kind": {"the lookup E[id]": "lookup", "the row after one step": "update"},
}
RENAMED = {"emb_ex_seed": "emb_ex_n"}
NOTES_PRESETS = {"Notes example (V=5, d=3)", "Travel vocabulary (note 004)", "notes", "travel"}


def _set_link_value(key: str, value: str) -> None:
    """The URL, Streamlit's private copy of the first URL, and the link check's copy, at once."""
    st.query_params[key] = value
    set_initial_param(key, value)
    initial = st.session_state.get("_link_initial")
    if isinstance(initial, dict) and key in initial:
        initial[key] = [value]


def upgrade_old_link() -> None:
    """Translate an old link's values once per session (call before any widget of the page)."""
    if st.session_state.get("_emb_link_upgraded"):
        return
    st.session_state["_emb_link_upgraded"] = True
    for key, table in OLD_VALUES.items():
        value = st.query_params.get(key)
        if value in table:
            _set_link_value(key, table[value])
    for old, new in RENAMED.items():
        value = st.query_params.get(old)
        if value is not None:
            st.session_state[old] = value  # the link check sees it used
            if new not in st.query_params:
                _set_link_value(new, value)
            del st.query_params[old]
    preset = st.query_params.get("emb_preset")
    if preset is not None:
        st.session_state["emb_preset"] = preset  # used: the link check stays quiet
        del st.query_params["emb_preset"]
        if preset in NOTES_PRESETS and st.session_state.get("model") != "notes":
            st.session_state["pending_model"] = "notes"
            st.rerun()
