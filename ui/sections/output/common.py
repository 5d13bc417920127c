"""What every page-3 section shares: the page name, URL binding and its table."""

from __future__ import annotations

import streamlit as st

from rnnviz.explain import output as out

from ...i18n import t
from ...page import arrow_rows
from ...page import table as page_table

PAGE = "output"
BIND = {"bind": "query-params"}
COLUMNS = {
    "step t": "col_step",
    "input token": "col_input_token",
    "context seen so far": "col_context",
    "target (next token)": "col_target_next",
    "target id": "col_target_id",
    "output": "col_output",
    "input": "col_input",
    "target": "col_target",
    "rank of target": "col_rank",
    "teacher forcing: fed": "col_tf_fed",
    "predicts (top 1)": "col_predicts",
    "true next": "col_true_next",
    "free run: fed": "col_free_fed",
    "picks": "col_picks",
    "p under model": "col_p_model",
    "row": "col_row",
    "word": "col_word",
    "p(target)": "col_p_target",
    "L_t (nats)": "col_loss_nats",
}
CELLS = {"(none: no next token)": "cell_none_next", "(none)": "cell_none", "◀ target": "cell_target"}


def _header(k: str) -> str:
    """A column's header in the learner's language ("top 3" keeps its number)."""
    if k in COLUMNS:
        return t(f"output.{COLUMNS[k]}")
    if k.startswith("top ") and k[4:].isdigit():
        return t("output.col_top", k=k[4:])
    return k


def _rows(rows: list[dict]) -> list[dict]:
    return [
        {
            _header(k): (
                t(f"output.{CELLS[v]}") if isinstance(v, str) and v in CELLS else v
            )
            for k, v in r.items()
        }
        for r in out.display_rows(rows)
    ]


def table_shown(rows: list[dict]):
    """The table as the page shows it (ui.stepped.table): its cells as the prose writes its
    numbers, its headers and fixed words in the learner's language, as an Arrow table (or a
    DataFrame where Arrow would not show it as pandas does: ui.page.arrow_rows)."""
    return arrow_rows(_rows(rows))


def table(rows: list[dict], **kw) -> None:
    """A table as the prose writes its numbers (4 significant digits, one type per column), its
    headers and its few fixed words in the learner's language; every column wide enough."""
    rows = _rows(rows)
    widths = {c: st.column_config.Column(width=w) for c, w in out.column_widths(rows).items()}
    page_table(rows, column_config=widths, **kw)
