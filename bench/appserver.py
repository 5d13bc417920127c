"""Start `streamlit run APP_ROOT/app.py` on 127.0.0.1 and a free port for a benchmark, for any
checkout (--app-root), optionally under bench/profile_server.py (cProfile per script run).

Bytecode goes to this checkout's artifacts/pycache (PYTHONPYCACHEPREFIX), so a benchmark run
writes nothing into the other checkout. It IS written there even where PYTHONDONTWRITEBYTECODE
is set (as on this machine): with a prefix and no writing, every start compiled torch, pandas,
plotly and the app from source (2.7 s of a 4.8-s first page), which no deployed server does.
warm_bytecode() fills the cache before a measured start. Logs: artifacts/<log_name>. Loopback only.
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


def bytecode_env() -> dict:
    """os.environ with bytecode read from and written to artifacts/pycache."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(HERE / "artifacts" / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def warm_bytecode(root: Path) -> float:
    """Compile what a first page imports into artifacts/pycache (once per change of the code);
    returns the seconds it took. A deployed server reads bytecode pip and its first run wrote."""
    start = time.perf_counter()
    code = ("import compileall, glob, torch, pandas, numpy, plotly.graph_objects, streamlit.web.bootstrap\n"
            "compileall.compile_dir('rnnviz', quiet=1); compileall.compile_dir('ui', quiet=1)\n"
            "for f in ['app.py', *glob.glob('pages/*.py')]: compileall.compile_file(f, quiet=1)\n")
    subprocess.run([sys.executable, "-c", code], cwd=Path(root).resolve(), env=bytecode_env(),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


@contextlib.contextmanager
def app_server(root: Path, log_name: str, profile_dir: Path | None = None, timeout: float = 90,
               poll: float = 0.3, watcher: str | None = "none", answer_log: Path | None = None,
               script: str = "app.py"):
    """Yields (base URL, process) once /_stcore/health answers (asked every `poll` s); stops the
    process on exit. watcher: --server.fileWatcherType, or None for the checkout's own
    .streamlit/config.toml (what a bare `streamlit run app.py` does). profile_dir: every run
    profiled (bench/profile_server.py); answer_log: when each run's answer was sent
    (bench/answer_server.py); script: the page to run, relative to root (a bench's own page)."""
    root = Path(root).resolve()
    art = HERE / "artifacts"
    art.mkdir(exist_ok=True)
    port = free_port()
    opts = ["--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
            "--browser.gatherUsageStats", "false"]
    if watcher is not None:
        opts += ["--server.fileWatcherType", watcher]
    env = bytecode_env()
    if answer_log is not None:
        env["BENCH_ANSWER_LOG"] = str(answer_log)
        cmd = [sys.executable, str(HERE / "bench" / "answer_server.py"), str(root / script), *opts]
    elif profile_dir is None:
        cmd = [sys.executable, "-m", "streamlit", "run", str(root / script), *opts]
    else:
        env["BENCH_PROFILE_DIR"] = str(profile_dir)
        cmd = [sys.executable, str(HERE / "bench" / "profile_server.py"), str(root / script), *opts]
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
                    time.sleep(poll)
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
