"""The byte-bounded LRU: size estimates against known storage sizes, eviction order, budget."""
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnviz import RNNConfig, RNNModel, limits, trace
from rnnviz.serve.bytecache import _MALLOC_TRIM, Budget, ByteLRU, give_back_memory, nbytes

ROOT = Path(__file__).resolve().parents[3]


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
    fig = go.Figure(go.Heatmap(z=z, customdata=[[f"{v:.3f}" for v in row] for row in z]))
    assert nbytes(fig) >= z.nbytes
    # read off the figure's own dicts, not a copy of them: within 10 % of its JSON's estimate
    assert abs(nbytes(fig) - nbytes(fig.to_plotly_json())) <= 0.1 * nbytes(fig.to_plotly_json())


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


# ---- one byte budget over named caches (issue 22, R4) ----------------------------------------


class Clock:
    """A fake clock: tests move time by hand, never sleep."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcd"), st.integers(0, 9), st.integers(1, 120)), max_size=60),
       st.integers(50, 400))
def test_budget_is_respected_across_caches(ops, budget):
    b = Budget(budget, size=len)
    caches = {n: b.cache(n, 150 if n == "d" else None) for n in "abcd"}
    for name, key, size in ops:
        kept = caches[name].put(key, "x" * size)
        assert kept == (size <= budget and (name != "d" or size <= 150))
        assert b.total <= budget
        assert b.total == sum(c.total for c in caches.values())
        assert caches["d"].total <= 150
        if kept:
            assert caches[name].get(key) == "x" * size   # the newest entry always stays


def test_budget_evicts_least_recently_used_of_all_caches():
    b = Budget(300, size=len)
    t, j = b.cache("trace"), b.cache("jacobian")
    t.put(1, "a" * 100)
    j.put(1, "b" * 100)
    t.put(2, "c" * 100)
    assert t.get(1) == "a" * 100            # trace 1 is now the most recent
    j.put(2, "d" * 100)                      # over 300: jacobian 1 (least recent of all) goes
    assert 1 not in j and 1 in t and 2 in t and 2 in j
    assert b.evictions == 1 and b.total == 300
    j.put(3, "e" * 150)                      # then trace 2 and trace 1, in that order
    assert 2 not in t and 1 not in t and 2 in j and 3 in j


def test_a_cache_cap_evicts_only_its_own_entries():
    b = Budget(1000, size=len)
    small, other = b.cache("small", 200), b.cache("other")
    other.put("o", "z" * 100)
    for k in range(3):
        small.put(k, "y" * 100)
    assert 0 not in small and 1 in small and 2 in small and "o" in other
    assert small.total == 200 and b.total == 300


def test_entries_expire_after_the_ttl_on_access_and_by_sweep():
    clock = Clock()
    b = Budget(1000, ttl=60, clock=clock, size=len)
    c = b.cache("c")
    c.put("old", "a" * 10)
    c.put("used", "b" * 10)
    clock.now = 50
    assert c.get("used") == "b" * 10         # an access renews the entry
    clock.now = 61
    assert c.get("old") is None and b.expired == 1      # expired on access
    assert "used" in c
    c.put("new", "c" * 10)
    clock.now = 111                           # "used" idle for 61 s, "new" for 50 s
    assert b.sweep() == 1 and "used" not in c and "new" in c
    assert b.total == 10
    clock.now = 1000
    assert b.sweep() == 1 and b.total == 0 and len(c) == 0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["put", "get", "sweep"]), st.sampled_from("ab"),
                          st.integers(0, 5), st.integers(0, 30)), max_size=50))
def test_a_sweep_drops_exactly_the_idle_entries_in_any_order_of_use(ops):
    """sweep() stops at the first entry still fresh (entries are kept in order of last use):
    what it drops is what a scan of every entry would drop, whatever order puts and gets came in."""
    clock = Clock()
    b = Budget(10_000, ttl=40, clock=clock, size=len)
    caches = {n: b.cache(n) for n in "ab"}
    last_used = {}                                   # (name, key) -> time of last put or hit
    for op, name, key, wait in ops:
        clock.now += wait
        if op == "put":
            caches[name].put(key, "x")                 # a put sweeps too
            last_used[(name, key)] = clock.now
            last_used = {k: used for k, used in last_used.items() if clock.now - used <= 40}
        elif op == "get":
            if caches[name].get(key) is not None:
                last_used[(name, key)] = clock.now
            else:
                last_used.pop((name, key), None)     # missing, or expired on access
        else:
            idle = {k for k, used in last_used.items() if clock.now - used > 40}
            assert b.sweep() == len(idle)
            for k in idle:
                del last_used[k]
        assert {(n, k) for n in "ab" for k in range(6) if b.contains(n, k)} == \
            {k for k, used in last_used.items() if clock.now - used <= 40}


def test_an_entry_stays_while_a_learner_who_used_it_is_here_and_goes_ttl_after_they_leave():
    """A learner reading one page keeps the other pages' results (used by them, they are still
    connected); they go ttl + a sweep after the learner leaves, or live_ttl after their last use."""
    clock, who, here = Clock(), {"now": None}, set()
    b = Budget(10_000, ttl=40, clock=clock, size=len, user=lambda: who["now"], alive=lambda: here,
               live_ttl=300)
    c = b.cache("c")
    who["now"] = "ann"
    here.add("ann")
    c.put("ann's page 3", "x" * 10)
    who["now"] = "bob"
    here.add("bob")
    c.put("bob's page 3", "y" * 10)
    c.put("shared", "z" * 10)
    who["now"] = "ann"
    assert c.get("shared") == "z" * 10           # used by both
    who["now"] = None                            # the sweeper's thread: nobody
    clock.now = 100                              # everything idle past the ttl; both still here
    assert b.sweep() == 0 and len(c) == 3
    here.discard("bob")                          # bob closes his tab
    clock.now = 139                              # the sweep at 100 counted them as used then
    assert b.sweep() == 0
    clock.now = 141
    assert b.sweep() == 1 and "bob's page 3" not in c and "shared" in c   # ann still uses "shared"
    clock.now = 290
    assert b.sweep() == 0 and len(c) == 2
    clock.now = 329                              # counted as used at 290
    assert b.sweep() == 0
    clock.now = 331                              # idle 41 s, and ann has not used them for 300 s (live_ttl)
    assert b.sweep() == 2 and len(c) == 0 and b.total == 0


def test_a_held_entry_asked_for_keeps_the_order_the_sweep_relies_on():
    """contains() on an idle entry a learner still holds counts it as used and moves it to the
    end: a sweep, which stops at the first entry still fresh, still drops the idle ones after it."""
    clock, who = Clock(), {"now": "ann"}
    b = Budget(10_000, ttl=40, clock=clock, size=len, user=lambda: who["now"], alive=lambda: {"ann"})
    c = b.cache("c")
    c.put("ann's", "x")
    who["now"] = None
    clock.now = 10
    c.put("nobody's", "y")
    clock.now = 45
    assert "ann's" in c                          # held: counted as used at 45
    clock.now = 55                               # "nobody's" idle 45 s
    assert b.sweep() == 1 and "nobody's" not in c and "ann's" in c


def test_an_entry_nobody_connected_used_expires_as_before():
    clock = Clock()
    b = Budget(10_000, ttl=40, clock=clock, size=len, user=lambda: None, alive=lambda: {"ann"})
    c = b.cache("c")
    c.put("k", "v")
    clock.now = 41
    assert c.get("k") is None and b.expired == 1


def test_get_or_compute_in_a_named_cache_computes_once():
    b, calls = Budget(10_000), []
    c = b.cache("c")
    assert c.get_or_compute("k", lambda: calls.append(1) or [1, 2]) == [1, 2]
    assert c.get_or_compute("k", lambda: calls.append(1) or [9]) == [1, 2]
    assert calls == [1]


def test_word2vec_pairs_are_int32_arrays_with_the_same_pairs_as_the_window():
    from rnnviz.explain import word2vec as w2v
    sentences = [["a", "b", "c", "d", "a"], ["b"], ["c", "a", "b"], ["d", "d", "e", "a", "b", "c", "a"]]
    for radius in (1, 2, 5):
        pc = w2v.pair_corpus(sentences, radius)
        assert isinstance(pc.centres, np.ndarray) and pc.centres.dtype == np.int32
        assert isinstance(pc.contexts, np.ndarray) and pc.contexts.dtype == np.int32
        want = [(p.centre, p.context) for s in sentences
                for p in w2v.window_pairs([pc.vocab.stoi[t] for t in s], radius) if len(s) > 1]
        assert list(zip(pc.centres.tolist(), pc.contexts.tolist())) == want
        c, o = w2v.pair_batch(pc, torch.tensor([0, len(want) - 1, 0]))
        assert c.dtype == torch.int64 and c.tolist() == [want[0][0], want[-1][0], want[0][0]]
        assert o.tolist() == [want[0][1], want[-1][1], want[0][1]]


def test_the_sweeper_drops_idle_entries_and_its_trim_leaves_live_ones_intact():
    clock = Clock()
    b = Budget(10**9, ttl=limits.CACHE_TTL_SECONDS, clock=clock)
    c = b.cache("c")
    kept = torch.arange(100_000, dtype=torch.float32)
    c.put("idle", torch.ones(1_000_000))
    clock.now = limits.CACHE_TTL_SECONDS / 2
    c.put("live", kept)
    clock.now = limits.CACHE_TTL_SECONDS + 1       # "idle" is past the TTL, "live" is not
    assert b.sweep_and_give_back() == 1
    assert "idle" not in c and torch.equal(c.get("live"), torch.arange(100_000, dtype=torch.float32))
    assert b.total == nbytes(kept)
    assert give_back_memory() in (True, False)      # absent on non-glibc C libraries: no call


def test_a_leaving_session_is_given_back_within_the_stated_time():
    """Issue 22: memory back within MEMORY_BACK_SECONDS of a session leaving. The cache's
    entries expire after CACHE_TTL_SECONDS and the closed session's own state (models, uploads)
    after Streamlit's disconnectedSessionTTL; the next sweep gives both back."""
    with open(ROOT / ".streamlit" / "config.toml", "rb") as f:
        session_ttl = tomllib.load(f)["server"]["disconnectedSessionTTL"]
    sweep = limits.CACHE_SWEEP_SECONDS
    assert max(limits.CACHE_TTL_SECONDS, session_ttl) + sweep <= limits.MEMORY_BACK_SECONDS


_TRIM_CHILD = """
import ctypes, gc, torch
from rnnviz.serve.bytecache import give_back_memory
def rss():
    with open('/proc/self/status') as f:
        return next(int(l.split()[1]) // 1024 for l in f if l.startswith('VmRSS'))
libc = ctypes.CDLL(None)
libc.mallopt(-3, 32 << 20)   # M_MMAP_THRESHOLD: where a long-running server's glibc ends up
libc.mallopt(-1, 1 << 30)    # M_TRIM_THRESHOLD: free() itself gives nothing back
xs, pinned = [], []
for _ in range(1000):        # 200 MB in 200 KB tensors, a small live one after each
    xs.append(torch.ones(50_000))
    pinned.append(torch.ones(10))
del xs
gc.collect()
freed = rss()
assert give_back_memory()
print(freed, rss(), float(sum(p.sum() for p in pinned)))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or _MALLOC_TRIM is None,
                    reason="malloc_trim is glibc's")
def test_give_back_memory_returns_freed_heap_pages_to_the_os():
    out = subprocess.run([sys.executable, "-c", _TRIM_CHILD], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True).stdout.split()
    freed, trimmed, pinned = int(out[0]), int(out[1]), float(out[2])
    assert pinned == 10_000.0                   # live tensors are untouched by the trim
    assert freed - trimmed > 100                # MB: glibc kept them until asked


def test_the_sweeps_host_cleanups_run_and_a_failing_one_does_not_stop_it():
    clock, calls = Clock(), []
    b = Budget(1000, ttl=10, clock=clock, size=len)
    b.cache("c").put("k", "v" * 10)
    clock.now = 11

    def broken():
        raise RuntimeError("gone")
    assert b.sweep_and_give_back(also=(broken, lambda: calls.append("reaped"))) == 1
    assert calls == ["reaped"] and b.total == 0


# ---- nbytes walks with a stack of its own: the same count as the call-per-object walk ----------

def _nbytes_by_calls(obj, seen=None) -> int:
    """nbytes as it was written before (one call per object): the oracle."""
    import dataclasses as dc
    import sys as _sys
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        return 64 + obj.element_size() * obj.nelement()
    if isinstance(obj, np.ndarray):
        return 64 + int(obj.nbytes)
    if isinstance(obj, (str, bytes, bytearray, int, float, bool, type(None))):
        return _sys.getsizeof(obj)
    if isinstance(obj, dict):
        return 64 + sum(_nbytes_by_calls(k, seen) + _nbytes_by_calls(v, seen) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return 64 + sum(_nbytes_by_calls(v, seen) for v in obj)
    if dc.is_dataclass(obj):
        return 64 + sum(_nbytes_by_calls(getattr(obj, f.name), seen) for f in dc.fields(obj))
    return _sys.getsizeof(obj)


def test_nbytes_counts_as_the_call_per_object_walk_did():
    from dataclasses import dataclass

    from hypothesis import given, settings
    from hypothesis import strategies as hs

    @dataclass
    class Box:
        a: object
        b: object

    shared_tensor, shared_words = torch.zeros(3, 5), ["x", "y"]
    leaves = hs.one_of(hs.none(), hs.booleans(), hs.integers(), hs.floats(), hs.text(max_size=6),
                       hs.binary(max_size=4), hs.just(shared_tensor), hs.just(shared_words),
                       hs.builds(np.ones, hs.integers(0, 6)), hs.builds(np.float64, hs.floats()))
    trees = hs.recursive(leaves, lambda inner: hs.one_of(
        hs.lists(inner, max_size=5), hs.tuples(inner, inner), hs.frozensets(hs.integers(), max_size=3),
        hs.dictionaries(hs.one_of(hs.text(max_size=3), hs.integers()), inner, max_size=4),
        hs.builds(Box, inner, inner)), max_leaves=30)

    @settings(max_examples=300, deadline=None)
    @given(trees)
    def same(tree):
        assert nbytes(tree) == _nbytes_by_calls(tree)
        assert nbytes([tree, tree]) == _nbytes_by_calls([tree, tree])  # shared: once

    same()
