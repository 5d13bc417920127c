"""The server's TCP connections without Nagle's algorithm; app.py calls
no_delay_on_tcp_sockets() once per process, after the server is listening (never on import).

Streamlit 1.67 binds its listening socket as `socket.socket(family=family)`, protocol 0
(`streamlit/web/server/starlette/starlette_server.py`, `_bind_socket`), and asyncio turns
Nagle's algorithm off on an accepted connection only when its protocol is IPPROTO_TCP
(`asyncio.base_events._set_nodelay`). So every learner's websocket kept it: once a run had sent
its first message, each later small message waited in the kernel until the browser acknowledged
the first, and a browser that has nothing to send delays that acknowledgement (40 ms on Linux).
A step move whose script took 13 ms was answered in 48 ms (page 8, and a bare slider in a
fragment alike; bench/results/nodelay_s14.txt).

TCP_NODELAY set on the listening socket is copied by Linux to every connection it accepts later;
connections open already (the first learner's, whose first run calls this) get it here too, and
a second pass takes any accepted while the first was under way.
Found through /proc/self/fd, so elsewhere than Linux this does nothing."""
from __future__ import annotations

import os
import socket
from pathlib import Path

FDS = Path("/proc/self/fd")
_done = [False]  # once per process


def no_delay_on_tcp_sockets(fds: Path = FDS) -> int:
    """TCP_NODELAY on every TCP socket of this process that lacks it, the listening one
    included, the first time in this process. Returns how many it set (0 on later calls, and
    where /proc is missing)."""
    if _done[0]:
        return 0
    _done[0] = True
    first = set_no_delay(socket_fds(fds))
    return first + set_no_delay(socket_fds(fds))  # any accepted between the listing and the listener's


def socket_fds(fds: Path = FDS) -> list[int]:
    """The file descriptors of this process that are sockets (of any kind; see set_no_delay)."""
    try:
        entries = list(fds.iterdir())
    except OSError:
        return []
    out = []
    for entry in entries:
        try:
            if os.readlink(entry).startswith("socket:"):
                out.append(int(entry.name))
        except (OSError, ValueError):  # closed meanwhile (the listing's own fd among them)
            continue
    return sorted(out)


def set_no_delay(fds: list[int]) -> int:
    """TCP_NODELAY on each of `fds` that is a TCP stream without it. Works on a duplicate of
    each descriptor: a socket's options are the socket's, so the original gets it, and closing
    the duplicate leaves the original open. Returns how many it set."""
    count = 0
    for fd in fds:
        try:
            dup = os.dup(fd)
        except OSError:  # closed meanwhile
            continue
        try:
            sock = socket.socket(fileno=dup)  # family and type read from the socket
        except OSError:  # no longer a socket: the number was given to something else
            os.close(dup)
            continue
        with sock:
            try:
                if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM \
                        and not sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    count += 1
            except OSError:
                continue
    return count
