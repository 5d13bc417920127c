"""app.py runs each page in a turn of the process's gate (rnnviz.serve.turns.PAGE_TURNS): the
turn is taken and given back by every run, and a page still runs when every slot is stuck."""
import contextlib

from rnnviz.serve.turns import PAGE_TURNS, PAST, SLOT
from tests.apptest_helpers import no_exception


def recorded_turns(monkeypatch) -> tuple[list[str], list]:
    """(how each of app.py's turns was got, and for whom), in order, filled as the app runs."""
    hows, whos, turn = [], [], PAGE_TURNS.turn

    @contextlib.contextmanager
    def recording(who=None):
        whos.append(who)
        with turn(who=who) as how:
            hows.append(how)
            yield how

    monkeypatch.setattr(PAGE_TURNS, "turn", recording)
    return hows, whos


def test_every_page_run_takes_a_turn_and_gives_it_back(app, monkeypatch):
    hows, whos = recorded_turns(monkeypatch)
    at = app("pages/hidden.py")
    no_exception(at)
    assert hows and set(hows) == {SLOT}  # alone on the server: never waits
    assert None not in whos and len(set(whos)) == 1  # its session's
    assert PAGE_TURNS.counts() == (0, 0)


def test_a_page_runs_past_slots_held_by_stuck_runs(app, monkeypatch):
    held_turn = PAGE_TURNS.turn
    hows, _ = recorded_turns(monkeypatch)
    monkeypatch.setattr(PAGE_TURNS, "max_wait_s", 0.05)
    # Stuck, yet never demoted as long runs: on a loaded machine AppTest takes over 0.5 s to start,
    # and a waiter would then be handed a demoted holder's slot (QUEUED) instead of going past.
    monkeypatch.setattr(PAGE_TURNS, "long_run_s", 1e9)
    with contextlib.ExitStack() as stuck:
        for _ in range(PAGE_TURNS.slots):  # other sessions' runs, stuck holding every slot
            stuck.enter_context(held_turn())
        at = app()
        no_exception(at)
        assert at.sidebar.text_area(key="text").value  # the overview ran: the sidebar is there
        assert set(hows) == {PAST}
        assert PAGE_TURNS.counts() == (PAGE_TURNS.slots, 0)
    assert PAGE_TURNS.counts() == (0, 0)
