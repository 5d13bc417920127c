"""A least-recently-used cache bounded by bytes, not by entry count.

An entry-count bound (st.cache_data(max_entries=256)) says nothing about memory: one trace of a
V = 5,000 model at T = 200 holds z and p of 200 x 5,000 floats each (8 MB), another of the
notes' model a few hundred bytes. `nbytes(obj)` estimates what an object holds (tensors,
arrays, figures, dataclasses, containers) and `ByteLRU` evicts the least recently used entries
until the total is under its budget. Thread-safe: every session of a server shares it.
"""
from __future__ import annotations

import dataclasses
import sys
import threading
from collections import OrderedDict

import numpy as np
import torch

_OVERHEAD = 64  # bytes charged per Python object besides its payload


def nbytes(obj, _seen: set | None = None) -> int:
    """Estimated bytes held by obj: tensor and array storage, strings, containers, dataclass
    and plain-object fields, Plotly figures (through their dict). Shared objects count once."""
    seen = set() if _seen is None else _seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        return _OVERHEAD + obj.element_size() * obj.nelement()
    if isinstance(obj, np.ndarray):
        return _OVERHEAD + int(obj.nbytes)
    if isinstance(obj, (str, bytes, bytearray, int, float, bool, type(None))):
        return sys.getsizeof(obj)
    if isinstance(obj, dict):
        return _OVERHEAD + sum(nbytes(k, seen) + nbytes(v, seen) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return _OVERHEAD + sum(nbytes(v, seen) for v in obj)
    if isinstance(obj, torch.nn.Module):
        return _OVERHEAD + sum(nbytes(t, seen) for t in obj.state_dict(keep_vars=True).values())
    if hasattr(obj, "to_plotly_json"):  # a Plotly figure
        return _OVERHEAD + nbytes(obj.to_plotly_json(), seen)
    if dataclasses.is_dataclass(obj):
        return _OVERHEAD + sum(nbytes(getattr(obj, f.name), seen) for f in dataclasses.fields(obj))
    if hasattr(obj, "__dict__"):
        return _OVERHEAD + nbytes(vars(obj), seen)
    return sys.getsizeof(obj)


class ByteLRU:
    """key -> value, at most max_bytes in total (by `nbytes`); least recently used leave first.

    A value larger than the whole budget is not kept (get_or_compute still returns it)."""

    def __init__(self, max_bytes: int, size=nbytes):
        if max_bytes < 1:
            raise ValueError("A byte cache needs a positive budget.")
        self.max_bytes = max_bytes
        self._size = size
        self._data: OrderedDict = OrderedDict()   # key -> (value, bytes)
        self._lock = threading.RLock()
        self.total = 0
        self.hits = self.misses = self.evictions = 0

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._data

    def get(self, key, default=None):
        with self._lock:
            if key not in self._data:
                self.misses += 1
                return default
            self._data.move_to_end(key)
            self.hits += 1
            return self._data[key][0]

    def put(self, key, value) -> bool:
        """Store value; returns False if it alone is over the budget (then nothing is kept)."""
        size = self._size(value)
        with self._lock:
            self.pop(key)
            if size > self.max_bytes:
                return False
            self._data[key] = (value, size)
            self.total += size
            while self.total > self.max_bytes:
                _, (_, freed) = self._data.popitem(last=False)
                self.total -= freed
                self.evictions += 1
            return True

    def pop(self, key, default=None):
        with self._lock:
            if key not in self._data:
                return default
            value, size = self._data.pop(key)
            self.total -= size
            return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.total = 0

    def get_or_compute(self, key, compute):
        """The cached value, or compute() stored and returned. Two sessions asking at once may
        both compute: cheaper than holding the lock through a model run."""
        sentinel = object()
        value = self.get(key, sentinel)
        if value is sentinel:
            value = compute()
            self.put(key, value)
        return value


def trim_to_budget(store: dict, max_bytes: int, keep=(), size=nbytes) -> list:
    """Drop the oldest entries of an insertion-ordered dict (a session's own models) until it
    holds at most max_bytes; keys in keep stay. Returns the keys dropped, oldest first."""
    dropped = []
    sizes = {k: size(v) for k, v in store.items()}
    total = sum(sizes.values())
    for key in list(store):
        if total <= max_bytes:
            break
        if key in keep:
            continue
        del store[key]
        total -= sizes[key]
        dropped.append(key)
    return dropped
