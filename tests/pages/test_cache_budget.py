"""Every per-sentence or per-model cache of ui/cache.py sits in the one byte budget (issue 22,
R4) under one keying rule (issue 23): only ui/resources.py's built-in read-only resources and
settings-only results keep st.cache_*; `kept` keys on the qualified name and the arguments not
starting with "_" (a model by its fingerprint, a trace by its ids) and copies out what it caches."""
import ast

import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine.trace import trace
from tests.conftest import ROOT

# st.cache_* functions allowed outside the budget: read-only built-ins and settings-only results
SHARED = {"budget", "builtin", "pretrained_taggers", "tagging_data", "notes_check", "clipping",
          "subword_table", "subword_corpus", "tokenizer_comparison", "w2v_builtin_pairs", "builtin_pairs_warmed", "tied_model",
          "longrange_results", "note003_gradient_check", "flat_tagger", "zh_taggers", "zh_tagging_data",
          "zh_flat_tagger", "attention_twin", "builtin_vocab_size"}


def decorated(path: str) -> dict:
    tree = ast.parse((ROOT / path).read_text())
    return {node.name: [ast.unparse(d) for d in node.decorator_list]
            for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_only_shared_resources_keep_streamlit_caches():
    cache, resources = decorated("ui/cache.py"), decorated("ui/resources.py")
    assert not {n for n, ds in cache.items() if any(d.startswith("st.cache_") for d in ds)}
    streamlit = {n for n, ds in resources.items() if any(d.startswith("st.cache_") for d in ds)}
    assert streamlit <= SHARED, streamlit - SHARED
    kept = {n for n, ds in cache.items() if any(d.startswith("kept(") for d in ds)}
    assert {"gradient_flow", "note002_derivation", "shared_summary", "_text_pairs", "nearest",
            "sentence_cosines"} <= kept


def test_kept_keys_on_public_arguments_and_copies_out():
    from ui import cache, resources
    calls = []

    @cache.kept("test_kept")
    def f(tag: str, n: int, _obj):
        calls.append(n)
        return {"t": torch.zeros(3) + n}

    a = f("fp", 1, object())
    b = f("fp", 1, object())               # another _obj: the same key, computed once
    assert calls == [1] and torch.equal(a["t"], b["t"])
    a["t"] += 5                              # a caller's change never reaches the cache
    assert torch.equal(f("fp", 1, None)["t"], torch.ones(3))
    f("fp", 2, None)
    assert calls == [1, 2] and resources.budget().cache("test_kept").total > 0
    f.clear()
    assert len(resources.budget().cache("test_kept")) == 0


def test_kept_keys_a_model_by_its_weights_and_a_trace_by_its_ids():
    from ui import cache
    calls = []

    @cache.kept("test_kept_model")
    def g(model, tr, k: int):
        calls.append(k)
        return k

    m = RNNModel(RNNConfig(6, 3, 4), seed=0)
    tr = trace(m, [1, 2, 3])
    g(m, tr, 1)
    g(RNNModel(RNNConfig(6, 3, 4), seed=0), trace(m, [1, 2, 3]), 1)  # equal weights and ids: a hit
    assert calls == [1]
    g(RNNModel(RNNConfig(6, 3, 4), seed=1), tr, 1)                    # other weights: computed
    g(m, trace(m, [1, 2, 4]), 1)                                       # other ids: computed
    assert calls == [1, 1, 1]
    g.clear()


def test_closed_sessions_past_the_reconnect_ttl_are_reaped_without_another_visitor():
    """Streamlit's own store drops an expired closed session only on the next connect or
    disconnect; the sweeper's reap_closed_sessions drops it on a quiet server too (issue 22, R4:
    memory back within 60 s of a session leaving)."""
    from types import SimpleNamespace

    from streamlit.runtime.caching.ttl_cache import TTLCache
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    from ui.resources import reap_closed_sessions

    now = [0.0]
    storage = MemorySessionStorage(ttl_seconds=40)
    storage._cache = TTLCache(maxsize=128, ttl=40, timer=lambda: now[0])
    manager = WebsocketSessionManager(storage, None, None, None)
    storage.save(SimpleNamespace(session=SimpleNamespace(id="left")))
    now[0] = 30
    storage.save(SimpleNamespace(session=SimpleNamespace(id="later")))
    now[0] = 41                                   # "left" closed 41 s ago, "later" 11 s ago
    assert len(storage._cache._data) == 2         # Streamlit alone still holds both
    assert reap_closed_sessions(manager) == 1
    assert list(storage._cache._data) == ["later"]
    assert reap_closed_sessions(SimpleNamespace()) == 0   # without those internals: nothing
