"""Page runs take turns: at most `slots` of a process's page runs compute at once; the others
wait, first come, first served.

Streamlit runs each session's script in a thread of its own, and the interpreter runs one
thread at a time. When a class of 40 arrives, 40 page runs share one core in 5-ms slices: each
run lasts about as long as all of them together, and the switching costs CPU of its own
(bench/results/load_s28.txt: 61 ms of server CPU a run with every run at once, 50 ms taking
turns). Taking turns gives the core to one run after another, so the first in line is served
first, and a waiting thread sleeps (it holds no lock and costs nothing).

A run cut short by an exception (Streamlit stops a run that way when the learner acts again
before it ends, and reruns the script in the same thread) comes back at the front of the line:
a learner who types while waiting does not lose their place.

A run that waits on a database does so aside (`aside()`): its slot serves the next in line
meanwhile.

A run that has waited `max_wait_s` goes ahead without a slot. A run stuck on something slow
(a database, a learner's largest model) then holds up the others by at most that long, never
more than with no turns at all.

    turns = Turns(slots=2, max_wait_s=2.0)
    with turns.turn() as waited:   # waited: "slot" (no wait), "queued" or "past the queue"
        run_the_page()
"""
from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Iterator

from rnnviz import limits

SLOT, QUEUED, PAST, OFF = "slot", "queued", "past the queue", "no turns"


class Turns:
    """A first-come, first-served gate of `slots` places; a waiter gives up after max_wait_s.
    slots = 0 switches turns off: every run goes at once (a host's choice; the benchmark's
    baseline)."""

    def __init__(self, slots: int, max_wait_s: float):
        if slots < 0:
            raise ValueError("The number of slots cannot be negative.")
        if max_wait_s < 0:
            raise ValueError("The longest wait cannot be negative.")
        self.slots, self.max_wait_s = slots, max_wait_s
        self._lock = threading.Lock()
        self._free = slots
        self._waiting: deque[threading.Event] = deque()  # oldest first; set = handed a slot
        self._thread = threading.local()  # .cut_short: this thread's last run ended by an exception

    def counts(self) -> tuple[int, int]:
        """(slots taken, runs waiting) right now."""
        with self._lock:
            return self.slots - self._free, len(self._waiting)

    def _take(self, front: bool = False) -> str:
        if not self.slots:
            return OFF
        with self._lock:
            if self._free and not self._waiting:
                self._free -= 1
                return SLOT
            handed = threading.Event()
            if front:
                self._waiting.appendleft(handed)
            else:
                self._waiting.append(handed)
        try:
            handed.wait(self.max_wait_s)
        except BaseException:  # interrupted while waiting: leave, or pass on a slot handed over
            if not self._leave(handed):
                self._give_back()
            raise
        return PAST if self._leave(handed) else QUEUED

    def _leave(self, handed: threading.Event) -> bool:
        """Leave the line unless a slot was handed over meanwhile; True if it left."""
        with self._lock:
            if handed.is_set():
                return False
            self._waiting.remove(handed)
            return True

    def _give_back(self) -> None:
        with self._lock:
            if self._waiting:
                self._waiting.popleft().set()  # the slot passes straight to the oldest waiter
            else:
                self._free += 1

    def _held(self) -> list[list[bool]]:
        """This thread's open turns, innermost last: [holds a slot now] each."""
        if not hasattr(self._thread, "held"):
            self._thread.held = []
        return self._thread.held

    @contextlib.contextmanager
    def turn(self) -> Iterator[str]:
        """Hold a slot through the block (freed however it ends); yields how it was got."""
        how = self._take(front=self._thread.__dict__.pop("cut_short", False))
        mine = [how in (SLOT, QUEUED)]
        self._held().append(mine)
        try:
            yield how
        except BaseException:
            self._thread.cut_short = True  # its rerun (same thread) comes back to the front
            raise
        finally:
            self._held().pop()  # turns nest: this one is the innermost
            if mine[0]:
                self._give_back()

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Wait on something outside the process (the class's database) without a slot: the
        slot this thread's turn holds goes to the next in line for the block, and is taken again
        after it, at the front of the line. Outside a turn it does nothing. Take it outside any
        lock the block takes (a thread waiting for its turn must hold no lock another run needs)."""
        held = self._held()
        if not held or not held[-1][0]:
            yield
            return
        mine = held[-1]
        self._give_back()
        mine[0] = False
        try:
            yield
        finally:
            mine[0] = self._take(front=True) in (SLOT, QUEUED)

PAGE_TURNS = Turns(limits.PAGE_RUN_SLOTS, limits.PAGE_RUN_MAX_WAIT_SECONDS)  # app.py's, one a process
