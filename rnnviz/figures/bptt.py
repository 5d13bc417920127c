"""Figures for the BPTT page: paths into dL/dh_t, J_t's parts, log-norm heatmaps that show
0 and inf as such, the chain behind a cell, norm against distance, float32 vs float64."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from rnnviz.figures.common import merged, native, step_labels, style, validated_colorscale
from rnnviz.formatting import num, plain_math, sub

from .grid import cell_axes, grid_layout, plain_figure

# Legends below the plot, in rows: on a phone (390 px) a legend at the side squeezed the plot to
# a sliver; below it the plot keeps the whole width (at 1366 px it costs a line or two).
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.22, "xanchor": "left", "x": 0}


def _math(template: str, **numbers) -> str:
    """A label filled with numbers, its subscripts rendered for plotly's plain text: J_{t} with
    t = 3 reads J₃, never J_3."""
    return plain_math(template.format(**numbers))


def _log10(v) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log10(np.abs(np.asarray(v, dtype=float)))


PATHS_LABELS = {"direct": "from L_{s} (direct)", "via": "from L_{s} via J_{a}..J_{s}",
                "later_group": "from L_{first} … L_{last} ({n} later losses)", "total": "total ∂L/∂h_t",
                "title": "∂L/∂h_{t} ({tok}) by source loss", "unit": "hidden unit",
                "component": "gradient component", "path": "path", "scale": "source loss L_s: s"}
GROUP_AFTER = 6  # more later losses than this share ONE legend entry (a 70-word sentence: not 70)
DIRECT_COLOR = "#3b3b3b"  # the direct part from L_t
LATER_SCALE = [[0.0, "#9ecae1"], [1.0, "#08306b"]]  # later losses: light (next step) to dark (last)


def later_color(s: int, lo: int, hi: int) -> str:
    """The colour of the part from loss L_s (1-based) on the later-loss scale lo..hi."""
    return sample_colorscale(LATER_SCALE, [0.0 if hi == lo else (s - lo) / (hi - lo)])[0]


def paths_bar(parts, steps, t: int, tokens, H: int | None = None, labels: dict | None = None) -> go.Figure:
    """dL/dh_t per hidden unit, stacked by where it comes from: parts (n, H), one row per loss
    that exists, steps the 0-based step s of each row (s = t: the direct part from L_t;
    s > t: the part from L_s through J_{t+1} .. J_s). Steps without a target have no loss and
    no row, so no legend entry. H is needed only when there are no rows at all. The direct part
    is dark grey; the later losses are coloured by one continuous scale of their step s (near t
    light, far dark). More than GROUP_AFTER later losses are one legend group, and a colour bar
    reads the scale (hover still names each loss)."""
    L = {**PATHS_LABELS, **(labels or {})}
    parts = np.asarray(parts, dtype=float)  # (n, H)
    H = parts.shape[1] if parts.ndim == 2 and parts.shape[0] else int(H or 0)
    parts = parts.reshape(len(steps), H)
    # units 1..H as numbers (x0, dx) shown as u1 .. uH (tickprefix, also in hover): one bar trace
    # per loss repeated the H names ("u1" ... "u96", 0.7 KB a trace of a page-4 step move)
    at = {"x0": 1, "dx": 1}
    later = [s for s in steps if s != t]
    grouped = len(later) > GROUP_AFTER
    lo, hi = (later[0] + 1, later[-1] + 1) if later else (t + 2, t + 2)
    data = []  # plain trace dicts: one bar trace per loss (up to T), built without validation
    for s, row in zip(steps, parts):
        name = _math(L["direct"], s=s + 1) if s == t else _math(L["via"], s=s + 1, a=t + 2)
        # float32 on the wire: the hover reads customdata (4 digits of the float64 row), the
        # height only draws (9 bars of 96 were 9 KB of a page-4 step move as float64)
        bar = {"type": "bar", **at, "y": row.astype(np.float32), "name": name,
               "marker": {"color": DIRECT_COLOR if s == t else later_color(s + 1, lo, hi)}}
        if grouped and s != t:
            bar |= {"legendgroup": "later", "showlegend": s == later[0]}
            if s == later[0]:
                bar["name"] = _math(L["later_group"], first=later[0] + 1, last=later[-1] + 1, n=len(later))
        data.append(bar | {"customdata": np.vectorize(num)(row),
                           "hovertemplate": f"{name}<br>%{{x}}: %{{customdata}}<extra></extra>"})
    if grouped:  # the scale itself: an invisible marker carries the colour bar
        data.append({"type": "scatter", "x": [1, 1], "y": [None, None], "mode": "markers",
                     "showlegend": False, "hoverinfo": "skip",
                     "marker": {"color": [lo, hi], "cmin": lo, "cmax": hi, "colorscale": LATER_SCALE,
                                "colorbar": {"title": {"text": plain_math(L["scale"])},
                                             "len": 0.6, "thickness": 12}}})
    total = parts.sum(0) if parts.shape[0] else np.zeros(H)
    data.append({"type": "scatter", "x": list(range(1, H + 1)), "y": total, "mode": "markers",
                 "name": plain_math(L["total"]),
                 "marker": {"symbol": "diamond", "color": "black", "size": 7},
                 "hovertemplate": f"{plain_math(L['total'])}<br>%{{x}}: %{{y}}<extra></extra>"})
    title = _math(L["title"], t=t + 1, tok="{tok}").replace("{tok}", tokens[t])  # the token as typed
    ticks = {"tickprefix": "u", "tick0": 1, "dtick": max(1, -(-H // 16)), "range": [0.5, H + 0.5]}
    layout = {"barmode": "relative", "title": {"text": title},
              "xaxis": {"title": {"text": L["unit"]}, **ticks},
              "yaxis": {"title": {"text": L["component"]}},
              "legend": {**LEGEND_BELOW, "title": {"text": L["path"]}}}
    return style(plain_figure(data, layout))


# nonlinearity -> (name, its derivative as the Jacobian's diagonal; {t} is the 1-based step)
_SLOPE_NAMES = {"tanh": ("tanh", "1 - h_{t}^2"), "relu": ("ReLU", "1[a_{t} > 0]"),
                "linear": ("identity", "1")}
JACOBIAN_LABELS = {"slope_title": "{deriv}", "W_title": "W_h",
                   "J_title": "J_{t} (own scale)", "slope": "slope",
                   "from": "from unit of h_{t-1}", "to": "to unit of h_t",
                   "title": "Step Jacobian J_{t}: {act} slopes and W_h",
                   "hover_slope": "slope"}


def jacobian_parts(slope, W_h, J, t: int, nonlinearity: str = "tanh",
                   labels: dict | None = None) -> go.Figure:
    """J_t = diag(phi'(a_t)) W_h: the diagonal factor, W_h, and their product side by side.
    The titles name the model's own derivative (1 - h_t^2, 1[a_t > 0] or 1)."""
    L = {**JACOBIAN_LABELS, **(labels or {})}
    units = [f"u{j + 1}" for j in range(len(slope))]
    slope_title, J_title = _panel_titles(t, nonlinearity, L)
    layout = grid_layout(1, 3, column_widths=[0.16, 0.42, 0.42], horizontal_spacing=0.06,
                         subplot_titles=(slope_title, plain_math(L["W_title"]), J_title))
    data = [_slope_bar(slope, units, L) | cell_axes(1)]
    # Each matrix gets its own symmetric scale: the slopes can shrink J far below W_h, and
    # on W_h's scale J would be a blank square. Both colour bars stay so sizes can be compared.
    for col, M, name in ((2, W_h, "W_h"), (3, J, "J")):
        domain = layout[f"xaxis{col}"]["domain"]
        data.append(_jacobian_map(M, units, plain_math(name), domain) | cell_axes(col))
    # the rows are the slope panel's units: their names once, at the left (on a phone the
    # repeated u1 ... u96 ran into the next panel); W_h and J share their axes: one x title
    update = {"xaxis": {"title": {"text": L["slope"]}, "range": [0, 1]},
              "yaxis": {"autorange": "reversed", "title": {"text": plain_math(L["to"])}},
              "xaxis2": {"title": {"text": plain_math(L["from"])}},
              "yaxis2": {"autorange": "reversed", "showticklabels": False},
              "yaxis3": {"autorange": "reversed", "showticklabels": False},
              "title": {"text": jacobian_title(t, nonlinearity, labels)}, "height": 500}
    return style(plain_figure(data, merged(layout, update)), top=80, bottom=110)


def _panel_titles(t: int, nonlinearity: str, L: dict) -> tuple[str, str]:
    """The slopes' panel title, naming the model's own derivative (a subplot title is plain text:
    1 - h₁²), and J_t's (t 0-based)."""
    act, deriv = _SLOPE_NAMES[nonlinearity]
    deriv = plain_math(deriv.format(t=t + 1))
    diag = "" if nonlinearity == "linear" else f"diag({deriv}) "
    return L["slope_title"].format(deriv=deriv, act=act), _math(L["J_title"], t=t + 1, diag=diag)


def _slope_bar(slope, units: list[str], L: dict) -> dict:
    """The slopes phi'(a_t) as a plain bar trace, one bar per unit (nested keys in plotly's own
    order, as validation wrote them)."""
    return {"type": "bar", "hovertemplate": "%{y}: " + L["hover_slope"] + " %{x:.4g}<extra></extra>",
            "marker": {"color": "#888"}, "orientation": "h", "showlegend": False,
            "x": np.asarray(slope, float), "y": units}  # x (H,)


# Page 4 draws J_t's parts as two charts side by side (issue 24): W_h, the same at every step,
# and what a step changes, the slopes and J_t. So W_h is sent once, not with every step move (its
# 96 x 96 map was 48 KB of a 149 KB move), and not redrawn. The two share their height and their
# top and bottom margins, which nothing pushes out (margin.autoexpand off): their rows of units
# line up across the row.
ROW_HEIGHT = 500
_ROW_MARGIN = {"t": 60, "b": 150, "autoexpand": False}
_SLOPE_LEFT = 72  # room for the u1 ... uH ticks and the axis title of the slopes


def jacobian_title(t: int, nonlinearity: str = "tanh", labels: dict | None = None) -> str:
    """The row's title: "Step Jacobian J₂: tanh slopes and Wₕ" (t 0-based)."""
    L = {**JACOBIAN_LABELS, **(labels or {})}
    return _math(L["title"], t=t + 1, act=_SLOPE_NAMES[nonlinearity][0])


def jacobian_weights(W_h, labels: dict | None = None) -> go.Figure:
    """The row's first chart: W_h on its own symmetric colour scale (the same at every step)."""
    L = {**JACOBIAN_LABELS, **(labels or {})}
    units = [f"u{j + 1}" for j in range(len(W_h))]
    data = [_jacobian_map(W_h, units, plain_math("W_h"), [0.0, 1.0])]
    update = {"title": {"text": plain_math(L["W_title"])},
              "xaxis": {"title": {"text": plain_math(L["from"])}},
              "yaxis": {"autorange": "reversed", "showticklabels": False}}
    return _row_chart(data, update, left=10)


def jacobian_step(slope, J, t: int, nonlinearity: str = "tanh", labels: dict | None = None) -> go.Figure:
    """The row's second chart, titled for the row (jacobian_title): the slopes phi'(a_t) (one bar
    per unit, u1 at the top) and their product with W_h, J_t = diag(phi'(a_t)) W_h, on its own
    symmetric colour scale (the slopes can shrink it far below W_h: on W_h's scale it would be a
    blank square). The slopes' title names the model's own derivative (1 - h_t^2, 1[a_t > 0] or 1)."""
    L = {**JACOBIAN_LABELS, **(labels or {})}
    units = [f"u{j + 1}" for j in range(len(slope))]
    layout = grid_layout(1, 2, column_widths=[0.28, 0.72], horizontal_spacing=0.06,
                         subplot_titles=_panel_titles(t, nonlinearity, L))
    data = [_slope_bar(slope, units, L) | cell_axes(1),
            _jacobian_map(J, units, "J", layout["xaxis2"]["domain"]) | cell_axes(2)]
    update = {"title": {"text": jacobian_title(t, nonlinearity, labels)},
              "xaxis": {"title": {"text": L["slope"]}, "range": [0, 1]},
              "yaxis": {"autorange": "reversed", "title": {"text": plain_math(L["to"])}},
              "xaxis2": {"title": {"text": plain_math(L["from"])}},
              "yaxis2": {"autorange": "reversed", "showticklabels": False}}
    return _row_chart(data, merged(layout, update), left=_SLOPE_LEFT)


def _row_chart(data: list[dict], layout: dict, left: int) -> go.Figure:
    fig = style(plain_figure(data, {**layout, "height": ROW_HEIGHT}), top=_ROW_MARGIN["t"],
                bottom=_ROW_MARGIN["b"])
    margin = {**fig.layout.margin.to_plotly_json(), **_ROW_MARGIN, "l": left}
    return go.Figure({"data": fig.data, "layout": merged(fig.layout.to_plotly_json(), {"margin": margin})},
                     _validate=False)


def round_down(v: float) -> float:
    """v (> 0) to one significant digit, rounded down (0.4337 -> 0.4, 0.97 -> 0.9, 3e-05 -> 3e-05, 12 -> 10):
    a colour bar's outer tick that lies on its scale."""
    step = 10.0 ** np.floor(np.log10(v))
    n = np.floor(v / step + 1e-9)  # 3e-05 / 1e-05 is 2.9999999999999996
    top = float(f"{n * step:.1g}")
    return top if top <= v else float(f"{(n - 1) * step:.1g}") if n > 1 else v


def _jacobian_map(M, units: list[str], name: str, domain) -> dict:
    """One H x H matrix as a plain heatmap trace on its own symmetric colour scale, its colour
    bar lying flat under its panel (domain: the panel's x domain; beside it, on a phone, it ran
    into the next). float32 on the wire: two H x H maps of float64 were 236 KB of a step move at
    H = 96 (hover shows 4 digits; the colour scale's limits stay exact)."""
    M = np.asarray(M, float)  # (H, H)
    finite = np.abs(M[np.isfinite(M)])
    lim = float(max(finite.max() if finite.size else 0.0, 1e-12))
    left, right = domain
    tick = round_down(lim)  # -tick, 0, tick: nticks alone left a scale of ±0.43 with its 0 alone
    colorbar = {"exponentformat": "e", "len": right - left, "lenmode": "fraction", "nticks": 4,
                "orientation": "h", "thickness": 10, "tickvals": [-tick, 0, tick],
                "title": {"side": "top", "text": name},
                "x": (left + right) / 2, "xanchor": "center", "y": -0.3, "yanchor": "top"}
    return {"type": "heatmap", "colorbar": colorbar, "colorscale": validated_colorscale("RdBu"),
            "hovertemplate": f"{name}[%{{y}}, %{{x}}] = %{{z:.4g}}<extra></extra>", "showscale": True,
            "x": units, "y": units, "z": M.astype(np.float32), "zmax": lim, "zmid": 0, "zmin": -lim}


HEATMAP_LABELS = {"no_path": "no path (t > s)", "row": "s (row)", "col": "t (column)",
                  "x": "t (earlier step)", "y": "s (later step)"}


def log_norm_heatmap(N, tokens, title: str, colorbar: str, hover: str,
                     labels: dict | None = None, start: int = 0) -> go.Figure:
    """log10 of an all-pairs norm matrix (rows s, columns t). NaN where there is no path;
    exact 0 and inf cells are left uncoloured and their hover says 0 / inf.
    start: N covers steps start.. of the sentence's tokens (a window): the axes keep the
    true step numbers."""
    L = {**HEATMAP_LABELS, **(labels or {})}
    N = np.asarray(N, dtype=float)
    logs = _log10(N)
    shown = np.where(np.isfinite(logs), logs, np.nan)
    text = np.vectorize(lambda v: L["no_path"] if np.isnan(v) else num(v))(N)
    step = step_labels(tokens)[start:start + N.shape[0]]
    data = [{"type": "heatmap", "colorbar": {"title": {"text": colorbar}},
             "colorscale": validated_colorscale("Viridis"),
             "customdata": text, "hovertemplate": L["row"] + ": %{y}<br>" + L["col"] + ": %{x}<br>" + hover
                                                  + ": %{customdata}<br>log10: %{z:.3f}<extra></extra>",
             "x": step, "y": step, "z": shown}]  # z, customdata (S, S)
    layout = {"title": {"text": title}, "height": 520,
              "xaxis": {"title": {"text": L["x"]}, "type": "category"},
              "yaxis": {"title": {"text": L["y"]}, "autorange": "reversed", "type": "category"}}
    return style(plain_figure(data, layout))


CHAIN_LABELS = {"factor": "‖J_k‖₂ (one factor)", "product": "‖J_k ⋯ J_{t+1}‖₂ (running product)",
                "fro": "‖J_k ⋯ J_{t+1}‖_F", "y": "norm (log scale)", "x": "factor added",
                "title": "∂h_{s}/∂h_{t} = J_{s} ⋯ J_{a}, factor by factor"}


def chain_plot(rows, s: int, t: int, labels: dict | None = None) -> go.Figure:
    """The product chain behind cell (s, t): each factor's ||J_k||_2 and the running product
    (markers, not bars: the axis is logarithmic and a bar's length would mean nothing)."""
    L = {**CHAIN_LABELS, **(labels or {})}
    ks = [f"J{sub(r['k'] + 1)}" for r in rows]
    data = [{"type": "scatter", "marker": {"color": "#888", "size": 9, "symbol": "square"}, "mode": "markers",
             "name": plain_math(L["factor"]), "x": ks, "y": _column(rows, "factor_norm_2")},
            {"type": "scatter", "mode": "lines+markers", "name": plain_math(L["product"]), "x": ks,
             "y": _column(rows, "product_norm_2")},
            {"type": "scatter", "line": {"dash": "dot"}, "mode": "lines+markers",
             "name": plain_math(L["fro"]), "x": ks, "y": _column(rows, "product_norm_fro")}]
    values = [r[key] for r in rows for key in ("factor_norm_2", "product_norm_2", "product_norm_fro")]
    layout = {"title": {"text": _math(L["title"], s=s + 1, t=t + 1, a=t + 2)}, "legend": dict(LEGEND_BELOW),
              "xaxis": {"title": {"text": L["x"]}}, "yaxis": _log_y(L["y"], values)}
    return style(plain_figure(data, layout))


def _column(rows, key: str) -> list:
    """One column of a list of row dicts, as plotly's validation writes a list (native)."""
    return native(r[key] for r in rows)


def _log_y(title: str, values, exponent: bool = True) -> dict:
    """A log y axis titled `title`, ticked for `values` (_log_ticks), in the key order the
    validated update_yaxes(type="log", title_text=..., exponentformat="power") wrote."""
    axis = {"title": {"text": title}, "type": "log"} | ({"exponentformat": "power"} if exponent else {})
    return axis | _log_ticks(values)


def _positive(v) -> np.ndarray:
    """For a log axis: 0 and inf cannot be drawn; they become gaps (the page says so)."""
    v = np.asarray(v, dtype=float)
    return np.where(np.isfinite(v) & (v > 0), v, np.nan)


def _log_ticks(values) -> dict:
    """Tick settings a learner can read on a log y axis: one per decade (10^-4, 10^-3, ...) when
    the values span a decade or more; else explicit ticks such as 0.1, 0.2, 0.5 written out
    (plotly's own labels inside a decade are lone digits 2 3 4 5, which read as whole numbers).
    {} when no value can be drawn on a log axis."""
    v = _positive(np.ravel(np.asarray(values, dtype=float)))
    v = v[np.isfinite(v)]
    if not v.size:
        return {}
    lo, hi = float(v.min()), float(v.max())
    if np.log10(hi / lo) >= 1:
        return {"dtick": 1 if np.log10(hi / lo) <= 12 else int(np.ceil(np.log10(hi / lo) / 8))}
    decades = range(int(np.floor(np.log10(lo))) - 1, int(np.ceil(np.log10(hi))) + 1)
    for mantissas in ((1, 2, 5), (1, 1.5, 2, 3, 4, 5, 6, 8)):
        ticks = [float(f"{m * 10.0 ** e:.12g}") for e in decades for m in mantissas]
        ticks = [x for x in ticks if lo / 1.15 <= x <= hi * 1.15]
        if len(ticks) >= 3:
            break
    return {"tickvals": ticks, "ticktext": [f"{x:g}" for x in ticks]}


def _hline(x0, x1, y: float, name: str, color: str = "gray", dash: str = "dot") -> dict:
    """A horizontal reference line as a legend entry, a plain scatter trace (add_hline's label
    is misplaced on log axes)."""
    return {"type": "scatter", "hovertemplate": f"{name}<extra></extra>",
            "line": {"color": color, "dash": dash}, "mode": "lines", "name": name,
            "x": native([x0, x1]), "y": native([y, y])}


DISTANCE_LABELS = {"largest": "largest over t", "smallest": "smallest over t", "median": "median over t",
                   "bound": "bound (max ‖J_k‖₂)ᵈ = {v}ᵈ", "rho": "ρ(W_h)ᵈ = {v}ᵈ",
                   "floor": "~1e-07: float32 eps, note 003's 精度地板", "y": "‖∂h_s/∂h_t‖₂ (log scale)",
                   "title": "Norm against distance s − t",
                   "x": "distance s - t (steps)"}


def distance_plot(dist: dict, floor: float, labels: dict | None = None) -> go.Figure:
    """||dh_s/dh_t|| against s - t (min, median, max over t) with the bound and rho^d."""
    L = {**DISTANCE_LABELS, **(labels or {})}
    d = dist["d"]  # (D,) distances, each curve (D,)
    line = {"type": "scatter", "mode": "lines", "x": d}
    edge = {"color": "rgba(31,119,180,0.45)", "width": 1}  # the band's edges: blue, as its fill
    # colours named, not the colourway's: the prose says "red dashed" for the bound alone
    data = [line | {"line": edge, "name": L["largest"], "y": _positive(dist["max"])},
            line | {"fill": "tonexty", "fillcolor": "rgba(31,119,180,0.2)", "line": edge,
                    "name": L["smallest"], "y": _positive(dist["min"])},
            line | {"mode": "lines+markers", "line": {"color": "#1f77b4"}, "marker": {"color": "#1f77b4"},
                    "name": L["median"], "y": _positive(dist["median"])},
            line | {"line": {"color": "red", "dash": "dash"}, "name": _math(L["bound"], v=num(dist["max_J"])),
                    "y": _positive(dist["bound"])}]
    if dist.get("rho_line") is not None:
        data.append(line | {"line": {"color": "green", "dash": "dot"},
                            "name": L["rho"].format(v=num(dist["rho"])), "y": _positive(dist["rho_line"])})
    data.append(_hline(0, max(int(d[-1]), 1), floor, L["floor"]))
    layout = {"yaxis": _log_y(L["y"], np.r_[dist["max"], dist["min"], dist["bound"], floor]),
              "xaxis": _whole_number_axis(int(d[-1]) if len(d) else 0) | {"title": {"text": L["x"]}},
              "title": {"text": L["title"]}, "legend": dict(LEGEND_BELOW)}
    return style(plain_figure(data, layout))


PRECISION_LABELS = {"smallest": "float32 smallest normal ~1.2e-38", "largest": "float32 largest ~3.4e+38",
                    "floor": "float32 eps ~1e-07 (note 003's 精度地板)",
                    "subnormal": "float32 leaves the normal range",
                    "zero": "float32 = 0 (underflow)", "inf": "float32 = inf (overflow)",
                    "at": "{label} at k = {k}",
                    "y": "|{w}^k| (log scale)", "title": "The chain {w}^k in float32 and float64",
                    "x": "k (factors multiplied)"}


def precision_plot(chain: dict, w: float, tiny: float, big: float, floor: float,
                   labels: dict | None = None) -> go.Figure:
    """|w^k| multiplied step by step in float32 and float64; where float32 breaks is marked."""
    L = {**PRECISION_LABELS, **(labels or {})}
    k = chain["k"]  # (n + 1,) and each chain (n + 1,)
    data = [{"type": "scatter", "line": {"width": 4}, "mode": "lines", "name": "float64", "x": k,
             "y": _positive(np.abs(chain["float64"]))},
            {"type": "scatter", "line": {"dash": "dash"}, "mode": "lines", "name": "float32", "x": k,
             "y": _positive(np.abs(chain["float32"]))}]
    data += [_hline(0, int(k[-1]), y, label, color) for y, label, color in
             ((tiny, L["smallest"], "purple"), (big, L["largest"], "orange"), (floor, L["floor"], "gray"))]
    shapes = []
    for key, color in {"subnormal": "purple", "zero": "red", "inf": "red"}.items():
        if chain[key] is not None:
            shapes.append(_vline(chain[key], {"color": color, "dash": "dash"}))
            data.append({"type": "scatter", "marker": {"color": color, "size": 11, "symbol": "x"},
                         "mode": "markers", "name": L["at"].format(label=L[key], k=chain[key]),
                         "x": native([chain[key]]), "y": native([chain["float64"][chain[key]]])})
    values = np.r_[np.abs(chain["float64"]), np.abs(chain["float32"]), tiny, big, floor]  # ~80 decades
    layout = {"yaxis": _log_y(L["y"].format(w=f"{w:g}"), values),
              "xaxis": _whole_number_axis(int(k[-1]) if len(k) else 0) | {"title": {"text": L["x"]}},
              "title": {"text": L["title"].format(w=f"{w:g}")}, "legend": dict(LEGEND_BELOW)}
    if shapes:
        layout["shapes"] = shapes
    return style(plain_figure(data, layout))


def _vline(x, line: dict) -> dict:
    """A vertical line across the plot at x, the shape add_vline(x=x, line=line) writes."""
    return {"line": line, "type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}


def _whole_number_axis(largest: int) -> dict:
    """x axis settings for step counts: whole numbers only (no 0.5 steps), every step when few."""
    return {"tick0": 0, "dtick": 1} if largest <= 12 else {"tickformat": "d"}


SCALAR_LABELS = {"hover": "after %{x} steps: %{text}", "y": "w^k (log scale)",
                 "title": "∂L/∂h_0 = 1 × w^k with w = {w}", "x": "steps k",
                 "product": "tanh RNN: |∂h_k/∂h_0|", "bound": "|w|^k (every slope 1)"}


def scalar_chain_plot(products, w: float, labels: dict | None = None, bound=None) -> go.Figure:
    """The scalar gradient product for k = 0..n on a log axis, ticked at its values so 0.5 reads
    0.5 (plotly's log ticks inside one decade would show only the leading digit). `bound`: |w|^k
    drawn as a dashed line over it (the product of a tanh RNN stays under it); |product| is drawn."""
    L = {**SCALAR_LABELS, **(labels or {})}
    products = np.abs(np.asarray(products, dtype=float))  # (n + 1,)
    k = np.arange(len(products))
    data = [{"type": "scatter", "hovertemplate": L["hover"] + "<extra></extra>", "mode": "lines+markers+text",
             "name": L.get("product", "product"), "showlegend": bound is not None,
             "text": np.vectorize(num)(products), "textposition": "top right", "x": k,
             "y": _positive(products)}]
    layout = {"title": {"text": L["title"].format(w=f"{w:g}")}, "height": 360}
    if bound is not None:  # two curves: ticks one per decade (or written out inside one decade)
        bound = np.asarray(bound, dtype=float)  # (n + 1,)
        name = L.get("bound", "|w|^k")
        data.append({"type": "scatter", "hovertemplate": name + ": %{y:.4g}<extra></extra>",
                     "line": {"color": "#444444", "dash": "dash"}, "mode": "lines", "name": name, "x": k,
                     "y": _positive(bound)})
        layout |= {"yaxis": _log_y(L["y"], np.r_[products, bound], exponent=False),
                   "legend": {"orientation": "h", "y": -0.3}}
    else:
        ticks = _positive(products)
        ticks = ticks[np.isfinite(ticks)]
        if len(ticks) > 8:  # keep the labels apart: every few steps, the last one always
            ticks = ticks[np.unique(np.r_[np.linspace(0, len(ticks) - 1, 6).round().astype(int)])]
        layout["yaxis"] = {"title": {"text": L["y"]}, "type": "log", "tickvals": ticks,
                           "ticktext": [num(v) for v in ticks]}
    layout["xaxis"] = {"title": {"text": L["x"]}} | _whole_number_axis(int(k[-1]) if len(k) else 0)
    return style(plain_figure(data, layout))


SWEEP_LABELS = {"x": "sequence length T", "y": "gradient norm (log scale)",
                "title": "Gradient norm of the input weights against T"}


def t_sweep_plot(rows, labels: dict | None = None, names: dict | None = None) -> go.Figure:
    """One line per column of rows (but T) against T; names maps a column to its legend text."""
    L = {**SWEEP_LABELS, **(labels or {})}
    Ts = _column(rows, "T")
    data = [{"type": "scatter", "mode": "lines+markers", "name": (names or {}).get(key, key), "x": Ts,
             "y": _column(rows, key)} for key in [k for k in rows[0] if k != "T"]]
    layout = {"xaxis": {"title": {"text": L["x"]}, "type": "log", "tickvals": list(Ts)},
              "yaxis": _log_y(L["y"], [r[key] for r in rows for key in r if key != "T"]),
              "title": {"text": L["title"]}, "legend": dict(LEGEND_BELOW)}
    return style(plain_figure(data, layout))


CLIP_LABELS = {"before": "before", "after": "after", "norm": "gradient norm",
               "max_norm": "max_norm = {v}", "y": "global gradient norm (log scale)",
               "title": "clip_grad_norm_: the norm before and after"}


def clip_bar(before: float, after: float, max_norm: float, labels: dict | None = None) -> go.Figure:
    """The norm before and after clipping as two points on a log axis (no bars: a bar's length
    on a log axis means nothing), with max_norm as a dashed line across the plot."""
    L = {**CLIP_LABELS, **(labels or {})}
    data = [{"type": "scatter", "marker": {"color": "#4c78a8", "size": 14}, "mode": "markers+text",
             "name": L["norm"], "text": [num(before), num(after)], "textposition": "middle right",
             "x": [L["before"], L["after"]], "y": native([before, after])}]
    line = {"line": {"color": "red", "dash": "dash"}, "name": L["max_norm"].format(v=f"{max_norm:g}"),
            "showlegend": True, "type": "line", "x0": 0, "x1": 1, "xref": "paper", "y0": max_norm,
            "y1": max_norm, "yref": "y"}  # the shape add_shape writes: across the plot at max_norm
    layout = {"shapes": [line], "yaxis": _log_y(L["y"], [before, after, max_norm]),
              "xaxis": {"range": [-0.5, 1.5]},  # room around the two points
              "title": {"text": L["title"]}, "height": 380, "legend": dict(LEGEND_BELOW)}
    return style(plain_figure(data, layout))


STRIP_LABELS = {"factor": "log10 ‖J_k‖", "slope": "mean slope", "running": "log10 ‖J_k ⋯ J_{t+1}‖",
                "drop": "largest drop", "what_if": "what if", "x": "factor J_k (step k)",
                "title": "Cell (s = {s}, t = {t}): {n} factors"}


def factor_strip(rows, s: int, t: int, largest_drop, start: float, what_if=None,
                 labels: dict | None = None) -> go.Figure:
    """The strip behind one Jacobian cell (rnnviz.engine.cellpath.cell_strip's rows): per factor
    log10 ||J_k||, the mean slope, and the running product in log10 (a dotted line at log10 ||I||
    = start, where it begins), its largest one-step drop marked; what_if: another strip's rows
    (the same k), dashed."""
    L = {**STRIP_LABELS, **(labels or {})}
    L |= {k: plain_math(L[k]) for k in ("factor", "slope", "running", "x")}  # ‖Jₖ ⋯ Jₜ₊₁‖, not J_{t+1}
    ks = [f"J{sub(r['k'] + 1)}" for r in rows]
    layout = grid_layout(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.06,
                          row_heights=[0.28, 0.22, 0.5])
    data = [{"type": "scatter", "marker": {"color": "#555", "size": 8, "symbol": "square"}, "mode": "markers",
             "name": L["factor"], "x": ks, "y": _log10([r["factor"] for r in rows]), **cell_axes(1)},
            {"type": "scatter", "marker": {"color": "#2ca02c", "size": 8}, "mode": "markers",
             "name": L["slope"], "x": ks, "y": _column(rows, "slope"), **cell_axes(2)},
            {"type": "scatter", "line": {"color": "#1f77b4"}, "mode": "lines+markers", "name": L["running"],
             "x": ks, "y": _column(rows, "log10"), **cell_axes(3)}]
    if what_if is not None:
        data.append({"type": "scatter", "line": {"color": "#ff7f0e", "dash": "dash"}, "mode": "lines",
                     "name": L["what_if"], "x": ks, "y": _column(what_if, "log10"), **cell_axes(3)})
    if largest_drop is not None:
        data.append({"type": "scatter", "marker": {"color": "#d62728", "size": 14, "symbol": "x"},
                     "mode": "markers", "name": L["drop"], "x": [ks[largest_drop]],
                     "y": native([rows[largest_drop]["log10"]]), **cell_axes(3)})
    # the line at log10 ||I|| across the lowest panel: the shape add_hline(row=3, col=1) writes
    start_line = {"line": {"color": "#999", "dash": "dot"}, "type": "line", "x0": 0, "x1": 1,
                  "y0": start, "y1": start, "xref": "x3 domain", "yref": "y3"}
    update = {"shapes": [start_line], "yaxis": {"title": {"text": "log10"}},
              "yaxis2": {"title": {"text": L["slope"]}, "rangemode": "tozero"},
              "yaxis3": {"title": {"text": "log10"}},
              "xaxis3": {"title": {"text": L["x"]}, "type": "category"},
              "title": {"text": L["title"].format(s=s + 1, t=t + 1, n=len(rows))}, "height": 520,
              "legend": dict(LEGEND_BELOW), "margin": {"l": 10, "r": 10, "t": 50, "b": 10}}
    return style(plain_figure(data, merged(layout, update)))
