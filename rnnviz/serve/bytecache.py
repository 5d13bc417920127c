"""A least-recently-used cache bounded by bytes, not by entry count.

An entry-count bound (st.cache_data(max_entries=256)) says nothing about memory: one trace of a
V = 5,000 model at T = 200 holds z and p of 200 x 5,000 floats each (8 MB), another of the
notes' model a few hundred bytes. `nbytes(obj)` estimates what an object holds (tensors,
arrays, figures, dataclasses, containers) and `ByteLRU` evicts the least recently used entries
until the total is under its budget. Thread-safe: every session of a server shares it.

`Budget` is ONE byte budget shared by any number of named caches (`Budget.cache(name)`): the
least recently used entry of ALL of them leaves first when the total is over, an entry not
used for `ttl` seconds expires (checked on access and by `sweep()`, which `start_sweeper` runs
periodically, then asking the C allocator to give freed pages back: `give_back_memory`), and a
named cache may also have its own smaller cap.
"""
from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import sys
import threading
import time
from collections import OrderedDict

import numpy as np
import torch

_OVERHEAD = 64  # bytes charged per Python object besides its payload

# glibc keeps freed heap pages in its arenas (RSS does not fall when a session's tensors are
# freed); malloc_trim(0) returns every whole free page of every arena to the OS. Absent on other
# C libraries (musl, macOS): then nothing is asked.
try:
    _MALLOC_TRIM = ctypes.CDLL(None).malloc_trim
    _MALLOC_TRIM.argtypes, _MALLOC_TRIM.restype = [ctypes.c_size_t], ctypes.c_int
except (OSError, AttributeError):
    _MALLOC_TRIM = None


def give_back_memory() -> bool:
    """Ask the C allocator to return free heap pages to the OS (glibc's malloc_trim(0)). Frees
    nothing that is in use; returns whether the call exists on this C library."""
    if _MALLOC_TRIM is None:
        return False
    _MALLOC_TRIM(0)
    return True


def nbytes(obj, _seen: set | None = None) -> int:
    """Estimated bytes held by obj: tensor and array storage, strings, containers, dataclass
    and plain-object fields, Plotly figures (through their dict). Shared objects count once.
    A walk with a stack of its own, plain dicts, lists and scalars read in the loop (a kept
    figure is a few thousand of them: a call per object was most of a cache put's time)."""
    seen = set() if _seen is None else _seen
    total, stack, alive = 0, [obj], []  # alive: objects made for the walk, held so no id is reused
    pop, extend, add, getsizeof = stack.pop, stack.extend, seen.add, sys.getsizeof
    while stack:
        o = pop()
        if id(o) in seen:
            continue
        add(id(o))
        kind = type(o)
        if kind in _SCALARS:
            total += getsizeof(o)
        elif kind is dict:
            total += _OVERHEAD
            extend(o.keys())
            extend(o.values())
        elif kind is list or kind is tuple:
            total += _OVERHEAD
            extend(o)
        else:
            own, inside = _held(o)
            total += own
            extend(inside)
            alive.append(inside)
    return total


_SCALARS = frozenset({str, bytes, bytearray, int, float, bool, type(None)})


def _held(obj) -> tuple[int, list]:
    """nbytes' view of an object that is not a plain dict, list, tuple or scalar: (its own
    bytes, the objects it holds)."""
    if isinstance(obj, torch.Tensor):
        return _OVERHEAD + obj.element_size() * obj.nelement(), []
    if isinstance(obj, np.ndarray):
        return _OVERHEAD + int(obj.nbytes), []
    if isinstance(obj, (str, bytes, bytearray, int, float, bool)):  # subclasses (numpy's float64 ...)
        return sys.getsizeof(obj), []
    if isinstance(obj, dict):
        return _OVERHEAD, [*obj.keys(), *obj.values()]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return _OVERHEAD, list(obj)
    if isinstance(obj, torch.nn.Module):
        return _OVERHEAD, list(obj.state_dict(keep_vars=True).values())
    if hasattr(obj, "to_plotly_json"):  # a Plotly figure: its own dicts (to_plotly_json copies them all)
        plain = vars(obj).get("_plain") if hasattr(obj, "__dict__") else None
        if isinstance(plain, dict):  # rnnviz.figures.grid.PlainFigure, its objects not built
            return _OVERHEAD, [plain]
        own = getattr(obj, "_data", None), getattr(obj, "_layout", None)
        return _OVERHEAD, [list(own) if None not in own else obj.to_plotly_json()]
    if dataclasses.is_dataclass(obj):
        return _OVERHEAD, [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    if hasattr(obj, "__dict__"):
        return _OVERHEAD, [vars(obj)]
    return sys.getsizeof(obj), []


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
        return _get_or_compute(self, key, compute)


class Budget:
    """One process-wide byte budget over named caches: LRU across all of them, idle TTL.

    clock: seconds (time.monotonic by default; a test passes a fake one, never sleeps).
    user, alive: who asks now (a session's id, or None) and who is still here (a set of ids).
    An entry a user got or put within the last `live_ttl` seconds stays while that user is
    here: when its idle time is up it is kept and counted as used then (a learner reading one
    page for a minute finds the other pages' results still there). Once none of its users is
    here, or none has used it for live_ttl, it expires ttl after that (memory comes back within
    ttl + a sweep of a learner leaving). The byte budget and the caps still apply to it."""

    def __init__(self, max_bytes: int, ttl: float | None = None, clock=time.monotonic, size=nbytes,
                 user=None, alive=None, live_ttl: float = 600.0):
        if max_bytes < 1:
            raise ValueError("A byte budget must be positive.")
        self.max_bytes, self.ttl, self.clock, self._size = max_bytes, ttl, clock, size
        self._user, self._alive, self.live_ttl = user, alive, live_ttl
        # (name, key) -> [value, bytes, last used, {user: when that user last used it}]
        self._data: OrderedDict = OrderedDict()
        self._by_name: dict = {}                  # name -> bytes
        self._caps: dict = {}                     # name -> its own cap (bytes) or None
        self._lock = threading.RLock()
        self.total = 0
        self.hits = self.misses = self.evictions = self.expired = 0
        self._sweeper: threading.Thread | None = None

    def cache(self, name: str, max_bytes: int | None = None) -> NamedCache:
        """The named cache `name` in this budget (its own cap: at most max_bytes of it)."""
        with self._lock:
            self._caps[name] = max_bytes
            self._by_name.setdefault(name, 0)
        return NamedCache(self, name)

    def bytes_of(self, name: str) -> int:
        return self._by_name.get(name, 0)

    def _drop(self, full_key) -> None:
        size = self._data.pop(full_key)[1]
        self.total -= size
        self._by_name[full_key[0]] -= size

    def _stale(self, full, entry, now) -> bool:
        """Idle for more than ttl, and not held (`_held`; one that is held is counted as used
        now, and moved to the end: entries stay in order of last use, which `sweep` relies on)."""
        if self.ttl is None or now - entry[2] <= self.ttl:
            return False
        if entry[3] and self._alive is not None and self._held(entry, now, self._here()):
            entry[2] = now
            self._data.move_to_end(full)
            return False
        return True

    def _held(self, entry, now, here: set) -> bool:
        """Has a user who is here used the entry within live_ttl?"""
        return any(now - when <= self.live_ttl for who, when in entry[3].items() if who in here)

    def _here(self) -> set:
        try:
            return set(self._alive())
        except Exception:  # the host cannot tell: nobody pins
            return set()

    def _used_by(self, entry, now) -> None:
        who = self._user() if self._user is not None else None
        if who is not None:
            entry[3][who] = now

    def get(self, name: str, key, default=None):
        with self._lock:
            full, now = (name, key), self.clock()
            entry = self._data.get(full)
            if entry is not None and self._stale(full, entry, now):
                self._drop(full)
                self.expired += 1
                entry = None
            if entry is None:
                self.misses += 1
                return default
            entry[2] = now
            self._used_by(entry, now)
            self._data.move_to_end(full)
            self.hits += 1
            return entry[0]

    def put(self, name: str, key, value) -> bool:
        """Store value; False if it alone is over the budget or its cache's cap (nothing kept)."""
        size = self._size(value)
        with self._lock:
            self.pop(name, key)
            cap = self._caps.get(name)
            if size > self.max_bytes or (cap is not None and size > cap):
                return False
            now = self.clock()
            self._data[(name, key)] = entry = [value, size, now, {}]
            self._used_by(entry, now)
            self.total += size
            self._by_name[name] = self._by_name.get(name, 0) + size
            self.sweep()
            if cap is not None and self._by_name[name] > cap:
                for full in [k for k in self._data if k[0] == name]:
                    if self._by_name[name] <= cap:
                        break
                    self._drop(full)
                    self.evictions += 1
            while self.total > self.max_bytes:
                self._drop(next(iter(self._data)))
                self.evictions += 1
            return True

    def pop(self, name: str, key, default=None):
        with self._lock:
            if (name, key) not in self._data:
                return default
            value = self._data[(name, key)][0]
            self._drop((name, key))
            return value

    def contains(self, name: str, key) -> bool:
        with self._lock:
            entry = self._data.get((name, key))
            return entry is not None and not self._stale((name, key), entry, self.clock())

    def count(self, name: str) -> int:
        with self._lock:
            return sum(1 for k in self._data if k[0] == name)

    def clear(self, name: str | None = None) -> None:
        with self._lock:
            for full in [k for k in self._data if name is None or k[0] == name]:
                self._drop(full)

    def sweep(self) -> int:
        """Drop every entry idle for more than ttl seconds whose users have all left; returns how
        many. One whose user is still here is counted as used now (moved to the end)."""
        if self.ttl is None:
            return 0
        with self._lock:
            now = self.clock()
            idle = []  # entries are in order of last use (get and put move one to the end),
            for k, e in self._data.items():  # so the idle ones are a prefix: stop at the first fresh
                if now - e[2] <= self.ttl:
                    break
                idle.append(k)
            here = self._here() if idle and self._alive is not None else set()
            old = []
            for full in idle:
                if self._held(self._data[full], now, here):
                    self._data[full][2] = now
                    self._data.move_to_end(full)
                else:
                    old.append(full)
            for full in old:
                self._drop(full)
            self.expired += len(old)
            return len(old)

    def sweep_and_give_back(self, also=()) -> int:
        """sweep(), each callable of `also` (a host's own cleanup, e.g. closed sessions), then
        give_back_memory(): what the sweeper thread does each time. A failing `also` is skipped
        (the sweeper must keep running)."""
        dropped = self.sweep()
        for fn in also:
            try:
                fn()
            except Exception:  # a host's cleanup never stops the sweeper
                pass
        give_back_memory()
        return dropped

    def start_sweeper(self, every: float, also=()) -> None:
        """A daemon thread that sweeps every `every` seconds, then gives freed pages back to the
        OS (memory comes back after a session leaves even if nobody asks the caches again:
        the expired entries, and whatever the closed session itself held). Started once."""
        with self._lock:
            if self._sweeper is not None:
                return

            def run():
                while True:
                    time.sleep(every)
                    self.sweep_and_give_back(also)
            self._sweeper = threading.Thread(target=run, name="bytecache-sweeper", daemon=True)
            self._sweeper.start()


class NamedCache:
    """One named cache of a Budget, with ByteLRU's interface."""

    def __init__(self, budget: Budget, name: str):
        self.budget, self.name = budget, name

    def __len__(self) -> int:
        return self.budget.count(self.name)

    def __contains__(self, key) -> bool:
        return self.budget.contains(self.name, key)

    @property
    def total(self) -> int:
        return self.budget.bytes_of(self.name)

    def get(self, key, default=None):
        return self.budget.get(self.name, key, default)

    def put(self, key, value) -> bool:
        return self.budget.put(self.name, key, value)

    def pop(self, key, default=None):
        return self.budget.pop(self.name, key, default)

    def clear(self) -> None:
        self.budget.clear(self.name)

    def get_or_compute(self, key, compute):
        """As ByteLRU.get_or_compute."""
        return _get_or_compute(self, key, compute)


def _get_or_compute(cache, key, compute):
    """cache.get(key), or compute() put in the cache and returned (ByteLRU and a Budget's view)."""
    missing = object()
    value = cache.get(key, missing)
    if value is missing:
        value = compute()
        cache.put(key, value)
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


def _feed(h, x) -> None:
    """Every value an argument holds into the hash h (arrays by dtype, shape and bytes)."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        h.update(f"nd{x.dtype}{x.shape}".encode())
        h.update(repr(x.tolist()).encode() if x.dtype == object else np.ascontiguousarray(x).tobytes())
    elif isinstance(x, dict):
        h.update(b"{")
        for k in sorted(x, key=repr):
            _feed(h, k)
            _feed(h, x[k])
        h.update(b"}")
    elif isinstance(x, (list, tuple, set, frozenset, range)):
        h.update(f"{type(x).__name__}[".encode())
        for v in (sorted(x, key=repr) if isinstance(x, (set, frozenset)) else x):
            _feed(h, v)
        h.update(b"]")
    else:
        h.update(repr((type(x).__name__, x)).encode())


def value_digest(value) -> str:
    """A key for any nest of arrays, tensors, dicts, sequences and plain values: two values with
    the same contents (dtype, shape and bytes for arrays) get the same digest."""
    h = hashlib.blake2b(digest_size=20)
    _feed(h, value)
    return h.hexdigest()
