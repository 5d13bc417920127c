"""Page runs take turns: at most `slots` of a process's page runs compute at once; the others
wait, the session that has used the least server time lately first.

Streamlit runs each session's script in a thread of its own, and the interpreter runs one
thread at a time. When a class of 40 arrives, 40 page runs share one core in 5-ms slices: each
run lasts about as long as all of them together, and the switching costs CPU of its own
(bench/results/load_s28.txt: 67 ms of server CPU a run with every run at once, 54 ms taking
turns). Taking turns gives the core to one run after another, and a waiting thread sleeps (it
holds no lock and costs nothing).

Who goes next: the waiter whose session has used the least slot time lately (each session's
seconds, halved every `half_life_s`), then the one who came first. Learners who act alike are
served in the order they came; a session that keeps the core busy (a stranger rerunning the
largest model) waits behind the others, instead of each learner waiting behind all of its runs.

A run that has held its slot `long_run_s` (0.5 s; a learner's page visit takes 0.05-0.2 s) gives
it up to the next in line and goes on beside it, without one: a stranger's 5-s run of the largest
model never holds the class, which it did with one slot for everyone (bench/results/abuse_s28.txt:
a learner beside four of them waited 5.4 s at p95, against 0.6 s with every run at once).

A run cut short by an exception (Streamlit stops a run that way when the learner acts again
before it ends, and reruns the script in the same thread) comes back at the front of the line:
a learner who types while waiting does not lose their place.

A run that waits on a database does so aside (`aside()`): its slot serves the next in line
meanwhile.

A run that has waited `max_wait_s` goes ahead without a slot: a line too long never holds a
learner longer than that.

    turns = Turns(slots=1, max_wait_s=5.0)
    with turns.turn(who=session_id) as how:   # how: "slot" (no wait), "queued" or "past the queue"
        run_the_page()
"""
from __future__ import annotations

import contextlib
import itertools
import math
import threading
import time
from collections.abc import Callable, Hashable, Iterator

from rnnviz import limits

SLOT, QUEUED, PAST, OFF = "slot", "queued", "past the queue", "no turns"
FRONT = -math.inf  # the priority of a run coming back (cut short, or back from aside)
KEEP_SESSIONS = 512  # sessions' accounts kept before the negligible ones are dropped


class Turns:
    """A gate of `slots` places: waiters go least-used session first, then first come; a run that
    has held its slot `long_run_s` gives it up to the next in line and goes on beside it; a waiter
    gives up after max_wait_s. slots = 0 switches turns off: every run goes at once (a host's
    choice; the benchmark's baseline)."""

    def __init__(self, slots: int, max_wait_s: float, long_run_s: float = 0.5, half_life_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic):
        if slots < 0:
            raise ValueError("The number of slots cannot be negative.")
        if max_wait_s < 0 or long_run_s <= 0 or half_life_s <= 0:
            raise ValueError("The longest wait cannot be negative, nor a long run or the half-life zero.")
        self.slots, self.max_wait_s = slots, max_wait_s
        self.long_run_s, self.half_life_s = long_run_s, half_life_s
        self._clock = clock
        self._lock = threading.Lock()
        self._holders: dict[int, float] = {}  # ticket -> when it got its slot (clock)
        self._waiting: list[tuple[float, int, threading.Event]] = []  # (priority, arrival, handed)
        self._tickets = itertools.count()
        self._arrivals = itertools.count()
        self._handed: dict[threading.Event, int] = {}  # a waiter's Event -> the ticket handed to it
        self._used: dict[Hashable, tuple[float, float]] = {}  # who -> (seconds, when counted)
        self._thread = threading.local()  # .cut_short: this thread's last run ended by an exception

    def counts(self) -> tuple[int, int]:
        """(slots taken, runs waiting) right now."""
        with self._lock:
            return len(self._holders), len(self._waiting)

    def used(self, who: Hashable) -> float:
        """Seconds of page runs `who` has had lately (each second counted half every half-life)."""
        with self._lock:
            return self._used_now(who, self._clock())

    def _used_now(self, who, now: float) -> float:
        seconds, when = self._used.get(who, (0.0, now))
        return seconds * 0.5 ** ((now - when) / self.half_life_s)

    def _charge(self, who, seconds: float) -> None:
        if who is None or not self.slots:
            return
        with self._lock:
            now = self._clock()
            self._used[who] = (self._used_now(who, now) + max(0.0, seconds), now)
            if len(self._used) > KEEP_SESSIONS:  # sessions long gone: drop what no longer counts
                self._used = {k: v for k, v in self._used.items() if self._used_now(k, now) > 0.01}

    def _new_holder(self) -> int:  # under the lock
        ticket = next(self._tickets)
        self._holders[ticket] = self._clock()
        return ticket

    def _hand_on(self) -> None:
        """Under the lock: give free slots to the next waiters (least used, then first come)."""
        while self._waiting and len(self._holders) < self.slots:
            nxt = min(self._waiting, key=lambda w: w[:2])
            self._waiting.remove(nxt)
            self._handed[nxt[2]] = self._new_holder()
            nxt[2].set()

    def _demote_long_runs(self) -> float:
        """Under the lock: a holder that has run long_run_s gives its slot up (it goes on without
        one). Returns the seconds until the next holder would be long (inf if none)."""
        now = self._clock()
        for ticket, since in list(self._holders.items()):
            if now - since >= self.long_run_s:
                del self._holders[ticket]
        self._hand_on()
        return min((since + self.long_run_s - now for since in self._holders.values()), default=math.inf)

    def _take(self, who=None, front: bool = False) -> tuple[str, int | None]:
        """(how, ticket): ticket None when no slot is held (past the queue, or turns off)."""
        if not self.slots:
            return OFF, None
        with self._lock:
            if len(self._holders) < self.slots and not self._waiting:
                return SLOT, self._new_holder()
            handed = threading.Event()
            priority = FRONT if front else self._used_now(who, self._clock())
            self._waiting.append((priority, next(self._arrivals), handed))
            deadline = self._clock() + self.max_wait_s
        try:
            while True:
                with self._lock:
                    until_long = self._demote_long_runs()  # may hand this waiter a slot
                    if handed.is_set():
                        return QUEUED, self._handed.pop(handed)
                    left = deadline - self._clock()
                    if left <= 0:
                        self._waiting = [w for w in self._waiting if w[2] is not handed]
                        return PAST, None
                handed.wait(max(0.001, min(left, until_long)))
        except BaseException:  # interrupted while waiting: leave, or pass on a slot handed over
            with self._lock:
                if handed.is_set():
                    self._holders.pop(self._handed.pop(handed), None)
                    self._hand_on()
                else:
                    self._waiting = [w for w in self._waiting if w[2] is not handed]
            raise

    def _give_back(self, ticket: int | None) -> None:
        if ticket is None:
            return
        with self._lock:
            self._holders.pop(ticket, None)  # gone already if the run was long
            self._hand_on()

    def _held(self) -> list[dict]:
        """This thread's open turns, innermost last: {"ticket": the slot held now or None,
        "since": clock when its use began, "who"}."""
        if not hasattr(self._thread, "held"):
            self._thread.held = []
        return self._thread.held

    @contextlib.contextmanager
    def turn(self, who: Hashable | None = None) -> Iterator[str]:
        """Hold a slot through the block (freed however it ends); yields how it was got. who:
        the session the run is for (its time is counted; None: never counted, served as new)."""
        how, ticket = self._take(who, front=self._thread.__dict__.pop("cut_short", False))
        mine = {"ticket": ticket, "since": self._clock(), "who": who}
        self._held().append(mine)
        try:
            yield how
        except BaseException:
            self._thread.cut_short = True  # its rerun (same thread) comes back to the front
            raise
        finally:
            self._held().pop()  # turns nest: this one is the innermost
            if mine["since"] is not None:
                self._charge(who, self._clock() - mine["since"])
            self._give_back(mine["ticket"])

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Wait on something outside the process (the class's database) without a slot: the
        slot this thread's turn holds goes to the next in line for the block, and is taken again
        after it, at the front of the line. Outside a turn it does nothing. Take it outside any
        lock the block takes (a thread waiting for its turn must hold no lock another run needs)."""
        held = self._held()
        if not held or held[-1]["ticket"] is None:
            yield
            return
        mine = held[-1]
        self._charge(mine["who"], self._clock() - mine["since"])  # the wait is not the run's use
        self._give_back(mine["ticket"])
        mine["ticket"], mine["since"] = None, None
        try:
            yield
        finally:
            mine["ticket"] = self._take(front=True)[1]
            mine["since"] = self._clock()


PAGE_TURNS = Turns(limits.PAGE_RUN_SLOTS, limits.PAGE_RUN_MAX_WAIT_SECONDS,  # app.py's, one a process
                   long_run_s=limits.PAGE_LONG_RUN_SECONDS)
