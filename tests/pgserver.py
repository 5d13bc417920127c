"""A throwaway PostgreSQL server on loopback for the class-store tests (no mocks).

initdb + pg_ctl from /usr/lib/postgresql/<v>/bin into a fresh folder, run as the `postgres`
user when we are root (PostgreSQL refuses to run as root), trust authentication on 127.0.0.1
only, a free port. Missing binaries: a skip, or a failure when CI is set."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True)
    return Path(found[0]).parent if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    def __init__(self):
        self.bin = pg_bin()
        if self.bin is None:
            if os.environ.get("CI"):
                pytest.fail("PostgreSQL server binaries are missing (apt-get install postgresql)")
            pytest.skip("PostgreSQL server binaries are missing")
        self.dir = Path(tempfile.mkdtemp(prefix="rnnviz-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                   "-E", "UTF8", "--no-sync"])
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-t", "60", "-l",
                   str(self.dir / "log"), "-o",
                   f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start"])

    def _run(self, cmd: list[str]) -> None:
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--"] + cmd
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if out.returncode:
            raise RuntimeError(f"{cmd[-1]} failed: {out.stderr[-2000:]}")

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg
        name = "t" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
