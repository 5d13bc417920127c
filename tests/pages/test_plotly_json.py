"""Charts' JSON is written by the standard library's json on every machine (issue 24): plotly's
default takes orjson when installed, which is 2-3x slower here on figures that hold numpy text
arrays. Set once by app.py (ui/widgets.plotly_json_settings), never by an import."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import plotly.io as pio

from tests.apptest_helpers import chart_elements, chart_json, no_exception

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_ui_sets_no_json_engine():
    code = ("import plotly.io as pio, ui.widgets, ui.cache, ui.sections.bptt, ui.sections.home; "
            "print(pio.json.config.default_engine)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "auto"


def test_app_py_sets_the_json_engine(app, monkeypatch):
    monkeypatch.setattr(pio.json.config, "default_engine", "auto")
    at = app()
    no_exception(at)
    assert pio.json.config.default_engine == "json"
    spec = chart_json(chart_elements(at)[0])
    assert spec == pio.to_json(json.loads(spec), validate=False, engine="json")  # as json writes it
