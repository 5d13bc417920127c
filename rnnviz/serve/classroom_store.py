"""The class store: class codes, teacher tokens, checkpoint answers, voting rounds, lesson steps.

SQLite in a data folder made on first use (WAL mode; the folder is RNNVIZ_DATA_DIR, default
./data) on one machine; PostgreSQL (psycopg 3) when RNNVIZ_DATABASE_URL is set, so that every
replica behind the load balancer sees the same class. The schema is created or upgraded when a
store is opened. No names and no IP addresses are stored: a student is an anonymous random id
made by their browser session. Every write is idempotent (an answer is unique on class,
checkpoint, round and session; a rerun or a reconnect overwrites, never adds). Every failure of
the database is raised as rnnviz.errors.StoreError, which a page shows as a notice.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rnnviz.errors import InputError, StoreError
from rnnviz.serve.turns import PAGE_TURNS
from rnnviz.store.lessons import lesson_names

SCHEMA_VERSION = 2  # 2: answers.label, what the learner saw (page 1's words)
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud from a projector
CODE_LENGTH = 8  # 31^8 ~ 8.5e11 codes: not guessable within a class's lifetime
DEFAULT_HOURS = 24.0
SQLITE_NAME = "classes.sqlite3"
LABEL_CHARS = 80  # an answer's label as kept (a word of the learner's vocabulary)
CONNECT_TIMEOUT_S = 10  # PostgreSQL; a loaded server answers slowly, a down one is a notice

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS classes (
        code TEXT PRIMARY KEY,
        teacher_hash TEXT NOT NULL,
        lesson TEXT NOT NULL DEFAULT '',
        created DOUBLE PRECISION NOT NULL,
        expires DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS answers (
        class_code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
        checkpoint TEXT NOT NULL,
        round INTEGER NOT NULL,
        session TEXT NOT NULL,
        answer TEXT NOT NULL,
        label TEXT NOT NULL DEFAULT '',
        correct INTEGER NOT NULL,
        seconds DOUBLE PRECISION NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (class_code, checkpoint, round, session))""",
    """CREATE TABLE IF NOT EXISTS rounds (
        class_code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
        checkpoint TEXT NOT NULL,
        round INTEGER NOT NULL,
        PRIMARY KEY (class_code, checkpoint))""",
    """CREATE TABLE IF NOT EXISTS progress (
        class_code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
        session TEXT NOT NULL,
        step INTEGER NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (class_code, session))""",
]


@dataclass(frozen=True)
class ClassInfo:
    code: str
    lesson: str
    created: float
    expires: float


@dataclass(frozen=True)
class NewClass:
    code: str
    teacher_token: str  # shown once, to the teacher; the store keeps only its hash
    lesson: str
    expires: float


def class_hours() -> float:
    """How long a class lives: RNNVIZ_CLASS_HOURS (default 24 h)."""
    try:
        hours = float(os.environ.get("RNNVIZ_CLASS_HOURS", DEFAULT_HOURS))
    except ValueError:
        return DEFAULT_HOURS
    return hours if hours > 0 else DEFAULT_HOURS


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def clean_code(code: str) -> str:
    """A code as typed or linked: upper case, spaces and dashes dropped; '' when it cannot be one."""
    code = "".join(str(code or "").split()).replace("-", "").upper()
    return code if len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code) else ""


def new_session_id() -> str:
    """An anonymous id for one browser session: random, and nothing about the person."""
    return secrets.token_hex(8)


class ClassStore:
    """One database, SQLite or PostgreSQL; a new connection per operation (thread-safe)."""

    def __init__(self, url: str | None = None, data_dir: str | Path | None = None):
        self.url = url or ""
        self.postgres = self.url.startswith(("postgresql://", "postgres://"))
        if self.url and not self.postgres:
            raise StoreError(f"RNNVIZ_DATABASE_URL is not a postgresql:// URL: {self.url[:40]}")
        self.path = None if self.postgres else Path(data_dir or "data") / SQLITE_NAME
        self._psycopg = _psycopg() if self.postgres else None  # the driver, for PostgreSQL alone
        self._errors = (sqlite3.Error,) if self._psycopg is None else (sqlite3.Error, self._psycopg.Error)
        self._upgrade()

    # ---- connections ------------------------------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[object]:
        """A connection in a transaction: committed on success, rolled back and raised as
        StoreError on any database failure."""
        with PAGE_TURNS.aside():  # a page run waits on the database without holding its turn
            try:
                if self.postgres:
                    conn = self._psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S)
                else:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    conn = sqlite3.connect(self.path, timeout=10)
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.execute("PRAGMA foreign_keys=ON")
            except (OSError, *self._errors) as err:
                raise StoreError(f"cannot open the class store: {err}") from err
            try:
                yield conn
                conn.commit()
            except self._errors as err:
                conn.rollback()
                raise StoreError(f"the class store failed: {err}") from err
            finally:
                conn.close()

    def _sql(self, query: str) -> str:
        return query.replace("?", "%s") if self.postgres else query

    def _run(self, query: str, args: tuple = ()) -> list[tuple]:
        with self._connect() as conn:
            cur = conn.execute(self._sql(query), args)
            return list(cur.fetchall()) if cur.description else []

    def _upgrade(self) -> None:
        """Create the tables, or upgrade them, to SCHEMA_VERSION (one transaction; PostgreSQL:
        under an advisory lock, so replicas starting together do not race)."""
        with self._connect() as conn:
            if self.postgres:
                conn.execute("SELECT pg_advisory_xact_lock(2727)")
            for stmt in SCHEMA:
                conn.execute(stmt)
            row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
            if row[0] is None:
                conn.execute(self._sql("INSERT INTO schema_version (version) VALUES (?)"), (SCHEMA_VERSION,))
            elif row[0] > SCHEMA_VERSION:
                raise StoreError(f"the class store has schema {row[0]}, newer than {SCHEMA_VERSION}")
            elif row[0] < 2:  # version 1 had no label: add it, the old answers keep ''
                conn.execute("ALTER TABLE answers ADD COLUMN label TEXT NOT NULL DEFAULT ''")
                conn.execute(self._sql("UPDATE schema_version SET version = ?"), (SCHEMA_VERSION,))

    # ---- classes ----------------------------------------------------------------------------

    def create_class(self, lesson: str = "", hours: float | None = None,
                     now: float | None = None) -> NewClass:
        lesson = lesson or ""
        if lesson and lesson not in lesson_names():
            raise InputError(f"There is no lesson named {lesson[:40]!r}.", "no_lesson", {"name": lesson[:40]})
        now = time.time() if now is None else now
        expires = now + 3600.0 * (class_hours() if hours is None else hours)
        token = secrets.token_urlsafe(18)
        for _ in range(5):  # a clash of two random codes is unlikely; retry rather than fail
            code = new_code()
            with self._connect() as conn:
                cur = conn.execute(self._sql(
                    "INSERT INTO classes (code, teacher_hash, lesson, created, expires) "
                    "VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (code) DO NOTHING"), (code, token_hash(token), lesson, now, expires))
                if cur.rowcount == 1:
                    return NewClass(code, token, lesson, expires)
        raise StoreError("could not find a free class code")

    def get_class(self, code: str, now: float | None = None) -> ClassInfo | None:
        """The class, or None when the code is unknown or the class has expired."""
        code = clean_code(code)
        if not code:
            return None
        rows = self._run("SELECT code, lesson, created, expires FROM classes WHERE code = ?", (code,))
        now = time.time() if now is None else now
        if not rows or rows[0][3] <= now:
            return None
        return ClassInfo(*rows[0])

    def is_teacher(self, code: str, token: str, now: float | None = None) -> bool:
        code = clean_code(code)
        if not code or not token or self.get_class(code, now) is None:
            return False
        rows = self._run("SELECT teacher_hash FROM classes WHERE code = ?", (code,))
        return bool(rows) and hmac.compare_digest(rows[0][0], token_hash(str(token)))

    def purge_expired(self, now: float | None = None) -> int:
        """Delete classes past their time, with their answers; returns how many."""
        now = time.time() if now is None else now
        with self._connect() as conn:
            old = [r[0] for r in conn.execute(self._sql("SELECT code FROM classes WHERE expires <= ?"),
                                              (now,)).fetchall()]
            for table in ("answers", "rounds", "progress"):
                for code in old:
                    conn.execute(self._sql(f"DELETE FROM {table} WHERE class_code = ?"), (code,))
            conn.execute(self._sql("DELETE FROM classes WHERE expires <= ?"), (now,))
        return len(old)

    # ---- rounds and answers ------------------------------------------------------------------

    def current_round(self, code: str, checkpoint: str) -> int:
        rows = self._run("SELECT round FROM rounds WHERE class_code = ? AND checkpoint = ?",
                         (clean_code(code), checkpoint))
        return int(rows[0][0]) if rows else 1

    def rounds(self, code: str) -> dict[str, int]:
        rows = self._run("SELECT checkpoint, round FROM rounds WHERE class_code = ?", (clean_code(code),))
        return {cp: int(r) for cp, r in rows}

    def vote_again(self, code: str, checkpoint: str) -> int:
        """Open the next round of a checkpoint (answers of earlier rounds are kept apart)."""
        code = clean_code(code)
        if self.get_class(code) is None:
            raise InputError("This class does not exist or has expired.", "no_class")
        with self._connect() as conn:
            conn.execute(self._sql(
                "INSERT INTO rounds (class_code, checkpoint, round) VALUES (?, ?, 2) "
                "ON CONFLICT (class_code, checkpoint) DO UPDATE SET round = rounds.round + 1"),
                (code, checkpoint))
            row = conn.execute(self._sql("SELECT round FROM rounds WHERE class_code = ? AND checkpoint = ?"),
                               (code, checkpoint)).fetchone()
        return int(row[0])

    def record_answer(self, code: str, checkpoint: str, session: str, answer: str, correct: bool,
                      seconds: float, round_: int | None = None, label: str = "") -> int:
        """Store one answer in the checkpoint's current round (or `round_`); the same session
        answering the same round again replaces its answer. `label`: what the answer showed the
        learner when its code does not say it (page 1's "w17" is a word of their vocabulary);
        raw text, escaped where shown. Returns the round written."""
        code = clean_code(code)
        if self.get_class(code) is None:
            raise InputError("This class does not exist or has expired.", "no_class")
        rnd = self.current_round(code, checkpoint) if round_ is None else int(round_)
        seconds = max(0.0, float(seconds)) if seconds == seconds else 0.0
        self._run(
            "INSERT INTO answers "
            "(class_code, checkpoint, round, session, answer, label, correct, seconds, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (class_code, checkpoint, round, session) "
            "DO UPDATE SET answer = excluded.answer, label = excluded.label, correct = excluded.correct, "
            "seconds = excluded.seconds, at = excluded.at",
            (code, checkpoint, rnd, str(session)[:64], str(answer)[:64], str(label)[:LABEL_CHARS],
             int(bool(correct)), seconds, time.time()))
        return rnd

    def answers(self, code: str) -> list[dict]:
        """Every answer of a class, oldest first, without the session id."""
        rows = self._run("SELECT checkpoint, round, answer, correct, seconds FROM answers "
                         "WHERE class_code = ? "
                         "ORDER BY checkpoint, round, at", (clean_code(code),))
        return [{"checkpoint": cp, "round": int(r), "answer": a, "correct": bool(c), "seconds": float(s)}
                for cp, r, a, c, s in rows]

    def labels(self, code: str) -> dict[str, dict[str, str]]:
        """checkpoint -> answer code -> the label its learners saw (the latest non-empty one)."""
        rows = self._run("SELECT checkpoint, answer, label FROM answers WHERE class_code = ? AND label <> '' "
                         "ORDER BY at", (clean_code(code),))
        out: dict[str, dict[str, str]] = {}
        for cp, ans, label in rows:
            out.setdefault(cp, {})[ans] = label
        return out

    def counts(self, code: str) -> dict[str, dict[str, dict]]:
        """checkpoint -> round (as text) -> {answered, correct, answers: {answer: n}}."""
        rows = self._run("SELECT checkpoint, round, answer, SUM(correct), COUNT(*) FROM answers "
                         "WHERE class_code = ? GROUP BY checkpoint, round, answer "
                         "ORDER BY checkpoint, round, answer",
                         (clean_code(code),))
        out: dict[str, dict[str, dict]] = {}
        for cp, rnd, ans, ok, n in rows:
            empty = {"answered": 0, "correct": 0, "answers": {}}
            cell = out.setdefault(cp, {}).setdefault(str(int(rnd)), empty)
            cell["answered"] += int(n)
            cell["correct"] += int(ok)
            cell["answers"][ans] = int(n)
        return out

    # ---- lesson steps ------------------------------------------------------------------------

    def record_step(self, code: str, session: str, step: int) -> None:
        code = clean_code(code)
        if self.get_class(code) is None:
            return
        self._run("INSERT INTO progress (class_code, session, step, at) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT (class_code, session) DO UPDATE SET step = excluded.step, at = excluded.at",
                  (code, str(session)[:64], int(step), time.time()))

    def steps(self, code: str) -> dict[int, int]:
        """lesson step (0-based) -> how many students are on it now."""
        rows = self._run("SELECT step, COUNT(*) FROM progress WHERE class_code = ? "
                         "GROUP BY step ORDER BY step",
                         (clean_code(code),))
        return {int(s): int(n) for s, n in rows}


_STORES: dict[tuple, ClassStore] = {}
_LOCK = threading.Lock()


def _psycopg():
    """The PostgreSQL driver, imported when a store is given a PostgreSQL URL: the embedded SQLite
    store (the default) never loads it (0.2 s of a fresh server's first page)."""
    import psycopg
    return psycopg


def store_from_env() -> ClassStore:
    """The process's store, by RNNVIZ_DATABASE_URL / RNNVIZ_DATA_DIR (opened and upgraded once)."""
    key = (os.environ.get("RNNVIZ_DATABASE_URL", ""), os.environ.get("RNNVIZ_DATA_DIR", "data"))
    with PAGE_TURNS.aside(), _LOCK:  # aside first: a turn is never waited for under the lock
        if key not in _STORES:
            _STORES[key] = ClassStore(url=key[0] or None, data_dir=key[1])
        return _STORES[key]
