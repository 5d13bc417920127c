"""ui.page.arrow_rows: a table's rows go to st.dataframe as an Arrow table, without pandas, and
show what the pandas frame showed (the same columns, cells and counted vector tails)."""
from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest
import torch

from rnnviz.formatting import vector, vector_rows
from ui.i18n import counted_frame
from ui.page import arrow_rows

pytestmark = pytest.mark.pages


def _as_pandas(rows, headers=None, lang="en") -> pd.DataFrame:
    """What the table showed before: a pandas frame, renamed, counted."""
    return counted_frame(pd.DataFrame(rows).rename(columns=headers or {}), lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rows_show_the_same_cells_as_the_pandas_frame(lang):
    gen = torch.Generator().manual_seed(0)
    rows = vector_rows([("x_1", torch.randn(12, generator=gen)), ("h_1", torch.randn(5, generator=gen))])
    rows += [{"vector": "long", "1": vector(torch.randn(40, generator=gen), shown=4)}]  # a "… (40 in all)]" tail
    table = arrow_rows(rows, {"vector": "向量"}, lang=lang)
    assert isinstance(table, pa.Table)
    shown = table.to_pandas()
    before = _as_pandas(rows, {"vector": "向量"}, lang)
    assert list(shown.columns) == list(before.columns)
    assert shown.fillna("").astype(str).values.tolist() == before.fillna("").astype(str).values.tolist()
    tail = shown.iloc[2, 1]
    assert ("(40 in all)]" in tail) == (lang == "en") and "…" in tail


def test_numbers_keep_their_types_and_a_missing_cell_or_a_nan_is_empty():
    rows = [{"t": 1, "token": "the", "p": 0.25}, {"t": 2, "token": "cat"}, {"t": 3, "p": float("nan")}]
    table = arrow_rows(iter(rows), lang="en")
    assert [f.type for f in table.schema] == [pa.int64(), pa.string(), pa.float64()]
    assert table.column("p").to_pylist() == [0.25, None, None]
    assert table.column("token").to_pylist() == ["the", "cat", None]


@pytest.mark.parametrize("rows, headers", [
    ([{"a": 1, "b": "x"}, {"a": "two", "b": "y"}], None),  # a column of mixed kinds
    ([{"a": None, "b": "x"}], None),  # a column with no value at all
    ([{"a": 1, "b": 2}], {"a": "same", "b": "same"}),  # two headers renamed alike
    ([{0: 1.5, "b": "x"}], None),  # a key that is not a string
    ([{"a": 2 ** 64, "b": "x"}], None),  # an integer Arrow cannot hold
])
def test_what_arrow_cannot_show_as_pandas_did_goes_as_the_pandas_frame(rows, headers):
    shown = arrow_rows(rows, headers, lang="en")
    assert isinstance(shown, pd.DataFrame)
    assert shown.equals(_as_pandas(rows, headers))


@pytest.mark.parametrize("n", [3, 10, 11, 20, 21, 200])
def test_a_table_of_up_to_20_rows_shows_every_row(monkeypatch, n):
    """Streamlit's own height shows 10 rows and scrolls the rest inside the table: a 中文 sentence's
    11 steps hid its <eos> row, which the prose names. Up to 20 rows the table is as tall as its
    rows (35 px each, the header too, and 3 px of border); a longer one scrolls; a height the page
    gives wins."""
    import ui.page as page

    calls = []
    monkeypatch.setattr(page.st, "dataframe", lambda data, **kw: calls.append((len(data), kw)))
    rows = [{"step": k + 1, "token": f"w{k}"} for k in range(n)]
    page.table(rows)
    page.table(pd.DataFrame(rows))
    page.table(rows, height=120)
    want = 35 * (n + 1) + 3 if 10 < n <= 20 else None
    assert [(size, kw.get("height")) for size, kw in calls] == [(n, want), (n, want), (n, 120)]
