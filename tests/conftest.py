"""Shared fixtures: the app path, AppTest factory, float64 helpers."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from tests.apptest_helpers import skip_checkpoints

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
torch.set_num_threads(1)  # as app.py sets it: core numbers are computed as the app computes them


@pytest.fixture
def app():
    """A fresh AppTest of the whole app (one per test: sessions never share state)."""
    from streamlit.testing.v1 import AppTest

    def make(page: str | None = None, query: dict | None = None, model: str | None = "default",
             checkpoints: bool = False):
        """model: pinned to the word-level model ("default") that these tests were written for,
        unless the query names one; model=None opens what a fresh session opens (the start
        model, rnnviz.store.catalog.START_MODEL)."""
        at = AppTest.from_file(APP, default_timeout=60)
        if not checkpoints:  # checkpoints=True: the page's predict-first questions are asked
            skip_checkpoints(at)
        query = dict(query or {})
        if model is not None:
            query.setdefault("model", model)
        for k, v in query.items():
            at.query_params[k] = v
        at.run()
        if page:
            at.switch_page(str(ROOT / page))
            at.run()
        return at

    return make


@pytest.fixture(autouse=True)
def _deterministic():
    torch.manual_seed(0)
    yield


MARKERS = {"core": "core", "pages": "pages", "browser": "browser", "deploy": "deploy"}  # tests/<dir> -> marker


def pytest_collection_modifyitems(config, items):
    """Mark every test by its directory (core / pages / browser / deploy; the load test also `load`), so
    `python -m pytest -m core` runs the fast part alone."""
    for item in items:
        parts = Path(str(item.fspath)).relative_to(ROOT).parts
        if len(parts) > 2 and parts[1] in MARKERS:
            item.add_marker(getattr(pytest.mark, MARKERS[parts[1]]))
        if parts[-1] == "test_load.py":
            item.add_marker(pytest.mark.load)


def pytest_configure(config):
    os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL server on loopback for this test run (tests/pgserver.py)."""
    from tests.pgserver import PgServer
    server = PgServer()
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty PostgreSQL database of the session's server."""
    return pg_server.new_database()


def pytest_runtest_logreport(report):
    """With RNNVIZ_DURATIONS=path set, append "seconds<TAB>phase<TAB>outcome<TAB>test id" per phase as each test ends,
    so a run cut short still says where its time went (pytest's --durations prints only at the end)."""
    path = os.environ.get("RNNVIZ_DURATIONS")
    if path and not hasattr(report, "node"):  # under xdist the controller hears each report again
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{report.duration:.2f}\t{report.when}\t{report.outcome}\t{report.nodeid}\n")
