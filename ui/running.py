"""Heavy runs in a page: who the client is (one job per session, rnnviz.serve.jobs.Lanes) and the
on-step hook that notices a closed tab or a click.

Streamlit stops a session's script run when its tab closes (AppSession.shutdown) or reruns it on
a click: the next `st` call of that run raises StopException / RerunException. Page 6's training
learns it from its progress bar; `interrupt_watch` does the same for any run: it updates a
progress bar at most every `every_s` seconds and, when that raises, stores the interruption and
returns False (stop), so the run ends at once, frees its slot and the caller re-raises."""
from __future__ import annotations

import time

from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException


def client_id() -> str:
    """This session's id (one job at a time per client); "local" outside a Streamlit run."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "local"


def interrupt_watch(show, every_s: float = 0.2, clock=time.perf_counter):
    """(on_step(record) -> bool, caught: dict). show(record) draws the progress (an st call);
    when it raises because the session ended or reran, caught["x"] keeps the exception and
    on_step returns False."""
    caught, last = {}, [-1e9]

    def on_step(record) -> bool:
        now = clock()
        if now - last[0] < every_s:
            return True
        last[0] = now
        try:
            show(record)
        except (RerunException, StopException) as interrupt:
            caught["x"] = interrupt
            return False
        return True

    return on_step, caught
