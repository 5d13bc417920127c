"""Every chart the app shows, in Streamlit's light look, drawn once per change instead of twice,
and in place.

    chart(fig, width="stretch", key=...)   # streamlit_look(fig), drawn in place (below)

In place (issue 24, fifteenth session; `python bench/bench_chart_in_place.py`): Streamlit 1.67
gives st.plotly_chart an element id computed from the figure, so its frontend mounts every changed
chart anew (Plotly.newPlot from scratch). chart() sends the same JSON to plotly_chart.js, an
st.components.v2 chart keyed by the chart's key, which keeps its <div> and hands each new figure
to Plotly.react: 1.9-2.9x less of a step move's drawing per changed chart. The browser loads
Plotly.js and that code once per tab: app.py puts plotly.py's Plotly.js and plotly_chart.js in
static/ beside the script Streamlit runs (serve_plotly), which Streamlit serves at /app/static/
(`server.enableStaticServing`); each element carries only chart_loader.js (0.7 KB). A chart
that reports clicks (on_select: ui/cellpick) is drawn in place too and sends a click on a point
as its "select" event (nineteenth session: st.plotly_chart mounted page 2's hidden-state map
anew on every step move, 0.47 -> 0.37 s drawn for a learner past its checkpoint). Every chart of
a page that did not serve Plotly.js goes to st.plotly_chart(..., theme=None). A chart drawn before
that gets a new figure while it is far out of sight (below the fold, or in a closed expander)
keeps its drawing and is drawn when it comes near the window (twentieth session: a step move
drew every chart it changed, seen or not; page 3's three and page 2's terms chart were all below
the fold).

Why (issue 24, `python bench/bench_chart_draw.py --why-twice`): st.plotly_chart's default theme
("streamlit") makes its chart component copy each new figure through JSON after it first drew
it, into a layout.template it fills with the theme, and hand the copy to Plotly.react. Plotly.react
compares `layout.template` and typed arrays (plotly.py sends arrays as base64) by identity, so
the copy is a whole second draw of every chart a step move changes: 2x the first draw. Written
out here once on the server instead, the copy holds no template, the arrays a chart redraws
are plain lists (the short, finite ones: rnnviz/figures/wire.py) and `layout.datarevision`
says the data did not change, so Plotly.react finds nothing to redraw.

streamlit_look(fig) writes into the figure what the theme pass would have set: the figure's
template (layout defaults for every axis and colour axis, trace defaults per trace type) with
Streamlit's light theme over it (STREAMLIT_LIGHT: read from Streamlit 1.67's chart component in
Chromium, `.streamlit/config.toml` sets base = "light"), Streamlit's colour placeholders
(#000001 ...) replaced by its palettes, and the title bold. A figure's own settings win, as
they did over the template. tests/browser/test_chart_look.py checks in Chromium that every
chart of the pages draws the same with it (Plotly's full layout and data) as with the theme.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import re
import shutil
import tempfile
import threading
from pathlib import Path

import plotly
import plotly.io as pio
import streamlit as st
from plotly.basedatatypes import BaseFigure

from rnnviz.figures.common import merged
from rnnviz.figures.wire import has_typed, listed
from rnnviz.serve.bytecache import value_digest

from .i18n import t

# Streamlit's palettes (light theme): its templates name them #000001-#000010 (categorical),
# #000011-#000020 (sequential), #000021-#000030 (diverging); its frontend puts these in.
CATEGORICAL = ["#0068c9", "#83c9ff", "#ff2b2b", "#ffabab", "#29b09d", "#7defa1", "#ff8700", "#ffd16a",
               "#6d3fc0", "#d5dae5"]
SEQUENTIAL = ["#e4f5ff", "#c7ebff", "#a6dcff", "#83c9ff", "#60b4ff", "#3d9df3", "#1c83e1", "#0068c9",
              "#0054a3", "#004280"]
DIVERGING = ["#7d353b", "#bd4043", "#ff4b4b", "#ff8c8c", "#ffc7c7", "#a6dcff", "#60b4ff", "#1c83e1",
             "#0054a3", "#004280"]
PLACEHOLDERS = {f"#{k + 1:06d}": c for k, c in enumerate(CATEGORICAL + SEQUENTIAL + DIVERGING)}

_FONT = '"Source Sans", sans-serif, "Source Sans", sans-serif'  # as the theme pass writes it
_MUTED, _GRID = "#808495", "#e6eaf1"
_CLEAR = "rgba(0, 0, 0, 0)"  # the theme writes "transparent", which plotly.py's validation refuses
# What Streamlit 1.67's theme pass writes over a figure's template.layout (light theme).
STREAMLIT_LIGHT = {
    "font": {"color": _MUTED, "family": _FONT, "size": 12, "weight": 400},
    "title": {"font": {"family": _FONT, "size": 16, "color": "#2F2D2B"}, "pad": {"l": 4}, "xanchor": "left",
              "x": 0},
    "legend": {"title": {"font": {"size": 12, "color": _MUTED}, "side": "top"}, "valign": "top",
               "bordercolor": _CLEAR, "borderwidth": 0, "font": {"size": 12, "color": "#262730"}},
    "paper_bgcolor": "#FFFFFF",
    "plot_bgcolor": "#FFFFFF",
    # (its tick colour, #e6eaf1, goes only where ticks are on: _axis_defaults; its minor grid
    # colour is left out: set on an axis it would turn minor ticks on, which the app never shows)
    "yaxis": {"ticklabelposition": "outside", "zerolinecolor": _GRID,
              "title": {"font": {"color": _MUTED, "size": 14}, "standoff": 24},
              "tickfont": {"color": _MUTED, "size": 12}, "gridcolor": _GRID, "automargin": True},
    "xaxis": {"zerolinecolor": _GRID, "gridcolor": _GRID, "showgrid": False,
              "tickfont": {"color": _MUTED, "size": 12},
              "title": {"font": {"color": _MUTED, "size": 14}, "standoff": 20},
              "zeroline": False, "automargin": True},
    "margin": {"pad": 8, "r": 0, "l": 0},
    "hoverlabel": {"bgcolor": "#FFFFFF", "bordercolor": "#DCD8D4",
                   "font": {"color": _MUTED, "family": _FONT, "size": 12}},
    "coloraxis": {"colorbar": {"thickness": 16, "xpad": 24, "ticklabelposition": "outside",
                               "outlinecolor": _CLEAR, "outlinewidth": 8, "len": 0.75, "y": 0.5745,
                               "title": {"font": {"color": _MUTED, "size": 14}},
                               "tickfont": {"color": _MUTED, "size": 12}}},
}
MAPS_2D = frozenset({"heatmap", "contour", "histogram2d", "histogram2dcontour"})  # Plotly: outside ticks
ORIENTED = frozenset({"bar", "box", "violin", "funnel", "waterfall", "histogram"})  # category axis: no grid
NOT_CARTESIAN = frozenset({"pie", "table", "sankey", "indicator", "sunburst", "treemap", "icicle",
                           "funnelarea", "parcoords", "parcats", "scatterpolar", "barpolar", "scatter3d",
                           "surface", "mesh3d"})
_AXIS = re.compile(r"^([xy])axis\d*$")
_COLOR_AXIS = re.compile(r"^coloraxis\d*$")


PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"  # plotly.py's Plotly.js
IN_PLACE_OPTIONS = frozenset({"key", "width", "steps"})  # what the chart drawn in place takes
CLICK_OPTIONS = frozenset({"on_select", "selection_mode"})  # ... and, for clicks on points
_served: set[str] = set()  # folders of main scripts whose static/ holds served_files()
_serving = threading.Lock()


def chart(fig, **kw) -> None:
    """The figure in Streamlit's look, without Streamlit's theme pass: drawn in place (the same
    chart takes each new figure, see ui/plotly_chart.js) once app.py has served Plotly.js
    (serve_plotly), else st.plotly_chart. A chart that reports clicks (on_select=callback,
    selection_mode="points", a key: ui/cellpick) is drawn in place too: a click on a heatmap cell,
    or on a point with customdata, sends {"points": [{"customdata": [row, col(, panel)]}]} as its
    "select" event, st.session_state[key]["select"], and calls the callback (as st.plotly_chart's
    selection of rnnviz.figures.pick's markers would)."""
    fig = fig if isinstance(fig, LookedFigure) else looked(fig)
    clicks = kw.get("on_select") is not None and kw.get("key") is not None \
        and kw.get("selection_mode", "points") == "points"
    shown = {k: v for k, v in kw.items() if k not in CLICK_OPTIONS} if clicks else kw
    if set(shown) <= IN_PLACE_OPTIONS and _plotly_served():
        events = {"on_select_change": kw["on_select"]} if clicks else {}
        _in_place_chart()(data=_payload(fig, clicks, kw.get("steps")), key=kw.get("key"),
                          width=kw.get("width", "stretch"), **events)
    else:
        st.plotly_chart(fig, theme=None, **{k: v for k, v in kw.items() if k != "steps"})


def clicks_in_place() -> bool:
    """Will a chart that reports clicks be drawn in place (Plotly.js served)? Then it reports a
    click on a heatmap cell itself, and needs no marker layer (rnnviz.figures.pick)."""
    return _plotly_served()


def selected_points(event) -> list | None:
    """The points of a click on a chart (ui/cellpick): as the chart drawn in place reports them
    ({"select": {"points": [...]}}) or as st.plotly_chart's selection does."""
    if isinstance(event, dict) and isinstance(event.get("select"), dict):
        return event["select"].get("points")
    points = getattr(getattr(event, "selection", None), "points", None)
    if points is None and isinstance(event, dict):
        points = (event.get("selection") or {}).get("points")
    return points


def serve_plotly(app_dir=None) -> bool:
    """Put Plotly.js and the chart's code (served_files) in app_dir/static/ (default: the folder
    of the script Streamlit runs, deploy/ for deploy/streamlit_app.py), where Streamlit serves
    them (server.enableStaticServing, .streamlit/config.toml), so that chart() draws in place.
    app.py calls it on each run; it writes (4.8 MB) at most once per process and folder, under a
    lock and each file through a file of its own, so a session or process that reads one sees
    all or nothing. False, and charts stay st.plotly_chart, if static serving is off or the
    folder is read-only."""
    from .links import main_script_folder  # (ui.links imports this module through ui.widgets)
    app_dir = main_script_folder() if app_dir is None else app_dir
    if app_dir is None:
        return False
    where = str(Path(app_dir).resolve())
    if where in _served:
        return True
    if not st.get_option("server.enableStaticServing"):
        return False
    with _serving:
        if where in _served:
            return True
        try:
            for name, content in served_files().items():
                _publish(Path(where) / "static" / name, content)
        except OSError:
            return False
        _served.add(where)
    return True


def _publish(target: Path, content: bytes | None) -> None:
    """target holds content (None: plotly.py's Plotly.js), written whole under a new name."""
    size = PLOTLY_JS.stat().st_size if content is None else len(content)
    if target.is_file() and target.stat().st_size == size:
        return
    target.parent.mkdir(exist_ok=True)
    handle, part = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    try:
        with os.fdopen(handle, "wb") as out:
            if content is None:
                with PLOTLY_JS.open("rb") as source:
                    shutil.copyfileobj(source, out)
            else:
                out.write(content)
        os.chmod(part, 0o644)
        os.replace(part, target)  # a new name for a whole file: nobody reads half of it
    finally:
        Path(part).unlink(missing_ok=True)


@functools.cache
def served_files() -> dict[str, bytes | None]:
    """{name in static/: content} of what the browser loads once per tab: Plotly.js (content None:
    plotly.py's file), named by its version (its first line says it: plotly-4.1.1.min.js), and the
    chart's code (plotly_chart.js with that name in it), named by its content. So a browser's
    cache never keeps another version of either."""
    with PLOTLY_JS.open("rb") as js:
        head = js.read(200).decode("ascii", "replace")
    version = re.search(r"plotly\.js v([0-9][0-9A-Za-z.+-]*)", head)
    plotly_name = f"plotly-{version.group(1) if version else plotly.__version__}.min.js"
    code = "\n".join(Path(__file__).with_name(name).read_text(encoding="utf-8")
                     for name in ("plotly_chart.js", "stepped.js"))  # one module: ui/stepped.js
    code = code.replace("./app/static/plotly.min.js", f"./app/static/{plotly_name}").encode()
    return {plotly_name: None, f"rnnviz-chart-{hashlib.sha256(code).hexdigest()[:12]}.js": code}


def _plotly_served() -> bool:
    """Is Plotly.js served for the script this run draws (serve_plotly)?"""
    from .links import main_script_folder
    return bool(_served) and str(main_script_folder()) in _served


@functools.cache
def _in_place_chart():
    """The st.components.v2 component every chart element is: chart_loader.js (without its comment
    lines and indentation: each element carries it), which loads the served plotly_chart.js."""
    return st.components.v2.component("rnnviz_chart", js=loader_js("default"), isolate_styles=False)


def loader_js(export: str) -> str:
    """chart_loader.js without its comment lines and indentation, calling the served module's
    `export` ("default": a chart; "stepped": ui/stepped.py's block of text)."""
    code_name = next(name for name, content in served_files().items() if content is not None)
    lines = Path(__file__).with_name("chart_loader.js").read_text(encoding="utf-8").splitlines()
    js = "\n".join(line.strip() for line in lines if line.strip() and not line.lstrip().startswith("//"))
    js = js.replace("module.default(args)", f"module.{export}(args)")
    return js.replace("./app/static/rnnviz-chart.js", f"./app/static/{code_name}")


FIGURE_FIRST = '{"figure": '
FAILED_LAST = ', "failed": '


def _payload(fig: LookedFigure, clicks: bool = False, steps: dict | None = None) -> bytes:
    """What the chart element carries, as UTF-8 bytes: {"figure": Plotly's JSON as st.plotly_chart
    writes it, "failed": the message shown if Plotly.js cannot be loaded, "full" and "close": the
    labels of the full-screen button, "steady": steady_margins(), "clicks": whether a click on a
    point is reported, and for a chart that follows the step slider, "steps" (ui/stepped.py)}."""
    plain = fig.to_dict()
    figure = pio.to_json(plain, validate=False)
    words = {"failed": t("widgets.chart_failed"), "full": t("widgets.chart_fullscreen"),
             "close": t("widgets.chart_fullscreen_close"), "steady": steady_margins(plain), "clicks": clicks}
    words = json.dumps(words)
    if steps is not None:  # its patches may hold numpy arrays: Plotly's encoder writes them
        words = f'{words[:-1]}, "steps": {pio.to_json(steps, validate=False)}}}'
    return f"{FIGURE_FIRST}{figure}, {words[1:]}".encode()


def steady_margins(plain: dict) -> str:
    """Which figures a chart drawn in place keeps its margins for (ui/plotly_chart.js): those of one
    model, sentence and language (ui.widgets.page_inputs) and of one kind (the trace types, the
    axes and their types), as a short digest. While it stays the same, a new figure (a step move)
    starts from the margins the chart has, and Plotly's automargin only grows them: the plot area
    stays put as the step moves, and a tick label a little wider or narrower than the last no
    longer makes Plotly draw the whole chart a second time (bench/bench_chart_react.py). Another
    sentence, or a control that puts another kind of figure in the chart, starts from Plotly's own
    margins."""
    from .widgets import page_inputs  # (ui.widgets imports this module)
    layout = plain.get("layout") or {}
    kind = (sorted({str(tr.get("type", "scatter")) for tr in plain.get("data") or ()}),
            sorted((name, str((layout[name] or {}).get("type", ""))) for name in layout
                   if _AXIS.match(name) or _COLOR_AXIS.match(name)))
    return hashlib.sha256(repr((page_inputs(), kind)).encode()).hexdigest()[:12]


def payload_figure(payload: bytes) -> str:
    """The figure's JSON text inside a chart element's payload, as _payload wrote it."""
    text = payload.decode()
    return text[len(FIGURE_FIRST):text.rindex(FAILED_LAST)]


class LookedFigure(BaseFigure):
    """A figure already in Streamlit's look, as a plain dict st.plotly_chart reads as it is
    (`to_dict`, no validation, no copy); ui/cache keeps one per input. Never edited."""

    def __init__(self, plain: dict):  # not BaseFigure.__init__: it builds objects
        self._plain = plain

    def to_dict(self) -> dict:
        return self._plain

    to_plotly_json = to_dict

    def to_html(self, *args, **kw) -> str:
        import plotly.graph_objects as go
        return go.Figure(self._plain, _validate=False).to_html(*args, **kw)  # a copy, on click


def looked(fig) -> LookedFigure:
    """fig (a go.Figure, or any BaseFigure with to_dict) in Streamlit's look."""
    plain = fig.to_dict() if isinstance(fig, BaseFigure) else fig
    return LookedFigure(streamlit_look(plain))


def streamlit_look(fig: dict) -> dict:
    """A figure dict ({"data", "layout"}) with its template and Streamlit's light theme written
    in (see the module's docstring). Pure: `fig` is left as it is."""
    layout = dict(fig.get("layout") or {})
    template = _placed(layout.pop("template", None) or {})
    defaults = merged(template.get("layout") or {}, STREAMLIT_LIGHT)
    data = [_trace_with_defaults(tr, k, template.get("data") or {}, fig["data"])
            for k, tr in enumerate(fig.get("data") or [])]
    as_lists = [listed(tr) for tr in data]
    if not any(has_typed(tr) for tr in as_lists):  # one long array left typed redraws it all anyway:
        data = as_lists                           # then every array stays base64 (fewer bytes)
    used = {name for name in layout if _AXIS.match(name) or _COLOR_AXIS.match(name)}
    outer, oriented = set(), set()  # axes Plotly gives outside ticks; category axes of bars
    for tr in data:
        kind = tr.get("type", "scatter")
        if kind in NOT_CARTESIAN:
            continue
        x, y = _axis_name(tr.get("xaxis"), "x"), _axis_name(tr.get("yaxis"), "y")
        used |= {x, y}
        if kind in MAPS_2D:
            outer |= {x, y}
        if kind in ORIENTED:
            oriented.add(y if tr.get("orientation") == "h" else x)
    if not data:  # an empty figure: Plotly draws its default axes
        used |= {"xaxis", "yaxis"}
    for name in used:  # the template's axis defaults apply to every axis of that kind
        kind = "coloraxis" if _COLOR_AXIS.match(name) else f"{name[0]}axis"
        if kind in defaults:
            own = layout.get(name) or {}
            layout[name] = merged(_axis_defaults(defaults[kind], own, name in outer, name in oriented), own)
    for key, value in defaults.items():
        if _AXIS.match(key) or _COLOR_AXIS.match(key):
            continue
        own = layout.get(key)
        layout[key] = merged(value, own) if isinstance(value, dict) and isinstance(own, dict) \
            else layout.get(key, value)
    title = layout.get("title")
    if isinstance(title, dict) and title.get("text"):  # Streamlit's theme writes the title bold
        layout["title"] = merged(title, {"font": {"weight": "bold"}})
    layout["datarevision"] = data_revision(data)  # the same data: Plotly.react redraws nothing
    return {"data": data, "layout": layout}


def data_revision(data: list) -> str:
    """A digest of a figure's traces for `layout.datarevision`: the same traces built the same way
    give the same digest, any change of a value another. Pickled, so lists are walked in C:
    value_digest walked each number in Python, 65 % of streamlit_look (1.1 of 1.7 ms a figure)."""
    try:
        return hashlib.blake2b(pickle.dumps(data, protocol=5), digest_size=20).hexdigest()
    except (pickle.PicklingError, TypeError, AttributeError):  # something pickle cannot write
        return value_digest(data)


def _axis_defaults(defaults: dict, own: dict, outer_ticks: bool, oriented: bool) -> dict:
    """The template's defaults for one axis, as explicit settings that draw the same. Plotly
    reads some settings as a sign when the figure sets them, not when its template does: a tick
    colour turns ticks on, a grid or zero-line colour turns the grid or zero line on. So the tick
    colour is written only where ticks are on anyway (an axis of a heatmap, or ticks the figure
    asks for), and the grid and zero-line colours not on the category axis of bars (no grid
    there) unless the figure turns them on."""
    out = dict(defaults)
    if outer_ticks or own.get("ticks") or "ticklen" in own or "tickwidth" in own:
        out["tickcolor"] = _GRID
    if oriented:
        if not own.get("showgrid"):
            out.pop("gridcolor", None)
        if not own.get("zeroline"):
            out.pop("zerolinecolor", None)
    return out


def _axis_name(ref, kind: str) -> str:
    """A trace's axis reference ("x2") as its layout key ("xaxis2")."""
    return f"{kind}axis{str(ref or kind)[1:]}"


def _trace_with_defaults(trace: dict, k: int, template_data: dict, traces: list) -> dict:
    kind = trace.get("type", "scatter")
    own = template_data.get(kind) or []
    if own:  # the n-th trace of a type takes the type's n-th default, cycling
        n = sum(1 for tr in traces[:k] if tr.get("type", "scatter") == kind)
        base = {key: v for key, v in own[n % len(own)].items() if key != "type"}
        trace = merged(base, trace)
    return trace


def _placed(value):
    """Streamlit's colour placeholders replaced by its light palettes, anywhere in value."""
    if isinstance(value, str):
        return PLACEHOLDERS.get(value.lower(), value)
    if isinstance(value, dict):
        return {k: _placed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_placed(v) for v in value]
    return value
