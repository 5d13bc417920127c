"""The training gate (at most k at once, FIFO, positions), the pacer (time share), the lanes and
the Job runner (stop, heartbeat, cap, one job per client)."""
import threading
import time

import pytest

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.serve.jobs import (
    LANES,
    TRAINING_GATE,
    ClientBusy,
    Job,
    Lanes,
    Pacer,
    RunCap,
    TrainingGate,
    queued_message,
)
from tests.core.serve.concurrency import peak_inside


def test_gate_admits_k_then_queues_in_order():
    gate = TrainingGate(2)
    a, b = gate.acquire(), gate.acquire()
    assert gate.counts() == (2, 0)
    order, positions = [], {}
    started = threading.Event()

    def waiter(name):
        def on_wait(pos):
            positions.setdefault(name, pos)
            started.set()
        t = gate.acquire(on_wait=on_wait, poll_s=0.01)
        order.append(name)
        gate.release(t)

    t1 = threading.Thread(target=waiter, args=("first",))
    t1.start()
    started.wait(5)
    while gate.counts()[1] < 1:
        time.sleep(0.001)
    t2 = threading.Thread(target=waiter, args=("second",))
    t2.start()
    while gate.counts()[1] < 2:
        time.sleep(0.001)
    assert positions["first"] == 1
    assert gate.counts() == (2, 2)
    gate.release(a)
    t1.join(5)
    t2.join(5)
    assert order == ["first", "second"]
    assert positions["second"] in (1, 2)
    assert gate.position(b) == 0
    gate.release(b)
    assert gate.counts() == (0, 0)
    assert gate.position(b) == -1


def test_gate_never_runs_more_than_k():
    gate = TrainingGate(2)
    assert peak_inside(lambda: gate.slot(poll_s=0.01), join_s=10) == 2 and gate.counts() == (0, 0)


def test_slot_is_freed_when_the_block_raises():
    gate = TrainingGate(1)
    with pytest.raises(RuntimeError), gate.slot():
        raise RuntimeError("page run interrupted")
    assert gate.counts() == (0, 0)


def test_cancelled_waiter_leaves_the_queue():
    gate = TrainingGate(1)
    held = gate.acquire()
    assert gate.acquire(cancelled=lambda: True, poll_s=0.01) is None
    assert gate.counts() == (1, 0)
    gate.release(held)


def test_waiter_interrupted_while_queued_leaves_the_queue():
    gate = TrainingGate(1)
    held = gate.acquire()

    def on_wait(pos):
        raise KeyboardInterrupt("the page run was stopped")

    with pytest.raises(KeyboardInterrupt):
        gate.acquire(on_wait=on_wait)
    assert gate.counts() == (1, 0)
    gate.release(held)
    assert gate.acquire() is not None


def test_gate_rejects_zero_slots_and_process_gate_uses_limit():
    with pytest.raises(ValueError):
        TrainingGate(0)
    assert TRAINING_GATE.slots == limits.MAX_CONCURRENT_TRAININGS


def test_pacer_sleeps_to_keep_its_share():
    t = [0.0]
    slept = []
    pacer = Pacer(0.25, max_sleep_s=10, clock=lambda: t[0], sleep=slept.append)
    t[0] += 0.2          # a step of 0.2 s at a 25 % share: 0.6 s of sleep
    assert pacer.step_done() == pytest.approx(0.6)
    assert slept == [pytest.approx(0.6)]
    busy, idle = 0.2, 0.6
    assert busy / (busy + idle) == pytest.approx(0.25)
    assert Pacer(1.0).pause_for(5.0) == 0.0
    assert Pacer(0.5, max_sleep_s=0.3).pause_for(5.0) == 0.3


def test_pacer_really_yields_the_share():
    pacer = Pacer(0.5, max_sleep_s=1.0)
    busy = 0.0
    start = time.perf_counter()
    for _ in range(5):
        s = time.perf_counter()
        while time.perf_counter() - s < 0.01:
            pass
        busy += time.perf_counter() - s
        pacer.step_done()
    total = time.perf_counter() - start
    assert pacer.slept >= busy * 0.9
    assert busy / total <= 0.6


def test_pacer_rejects_bad_share():
    for bad in (0, -0.1, 1.5):
        with pytest.raises(ValueError):
            Pacer(bad)


def test_queued_message_says_position_and_limit():
    msg = queued_message(2)
    assert "2nd in line" in msg and str(limits.MAX_CONCURRENT_TRAININGS) in msg
    assert "11th" in queued_message(11) or "11" in queued_message(11)


# ---- lanes, one job per client, caps (issue 22 R6, R7) ---------------------------------------

def test_a_short_job_is_admitted_while_both_long_slots_are_held():
    lanes = Lanes(2, 1)
    held = [lanes.slot("long", c) for c in ("tab1", "tab2")]
    for h in held:
        h.__enter__()
    assert lanes.gates["long"].counts() == (2, 0)
    waited = []
    with lanes.slot("short", "learner", on_wait=waited.append) as ticket:
        assert ticket is not None and lanes.gates["short"].counts() == (1, 0)
    assert waited == []  # never queued behind the long trainings
    for h in held:
        h.__exit__(None, None, None)
    assert lanes.gates["long"].counts() == (0, 0) and not lanes.busy("tab1")


def test_a_second_job_of_the_same_client_is_refused_with_a_message():
    lanes = Lanes(2, 2)
    with lanes.slot("long", "s1"):
        for lane in ("long", "short"):
            with pytest.raises(ClientBusy) as err:
                with lanes.slot(lane, "s1"):
                    pass
            assert isinstance(err.value, InputError) and err.value.key == "job_busy"
        with lanes.slot("short", "s2"):  # another client is not affected
            pass
        assert lanes.gates["long"].counts() == (1, 0)
    with lanes.slot("short", "s1"):  # free again once the first job ended
        pass


def test_a_queued_job_of_a_client_also_blocks_its_second_job():
    lanes = Lanes(1, 1)
    first = lanes.slot("long", "a")
    first.__enter__()
    queued, release = threading.Event(), threading.Event()

    def waiter():
        with lanes.slot("long", "b", on_wait=lambda pos: queued.set(), poll_s=0.01):
            release.wait(5)

    th = threading.Thread(target=waiter)
    th.start()
    assert queued.wait(5)
    with pytest.raises(ClientBusy):
        with lanes.slot("short", "b"):
            pass
    first.__exit__(None, None, None)
    release.set()
    th.join(5)
    assert not lanes.busy("b") and lanes.gates["long"].counts() == (0, 0)


def test_cancelled_while_queued_yields_none_and_frees_the_client():
    lanes = Lanes(1, 1)
    with lanes.slot("short", "a"):
        with lanes.slot("short", "b", cancelled=lambda: True) as ticket:
            assert ticket is None
    assert not lanes.busy("b") and lanes.gates["short"].counts() == (0, 0)


def test_the_cap_stops_a_run_and_projects_from_the_measured_rate():
    now = [0.0]
    cap = RunCap(10.0, clock=lambda: now[0])
    done = 0
    for step in range(1, 1000):
        now[0] += 0.5          # each step takes 0.5 s of the injected clock
        if not cap.check(step):
            break
        done = step
    assert cap.reason == "time" and done == 19 and cap.steps == 20
    assert cap.seconds_per_step == pytest.approx(0.5)
    assert cap.steps_within_cap(1000) == 20 and cap.steps_within_cap(5) == 5


def test_a_run_stops_when_its_sessions_stop_flag_is_set():
    flag, now = threading.Event(), [0.0]
    cap = RunCap(1e9, stopped=flag.is_set, clock=lambda: now[0])
    assert cap.check(1) and cap.check(2)
    flag.set()
    assert not cap.check(3) and cap.reason == "session"
    with pytest.raises(ValueError):
        RunCap(0)


def test_process_lanes_share_the_training_gate():
    assert LANES.gates["long"] is TRAINING_GATE
    assert LANES.gates["short"].slots == limits.MAX_SHORT_JOBS


# ---- Job: the one runner behind pages 6, 7 and 8 (ui.running) ---------------------------------

def counting_work(pause_at: int, paused: threading.Event, go: threading.Event, steps: int = 200):
    """work(on_step): counts steps (what it 'learned'), pausing at step pause_at until go is set."""
    def work(on_step):
        done = []
        for step in range(1, steps + 1):
            done.append(step)
            if step == pause_at:
                paused.set()
                assert go.wait(10)
            if on_step({"step": step, "steps": steps}) is False:
                break
        return done
    return work


def paused_job(client="a", lanes=None, **kw):
    paused, go = threading.Event(), threading.Event()
    job = Job(counting_work(5, paused, go), "short", client, lanes or Lanes(1, 1), share=1.0, **kw)
    return job, paused, go


def test_job_runs_to_the_end_and_keeps_its_result():
    job, paused, go = paused_job()
    go.set()
    job.start()
    assert job.join(10)
    assert (job.status, job.reason, job.error) == ("done", "", None)
    assert job.result == list(range(1, 201)) and job.progress == {"step": 200, "steps": 200}
    assert not job.lanes.busy("a")


def test_stop_ends_the_job_and_keeps_what_it_learned():
    job, paused, go = paused_job()
    job.start()
    assert paused.wait(10) and job.status == "running"
    job.stop()
    go.set()
    assert job.join(10)
    assert (job.status, job.reason) == ("stopped", "stop")
    assert job.result == [1, 2, 3, 4, 5]   # the steps done up to the stop
    assert not job.lanes.busy("a")         # its slot and its client are free


@pytest.mark.parametrize("beats, want", [(False, ("stopped", "heartbeat", 5)), (True, ("done", "", 200))])
def test_a_missed_heartbeat_stops_the_job_and_a_beat_keeps_it_going(beats, want):
    now = [0.0]
    job, paused, go = paused_job(heartbeat_s=10.0, clock=lambda: now[0])
    job.start()
    assert paused.wait(10)
    now[0] = 11.0        # nobody looked for 11 s (the tab closed)...
    if beats:
        job.beat()       # ...unless the page's poller looked just now
    go.set()
    assert job.join(10)
    assert (job.status, job.reason, len(job.result)) == want


def test_the_cap_stops_the_job_from_its_slot():
    now = [0.0]
    job, paused, go = paused_job(max_seconds=30.0, heartbeat_s=1e9, clock=lambda: now[0])
    job.start()
    assert paused.wait(10)
    now[0] = 31.0
    go.set()
    assert job.join(10)
    assert (job.status, job.reason, job.result) == ("stopped", "time", [1, 2, 3, 4, 5])


def test_a_second_start_while_one_runs_is_refused():
    lanes = Lanes(1, 2)
    first, paused, go = paused_job(lanes=lanes)
    first.start()
    assert paused.wait(10)
    second, _, go2 = paused_job(lanes=lanes)
    go2.set()
    with pytest.raises(ClientBusy):
        second.start()                 # the same client: refused at once, nothing started
    assert second.status == "new"
    other, _, go3 = paused_job("b", lanes=lanes)
    go3.set()
    other.start()                      # another client may run beside it
    assert other.join(10) and other.status == "done"
    go.set()
    assert first.join(10) and first.status == "done"
    again, _, go4 = paused_job(lanes=lanes)
    go4.set()
    again.start()                      # once the first has ended, the client may start again
    assert again.join(10) and again.status == "done"


def test_a_queued_job_shows_its_place_and_can_be_stopped_before_it_starts():
    lanes = Lanes(1, 1)
    first, paused, go = paused_job(lanes=lanes)
    first.start()
    assert paused.wait(10)
    queued, _, go2 = paused_job("b", lanes=lanes, poll_s=0.01)
    go2.set()
    queued.start()
    while queued.position != 1:
        time.sleep(0.001)
    assert queued.status == "queued"
    queued.stop()
    assert queued.join(10)
    assert (queued.status, queued.reason, queued.result) == ("stopped", "stop", None)  # nothing learned
    assert first.status == "running"   # the running job is untouched
    go.set()
    assert first.join(10) and first.status == "done"


def test_a_failing_job_keeps_its_error_and_frees_its_client():
    def work(on_step):
        on_step({"step": 1})
        raise InputError("bad corpus", "bad")

    job = Job(work, "short", "a", Lanes(1, 1), share=1.0).start()
    assert job.join(10)
    assert job.status == "failed" and str(job.error) == "bad corpus" and job.result is None
    assert not job.lanes.busy("a")
