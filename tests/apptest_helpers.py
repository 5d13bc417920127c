"""Helpers for AppTest: read plotly figures back as JSON with their arrays decoded."""
from __future__ import annotations

import base64
import json

import numpy as np

from rnnviz.explain.checkpoints import KEYS as CHECKPOINTS

_DTYPES = {"f8": np.float64, "f4": np.float32, "i1": np.int8, "u1": np.uint8, "i2": np.int16,
           "u2": np.uint16, "i4": np.int32, "u4": np.uint32, "i8": np.int64, "u8": np.uint64}


def _decode(obj):
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            arr = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=_DTYPES[obj["dtype"]])
            if "shape" in obj:
                shape = obj["shape"]
                shape = [int(s) for s in shape.split(",")] if isinstance(shape, str) else shape
                arr = arr.reshape(shape)
            return arr
        return {k: _decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    return obj


def chart_elements(at) -> list:
    """Every chart element of the run, in page order: the app's charts drawn in place
    (ui.charts.chart: a "rnnviz_chart" component) and st.plotly_chart's (a chart that reports
    clicks, or any chart when Plotly.js is not served)."""
    found = []

    def walk(node) -> None:
        for child in (getattr(node, "children", None) or {}).values():
            kind = getattr(child, "type", None)
            if kind == "plotly_chart" or (kind == "bidi_component"
                                          and child.proto.component_name == "rnnviz_chart"):
                found.append(child)
            walk(child)

    walk(at._tree)
    return found


def chart_json(el) -> str:
    """A chart element's figure as Plotly's JSON text (both kinds of chart_elements)."""
    from ui.charts import payload_figure
    return el.proto.spec if el.type == "plotly_chart" else payload_figure(el.proto.bytes)


def figures(at) -> list[dict]:
    """Every chart on the page as a dict (data arrays decoded to numpy), in page order."""
    return [_decode(json.loads(chart_json(el))) for el in chart_elements(at)]


def figure_titles(at) -> list[str]:
    return [(f.get("layout", {}).get("title") or {}).get("text", "") for f in figures(at)]


def no_exception(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


def overview_h(at) -> np.ndarray:
    """The overview's h_t heatmap as (T, H) like the Trace (it is drawn units x steps)."""
    fig = next(f for f in figures(at) if f["data"] and f["data"][0].get("type") == "heatmap")
    return np.asarray(fig["data"][0]["z"], dtype=float).T


def skip_checkpoints(at) -> None:
    """Before the first run: every checkpoint already skipped in this session, so a test of what a
    page draws sees the figures the checkpoints guard (tests/pages/test_checkpoints_page.py tests
    the checkpoints themselves)."""
    for key in CHECKPOINTS:
        at.session_state[f"_{key}_done"] = {"skipped": True, "question": ""}


def finish_job(at, key: str, timeout: float = 300.0):
    """A page's job (ui.running) trains in a worker thread after the click's run: wait for it to
    end, then run the page again, as its poller does in a browser. Returns the AppTest."""
    job = at.session_state[key]
    assert job.join(timeout), f"the job under {key} did not end"
    return at.run()
