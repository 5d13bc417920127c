"""The class store on SQLite and on a real PostgreSQL server (tests/pgserver.py): classes and
tokens, idempotent answers, rounds kept apart, expiry, lesson steps, failures as StoreError,
and the classroom CLI. No mocks."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading

import pytest

from rnnviz.errors import InputError, StoreError
from rnnviz.serve.classroom_store import CODE_ALPHABET, CODE_LENGTH, ClassStore, clean_code, token_hash
from tests.conftest import ROOT


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    """(store, env for the CLI) on each backend: a fresh folder, or a fresh database."""
    if request.param == "sqlite":
        return ClassStore(data_dir=tmp_path / "data"), {"RNNVIZ_DATA_DIR": str(tmp_path / "data")}
    url = request.getfixturevalue("pg_url")
    return ClassStore(url=url), {"RNNVIZ_DATABASE_URL": url}


def test_a_class_has_a_short_unguessable_code_and_a_hashed_token(backend):
    store, _ = backend
    a, b = store.create_class(), store.create_class()
    assert a.code != b.code and len(a.code) == CODE_LENGTH and set(a.code) <= set(CODE_ALPHABET)
    assert len(a.teacher_token) >= 20
    assert store.is_teacher(a.code, a.teacher_token)
    assert not store.is_teacher(a.code, b.teacher_token) and not store.is_teacher(a.code, "")
    assert store.get_class(a.code.lower()).code == a.code  # typed in lower case
    assert store.get_class("ZZZZZZZZ") is None and store.get_class("<b>x") is None
    stored = store._run("SELECT teacher_hash FROM classes WHERE code = ?", (a.code,))[0][0]
    assert stored == token_hash(a.teacher_token) and a.teacher_token not in stored


def test_answers_are_idempotent_and_rounds_are_counted_apart(backend):
    store, _ = backend
    c = store.create_class()
    for _ in range(3):  # a rerun or a reconnect writes the same answer again
        store.record_answer(c.code, "checkpoint_bptt_1", "s1", "below", True, 4.0)
    store.record_answer(c.code, "checkpoint_bptt_1", "s2", "above", False, 6.5)
    store.record_answer(c.code, "checkpoint_bptt_1", "s2", "below", True, 7.0)  # changed: replaces
    assert store.counts(c.code) == {"checkpoint_bptt_1": {"1": {"answered": 2, "correct": 2,
                                                               "answers": {"below": 2}}}}
    assert store.vote_again(c.code, "checkpoint_bptt_1") == 2
    store.record_answer(c.code, "checkpoint_bptt_1", "s1", "above", False, 3.0)
    counts = store.counts(c.code)["checkpoint_bptt_1"]
    assert counts["1"]["answered"] == 2 and counts["2"] == {"answered": 1, "correct": 0, "answers": {"above": 1}}
    assert store.rounds(c.code) == {"checkpoint_bptt_1": 2}
    rows = store.answers(c.code)
    assert {(r["round"], r["answer"], r["correct"]) for r in rows} == {(1, "below", True), (2, "above", False)} | {
        (1, "below", True)}
    assert all("session" not in r for r in rows)


def test_two_classes_never_mix(backend):
    store, _ = backend
    a, b = store.create_class(), store.create_class()
    store.record_answer(a.code, "checkpoint_output_1", "s1", "3", True, 1.0)
    store.record_answer(b.code, "checkpoint_output_1", "s1", "1", False, 1.0)
    assert store.counts(a.code)["checkpoint_output_1"]["1"]["answers"] == {"3": 1}
    assert store.counts(b.code)["checkpoint_output_1"]["1"]["answers"] == {"1": 1}


def test_a_class_expires(backend):
    store, _ = backend
    c = store.create_class(hours=1.0, now=1000.0)
    assert store.get_class(c.code, now=1000.0 + 3599) is not None
    assert store.get_class(c.code, now=1000.0 + 3601) is None
    assert not store.is_teacher(c.code, c.teacher_token, now=1000.0 + 3601)
    with pytest.raises(InputError):
        store.record_answer(c.code, "checkpoint_x", "s1", "a", True, 1.0)  # now is past its time
    assert store.purge_expired() >= 1 and store.counts(c.code) == {}


def test_the_class_hours_come_from_the_environment(backend, monkeypatch):
    store, _ = backend
    monkeypatch.setenv("RNNVIZ_CLASS_HOURS", "2")
    c = store.create_class(now=0.0)
    assert c.expires == 7200.0


def test_lesson_steps_and_lessons(backend):
    store, _ = backend
    c = store.create_class(lesson="vanishing")
    assert store.get_class(c.code).lesson == "vanishing"
    store.record_step(c.code, "s1", 0)
    store.record_step(c.code, "s2", 0)
    store.record_step(c.code, "s2", 1)
    store.record_step(c.code, "s2", 1)
    assert store.steps(c.code) == {0: 1, 1: 1}
    with pytest.raises(InputError):
        store.create_class(lesson="../etc/passwd")


def test_concurrent_writers_lose_nothing(backend):
    store, _ = backend
    c = store.create_class()

    def student(i):
        for cp in ("checkpoint_a", "checkpoint_b"):
            store.record_answer(c.code, cp, f"s{i}", str(i % 3), i % 3 == 0, 1.0)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(12)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    counts = store.counts(c.code)
    assert counts["checkpoint_a"]["1"]["answered"] == 12 and counts["checkpoint_b"]["1"]["correct"] == 4


def test_the_schema_is_upgraded_in_place_and_a_newer_one_refused(backend):
    store, _ = backend
    c = store.create_class()
    again = ClassStore(url=store.url or None, data_dir=store.path.parent if store.path else None)
    assert again.get_class(c.code) is not None  # opening twice keeps the data
    store._run("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError):
        ClassStore(url=store.url or None, data_dir=store.path.parent if store.path else None)


def test_sqlite_is_made_on_first_use_in_wal_mode(tmp_path):
    folder = tmp_path / "fresh" / "data"
    store = ClassStore(data_dir=folder)
    assert store.path.exists()
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_failing_database_raises_one_error_type(tmp_path):
    with pytest.raises(StoreError):
        ClassStore(url="postgresql://nobody@127.0.0.1:1/none")
    with pytest.raises(StoreError):
        ClassStore(url="mysql://x")
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(StoreError):
        ClassStore(data_dir=tmp_path / "file" / "data")
    store = ClassStore(data_dir=tmp_path / "ok")
    store.path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError):
        store.counts("ABCDEFGH")


def test_the_sqlite_store_never_loads_the_postgresql_driver(tmp_path):
    """psycopg (0.2 s of a fresh server's first page) is imported only for a PostgreSQL URL."""
    code = ("import sys\n"
            "from ui import checkpoint, classroom, teacher\n"
            "from rnnviz.serve.classroom_store import ClassStore\n"
            f"store = ClassStore(data_dir={str(tmp_path / 'data')!r})\n"
            "store.counts(store.create_class().code)\n"
            "print('psycopg' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_codes_are_cleaned():
    assert clean_code(" abcd-efgh ") == "ABCDEFGH"
    assert clean_code("ABCDEFG0") == ""  # 0 is not in the alphabet
    assert clean_code("x" * 200) == "" and clean_code(None) == ""


def cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rnnviz.classroom", *args], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **env}, timeout=120)


def test_the_cli_creates_a_class_and_prints_its_answers(backend):
    store, env = backend
    out = cli(env, "create", "--lesson", "vanishing")
    assert out.returncode == 0, out.stderr
    made = json.loads(out.stdout)
    assert out.stdout.count("\n") == 1 and made["student_link"].endswith(f"?class={made['class']}&lesson=vanishing")
    token = made["teacher_link"].split("teacher=")[1]
    assert store.is_teacher(made["class"], token) and token not in made["student_link"]
    store.record_answer(made["class"], "checkpoint_bptt_1", "s1", "below", True, 2.0)
    store.vote_again(made["class"], "checkpoint_bptt_1")
    store.record_answer(made["class"], "checkpoint_bptt_1", "s1", "above", False, 2.0)
    out = cli(env, "answers", made["class"], "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["checkpoints"]["checkpoint_bptt_1"] == {
        "1": {"answered": 1, "correct": 1, "answers": {"below": 1}},
        "2": {"answered": 1, "correct": 0, "answers": {"above": 1}}}
    assert got["rounds"] == {"checkpoint_bptt_1": 2}
    bad = cli(env, "answers", "ZZZZZZZZ", "--json")
    assert bad.returncode == 2 and "no such class" in bad.stderr
    assert cli(env, "create", "--lesson", "nope").returncode == 2


V1_ANSWERS = """CREATE TABLE answers (
    class_code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    checkpoint TEXT NOT NULL, round INTEGER NOT NULL, session TEXT NOT NULL, answer TEXT NOT NULL,
    correct INTEGER NOT NULL, seconds DOUBLE PRECISION NOT NULL, at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (class_code, checkpoint, round, session))"""


def test_an_answer_keeps_the_label_the_learner_saw(backend):
    store, _ = backend
    c = store.create_class()
    store.record_answer(c.code, "checkpoint_embedding_1", "s1", "w17", True, 2.0, label="<b>dog</b>")
    store.record_answer(c.code, "checkpoint_embedding_1", "s2", "w17", True, 3.0, label="<b>dog</b>")
    store.record_answer(c.code, "checkpoint_embedding_1", "s3", "w4", False, 3.0)  # no label
    assert store.labels(c.code) == {"checkpoint_embedding_1": {"w17": "<b>dog</b>"}}  # raw: escaped where shown
    assert store.counts(c.code)["checkpoint_embedding_1"]["1"]["answers"] == {"w17": 2, "w4": 1}
    assert store.labels(store.create_class().code) == {}


def test_a_version_1_store_gains_the_label_column_and_keeps_its_answers(backend):
    store, _ = backend
    c = store.create_class()
    store._run("DROP TABLE answers")
    store._run(V1_ANSWERS)
    store._run("INSERT INTO answers VALUES (?, 'checkpoint_bptt_1', 1, 's1', '-3', 1, 2.0, 1.0)", (c.code,))
    store._run("UPDATE schema_version SET version = 1")
    again = ClassStore(url=store.url or None, data_dir=store.path.parent if store.path else None)
    assert again._run("SELECT MAX(version) FROM schema_version")[0][0] == 2
    assert again.answers(c.code) == [{"checkpoint": "checkpoint_bptt_1", "round": 1, "answer": "-3",
                                      "correct": True, "seconds": 2.0}]
    again.record_answer(c.code, "checkpoint_embedding_1", "s1", "w3", False, 1.0, label="cat")
    assert again.labels(c.code) == {"checkpoint_embedding_1": {"w3": "cat"}}
    ClassStore(url=store.url or None, data_dir=store.path.parent if store.path else None)  # opens again


def test_a_page_run_waits_on_the_store_without_holding_its_turn(tmp_path, monkeypatch):
    """Another learner's run holds the database (a write lock); the page run asking the store
    waits for it aside (rnnviz.serve.turns): its turn passes to the next in line, who frees the
    database, and the page run goes on. Holding the turn while waiting would deadlock until
    SQLite's 10-s timeout and fail."""
    from rnnviz.serve import classroom_store
    from rnnviz.serve.turns import QUEUED, Turns

    gate = Turns(1, max_wait_s=60.0, long_run_s=60.0)  # one slot; nobody goes past the line
    monkeypatch.setattr(classroom_store, "PAGE_TURNS", gate)
    store = ClassStore(data_dir=tmp_path / "data")
    holder = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    got = []

    def next_in_line():
        with gate.turn() as how:
            holder.execute("COMMIT")  # its run frees the database
            got.append(how)

    with gate.turn():
        waiting = threading.Thread(target=next_in_line)
        waiting.start()
        while gate.counts() != (1, 1):
            threading.Event().wait(0.001)
        made = store.create_class()
        assert gate.counts() == (1, 0)  # this run holds its turn again
    waiting.join(30)
    holder.close()
    assert got == [QUEUED] and store.get_class(made.code) is not None
