"""Shared figure pieces: the one figure style (margins, dark axis text, log ticks, grouped
legends), labelled heatmaps that survive NaN and inf, axis labels for steps.

Built from plain dicts, not plotly's validated API (update_layout, update_yaxes, go.Heatmap(...)
validate every property: a third of the server's time under load); each is held to the JSON the
validated way gave (tests/core/figures/test_plain_output.py)."""
from __future__ import annotations

import contextlib
import functools

import numpy as np
import plotly.graph_objects as go

from rnnviz.formatting import num
from rnnviz.safe_text import short

from .. import limits
from .grid import PlainFigure, is_plain, plain_dicts


def step_labels(tokens) -> list[str]:
    """'1 I', '2 like', ...: unique labels (a repeated token would merge on a category axis).
    A long token is shortened (the step number keeps the labels unique)."""
    return [f"{t + 1} {short(tok, limits.MAX_LABEL_CHARS)}" for t, tok in enumerate(tokens)]


def nonfinite_note(z) -> str:
    """'2 cells are inf, 1 is NaN (blank in the map)' or '' when every value is finite."""
    z = np.asarray(z, dtype=float)
    parts = [f"{n} {'cell is' if n == 1 else 'cells are'} {name}"
             for name, n in (("inf", int(np.isposinf(z).sum())), ("-inf", int(np.isneginf(z).sum())),
                             ("NaN", int(np.isnan(z).sum()))) if n]
    return ", ".join(parts) + " (blank in the map; hover shows the value)" if parts else ""


def heatmap(z, x, y, title: str, x_title: str, y_title: str, colorbar: str,
            colorscale: str = "RdBu", zmid: float | None = 0.0, hover_name: str = "value",
            blank_note: str | None = None) -> go.Figure:
    """A heatmap with every cell's exact value on hover; NaN / inf cells are blank and say so.

    blank_note replaces the automatic legend for blank cells (e.g. "above the diagonal: no path").
    """
    trace, layout = _heatmap_parts(z, x, y, x_title, y_title, colorbar, colorscale, zmid, hover_name,
                                   blank_note)
    return style(go.Figure({"data": [trace], "layout": layout}, _validate=False), title)


def _heatmap_parts(z, x, y, x_title: str, y_title: str, colorbar: str, colorscale: str = "RdBu",
                   zmid: float | None = 0.0, hover_name: str = "value",
                   blank_note: str | None = None) -> tuple[dict, dict]:
    """heatmap()'s trace and layout as plain dicts, before the style: the values and the nesting
    (key order included) that go.Heatmap(...), update_layout and update_xaxes gave."""
    z = np.asarray(z, dtype=float)  # (rows, cols)
    text = np.vectorize(num)(z) if z.size else z.astype(str)  # (rows, cols) exact values
    trace = {"type": "heatmap", "z": np.where(np.isfinite(z), z, np.nan), "x": native(x), "y": native(y),
             "customdata": text,
             "colorbar": {"tickfont": {"color": AXIS_TEXT, "size": AXIS_FONT_PX},
                          "title": {"font": {"color": AXIS_TEXT}, "text": colorbar}},
             "hovertemplate": (f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{hover_name}: %{{customdata}}"
                               "<extra></extra>")}
    if colorscale is not None:
        trace["colorscale"] = validated_colorscale(colorscale)
    if zmid is not None:
        trace["zmid"] = zmid
    layout = {"xaxis": {"title": {"text": x_title}, "type": "category"},
              "yaxis": {"title": {"text": y_title}, "autorange": "reversed", "type": "category"}}
    note = nonfinite_note(z) if blank_note is None else blank_note
    if note:
        layout["annotations"] = [{"font": {"color": MUTED_TEXT, "size": 12}, "showarrow": False, "text": note,
                                  "x": 0, "xref": "paper", "y": 1.0, "yanchor": "bottom", "yref": "paper"}]
    return trace, layout


def native(values) -> list:
    """A list of the values with Python scalars in place of numpy ones, as plotly's validation
    writes a list of data (np.float32(0.1) would be written 0.1, not 0.10000000149011612)."""
    return [v.item() if isinstance(v, np.generic) else v for v in values]


def validated_colorscale(scale) -> list:
    """A colour scale as validation writes it: a name becomes its [[0.0, "rgb(...)"], ...] list."""
    if isinstance(scale, str):
        return [list(step) for step in _named_scale(scale)]
    return go.Heatmap(colorscale=scale).to_plotly_json()["colorscale"]


@functools.lru_cache(maxsize=64)
def _named_scale(name: str) -> tuple:
    """A named colour scale as validation writes it, made once per name."""
    return tuple(tuple(step) for step in go.Heatmap(colorscale=name).to_plotly_json()["colorscale"])


# ---- the shared figure style ------------------------------------------------------------------
# Streamlit drops a figure's Plotly template, so the style is written into each figure's own
# layout: call style(fig) (heatmap() does) instead of pasting margins and fonts per figure.

MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}
AXIS_TEXT = "#31333F"   # 12.6:1 on white (WCAG AA needs 4.5:1); Streamlit's default grey is ~3.7:1
MUTED_TEXT = "#4B4F5C"  # notes under a title: 8.3:1 on white
AXIS_FONT_PX = 12
LEGEND_MAX_ITEMS = 8    # more series than this: the legend groups them (group_legend)


def style(fig: go.Figure, title: str | None = None, height: int | None = None,
          top: int = MARGIN["t"], bottom: int = MARGIN["b"], layout: dict | None = None) -> go.Figure:
    """The one look of every figure: small margins, dark 12 px axis text (ticks and titles on
    every subplot; the title, legend and any other text as dark, at least 4.5:1 on white),
    readable log ticks on log axes, a grouped legend when there are many series. Returns the
    styled figure, a new one (built without validation; `fig` is left as it was).

    layout: plain layout settings written into the figure's layout first, as one
    fig.update_layout(layout) would (see updated): axis titles, ranges ... without validation."""
    font = {"color": AXIS_TEXT, "size": AXIS_FONT_PX}
    axis = {"tickfont": font, "title": {"font": {"color": AXIS_TEXT, "size": AXIS_FONT_PX + 1}},
            "exponentformat": "power"}  # one exponent style on every axis: 10⁻⁵, never "10μ"
    # plain dicts: reading them validates nothing; an empty list (left by add_hline on a grid
    # made by grid.subplots) is no setting
    data, given = plain_dicts(fig)  # a PlainFigure's own dicts, else copies
    given = {k: v for k, v in given.items() if not (isinstance(v, (tuple, list)) and not v)}
    given = updated(given, layout or {})
    look = {"margin": {**MARGIN, "t": top, "b": bottom}, "font": {"color": AXIS_TEXT},
            "legend": {"font": {"color": AXIS_TEXT}}, "title": {"font": {"color": AXIS_TEXT}}}
    if title is not None:
        look["title"]["text"] = title
    if height is not None:
        look["height"] = height
    for name in _axis_names(given):
        look[name] = axis if given.get(name, {}).get("type") != "log" or "dtick" in given[name] \
            else {**axis, **log_ticks()}
    notes = given.get("annotations") or []  # subplot titles: as dark as the axes (explicit colours kept)
    if any((n.get("font") or {}).get("color") is None for n in notes):
        look["annotations"] = [n if (n.get("font") or {}).get("color") is not None
                               else {**n, "font": {**(n.get("font") or {}), "color": AXIS_TEXT}}
                               for n in notes]
    given = _own_template(given, {tr.get("type", "scatter") for tr in data})
    # Merged as plain dicts, kept as plain dicts (grid.PlainFigure): the figure was validated as
    # it was built, or built from plain dicts held to the validated JSON, and the style is
    # constants. Plotly's validated update_layout cost 40 ms a figure (issue 24).
    styled = PlainFigure({"data": [dict(tr) for tr in data], "layout": merged(given, look)})
    group_legend(styled)
    return styled


def _own_template(layout: dict, kinds: set) -> dict:
    """The layout with its template's trace defaults cut to the trace types the figure draws:
    the default template's defaults of every trace type go into every figure (in the app,
    Streamlit's template: 10 types, 3.7 KB of each figure's JSON, sent on every redraw; plotly's
    own: 24 types, 7 KB); a type's defaults apply only to traces of that type, so the figure
    draws the same. The template's layout part (which Streamlit's theme is merged into) is kept whole."""
    template = layout.get("template")
    if not isinstance(template, dict) or not isinstance(template.get("data"), dict):
        return layout
    data = {k: v for k, v in template["data"].items() if k in kinds}
    kept = {k: v for k, v in template.items() if k != "data"} | ({"data": data} if data else {})
    return {**layout, "template": kept}  # no empty "data": plotly's validation would drop it


def merged(base: dict, update: dict) -> dict:
    """`update` written into `base` as plotly's update_layout does: nested dicts merge, any other
    value (a list of annotations included) replaces. Neither argument is changed."""
    out = dict(base)
    for key, value in update.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) \
            else value
    return out


def updated(base: dict, update: dict) -> dict:
    """`update` written into `base` as plotly's update_layout / update_yaxes write it: nested
    dicts merge; in each dict a key already there keeps its place, then come the new nested dicts
    and last the new values, each in update's order (plotly makes a nested object as it reaches
    it and sets the values at the end of the update). Neither argument is changed."""
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, dict) and _sets_a_value(value) and not isinstance(out.get(key), dict):
            out[key] = {}
    for key, value in update.items():
        if not isinstance(value, dict):
            out[key] = value
        elif key in out:
            out[key] = updated(out[key], value)
    return out


def _sets_a_value(update: dict) -> bool:
    """Whether a nested update sets anything (plotly makes no object for an empty one)."""
    return any(_sets_a_value(v) if isinstance(v, dict) else True for v in update.values())


def contrast(fg: str, bg: str = "#FFFFFF") -> float:
    """WCAG 2 contrast ratio of two '#RRGGBB' colours (1 to 21; AA text needs 4.5)."""
    def lum(c: str) -> float:
        rgb = [int(c.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _axis_names(layout: dict) -> list[str]:
    """xaxis, yaxis and every subplot's xaxis2, yaxis3 ... present in a layout dict."""
    extra = [k for k in layout if k[:5] in ("xaxis", "yaxis") and k[5:].isdigit()]
    return ["xaxis", "yaxis", *sorted(extra)]


def log_ticks(span_decades: float | None = None) -> dict:
    """Axis settings for a log axis: a tick at every power of ten written 10⁻³ (one style on
    every page, never "2, 1000, 5"); over more than 12 decades every 2nd, 3rd ... power."""
    step = 1 if not span_decades or span_decades <= 12 else int(np.ceil(span_decades / 8))
    return {"type": "log", "dtick": step, "exponentformat": "power", "showexponent": "all",
            "minor": {"showgrid": False}}


def _log_ticks(axis) -> None:
    if axis.type == "log" and axis.dtick is None and axis.tickvals is None:  # explicit ticks stay
        axis.update(**log_ticks())


def log_axis(fig: go.Figure, values, axis: str = "y", **where) -> go.Figure:
    """Make one axis logarithmic with readable ticks, spaced for the positive finite `values`.
    where: as update_yaxes takes them, row / col (default: every x or y axis) and other axis
    settings (title_text=...). `fig` is changed and returned; the settings are written as plain
    dicts, as update_yaxes would write them (plotly's validated update cost 1.2 ms an axis)."""
    cell = {k: where.pop(k) for k in ("row", "col", "secondary_y") if k in where}
    settings = {**log_ticks_of(values), **_nested(where)}
    for ax in (fig.select_xaxes if axis == "x" else fig.select_yaxes)(**cell):
        new = updated(ax.to_plotly_json(), settings)
        with _unvalidated(ax):
            for key in (k for k in new if k in settings):  # in new's order: a new key goes last
                ax[key] = new[key]
    return fig


def log_ticks_of(values) -> dict:
    """log_ticks() spaced for the positive finite `values` (a tick every power of ten up to 12
    decades): the settings of a log axis over them."""
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    return log_ticks(float(np.log10(v.max() / v.min())) if v.size else None)


def _nested(settings: dict) -> dict:
    """{"title_text": "t"} as {"title": {"text": "t"}}: plotly's magic underscores as nested dicts."""
    out: dict = {}
    for key, value in settings.items():
        *path, last = key.split("_")
        node = out
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return out


@contextlib.contextmanager
def _unvalidated(obj):
    """Set properties of a plotly object as they are given, without validation (as plotly sets
    a figure's default template); validation is back on afterwards."""
    was, obj._validate = obj._validate, False
    try:
        yield obj
    finally:
        obj._validate = was


def group_legend(fig: go.Figure, max_items: int = LEGEND_MAX_ITEMS) -> go.Figure:
    """Many series (one per loss L_t on a long sentence): one legend entry per band of
    consecutive series, titled "first – last", whose click shows or hides the whole band."""
    if isinstance(fig, PlainFigure) and is_plain(fig):  # counted on its dicts: it stays plain
        data, _ = plain_dicts(fig)
        if sum(1 for tr in data if tr.get("showlegend") is not False and tr.get("name")
               and not tr.get("legendgroup")) <= max_items:
            return fig
    listed = [tr for tr in fig.data if tr.showlegend is not False and tr.name and not tr.legendgroup]
    size = int(np.ceil(len(listed) / max_items))
    for start in range(0, len(listed), size):
        band = listed[start:start + size]
        label = band[0].name if len(band) == 1 else f"{band[0].name} – {band[-1].name}"
        for i, tr in enumerate(band):
            tr.update(legendgroup=f"band{start}", showlegend=i == 0,
                      legendgrouptitle_text=label if i == 0 else None)
    fig.update_layout(legend={"groupclick": "togglegroup"})
    return fig
