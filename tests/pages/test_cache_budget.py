"""Every per-sentence or per-model cache of ui/cache.py sits in the one byte budget (issue 22,
R4): only built-in read-only resources and settings-only results keep st.cache_*; `_kept` keys
on the arguments not starting with "_" and copies out what it caches."""
import ast

import torch

from tests.conftest import ROOT

# st.cache_* functions allowed outside the budget: read-only built-ins and settings-only results
SHARED = {"budget", "builtin", "pretrained_taggers", "tagging_data", "notes_check", "clipping",
          "subword_table", "subword_corpus", "tokenizer_comparison", "w2v_builtin_pairs", "tied_model",
          "longrange_results", "note003_gradient_check", "flat_tagger", "zh_taggers", "zh_tagging_data",
          "zh_flat_tagger"}


def decorated():
    tree = ast.parse((ROOT / "ui/cache.py").read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = [ast.unparse(d) for d in node.decorator_list]
    return out


def test_only_shared_resources_keep_streamlit_caches():
    fns = decorated()
    streamlit = {n for n, ds in fns.items() if any(d.startswith("st.cache_") for d in ds)}
    assert streamlit <= SHARED, streamlit - SHARED
    kept = {n for n, ds in fns.items() if any(d.startswith("_kept(") for d in ds)}
    assert {"_flow", "_derivation", "_shared", "_text_pairs", "_nearest", "_sentence_cos"} <= kept


def test_kept_keys_on_public_arguments_and_copies_out():
    from ui import cache
    calls = []

    @cache._kept("test_kept")
    def f(key: tuple, n: int, _obj):
        calls.append(n)
        return {"t": torch.zeros(3) + n}

    a = f(("fp",), 1, object())
    b = f(("fp",), 1, object())            # another _obj: the same key, computed once
    assert calls == [1] and torch.equal(a["t"], b["t"])
    a["t"] += 5                              # a caller's change never reaches the cache
    assert torch.equal(f(("fp",), 1, None)["t"], torch.ones(3))
    f(("fp",), 2, None)
    assert calls == [1, 2] and cache.budget().cache("test_kept").total > 0
    f.clear()
    assert len(cache.budget().cache("test_kept")) == 0


def test_closed_sessions_past_the_reconnect_ttl_are_reaped_without_another_visitor():
    """Streamlit's own store drops an expired closed session only on the next connect or
    disconnect; the sweeper's reap_closed_sessions drops it on a quiet server too (issue 22, R4:
    memory back within 60 s of a session leaving)."""
    from types import SimpleNamespace

    from streamlit.runtime.caching.ttl_cache import TTLCache
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    from ui.cache import reap_closed_sessions

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
