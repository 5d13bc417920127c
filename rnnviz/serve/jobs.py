"""Fair sharing of one server's cores between sessions: a training gate and a pacer.

Every session of a Streamlit server runs in the same process, and the interpreter lock plus
PyTorch's intra-op threads let one long training starve everyone else's page runs. Two
pure-Python tools (threading only, no streamlit) bound that:

- `TrainingGate(k)`: at most k trainings run at once per process; the others wait in a FIFO
  queue and can show their position ("queued: 2nd in line").
- `Pacer(share)`: called after each training step, it sleeps so that the training uses at
  most `share` of the wall clock, leaving the rest to other sessions' page runs.
- `Lanes(long, short)`: two gates, so a short job (Word2Vec, page 8's bounded run) never waits
  behind an hour-long training, and one job per client (session) at a time (`ClientBusy`).
- `RunCap(max_seconds, stopped)`: the callback that ends a run at its wall-time cap or when its
  session's stop flag is set, and projects from the measured step rate where the cap falls.
- `Job(work, lane, client)`: one learner's job in a worker thread, through a lane's slot, paced
  and capped, ended by its stop Event or by a missed heartbeat (nobody is watching any more: the
  tab closed or the learner left the page), its progress and result read by the page.
"""
from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections import deque

from rnnviz import limits
from rnnviz.errors import InputError


class TrainingGate:
    """At most `slots` holders at once; waiters are served first come, first served."""

    def __init__(self, slots: int):
        if slots < 1:
            raise ValueError("A training gate needs at least one slot.")
        self.slots = slots
        self._cond = threading.Condition()
        self._queue: deque[int] = deque()   # tickets waiting, oldest first
        self._running: set[int] = set()
        self._tickets = itertools.count(1)

    def position(self, ticket: int) -> int:
        """0 if running, k >= 1 if k-th in the queue, -1 if unknown (done or cancelled)."""
        with self._cond:
            if ticket in self._running:
                return 0
            try:
                return self._queue.index(ticket) + 1
            except ValueError:
                return -1

    def counts(self) -> tuple[int, int]:
        """(running, queued) right now."""
        with self._cond:
            return len(self._running), len(self._queue)

    def _admit(self) -> None:
        while self._queue and len(self._running) < self.slots:
            self._running.add(self._queue.popleft())
        self._cond.notify_all()

    def acquire(self, on_wait=None, poll_s: float = 0.5, cancelled=None) -> int:
        """Queue, wait for a slot and return the ticket. While waiting, on_wait(position) is
        called at least every poll_s seconds; if cancelled() turns true the ticket leaves the
        queue and None is returned."""
        with self._cond:
            ticket = next(self._tickets)
            self._queue.append(ticket)
            self._admit()
            try:
                while ticket not in self._running:
                    if cancelled is not None and cancelled():
                        self._leave(ticket)
                        return None
                    if on_wait is not None:
                        self._call_unlocked(on_wait, self._queue.index(ticket) + 1)
                        if ticket in self._running:
                            break
                    self._cond.wait(poll_s)
            except BaseException:  # e.g. Streamlit stopping the page run while it waits
                self._leave(ticket)
                raise
            return ticket

    def _call_unlocked(self, fn, *args) -> None:
        self._cond.release()
        try:
            fn(*args)
        finally:
            self._cond.acquire()

    def _leave(self, ticket: int) -> None:
        self._running.discard(ticket)
        if ticket in self._queue:
            self._queue.remove(ticket)
        self._admit()

    def release(self, ticket: int) -> None:
        with self._cond:
            self._leave(ticket)

    @contextlib.contextmanager
    def slot(self, on_wait=None, poll_s: float = 0.5):
        """`with gate.slot(on_wait): train(...)`: the slot is freed however the block ends
        (also when Streamlit interrupts the page run with an exception)."""
        ticket = self.acquire(on_wait, poll_s)
        try:
            yield ticket
        finally:
            self.release(ticket)


class Pacer:
    """After each step of a long job, sleep so that the job uses at most `share` of the time.

    A step that took d seconds is followed by a sleep of d * (1 - share) / share (capped at
    max_sleep_s): the sleeping thread holds no lock, so other sessions' page runs get the
    cores in between. share = 1 never sleeps.
    """

    def __init__(self, share: float, max_sleep_s: float = 1.0, clock=time.perf_counter,
                 sleep=time.sleep):
        if not 0 < share <= 1:
            raise ValueError("The share of time must be in (0, 1].")
        self.share, self.max_sleep_s = share, max_sleep_s
        self._clock, self._sleep = clock, sleep
        self._mark = clock()
        self.slept = 0.0

    def pause_for(self, step_s: float) -> float:
        """Seconds to sleep after a step of step_s seconds."""
        return min(self.max_sleep_s, max(0.0, step_s) * (1 - self.share) / self.share)

    def step_done(self) -> float:
        """Call after each step; returns the seconds slept."""
        now = self._clock()
        pause = self.pause_for(now - self._mark)
        if pause > 0:
            self._sleep(pause)
            self.slept += pause
        self._mark = self._clock()
        return pause


class ClientBusy(InputError):
    """A client (session) asked for a second job while its first one waits or runs."""

    def __init__(self):
        super().__init__("This session already has a training running or waiting: stop it, or wait "
                         "for it to finish, before starting another.", "job_busy")


class Lanes:
    """A long lane (page 6's trainings) and a short lane (capped jobs of seconds), each a FIFO
    TrainingGate of its own slots, and at most one job per client across both lanes."""

    def __init__(self, long: int | TrainingGate, short: int | TrainingGate):
        self.gates = {name: g if isinstance(g, TrainingGate) else TrainingGate(g)
                      for name, g in (("long", long), ("short", short))}
        self._lock = threading.Lock()
        self._clients: dict = {}   # client -> lane of its one job (waiting or running)

    def busy(self, client) -> bool:
        with self._lock:
            return client in self._clients

    @contextlib.contextmanager
    def slot(self, lane: str, client, on_wait=None, poll_s: float = 0.5, cancelled=None):
        """`with lanes.slot("short", session_id, on_wait): ...`: raises ClientBusy at once if
        this client already holds or waits for a slot; yields the ticket (None if cancelled()
        turned true while queued); frees the slot and the client however the block ends."""
        gate = self.gates[lane]
        self.claim(lane, client)
        try:
            ticket = gate.acquire(on_wait, poll_s, cancelled)
            try:
                yield ticket
            finally:
                if ticket is not None:
                    gate.release(ticket)
        finally:
            self.unclaim(client)

    def claim(self, lane: str, client) -> None:
        """Mark the client's one job (ClientBusy if it has one); `unclaim` ends the mark."""
        with self._lock:
            if client in self._clients:
                raise ClientBusy()
            self._clients[client] = lane

    def unclaim(self, client) -> None:
        with self._lock:
            self._clients.pop(client, None)


class RunCap:
    """A run's wall-time cap and its session's stop flag, as a step callback.

    `cap.check(step)` after each step: False (stop) once max_seconds have passed since start()
    (reason "time") or once stopped() is true (reason "session": the tab closed or Stop was
    clicked). `seconds_per_step` is the measured rate and `steps_within_cap(total)` the step
    the run will reach before the cap, which the page states."""

    def __init__(self, max_seconds: float, stopped=None, clock=time.monotonic):
        if not max_seconds > 0:
            raise ValueError("A run's cap must be a positive number of seconds.")
        self.max_seconds, self._stopped, self._clock = max_seconds, stopped, clock
        self.reason = ""
        self.steps = 0
        self.start()

    def start(self) -> None:
        self._start = self._clock()

    def elapsed(self) -> float:
        return self._clock() - self._start

    @property
    def seconds_per_step(self) -> float:
        return self.elapsed() / self.steps if self.steps else float("nan")

    def steps_within_cap(self, total: int) -> int:
        """The step the run reaches before its cap at the rate measured so far (total if it ends first)."""
        rate = self.seconds_per_step
        if not rate > 0:
            return total
        return min(total, int(self.max_seconds / rate))

    def check(self, step: int) -> bool:
        self.steps = step
        if self._stopped is not None and self._stopped():
            self.reason = "session"
            return False
        if self.elapsed() >= self.max_seconds:
            self.reason = "time"
            return False
        return True


HEARTBEAT_SECONDS = 90.0  # a job nobody has watched for this long stops (browsers slow a hidden
                          # tab's timers to about once a minute, so well above that)


class Job:
    """One learner's job, run in a worker thread so that the page stays free to draw it and to
    take a Stop click: `work(on_step)` calls on_step(record) after each step (a dict with
    "step") and stops when it returns False; its return value is the result, kept with what was
    learned up to a stop.

    `start()` claims the client's one job in `lanes` (ClientBusy if it already has one) and
    starts the thread, which waits in the lane's queue (`status` "queued", `position`), then
    runs ("running") paced to `share` of the wall clock and capped at `max_seconds` from its
    slot, and ends "done", "stopped" (`reason`: "stop" = the Stop button, "heartbeat" = nobody
    watched for `heartbeat_s`, "time" = the cap) or "failed" (`error`). The page calls `beat()`
    whenever it looks (its poller); `stop()` sets the stop Event. `total` (optional) is the
    number of steps the job asked for, for its progress bar. Nothing here knows Streamlit."""

    def __init__(self, work, lane: str, client, lanes: Lanes | None = None, max_seconds: float | None = None,
                 share: float = limits.TRAINING_TIME_SHARE, heartbeat_s: float = HEARTBEAT_SECONDS,
                 clock=time.monotonic, poll_s: float = 0.2, total: int | None = None):
        self.work, self.lane, self.client, self.total = work, lane, client, total
        self.lanes = LANES if lanes is None else lanes
        self.max_seconds = limits.SHORT_JOB_SECONDS if max_seconds is None else max_seconds
        self.share, self.heartbeat_s, self._clock, self._poll_s = share, heartbeat_s, clock, poll_s
        self.stop_event = threading.Event()
        self.status, self.reason, self.position = "new", "", 0
        self.progress: dict | None = None      # the last step's record
        self.result = self.error = None
        self.cap = RunCap(self.max_seconds, self._expired, clock)
        self.collected = False                 # the page has taken the result (once)
        self._last_beat = clock()
        self._thread = threading.Thread(target=self._main, name=f"job-{lane}", daemon=True)

    # ---- the page's side -----------------------------------------------------------------
    def start(self) -> Job:
        self.lanes.claim(self.lane, self.client)
        self.status = "queued"
        self.beat()
        self._thread.start()
        return self

    def beat(self) -> None:
        """The page is still watching (its poller calls this on every look)."""
        self._last_beat = self._clock()

    def stop(self) -> None:
        if not self.reason:
            self.reason = "stop"
        self.stop_event.set()

    @property
    def ended(self) -> bool:
        return self.status in ("done", "stopped", "failed")

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread (tests, shutdown); True once it has ended."""
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    # ---- the worker's side ---------------------------------------------------------------
    def _expired(self) -> bool:
        """Whether the job must stop: Stop was pressed, or nobody has looked for heartbeat_s."""
        if self._clock() - self._last_beat > self.heartbeat_s:
            if not self.reason:
                self.reason = "heartbeat"
            self.stop_event.set()
        return self.stop_event.is_set()

    def _on_wait(self, position: int) -> None:
        self.position = position

    def _on_step(self, record: dict) -> bool:
        self.progress = record
        self._pacer.step_done()
        if self.cap.check(record["step"]):
            return True
        if self.cap.reason == "time":
            self.reason = self.reason or "time"
        return False

    def _main(self) -> None:
        status = "failed"
        try:
            status = self._run()
        except Exception as err:  # shown by the page (an InputError as its message)
            self.error = err
        finally:
            self.lanes.unclaim(self.client)   # free before "ended" shows: a new start is allowed
            self.status = status

    def _run(self) -> str:
        gate = self.lanes.gates[self.lane]
        ticket = gate.acquire(self._on_wait, self._poll_s, cancelled=self._expired)
        if ticket is None:   # stopped (or abandoned) while queued: nothing was learned
            return "stopped"
        try:
            self.status, self.position = "running", 0
            self._pacer = Pacer(self.share, clock=time.perf_counter)
            self.cap.start()   # the cap counts from the slot, not from the queue
            self.result = self.work(self._on_step)
        finally:
            gate.release(ticket)
        return "stopped" if self.reason else "done"


def queued_message(position: int) -> str:
    """What a learner whose training waits for a slot is told."""
    nth = {1: "1st", 2: "2nd", 3: "3rd"}.get(position, f"{position}th")
    return (f"Queued: {nth} in line. This server trains at most {limits.MAX_CONCURRENT_TRAININGS} "
            "model(s) at a time so that every learner's pages stay quick; yours starts by itself "
            "when a slot frees (you can leave this page open).")


# The one gate of this process: every session's training goes through it.
TRAINING_GATE = TrainingGate(limits.MAX_CONCURRENT_TRAININGS)
# The lanes of this process: page 6 in "long" (the same gate as TRAINING_GATE), Word2Vec and
# page 8's bounded run in "short".
LANES = Lanes(TRAINING_GATE, limits.MAX_SHORT_JOBS)
