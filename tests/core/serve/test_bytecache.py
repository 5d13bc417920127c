"""The byte-bounded LRU: size estimates against known storage sizes, eviction order, budget."""
import threading

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine.trace import trace
from rnnviz.serve.bytecache import ByteLRU, nbytes


def test_nbytes_counts_storage_of_tensors_and_arrays():
    t = torch.zeros(200, 5000)            # float32: 4,000,000 bytes
    a = np.zeros((100, 10), dtype=np.float64)  # 8,000 bytes
    assert 4_000_000 <= nbytes(t) < 4_000_000 + 1000
    assert 8_000 <= nbytes(a) < 9_000
    assert nbytes([t, t]) < 4_000_000 + 2000   # the same tensor counts once
    assert nbytes({"x": t, "y": a}) >= 4_008_000


def test_nbytes_of_a_trace_grows_with_vocabulary():
    small = RNNModel(RNNConfig(vocab_size=5, embed_dim=3, hidden_size=4))
    big = RNNModel(RNNConfig(vocab_size=5000, embed_dim=8, hidden_size=8))
    ids = list(range(5)) * 40                     # T = 200
    tr_big = trace(big, ids, ids[1:] + [0])
    tr_small = trace(small, ids, ids[1:] + [0])
    assert nbytes(tr_big) >= 2 * 200 * 5000 * 4   # z and p, float32
    assert nbytes(tr_small) < nbytes(tr_big) / 50
    assert nbytes(big) >= 4 * (5000 * 8 * 2)      # E and W_o


def test_nbytes_of_a_figure_includes_its_data():
    z = np.random.default_rng(0).normal(size=(50, 40))
    fig = go.Figure(go.Heatmap(z=z))
    assert nbytes(fig) >= z.nbytes


def test_lru_evicts_least_recently_used_within_budget():
    cache = ByteLRU(300, size=len)
    cache.put("a", "x" * 100)
    cache.put("b", "y" * 100)
    cache.put("c", "z" * 100)
    assert cache.get("a") == "x" * 100        # a is now the most recent
    cache.put("d", "w" * 100)                  # over 300: b (least recent) goes
    assert "b" not in cache and "a" in cache and "c" in cache and "d" in cache
    assert cache.total == 300 and cache.evictions == 1


def test_lru_replaces_and_refuses_oversize():
    cache = ByteLRU(100, size=len)
    cache.put("a", "x" * 60)
    cache.put("a", "x" * 30)
    assert cache.total == 30 and len(cache) == 1
    assert cache.put("huge", "x" * 101) is False
    assert "huge" not in cache and cache.total == 30
    assert cache.pop("a") == "x" * 30 and cache.total == 0


def test_get_or_compute_computes_once():
    cache, calls = ByteLRU(10_000), []
    for _ in range(3):
        assert cache.get_or_compute("k", lambda: calls.append(1) or np.ones(10)).sum() == 10
    assert len(calls) == 1 and cache.hits == 2 and cache.misses == 1


def test_budget_holds_under_concurrent_puts():
    cache = ByteLRU(5_000, size=len)

    def writer(n):
        for i in range(200):
            cache.put((n, i), "x" * (10 + i % 50))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.total <= 5_000
    assert cache.total == sum(len(cache.get(k)) for k in list(cache._data))


def test_rejects_bad_budget():
    with pytest.raises(ValueError):
        ByteLRU(0)


def test_trim_to_budget_drops_oldest_but_keeps_the_current():
    from rnnviz.serve.bytecache import trim_to_budget
    store = {"a": "x" * 100, "b": "y" * 100, "c": "z" * 100}
    assert trim_to_budget(store, 150, keep={"a"}, size=len) == ["b", "c"]
    assert list(store) == ["a"]
    store = {"a": "x" * 100, "b": "y" * 100}
    assert trim_to_budget(store, 200, size=len) == [] and len(store) == 2
    models = {f"m{i}": RNNModel(RNNConfig(vocab_size=5000, embed_dim=128, hidden_size=128))
              for i in range(3)}
    one = nbytes(models["m0"])
    assert one >= 4 * 2 * 5000 * 128                       # E and W_o alone
    assert trim_to_budget(models, 2 * one + 10) == ["m0"]
