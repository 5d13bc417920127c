"""A real `streamlit run app.py` serves every learner's connection with TCP_NODELAY
(rnnviz/serve/nodelay.py): the first learner's, open when app.py first runs, and a later one,
which Linux copies it to from the listening socket. Without it a run's messages after the first
waited for the browser's delayed acknowledgement (40 ms a step move, bench/results/nodelay_s14.txt).
Read from the server process's own sockets (pidfd_getfd: Linux 5.6+, a child process)."""
from __future__ import annotations

import ctypes
import errno
import os
import socket
from pathlib import Path

import pytest

from bench.appserver import app_server
from bench.stclient import Session
from rnnviz.serve.nodelay import socket_fds
from tests.deploy.test_replicas import run_in_own_thread

pytestmark = pytest.mark.deploy
ROOT = Path(__file__).resolve().parents[2]
PIDFD_GETFD = 438  # the same number on every Linux architecture


def tcp_no_delay_of(pid: int) -> list[tuple[str, bool]]:
    """(local address, TCP_NODELAY) of each TCP socket process `pid` holds, through copies of its
    descriptors (closed here; the process's own stay open)."""
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    out = []
    try:
        for fd in socket_fds(Path(f"/proc/{pid}/fd")):
            mine = libc.syscall(PIDFD_GETFD, pidfd, fd, 0)
            if mine < 0:
                err = ctypes.get_errno()
                if err in (errno.EPERM, errno.EACCES, errno.ENOSYS):
                    pytest.skip(f"this kernel or its settings refuse pidfd_getfd: {os.strerror(err)}")
                continue  # closed meanwhile (EBADF)
            try:
                sock = socket.socket(fileno=mine)
            except OSError:  # no longer a socket
                os.close(mine)
                continue
            with sock:
                if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
                    where = "listening" if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) \
                        else "connection"
                    out.append((where, bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))))
    finally:
        os.close(pidfd)
    return out


def test_every_connection_of_a_served_app_has_no_delay():
    with app_server(ROOT, "test-nodelay.log") as (url, proc):
        seen = {}

        async def go():
            first = Session(url, timeout=120, browser=True)
            await first.connect()
            await first.rerun("")  # app.py's first run in this process
            later = Session(url, timeout=120, browser=True)
            await later.connect()  # accepted after it
            await later.rerun("")
            seen["sockets"] = tcp_no_delay_of(proc.pid)
            await first.close()
            await later.close()
        run_in_own_thread(go())
    sockets = seen["sockets"]
    assert ("listening", True) in sockets, sockets
    assert [s for s in sockets if s[0] == "connection"].count(("connection", True)) >= 2, sockets
    assert all(no_delay for _, no_delay in sockets), sockets
