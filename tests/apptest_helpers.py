"""Helpers for AppTest: read plotly figures back as JSON with their arrays decoded."""
from __future__ import annotations

import base64
import json

import numpy as np

from rnnviz.explain.checkpoints import KEYS as CHECKPOINTS
from ui.widgets import STEP_SYNC

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


# ---- parts that follow the step slider in the browser (ui/stepped.py) -------------------------

def move_step(at, key: str, value: int):
    """Move a page's step slider as a learner does: set it and, where it sits in a step form
    (ui/widgets.step_form: its parts follow it in the browser), press the form's sync button, as
    ui/stepped.js does when the learner stops. Returns `at`, to run."""
    at.slider(key=key).set_value(value)
    sync = [b for b in at.button if b.key == STEP_SYNC + key]
    if sync:
        sync[0].click()
    return at


def stepped_elements(at) -> list[dict]:
    """Every stepped block of text or table on the page ("rnnviz_stepped" components), in page
    order, as the data it carries ({"follow", "first", "at", "slides", "kind", ...})."""
    found = []

    def walk(node) -> None:
        for child in (getattr(node, "children", None) or {}).values():
            if getattr(child, "type", None) == "bidi_component" and child.proto.component_name == "rnnviz_stepped":
                found.append(json.loads(child.proto.bytes))
            walk(child)

    walk(at._tree)
    return found


def stepped_slide(data: dict, step: int | None = None) -> str:
    """A stepped element's HTML at `step` (default: the step the server drew)."""
    return data["slides"][(data["at"] if step is None else step) - data["first"]]


def html_text(markup: str) -> str:
    """The words of a slide's HTML (math left as its TeX source, as st.markdown's text holds it)."""
    from ui.stepped import plain_text
    return plain_text(markup)


def stepped_texts(at) -> list[str]:
    """The text every stepped block (not table) shows at the drawn step."""
    return [html_text(stepped_slide(d)) for d in stepped_elements(at) if d["kind"] != "table"]


def stepped_tables(at) -> list:
    """The tables stepped blocks show at the drawn step, as DataFrames of strings (the cells as
    the page writes them: 4 significant digits), index = the row headers."""
    return [table_frame(stepped_slide(d)) for d in stepped_elements(at) if d["kind"] == "table"]


def table_frame(markup: str):
    """ui.stepped.table_html's table back as a DataFrame of strings."""
    from html.parser import HTMLParser

    import pandas as pd

    class Cells(HTMLParser):  # end tags of cells and rows are optional (ui.stepped.table_html)
        def __init__(self):
            super().__init__()
            self.rows, self.cell = [], None

        def flush(self):
            if self.cell is not None:
                self.rows[-1].append(self.cell)
                self.cell = None

        def handle_starttag(self, tag, attrs):
            if tag in ("tr", "td", "th"):
                self.flush()
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = ""

        def handle_endtag(self, tag):
            if tag in ("td", "th", "tr", "thead", "tbody", "table"):
                self.flush()

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    cells = Cells()
    cells.feed(markup)
    head, *body = cells.rows
    return pd.DataFrame([r[1:] for r in body], index=[r[0] for r in body], columns=head[1:])


def page_text(at) -> str:
    """Every markdown element's text and every stepped block's, in that order."""
    return "\n".join([m.value for m in at.markdown] + stepped_texts(at))


def same_figure(a, b) -> bool:
    """Two plain figures alike once their base64 arrays are decoded: an array and a list of the
    same numbers are the same (a stepped chart's patches send float32 arrays as base64)."""
    a, b = _decode(a), _decode(b)

    def same(x, y) -> bool:
        if isinstance(x, dict) and isinstance(y, dict):
            return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        numeric = (np.ndarray, list, tuple)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            return isinstance(x, numeric) and isinstance(y, numeric) and \
                np.array_equal(np.asarray(x, dtype=float), np.asarray(y, dtype=float), equal_nan=True)
        if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
            return len(x) == len(y) and all(same(u, v) for u, v in zip(x, y))
        return x == y or (isinstance(x, float) and isinstance(y, float) and x != x and y != y)

    return same(a, b)
