"""The upload and metrics guards of deploy/haproxy.cfg (issue 22, R3 and R10), run in real
HAProxy on 127.0.0.1 in front of a tiny local HTTP backend: too many upload PUTs from one source
get 429, an oversize upload body is refused before it is read, /_stcore/metrics (also spelled
with an encoded slash) gives 403, and ordinary requests pass. Without haproxy it skips, except
under CI, where it fails."""
from __future__ import annotations

import http.server
import re
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from deploy.replicas import (
    GUARD_RULES,
    HAPROXY,
    LOOPBACK,
    UPLOAD_BODY_BYTES,
    UPLOAD_PUTS_PER_MINUTE,
    free_port,
    haproxy_config,
    wait_healthy,
)
from tests.conftest import ROOT
from tests.deploy.test_replicas import require_haproxy

pytestmark = pytest.mark.deploy
UPLOAD = "/_stcore/upload_file/session-1/file-1"


class Backend(http.server.BaseHTTPRequestHandler):
    """Answers everything with 200 "ok" (reads a PUT's body first), counts what reached it."""
    seen: list[str] = []

    def _ok(self):
        type(self).seen.append(f"{self.command} {self.path}")
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def do_GET(self):  # noqa: N802 - http.server's naming
        self._ok()

    def do_PUT(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self._ok()

    def log_message(self, *args):
        pass


def status(port: int, method: str, path: str, length: int | None = 0, send: int = 0) -> int:
    """The status HAProxy answers; `length` is the declared Content-Length (None: no header),
    `send` how many body bytes are really sent before the answer is read."""
    head = f"{method} {path} HTTP/1.1\r\nHost: {LOOPBACK}\r\nConnection: close\r\n"
    if length is not None:
        head += f"Content-Length: {length}\r\n"
    elif method == "PUT":
        head += "Transfer-Encoding: chunked\r\n"
    with socket.create_connection((LOOPBACK, port), timeout=30) as s:
        s.sendall(head.encode() + b"\r\n" + b"x" * send)
        reply = b""
        while b"\r\n" not in reply:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    m = re.match(rb"HTTP/1\.[01] (\d{3})", reply)
    assert m, reply[:200]
    return int(m.group(1))


@pytest.fixture
def balancer(tmp_path):
    require_haproxy()
    backend = http.server.ThreadingHTTPServer((LOOPBACK, 0), Backend)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    port = free_port()
    cfg = Path(tempfile.mkdtemp(prefix="rnnviz-haproxy-guards-")) / "haproxy.cfg"
    cfg.write_text(haproxy_config(port, {"r1": (LOOPBACK, backend.server_address[1])}))
    log = open(tmp_path / "haproxy.log", "w")
    proc = subprocess.Popen([HAPROXY, "-db", "-f", str(cfg)], stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://{LOOPBACK}:{port}", 30)
        Backend.seen.clear()
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()
        backend.shutdown()
        backend.server_close()


def test_deploy_config_holds_the_same_guards():
    cfg = (ROOT / "deploy" / "haproxy.cfg").read_text()
    assert GUARD_RULES in cfg
    k8s = (ROOT / "deploy" / "k8s.yaml").read_text()
    assert "limit-rpm" in k8s and "proxy-body-size" in k8s and "/_stcore/metrics" in k8s


def test_metrics_is_refused_and_ordinary_requests_pass(balancer):
    assert status(balancer, "GET", "/") == 200
    assert status(balancer, "GET", "/_stcore/health") == 200
    for path in ("/_stcore/metrics", "/_stcore/metrics?families=session_events",
                 "/_stcore%2Fmetrics", "/_stcore/%6detrics", "/_STCORE/METRICS"):
        assert status(balancer, "GET", path) == 403, path
    assert status(balancer, "OPTIONS", "/_stcore/metrics") == 403
    assert not any("metrics" in s.lower() for s in Backend.seen), Backend.seen


def test_the_script_check_is_the_launchers_alone(balancer):
    """/_stcore/script-health-check runs the whole app per request (the launcher warms a replica
    with it on the replica's own port): refused through the balancer, however it is spelled."""
    for path in ("/_stcore/script-health-check", "/_stcore%2Fscript-health-check",
                 "/_STCORE/Script-Health-Check", "/_stcore/script-health-check?x=1"):
        assert status(balancer, "GET", path) == 403, path
    assert not any("script" in s.lower() for s in Backend.seen), Backend.seen


def test_an_oversize_upload_is_refused_before_its_body_is_read(balancer):
    assert status(balancer, "PUT", UPLOAD, length=UPLOAD_BODY_BYTES + 1, send=1000) == 413
    assert status(balancer, "PUT", UPLOAD, length=None) == 400   # chunked: no declared size
    assert not any(s.startswith("PUT") for s in Backend.seen), Backend.seen
    assert status(balancer, "PUT", UPLOAD, length=1000, send=1000) == 200


def test_too_many_upload_puts_from_one_source_get_429(balancer):
    codes = [status(balancer, "PUT", UPLOAD, length=100, send=100)
             for _ in range(UPLOAD_PUTS_PER_MINUTE + 5)]
    assert codes[:UPLOAD_PUTS_PER_MINUTE] == [200] * UPLOAD_PUTS_PER_MINUTE, codes
    assert codes[UPLOAD_PUTS_PER_MINUTE:] == [429] * 5, codes
    assert sum(s.startswith("PUT") for s in Backend.seen) == UPLOAD_PUTS_PER_MINUTE
    # other requests from the same source still pass
    assert status(balancer, "GET", "/") == 200
    assert status(balancer, "PUT", "/some/other/path", length=10, send=10) == 200
