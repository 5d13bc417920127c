"""The one way a page runs a heavy job (pages 6, 7 and 8): in a worker thread, watched by a poller.

    job = running.take(KEY)                                 # an ended job's result, once
    if go: running.start(KEY, work, "short", max_seconds)   # ClientBusy (InputError) if one runs
    running.watch(KEY, show, queued, stop_label)          # progress, queue place, Stop

`work(on_step)` is pure rnnviz (no st call: it runs outside the page's script thread) and
returns the result. `rnnviz.serve.jobs.Job` runs it through a lane's slot (one job per client,
the queue, the pacer, the cap). `watch` draws an `st.fragment(run_every=POLL_SECONDS)` that
shows the progress, beats the job's heartbeat and holds the Stop button, whose on_click sets the
job's stop Event; when the job has ended it reruns the whole page, where `take` hands the result
(what was learned up to a stop) to the page, which keeps it in session_state. A tab that closes
stops polling: the job stops itself after jobs.HEARTBEAT_SECONDS and frees its slot.
"""
from __future__ import annotations

import uuid

import streamlit as st

from rnnviz.errors import InputError
from rnnviz.serve.jobs import Job

from .i18n import error_text

CLIENT = "_client_id"
POLL_SECONDS = 0.5


def client_id() -> str:
    """This session's id (one job at a time per client), kept in its session_state."""
    return st.session_state.setdefault(CLIENT, uuid.uuid4().hex)


def start(key: str, work, lane: str = "short", max_seconds: float | None = None,
          total: int | None = None) -> Job:
    """Start `work` as this session's job under `key` (capped at max_seconds, a short job's cap
    by default); raises ClientBusy if this session has a job waiting or running."""
    job = Job(work, lane, client_id(), max_seconds=max_seconds, total=total).start()
    st.session_state[key] = job
    return job


def active(key: str) -> Job | None:
    """The job under `key` while it waits or runs (None once it has ended)."""
    job = st.session_state.get(key)
    return job if job is not None and not job.ended else None


def take(key: str) -> Job | None:
    """The job under `key` once it has ended, handed over once (later calls: None). A job that
    failed on bad input shows its message (its result is None); any other failure is raised."""
    job = st.session_state.get(key)
    if job is None or not job.ended or job.collected:
        return None
    job.collected = True
    if isinstance(job.error, InputError):
        st.error(error_text(job.error))
    elif job.error is not None:
        raise job.error
    return job


def watch(key: str, show, queued, stop_label: str, every: float = POLL_SECONDS) -> None:
    """While the job under `key` waits or runs: show(job) or the queued message queued(position),
    and a Stop button, redrawn every `every` seconds (each redraw beats the heartbeat)."""
    job = st.session_state.get(key)
    if job is None or job.collected:
        return

    @st.fragment(run_every=every)
    def poll() -> None:
        job = st.session_state.get(key)
        if job is None or job.collected:
            return
        job.beat()
        if job.ended:
            st.rerun(scope="app")  # the whole page takes the result (take) and draws it
        if job.status == "queued" and job.position > 0:
            st.info(queued(job.position), icon=":material/hourglass:")
        else:
            show(job)
        st.button(stop_label, key=f"{key}_stop", icon=":material/stop:", on_click=job.stop)

    poll()
