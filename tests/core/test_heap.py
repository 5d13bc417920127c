"""rnnviz.serve.heap: the start-up objects are frozen once per process, after a collection."""
from __future__ import annotations

import gc

from rnnviz.serve import heap


def test_the_heap_is_frozen_once_after_a_collection(monkeypatch):
    calls = []
    monkeypatch.setattr(heap, "_frozen", [False])
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("collect") or 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    assert heap.freeze_startup_heap() is True
    assert heap.freeze_startup_heap() is False
    assert calls == ["collect", "freeze"]


def test_garbage_made_after_the_freeze_is_still_collected():
    """A session's cycle made after the freeze is freed by the collector as before."""
    import weakref

    class Node:
        pass

    gc.collect()
    gc.freeze()
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        alive = weakref.ref(a)
        del a, b
        gc.collect()
        assert alive() is None
    finally:
        gc.unfreeze()
