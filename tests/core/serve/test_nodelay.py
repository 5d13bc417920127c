"""rnnviz.serve.nodelay: the server's TCP connections without Nagle's algorithm, on the listening
socket Streamlit itself binds (its connections keep Nagle's algorithm otherwise)."""
from __future__ import annotations

import os
import socket
from contextlib import ExitStack

import pytest
from streamlit.web.server.starlette.starlette_server import _bind_socket

from rnnviz.serve import nodelay

pytestmark = pytest.mark.skipif(not nodelay.FDS.is_dir(), reason="needs Linux's /proc/self/fd")


def _no_delay(sock: socket.socket) -> bool:
    return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


def _connect(stack: ExitStack, listener: socket.socket) -> socket.socket:
    """A client connection to `listener`; returns the server's end, as the server accepted it."""
    stack.enter_context(socket.create_connection(listener.getsockname()[:2], timeout=5))
    accepted, _ = listener.accept()
    return stack.enter_context(accepted)


@pytest.fixture
def listener():
    """A listening socket bound as Streamlit 1.67 binds its server's (blocking, for accept)."""
    sock = _bind_socket("127.0.0.1", 0, 8)
    sock.setblocking(True)
    with sock:
        yield sock


def test_streamlits_own_listener_accepts_connections_with_nagle_on(listener):
    """What this module is for: if a Streamlit upgrade binds with IPPROTO_TCP (asyncio then sets
    TCP_NODELAY itself), this fails and the module can go."""
    assert listener.proto == 0
    with ExitStack() as stack:
        assert not _no_delay(_connect(stack, listener))


def test_the_listener_and_open_connections_get_no_delay_and_later_connections_inherit_it(
        listener, monkeypatch):
    monkeypatch.setattr(nodelay, "_done", [False])
    with ExitStack() as stack:
        before = _connect(stack, listener)  # the first learner's, open when app.py first runs
        set_now = nodelay.no_delay_on_tcp_sockets()
        assert set_now >= 3  # the listener, and both ends of `before` (this process holds both)
        assert _no_delay(listener) and _no_delay(before)
        assert _no_delay(_connect(stack, listener))  # accepted later: copied from the listener
        assert nodelay.no_delay_on_tcp_sockets() == 0  # once per process
        before.sendall(b"still open")  # the duplicates were closed, the sockets were not


def test_other_sockets_are_left_alone_and_open():
    a, b = socket.socketpair()  # AF_UNIX
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with a, b, udp:
        assert nodelay.set_no_delay([a.fileno(), udp.fileno(), 10_000]) == 0
        a.sendall(b"x")
        assert b.recv(1) == b"x"
        assert os.fstat(udp.fileno())


def test_socket_fds_are_found_and_a_missing_proc_gives_none(tmp_path, listener):
    assert listener.fileno() in nodelay.socket_fds()
    assert nodelay.socket_fds(tmp_path / "no-such-dir") == []
