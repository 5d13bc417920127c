"""Page runs take turns (rnnviz.serve.turns): at most k at once, the least-used session first and
then first come, a run past long_run_s hands its slot on, a waiter goes past the queue after its
longest wait, and a slot is freed however a run ends."""
import threading
import time

import pytest

from rnnviz import limits
from rnnviz.serve import turns as turns_module
from rnnviz.serve.turns import OFF, PAGE_TURNS, PAST, QUEUED, SLOT, Turns
from tests.core.serve.concurrency import peak_inside

LONG = 30.0  # a longest wait no test reaches: waiters are let in by the test, never by the clock


def wait_for(cond, what: str) -> None:
    """Spin until cond() holds (the threads' order is what the tests check, not their speed)."""
    end = time.monotonic() + LONG
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"never saw: {what}")
        time.sleep(0.001)


def test_a_free_slot_is_taken_at_once_and_given_back():
    gate = Turns(2, LONG, long_run_s=LONG)
    with gate.turn() as a:
        assert a == SLOT and gate.counts() == (1, 0)
        with gate.turn() as b:
            assert b == SLOT and gate.counts() == (2, 0)
    assert gate.counts() == (0, 0)


def test_waiters_are_served_in_the_order_they_came():
    gate, order, hows = Turns(1, LONG, long_run_s=LONG), [], []
    holder = gate.turn()
    holder.__enter__()

    def run(i):
        with gate.turn() as how:
            order.append(i)
            hows.append(how)

    threads = []
    for i in range(6):
        threads.append(threading.Thread(target=run, args=(i,)))
        threads[-1].start()
        wait_for(lambda i=i: gate.counts() == (1, i + 1), f"{i + 1} waiting")
    holder.__exit__(None, None, None)
    for th in threads:
        th.join(LONG)
    assert order == list(range(6))
    assert hows == [QUEUED] * 6
    assert gate.counts() == (0, 0)


@pytest.mark.parametrize("slots", [1, 2, 3])
def test_never_more_than_k_at_once(slots):
    gate = Turns(slots, LONG, long_run_s=LONG)
    assert peak_inside(gate.turn, rounds=20, hold_s=0.0005) == slots  # k at once, and never more
    assert gate.counts() == (0, 0)


def test_a_waiter_goes_past_a_stuck_run_after_its_longest_wait():
    gate = Turns(1, max_wait_s=0.05, long_run_s=LONG)
    with gate.turn():  # stuck (a slow database, the largest model)
        with gate.turn() as how:
            assert how == PAST
            assert gate.counts() == (1, 0)  # it holds no slot and left the line
        assert gate.counts() == (1, 0)  # ending it frees nothing: the stuck run still holds its slot
    assert gate.counts() == (0, 0)


def test_an_error_in_the_run_frees_its_slot():
    gate = Turns(1, LONG, long_run_s=LONG)
    with pytest.raises(RuntimeError):
        with gate.turn():
            raise RuntimeError("the page failed")
    assert gate.counts() == (0, 0)
    with gate.turn() as how:
        assert how == SLOT


class HandedOverWhileWaiting(threading.Event):
    """An Event whose wait sees the slot handed over (the holder leaves) and then either times
    out or is interrupted: the two races _take must get right."""

    gate: Turns = None
    holder = None
    interrupt = False

    def wait(self, timeout=None):
        type(self).holder.__exit__(None, None, None)  # hands its slot to this waiter
        assert self.is_set()
        if type(self).interrupt:
            raise KeyboardInterrupt
        return False  # as if the timeout fell in the same instant


@pytest.mark.parametrize("interrupt", [False, True])
def test_a_slot_handed_over_at_the_last_instant_is_never_lost(monkeypatch, interrupt):
    gate = Turns(1, LONG, long_run_s=LONG)
    holder = gate.turn()
    holder.__enter__()
    HandedOverWhileWaiting.holder, HandedOverWhileWaiting.interrupt = holder, interrupt
    monkeypatch.setattr(turns_module.threading, "Event", HandedOverWhileWaiting)
    if interrupt:
        with pytest.raises(KeyboardInterrupt):
            with gate.turn():
                pass
    else:
        with gate.turn() as how:
            assert how == QUEUED  # it got the slot: it holds it through the run
            assert gate.counts() == (1, 0)
    assert gate.counts() == (0, 0)


def test_no_slots_switch_turns_off():
    gate = Turns(0, LONG, long_run_s=LONG)
    with gate.turn() as a, gate.turn() as b:
        assert a == b == OFF and gate.counts() == (0, 0)
        with gate.aside():
            assert gate.counts() == (0, 0)
    assert gate.counts() == (0, 0)


def test_a_long_run_gives_its_slot_to_the_next_in_line_and_goes_on():
    """A run that has held its slot long_run_s (a stranger's largest model) no longer holds the
    others: the next in line gets the slot while the long run goes on beside it."""
    gate = Turns(1, LONG, long_run_s=0.05)
    got = []

    def next_in_line():
        with gate.turn() as how:
            got.append((how, gate.counts()))

    with gate.turn():  # the long run: it never ends while the other waits
        waiter = threading.Thread(target=next_in_line)
        waiter.start()
        waiter.join(LONG)  # ends without the long run ending
        assert got == [(QUEUED, (1, 0))]  # it held the one slot; the long run held none
    assert gate.counts() == (0, 0)  # the long run's end gives back nothing twice


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        Turns(-1, 1.0)
    with pytest.raises(ValueError):
        Turns(1, 1.0, long_run_s=0.0)
    with pytest.raises(ValueError):
        Turns(1, -1.0)


def test_the_process_gate_follows_the_limits():
    assert (PAGE_TURNS.slots, PAGE_TURNS.max_wait_s, PAGE_TURNS.long_run_s) == (
        limits.PAGE_RUN_SLOTS, limits.PAGE_RUN_MAX_WAIT_SECONDS, limits.PAGE_LONG_RUN_SECONDS)


def test_a_run_cut_short_comes_back_at_the_front_of_the_line():
    """Streamlit ends a run with an exception when its learner acts again, and reruns the script
    in the same thread: that rerun waits at the front, not behind everyone who came meanwhile."""
    gate, order = Turns(1, LONG, long_run_s=LONG), []
    holder = gate.turn()
    holder.__enter__()
    first_newcomer_may_end = threading.Event()

    def learner_who_acts_again():
        with pytest.raises(RuntimeError):
            with gate.turn():
                raise RuntimeError("rerun asked for")  # as Streamlit's RerunException
        with gate.turn():  # the rerun, in the same thread
            order.append("rerun")

    def newcomer(name, until=None):
        with gate.turn():
            order.append(name)
            if until is not None:
                until.wait(LONG)

    threads = [threading.Thread(target=learner_who_acts_again),
               threading.Thread(target=newcomer, args=("newcomer 1", first_newcomer_may_end)),
               threading.Thread(target=newcomer, args=("newcomer 2",))]
    for k, th in enumerate(threads, 1):
        th.start()
        wait_for(lambda k=k: gate.counts() == (1, k), f"{k} waiting")
    holder.__exit__(None, None, None)  # the learner's run starts and is cut short at once
    wait_for(lambda: "newcomer 1" in order and gate.counts() == (1, 2), "the rerun back in line")
    first_newcomer_may_end.set()
    for th in threads:
        th.join(LONG)
    assert order == ["newcomer 1", "rerun", "newcomer 2"]
    assert gate.counts() == (0, 0)


def test_a_run_waits_on_a_database_aside_and_comes_back_first():
    gate, order = Turns(1, LONG, long_run_s=LONG), []
    database_answers, newcomers_in_line = threading.Event(), threading.Event()

    def run_that_asks_the_database():
        with gate.turn():
            order.append("asks")
            with gate.aside():  # its slot serves the next in line meanwhile
                newcomers_in_line.wait(LONG)
                database_answers.wait(LONG)
            order.append("answered")
            assert gate.counts()[0] == 1

    def newcomer(name, until=None):
        with gate.turn():
            order.append(name)
            if until is not None:
                until.wait(LONG)

    first_may_end = threading.Event()
    asker = threading.Thread(target=run_that_asks_the_database)
    asker.start()
    wait_for(lambda: order == ["asks"], "the run asking")
    one = threading.Thread(target=newcomer, args=("newcomer 1", first_may_end))
    one.start()
    wait_for(lambda: order == ["asks", "newcomer 1"], "newcomer 1 running while the run waits aside")
    two = threading.Thread(target=newcomer, args=("newcomer 2",))
    two.start()
    wait_for(lambda: gate.counts() == (1, 1), "newcomer 2 in line")
    newcomers_in_line.set()
    database_answers.set()
    wait_for(lambda: gate.counts() == (1, 2), "the run back in line, at the front")
    first_may_end.set()
    for th in (asker, one, two):
        th.join(LONG)
    assert order == ["asks", "newcomer 1", "answered", "newcomer 2"]
    assert gate.counts() == (0, 0)


def test_aside_outside_a_turn_does_nothing():
    gate = Turns(1, LONG, long_run_s=LONG)
    with gate.aside():
        assert gate.counts() == (0, 0)
    with gate.turn():
        pass
    with gate.aside():  # the turn has ended: nothing to give back
        assert gate.counts() == (0, 0)
    assert gate.counts() == (0, 0)


class Clock:
    """A clock the test moves by hand (a session's used time is what the test says it is)."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_session_that_used_least_lately_goes_first():
    """A stranger's session that kept the core for 10 s waits behind a learner who came after
    it; learners alike are served in the order they came (the tests above: who = None)."""
    clock = Clock()
    gate, order = Turns(1, LONG, long_run_s=LONG, clock=clock), []
    with gate.turn(who="stranger"):
        clock.now += 10.0  # the largest model, rerun
    assert gate.used("stranger") == pytest.approx(10.0) and gate.used("learner") == 0.0
    holder = gate.turn(who="someone")
    holder.__enter__()

    def run(who):
        with gate.turn(who=who):
            order.append(who)

    threads = []
    for k, who in enumerate(("stranger", "learner", "another learner"), 1):  # in this order
        threads.append(threading.Thread(target=run, args=(who,)))
        threads[-1].start()
        wait_for(lambda k=k: gate.counts() == (1, k), f"{k} waiting")
    holder.__exit__(None, None, None)
    for th in threads:
        th.join(LONG)
    assert order == ["learner", "another learner", "stranger"]


def test_used_time_halves_every_half_life_and_a_wait_aside_is_not_counted():
    clock = Clock()
    gate = Turns(1, LONG, long_run_s=LONG, half_life_s=30.0, clock=clock)
    with gate.turn(who="a"):
        clock.now += 8.0
        with gate.aside():
            clock.now += 50.0  # the database, slow: not the run's use
        clock.now += 2.0
    used = 8.0 * 0.5 ** (52.0 / 30.0) + 2.0  # the 8 s counted before the wait, halved since
    assert gate.used("a") == pytest.approx(used)
    clock.now += 30.0
    assert gate.used("a") == pytest.approx(used / 2)
    clock.now += 60.0
    assert gate.used("a") == pytest.approx(used / 8)
    with gate.turn():  # nobody's: never counted
        clock.now += 5.0
    assert gate.used(None) == 0.0
