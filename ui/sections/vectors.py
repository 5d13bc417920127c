"""Vectors beside the sentence that names them, as a small table (issue 18: "vectors in tables,
not sentences"): one row per vector, one column per component, 4 significant digits."""
from __future__ import annotations

import streamlit as st

from rnnviz.formatting import vector_rows

from ..i18n import t
from ..page import table


def vector_table(named, name_header: str | None = None) -> None:
    """named: [(label, values)], labels already escaped/translated by the caller."""
    table(vector_rows(named, name_header or t("vectors.name")))


def beside(text: str, named, name_header: str | None = None, ratio=(3, 2)) -> None:
    """The sentence on the left and its vectors' table on the right (stacked on a phone)."""
    left, right = st.columns(list(ratio), vertical_alignment="center")
    left.markdown(text)
    with right:
        vector_table(named, name_header)
