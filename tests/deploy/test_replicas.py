"""Two replicas behind HAProxy (deploy/replicas.py), driven over Streamlit's websocket protocol
(bench/stclient.py): sticky sessions, no cross-talk, and a failover that loses only the stopped
replica's sessions, which reconnect to the live one and are told so.

Short (2 replicas, 4 sessions). Without haproxy it skips, except under CI, where it fails.
"""
from __future__ import annotations

import asyncio
import os
import shutil
import threading
import urllib.parse

import pytest

from bench import oracle
from bench.stclient import RunError, Session, overview_numbers
from deploy.replicas import HAPROXY, Cluster, haproxy_config

pytestmark = pytest.mark.deploy
MOVED = "you were moved"


def require_haproxy() -> None:
    if not (os.path.exists(HAPROXY) or shutil.which("haproxy")):
        if os.environ.get("CI"):
            pytest.fail("haproxy is missing in CI (.ci/run installs it)")
        pytest.skip("haproxy is not installed")


def own_view_ok(run, sentence: str) -> bool:
    want = oracle.overview(sentence)
    table = next(t for t in run.tables if "you typed" in t.columns)
    return ([str(x) for x in table["you typed"]] == want["typed"]
            and [int(x) for x in table["id"]] == want["ids"]
            and overview_numbers(run) == (want["hmax"], want["hmax_step"]))


def test_config_has_stickiness_health_checks_and_tunnel():
    cfg = haproxy_config(8500, {"r1": ("127.0.0.1", 9001), "r2": ("127.0.0.1", 9002)})
    assert "bind 127.0.0.1:8500" in cfg
    assert "cookie rnnviz_replica insert" in cfg and "option redispatch" in cfg
    assert "option httpchk GET /_stcore/health" in cfg and "timeout tunnel" in cfg
    assert "server r2 127.0.0.1:9002 check" in cfg and "cookie r2" in cfg


async def scenario(cluster: Cluster) -> None:
    sentences = [oracle.sentence_for(i) for i in range(4)]
    sessions = [Session(cluster.url, timeout=60) for _ in sentences]
    for s, text in zip(sessions, sentences):
        await s.connect()
        await s.rerun("")
        s.set_widget("text", text)
    runs = await asyncio.gather(*(s.rerun("") for s in sessions))
    assert all(own_view_ok(r, t) for r, t in zip(runs, sentences))        # no cross-talk
    home = {i: s.cookie.split("=", 1)[1] for i, s in enumerate(sessions)}
    assert set(home.values()) == {"r1", "r2"}                                # both replicas serve

    # Stickiness: a dropped connection comes back to its replica and finds its session there
    # (only the process that holds a session can resume it).
    for s, text in zip(sessions, sentences):
        sid = s.session_id
        await s.close()
        await s.connect(cookie=s.cookie, resume=True)
        s.states.clear()                            # nothing re-sent: the server remembers
        run = await s.rerun("")
        assert s.session_id == sid and own_view_ok(run, text) and MOVED not in run.text()

    # A browser's page (stclient browser=True, as bench_load drives it): messages it holds come
    # back as references and still show this learner's view; a step move reruns the step
    # fragment alone (fewer elements, the new step).
    b = Session(cluster.url, timeout=60, browser=True)
    await b.connect()
    await b.rerun("")
    b.set_widget("text", sentences[0])
    await b.rerun("")
    run = await b.rerun("")
    assert b.references > 0 and own_view_ok(run, sentences[0])
    page = await b.rerun("hidden")
    assert "hid_step" in b.fragments and "text" not in b.fragments
    b.set_widget("hid_step", [3])
    moved = await b.rerun()
    # page 2's step parts follow the slider in the browser (ui/stepped.py): the page run carries
    # step 3's words, and the move's run draws the slider's fragment alone
    assert any(m.startswith("Step 3 of") for m in page.stepped_text(3))
    assert not any(m.startswith("**Step 3 of") for m in page.markdown)
    assert moved.starts == 1 and not moved.stepped and not moved.markdown
    # A new sentence: page 2's second sentence (a bound widget below the step fragment) keeps the
    # old one and writes it to the address during the page's run; the next step move is still
    # the fragment's run alone, not the whole page once more (cellpick.link_settled).
    b.set_widget("text", sentences[1])
    await b.rerun("")
    page = await b.rerun("hidden")
    b.set_widget("hid_step", [2])
    moved = await b.rerun()
    assert any(m.startswith("Step 2 of") for m in page.stepped_text(2))
    assert moved.starts == 1 and not moved.stepped and not moved.markdown
    await b.close()

    # Failover: stop r1 mid-session.
    cluster.stop_replica("r1")
    for i, (s, text) in enumerate(zip(sessions, sentences)):
        if home[i] == "r2":                         # the others go on, same session
            sid = s.session_id
            run = await s.rerun("hidden")
            run = await s.rerun("")
            assert s.session_id == sid and own_view_ok(run, text)
            continue
        with pytest.raises(RunError):               # this session is lost with its replica
            await s.rerun("")
        await s.close()
        await s.connect(cookie=s.cookie, resume=True)   # the browser reconnects by itself
        s.query = urllib.parse.urlencode({"model": "default", "text": text})  # its address bar: model, sentence
        run = await s.rerun("")
        assert MOVED in run.text() and own_view_ok(run, text)
    for s in sessions:
        await s.close()


def run_in_own_thread(coro) -> None:
    """asyncio.run in a thread of its own: the browser tests' Playwright (sync API, session-scoped)
    keeps an event loop running in the main thread for the whole pytest session."""
    failure: list[BaseException] = []

    def target():
        try:
            asyncio.run(coro)
        except BaseException as exc:  # handed back to the test's thread
            failure.append(exc)

    worker = threading.Thread(target=target, name="replica-scenario")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]


def test_two_replicas_sticky_no_crosstalk_failover():
    require_haproxy()
    with Cluster(2) as cluster:
        assert set(cluster.warmed) == {"r1", "r2"}  # each ran the app once before it joined
        run_in_own_thread(scenario(cluster))
