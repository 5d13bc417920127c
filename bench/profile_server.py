"""Bench-only launcher: `streamlit run` with every script run profiled by cProfile.

    BENCH_PROFILE_DIR=DIR python bench/profile_server.py APP.py [streamlit run options]

It wraps Streamlit's exec_func_with_error_handling (the call that executes the page script, in
the script thread) with a cProfile.Profile, and writes one stats file per run to
DIR/run-NNNNN.prof before Streamlit sends script_finished, so a client that has seen
script_finished finds the file. Nothing in the app is changed; production never runs this file.
What it sees: the script thread (the app, plotly, torch, Streamlit's element marshalling and
ForwardMsg hashing). Not seen: the event loop thread that writes the websocket frames.
BENCH_PROFILE_SCOPE=run profiles the script thread's whole run instead (widget callbacks, state
and query-parameter handling, the cleanup after the script); its file is written after
script_finished, so a run's file may be attributed to the next measurement.
"""
from __future__ import annotations

import cProfile
import itertools
import os
import sys
import threading
from pathlib import Path


def install(out: Path) -> None:
    from streamlit.runtime.scriptrunner import script_runner

    counter, lock = itertools.count(), threading.Lock()

    def profiling(call):
        """`call` run under its own cProfile, the stats written to out/run-NNNNN.prof."""
        def profiled(*args):
            prof = cProfile.Profile()
            prof.enable()
            try:
                return call(*args)
            finally:
                prof.disable()
                with lock:
                    n = next(counter)
                prof.dump_stats(str(out / f"run-{n:05d}.prof"))
        return profiled

    if os.environ.get("BENCH_PROFILE_SCOPE") == "run":  # the whole run: callbacks, widget state, cleanup
        script_runner.ScriptRunner._run_script = profiling(script_runner.ScriptRunner._run_script)
    else:
        script_runner.exec_func_with_error_handling = profiling(script_runner.exec_func_with_error_handling)


def main() -> None:
    out = Path(os.environ["BENCH_PROFILE_DIR"])
    out.mkdir(parents=True, exist_ok=True)
    install(out)
    from streamlit.web import cli
    sys.argv = ["streamlit", "run", *sys.argv[1:]]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
