"""A class on two replicas behind HAProxy with PostgreSQL (RNNVIZ_DATABASE_URL), driven over
Streamlit's websocket protocol (bench/stclient.py): 30 students answer 3 checkpoints, the
teacher view counts all 30 within 5 s, a second class never mixes with the first, a second vote
is counted apart, and killing and restarting one replica loses no answer.

Needs haproxy and the PostgreSQL server binaries: skips without them, fails under CI."""
from __future__ import annotations

import asyncio
import os
import sys
import time

import pytest

from bench.stclient import Run, RunError, Session
from deploy.replicas import Cluster
from rnnviz.serve.classroom_store import ClassStore
from tests.deploy.test_replicas import require_haproxy, run_in_own_thread
from ui.checkpoint import POLL_S

pytestmark = pytest.mark.deploy
STUDENTS, OTHERS = 30, 4
CHECKPOINTS = [("embedding", "checkpoint_embedding_1"), ("output", "checkpoint_output_1"),
               ("hidden", "checkpoint_hidden_1")]
PARALLEL = 6  # students running a page at once (a bounded load on a shared machine)
FIGURES = {}  # measured: printed and put in the README


async def answer(s: Session, page: str, key: str, option: int, rejoin=None) -> Run:
    """Open the page, choose an option, commit it (the answer and the figure come in that same
    run). rejoin: a coroutine making a new session when this one's replica has gone (as a
    browser reconnects); returns the commit's run."""
    try:
        run = await s.rerun(page)
    except RunError:
        if rejoin is None:
            raise
        s = await rejoin(s)
        run = await s.rerun(page)
    assert key in run.options, f"{key} not drawn on {page}"
    s.set_widget(key, run.options[key][option % len(run.options[key])])  # a radio's value: its label
    run = await s.rerun(page, click=f"{key}_commit")
    assert POLL_S in run.fragments.values(), f"no answer under {key} on {page}"  # its polling fragment
    assert any(kind in (1, 4) for kind, _ in run.alerts), (page, run.alerts)  # right / wrong shown
    assert not any("class store" in body for _, body in run.alerts), (page, run.alerts)
    return run


DONE = {"answers": 0}


async def student(s: Session, gate: asyncio.Semaphore, steps: list, option: int, rejoin=None) -> Run:
    for page, key in steps:
        async with gate:
            run = await answer(s, page, key, option, rejoin)
        DONE["answers"] += 1
        if DONE["answers"] % 10 == 0:
            print(f"  {DONE['answers']} answers", file=sys.stderr, flush=True)
    return run


async def join(url: str, code: str, pages: dict | None = None) -> Session:
    """A student opening the class link. The first one runs the home page (it learns the pages'
    hashes); the others open their first checkpoint page directly with the same link."""
    s = Session(url, timeout=300, query=f"model=default&class={code}")
    await s.connect()
    if pages:
        s.pages.update(pages)
    else:
        await s.rerun("")
    return s


async def teacher_sees(url: str, code: str, token: str, text: str, seconds: float) -> float:
    """How long until the teacher view (through the balancer) shows `text`; fails after `seconds`."""
    t = Session(url, timeout=120, query=f"class={code}&teacher={token}")
    await t.connect()
    start = time.perf_counter()
    try:
        while True:
            run = await t.rerun("")
            if text in run.text():
                return time.perf_counter() - start
            if time.perf_counter() - start > seconds:
                raise AssertionError(f"the teacher view did not show {text!r} within {seconds} s")
            await asyncio.sleep(0.2)
    finally:
        await t.close()


def lap(name: str, start: float) -> float:
    FIGURES[name] = time.perf_counter() - start
    return time.perf_counter()


async def scenario(cluster: Cluster, store: ClassStore) -> None:
    a, b = store.create_class(), store.create_class()
    gate = asyncio.Semaphore(PARALLEL)
    clock = time.perf_counter()
    first = await join(cluster.url, a.code)
    students = [first] + list(await asyncio.gather(*(join(cluster.url, a.code, first.pages)
                                                     for _ in range(STUDENTS - 1))))
    others = list(await asyncio.gather(*(join(cluster.url, b.code, first.pages) for _ in range(OTHERS))))
    homes = [s.cookie.split("=", 1)[1] for s in students]
    assert set(homes) == {"r1", "r2"}
    clock = lap("join_s", clock)

    # Two checkpoints, every student of class A; class B answers at the same time.
    last = await asyncio.gather(*(student(s, gate, CHECKPOINTS[:2], 0) for s in students),
                                *(student(s, gate, CHECKPOINTS[:1], 1) for s in others))
    clock = lap("two_checkpoints_s", clock)
    FIGURES["teacher_sees_30_s"] = await teacher_sees(cluster.url, a.code, a.teacher_token,
                                                      f"{STUDENTS} answered", 5.0)
    counts = store.counts(a.code)
    assert all(counts[k]["1"]["answered"] == STUDENTS for _, k in CHECKPOINTS[:2])
    assert store.counts(b.code) == {"checkpoint_embedding_1": {"1": {
        "answered": OTHERS, "correct": store.counts(b.code)["checkpoint_embedding_1"]["1"]["correct"],
        "answers": {store.answers(b.code)[0]["answer"]: OTHERS}}}}  # class B: its own 4, one option
    clock = time.perf_counter()

    # A second vote on the checkpoint the students are looking at (page 3's): it reaches them
    # without a click, through the polling fragment under their answer (one tick each, as the
    # browser's timer sends it), and 10 of them answer again, counted apart.
    voter, key = CHECKPOINTS[1]
    ticks = [[f for f, every in run.fragments.items() if every == POLL_S] for run in last[:STUDENTS]]
    assert all(len(f) == 1 for f in ticks), ticks  # the polling fragment, under each answer
    ticks = [f[0] for f in ticks]
    quiet = await students[0].rerun(voter, fragment=ticks[0])
    assert key not in quiet.options  # nothing new: the tick reruns nothing
    store.vote_again(a.code, key)

    async def vote_again(s: Session, tick: str) -> None:
        async with gate:
            run = await s.rerun(voter, fragment=tick)  # the fragment sees round 2 and reruns the page
            assert key in run.options, "the checkpoint did not reopen by itself"
            assert any(kind == 3 and "2" in body for kind, body in run.alerts), run.alerts  # the notice
            s.set_widget(key, run.options[key][1 % len(run.options[key])])
            await s.rerun(voter, click=f"{key}_commit")

    await asyncio.gather(*(vote_again(s, f) for s, f in zip(students[:10], ticks)))
    counted = store.counts(a.code)[key]
    assert counted["1"]["answered"] == STUDENTS and counted["2"]["answered"] == 10
    clock = lap("vote_again_s", clock)

    # Kill and restart r1 mid-class: nothing stored is lost; its students come back (a new
    # session on a live replica, as a browser reconnects) and answer the third checkpoint.
    before = store.answers(a.code)
    cluster.restart_replica("r1")
    clock = lap("restart_s", clock)
    assert store.answers(a.code) == before
    rejoined = []

    async def rejoin(old: Session) -> Session:
        await old.close()
        rejoined.append(await join(cluster.url, a.code, first.pages))
        return rejoined[-1]

    await asyncio.gather(*(student(s, gate, CHECKPOINTS[2:], 0, rejoin) for s in students))
    assert len(rejoined) == homes.count("r1")  # every session of the killed replica, and only those
    clock = lap("third_checkpoint_s", clock)
    counts = store.counts(a.code)
    assert [counts[k]["1"]["answered"] for _, k in CHECKPOINTS] == [STUDENTS] * 3
    assert counts[key]["2"]["answered"] == 10
    assert len(store.answers(a.code)) == 3 * STUDENTS + 10
    assert sum(c["1"]["answered"] for c in store.counts(b.code).values()) == OTHERS
    for s in students + others + rejoined:
        await s.close()


@pytest.mark.timeout(2400)  # about 200 page runs: minutes on a shared 2-core machine
def test_a_class_of_30_on_two_replicas_with_postgresql(pg_url, capsys):
    require_haproxy()
    store = ClassStore(url=pg_url)
    start = time.perf_counter()
    with Cluster(2, env=dict(os.environ, RNNVIZ_DATABASE_URL=pg_url)) as cluster:
        FIGURES["cluster_start_s"] = time.perf_counter() - start
        run_in_own_thread(scenario(cluster, store))
    with capsys.disabled():
        print("\nclass scenario:", {k: round(v, 2) for k, v in FIGURES.items()})
