"""Neighbours without a V x V matrix (issue 22, R2): one row of cosines (nearest), chunks of rows
(neighbour_lists), the sentence's T x T from E[ids]; and the bounded views of page 1.
Oracle: the full float64 cosine matrix (cosine_matrix), sorted as the page always sorted it."""
import math

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from rnnviz import limits
from rnnviz.explain import embedding as emb


def oracle_nearest(E, i, k):
    C = emb.cosine_matrix(E)[i]  # (V,) float64, the full matrix's row
    order = [j for j in sorted(range(len(C)), key=lambda j: (math.isnan(C[j]), -C[j])) if j != i]
    return [(j, float(C[j])) for j in order[:k]]


def tricky_E(V=40, d=6, seed=0):
    """Small-integer rows (every dot product exact, so a tie is a tie in any summation order)
    with ties (repeated and doubled rows) and zero rows."""
    g = torch.Generator().manual_seed(seed)
    E = torch.randint(-3, 4, (V, d), generator=g).to(torch.float64)
    E[5] = E[3]             # the same direction twice: a tie
    E[7] = 2 * E[3]         # and again, longer: still a tie in cosine
    E[11] = 0.0             # zero rows: NaN cosines, last
    E[12] = 0.0
    E[20] = -E[3]
    return E


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 5, 39, 60])
def test_nearest_equals_the_full_matrix_row(seed, k):
    E = tricky_E(seed=seed)
    for i in range(E.shape[0]):
        got, want = emb.nearest(E, i, k), oracle_nearest(E, i, k)
        assert [j for j, _ in got] == [j for j, _ in want]
        for (_, a), (_, b) in zip(got, want):
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@pytest.mark.parametrize("chunk", [1, 3, 7, 256])
def test_chunked_neighbour_lists_equal_the_full_matrix(chunk):
    E = tricky_E()
    rows = list(range(E.shape[0]))
    got = emb.neighbour_lists(E, rows, 5, chunk=chunk)
    assert got == {i: [j for j, _ in oracle_nearest(E, i, 5)] for i in rows}
    assert emb.neighbour_lists(E, [], 5) == {}


def test_sentence_cosines_equal_the_full_matrix_block():
    E, ids = tricky_E(), [3, 5, 11, 20, 3]
    C = emb.cosine_matrix(E)[ids][:, ids]
    torch.testing.assert_close(emb.sentence_cosines(E, ids), C, equal_nan=True)


class Largest(TorchDispatchMode):
    """Records the largest tensor any torch op produces."""

    def __init__(self):
        super().__init__()
        self.numel = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in (out if isinstance(out, (tuple, list)) else [out]):
            if isinstance(t, torch.Tensor):
                self.numel = max(self.numel, t.numel())
        return out


def test_v5000_neighbours_never_build_v_by_v(monkeypatch):
    V, d = 5000, 128
    E = torch.randn(V, d, generator=torch.Generator().manual_seed(0))
    monkeypatch.setattr(emb, "cosine_matrix", lambda *a: pytest.fail("cosine_matrix of all of E"))
    with Largest() as seen:
        emb.nearest(E, 17, 5)
        emb.kept_neighbours(E, E * 2, 17, 5)
        lists = emb.neighbour_lists(E, range(V), 5)
    assert len(lists) == V
    assert seen.numel <= emb.NEIGHBOUR_CHUNK * V      # chunks of rows, never V x V
    assert seen.numel < V * V // 10


def test_drift_of_a_big_vocabulary_needs_no_v_by_v(monkeypatch):
    V = 3000
    g = torch.Generator().manual_seed(1)
    E0 = torch.randn(V, 16, generator=g)
    E = E0 + 0.1 * torch.randn(V, 16, generator=g)
    itos = [f"w{i}" for i in range(V)]
    with Largest() as seen:
        drift = emb.neighbour_drift(E, E0, itos)
    assert seen.numel < V * V // 4 and len(drift["kept"]) == V


def test_shown_rows_whole_up_to_the_bound_then_the_sentence_first():
    assert emb.shown_rows(limits.MAX_WHOLE_VOCAB, [3]) == list(range(limits.MAX_WHOLE_VOCAB))
    ids = [4990, 17, 17, 2500]
    rows = emb.shown_rows(5000, ids, focus=2500)
    assert len(rows) == limits.MAX_SHOWN_ROWS and rows == sorted(rows)
    assert {4990, 17, 2500, 2499, 2501} <= set(rows)
    wide = emb.shown_rows(5000, ids, focus=2500, width=128)
    assert len(wide) * 128 <= limits.MAX_SHOWN_CELLS and {4990, 17, 2500} <= set(wide)
    assert emb.positions(rows, ids) == [rows.index(4990), rows.index(17), rows.index(17), rows.index(2500)]


def test_picker_options_whole_up_to_the_bound_then_the_sentence_first():
    small = [f"w{i}" for i in range(limits.MAX_PICKER_OPTIONS)]
    assert emb.picker_options(small, ["w5"]) == small
    big = [f"w{i}" for i in range(5000)]
    opts = emb.picker_options(big, ["w4999", "nope", "w3000"])
    assert len(opts) == limits.MAX_PICKER_OPTIONS and opts[:2] == ["w4999", "w3000"]
    assert len(set(opts)) == len(opts)


def test_outer_rows_keep_their_numbers_and_cut_columns():
    g = torch.arange(1.0, 41.0, dtype=torch.float64)
    itos = [f"w{i}" for i in range(50)]
    full = emb.outer_rows(10, g, itos, 3)
    cut = emb.outer_rows(10, g, itos, 3, dims=32)
    assert [r["k"] for r in full] == list(range(7, 14)) and len(full[0]) == 3 + 40
    assert all(len(r) == 3 + 32 and all(r[c] == f[c] for c in r) for r, f in zip(cut, full))
