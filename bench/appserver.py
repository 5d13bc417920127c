"""Start `streamlit run APP_ROOT/app.py` on 127.0.0.1 and a free port for a benchmark, for any
checkout (--app-root), optionally under bench/profile_server.py (cProfile per script run).

Bytecode goes to this checkout's artifacts/pycache (PYTHONPYCACHEPREFIX), so a benchmark run
writes nothing into the other checkout. Logs: artifacts/<log_name>. Loopback only.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from tools.server import free_port  # noqa: E402


@contextlib.contextmanager
def app_server(root: Path, log_name: str, profile_dir: Path | None = None, timeout: float = 90):
    """Yields (base URL, process); stops the process on exit."""
    root = Path(root).resolve()
    art = HERE / "artifacts"
    art.mkdir(exist_ok=True)
    port = free_port()
    opts = ["--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(art / "pycache"))
    if profile_dir is None:
        cmd = [sys.executable, "-m", "streamlit", "run", str(root / "app.py"), *opts]
    else:
        env["BENCH_PROFILE_DIR"] = str(profile_dir)
        cmd = [sys.executable, str(HERE / "bench" / "profile_server.py"), str(root / "app.py"), *opts]
    with open(art / log_name, "w") as log:
        proc = subprocess.Popen(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.time() + timeout
            while time.time() < deadline:
                if proc.poll() is not None:
                    raise RuntimeError(f"streamlit exited ({proc.returncode}); see artifacts/{log_name}")
                try:
                    if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                        break
                except OSError:
                    time.sleep(0.3)
            else:
                raise RuntimeError(f"streamlit did not become healthy in {timeout:.0f} s")
            yield url, proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
