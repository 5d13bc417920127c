"""K replicas of `streamlit run app.py` behind HAProxy, all on loopback; stops cleanly.

    python deploy/replicas.py --replicas 2 --port 8500     # until Ctrl-C
    deploy/replicas.sh 2 8500                               # the same

Each replica is its own process (Streamlit keeps a session in one process) on a free
127.0.0.1 port, with RNNVIZ_REPLICA=r<i> and PyTorch threads set to cores / K. HAProxy
(Debian package `haproxy`) listens on 127.0.0.1:<port> and
- pins a browser to its replica with the cookie `rnnviz_replica` (inserted by HAProxy),
- passes the websocket (/_stcore/stream) through (HTTP/1.1 upgrade, long tunnel timeout),
- checks each replica's /_stcore/health every 2 s and stops sending to a dead one;
  a browser pinned to a dead replica is redispatched to a live one, whose app says so;
- limits uploads (PUT /_stcore/upload_file) per source address and by body size, and answers
  /_stcore/metrics with 403 (GUARD_RULES, the same lines as deploy/haproxy.cfg).
Used by bench/bench_load.py --replicas K and tests/deploy/.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HAPROXY = os.environ.get("HAPROXY", "/usr/sbin/haproxy")
LOOPBACK = "127.0.0.1"

# Guards in front of every replica (issue 22, R3 and R10), the same lines as deploy/haproxy.cfg
# (a test checks): Streamlit keeps an uploaded file in memory while its session lives, and
# /_stcore/metrics (cache names and sizes, session count) cannot be switched off in Streamlit.
# /_stcore/script-health-check runs the whole app once per request: the launcher's own warm-up
# (warm_up, on the replica's loopback port), never a learner's.
UPLOAD_PUTS_PER_MINUTE = 10           # PUT /_stcore/upload_file per source address
UPLOAD_BODY_BYTES = 11_000_000        # server.maxUploadSize (10 MB) plus the form's overhead
GUARD_RULES = f"""\
    # uploads: at most {UPLOAD_PUTS_PER_MINUTE} PUTs a minute per source, bodies up to \
{UPLOAD_BODY_BYTES:,} bytes
    stick-table type ipv6 size 100k expire 10m store http_req_rate(60s)
    acl upload method PUT
    acl upload_path path,url_dec -m beg /_stcore/upload_file
    acl metrics path,url_dec,lower -m beg /_stcore/metrics
    http-request deny deny_status 403 if metrics
    acl script_check path,url_dec,lower -m beg /_stcore/script-health-check
    http-request deny deny_status 403 if script_check
    http-request track-sc0 src if upload upload_path
    http-request deny deny_status 429 if upload upload_path {{ sc_http_req_rate(0) gt \
{UPLOAD_PUTS_PER_MINUTE} }}
    http-request deny deny_status 400 if upload upload_path !{{ req.hdr(content-length) -m found }}
    http-request deny deny_status 413 if upload upload_path \
{{ req.hdr_val(content-length) gt {UPLOAD_BODY_BYTES} }}
"""

HAPROXY_CFG = """\
global
    maxconn 4096

defaults
    mode http
    option http-server-close
    option redispatch          # a browser pinned to a dead replica goes to a live one
    retries 2
    timeout connect 3s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h          # websockets stay open as long as the learner does
    timeout check 10s          # a busy replica answers its health check late, not never

frontend learners
    bind {address}:{port}
{guards}    default_backend replicas

backend replicas
    balance roundrobin
    cookie {cookie} insert nocache httponly
    option httpchk GET /_stcore/health
    http-check expect string ok
{servers}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def haproxy_config(port: int, replicas: dict[str, tuple[str, int]], cookie: str = "rnnviz_replica",
                   address: str = LOOPBACK) -> str:
    """HAProxy's configuration: one `server` line per replica name -> (host, port)."""
    servers = "\n".join(f"    server {name} {host}:{p} check inter 2s fall 3 rise 2 cookie {name}"
                        for name, (host, p) in replicas.items())
    return HAPROXY_CFG.format(address=address, port=port, cookie=cookie, servers=servers,
                              guards=GUARD_RULES)


def wait_healthy(url: str, seconds: float = 90) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not become healthy in {seconds:.0f} s")


def warm_up(url: str, seconds: float = 120) -> float:
    """Run the app once in the replica (Streamlit's script health check: a session of its own,
    on the start page) before it joins the balancer, so the first learners it gets do not wait
    for its imports, models and the start page's caches (2-3 s on this machine, during which
    every arriving learner's first run waited). Returns the seconds it took."""
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(url + "/_stcore/script-health-check", timeout=seconds) as answer:
            said = answer.read()
    except OSError as err:  # urllib's HTTPError (the script failed: 503) is one
        raise RuntimeError(f"{url}: the app's first run failed ({err})") from err
    if said != b"ok":
        raise RuntimeError(f"{url}: the app's first run failed ({said[:200]!r})")
    return time.perf_counter() - start


def _stop(proc: subprocess.Popen, seconds: float = 10) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Cluster:
    """Replicas (name -> process, port) and the balancer; `stop_replica` simulates a failure."""

    def __init__(self, k: int, port: int | None = None, logs: Path | None = None, env=None):
        if not 1 <= k <= 8:
            raise ValueError("Start 1 to 8 replicas.")
        self.k, self.port = k, port or free_port()
        self.logs = logs or ROOT / "artifacts"
        self.env = dict(os.environ if env is None else env)
        self.replicas: dict[str, tuple[subprocess.Popen, int]] = {}
        self.warmed: dict[str, float] = {}  # name -> seconds its warm-up run took
        self.balancer: subprocess.Popen | None = None
        self.url = f"http://{LOOPBACK}:{self.port}"

    def _start_replica(self, name: str, port: int | None = None) -> tuple[subprocess.Popen, int]:
        port = port or free_port()
        threads = str(max(1, (os.cpu_count() or 1) // self.k))
        env = dict(self.env, RNNVIZ_REPLICA=name, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
        with open(self.logs / f"replica-{self.port}-{name}.log", "a") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.address",
                 LOOPBACK, "--server.port", str(port), "--server.headless", "true",
                 "--browser.gatherUsageStats", "false",
                 "--server.fileWatcherType", "none",  # serving, not editing: no reloads
                 "--server.scriptHealthCheckEnabled", "true"],  # warm_up: the app's first run
                cwd=ROOT, env=env, stdout=log,
                stderr=subprocess.STDOUT)
        return proc, port

    def start(self):
        self.logs.mkdir(parents=True, exist_ok=True)
        try:
            for i in range(1, self.k + 1):
                self.replicas[f"r{i}"] = self._start_replica(f"r{i}")
            for name, (_, port) in self.replicas.items():
                wait_healthy(f"http://{LOOPBACK}:{port}")
                self.warmed[name] = warm_up(f"http://{LOOPBACK}:{port}")
            cfg = Path(tempfile.mkdtemp(prefix="rnnviz-haproxy-")) / "haproxy.cfg"
            backends = {n: (LOOPBACK, p) for n, (_, p) in self.replicas.items()}
            cfg.write_text(haproxy_config(self.port, backends))
            with open(self.logs / f"haproxy-{self.port}.log", "w") as log:
                self.balancer = subprocess.Popen([HAPROXY, "-db", "-f", str(cfg)], stdout=log,
                                                 stderr=subprocess.STDOUT)
            wait_healthy(self.url, 30)
        except BaseException:
            self.stop()
            raise
        return self

    def pids(self) -> dict[str, int]:
        return {name: proc.pid for name, (proc, _) in self.replicas.items()}

    def stop_replica(self, name: str) -> None:
        """Stop one replica as a crash would (SIGKILL): its sessions are lost."""
        proc, _ = self.replicas[name]
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    def restart_replica(self, name: str) -> None:
        """Kill one replica (SIGKILL, as a crash) and start it again on its port; wait until healthy."""
        self.stop_replica(name)
        _, port = self.replicas[name]
        self.replicas[name] = self._start_replica(name, port)
        wait_healthy(f"http://{LOOPBACK}:{port}")
        self.warmed[name] = warm_up(f"http://{LOOPBACK}:{port}")

    def stop(self) -> None:
        if self.balancer is not None:
            _stop(self.balancer)
        for proc, _ in self.replicas.values():
            _stop(proc)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


@contextlib.contextmanager
def cluster(k: int, port: int | None = None):
    with Cluster(k, port) as c:
        yield c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--port", type=int, default=8500)
    args = ap.parse_args()
    with Cluster(args.replicas, args.port) as c:
        print(f"{args.replicas} replica(s) behind HAProxy at {c.url} (pids {c.pids()}); Ctrl-C stops all.",
              flush=True)
        stop = []
        signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
        try:
            while not stop and c.balancer.poll() is None:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
    print("stopped.")


if __name__ == "__main__":
    main()
