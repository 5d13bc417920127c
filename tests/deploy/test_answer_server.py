"""bench/answer_server.py, which bench/bench_browser_slider.py's "answered" column reads: on a real
`streamlit run` of this Streamlit version, each run the server finishes is noted once, when its
script_finished has been written to the websocket, and never before the request that began it."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bench.answer_server import answers_since
from bench.appserver import app_server
from bench.stclient import Session
from tests.deploy.test_replicas import run_in_own_thread

pytestmark = pytest.mark.deploy
ROOT = Path(__file__).resolve().parents[2]


async def visit_and_move(url: str, stamps: dict) -> None:
    s = Session(url, timeout=120, browser=True)
    await s.connect()
    await s.rerun("hidden")
    stamps["visit_done"] = time.time()
    await asyncio.sleep(1.0)  # a run the visit asked for afterwards (the link) has ended by then
    s.set_widget("hid_step", [3])
    stamps["move_asked"] = time.time()
    await s.rerun()
    stamps["move_done"] = time.time()
    await s.close()


def test_each_finished_run_is_noted_once_when_its_answer_was_sent(tmp_path):
    log = tmp_path / "answers.log"
    stamps: dict = {}
    started = time.time()
    with app_server(ROOT, "test-answer-server.log", answer_log=log) as (url, _proc):
        run_in_own_thread(visit_and_move(url, stamps))
    visit = answers_since(log, started)
    move = [a for a in answers_since(log, stamps["move_asked"]) if a <= stamps["move_done"]]
    assert [a for a in visit if a <= stamps["visit_done"]], visit  # the visit's run was noted
    assert len(move) == 1, move  # the step move: one run (its fragment), one answer
    assert stamps["move_asked"] <= move[0] <= stamps["move_done"]


def test_answers_since_reads_the_times_in_order(tmp_path):
    log = tmp_path / "answers.log"
    log.write_text("12.5000\n10.0000\n11.2500\n")
    assert answers_since(log, 11.0) == [11.25, 12.5]
    assert answers_since(tmp_path / "none.log", 0.0) == []  # no server wrote one yet
