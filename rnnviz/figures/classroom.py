"""The teacher view's pictures: a class's answers per round as bars side by side, and the
student link as a QR code (PNG bytes made in memory, never a file)."""
from __future__ import annotations

import html
import io

import numpy as np
import plotly.graph_objects as go
import qrcode

from .common import style

RIGHT, WRONG = "#2e7d32", "#c62828"


def answer_bars(rounds: dict[str, dict[str, int]], names: dict[str, str], right: set[str],
                labels: dict[str, str]) -> go.Figure:
    """rounds: round ("1", "2") -> {answer code: count}. One group of bars per answer, one bar per
    round; a right answer's bars are green, a wrong one's red (lighter for the first round).
    names: answer code -> its label (a learner's word is escaped here: plotly reads tags in
    tick text); labels: title / x / y / round (with {round})."""
    codes = sorted({c for counts in rounds.values() for c in counts}, key=lambda c: names.get(c, c))
    names = {c: html.escape(str(names.get(c, c))) for c in codes}
    fig = go.Figure()
    ordered = sorted(rounds, key=int)
    for i, rnd in enumerate(ordered):
        counts = rounds[rnd]
        faint = len(ordered) > 1 and i < len(ordered) - 1
        fig.add_bar(x=[names.get(c, c) for c in codes], y=[counts.get(c, 0) for c in codes],
                    name=labels["round"].format(round=rnd), text=[counts.get(c, 0) for c in codes],
                    textposition="outside", opacity=0.45 if faint else 1.0,
                    marker_color=[RIGHT if c in right else WRONG for c in codes])
    fig.update_layout(barmode="group", showlegend=len(ordered) > 1, xaxis_title=labels["x"],
                      yaxis_title=labels["y"], yaxis_rangemode="tozero")
    return style(fig, labels["title"], height=320)


MAX_BINS = 24


def histogram_edges(values: list[float], tol: float | None = None) -> np.ndarray:
    """Bin edges for numeric answers: bins as wide as the grading tolerance when it is known
    (at most MAX_BINS, widened to cover every answer), else numpy's 'auto' rule."""
    v = np.asarray(values, dtype=float)
    lo, hi = float(v.min()), float(v.max())
    if hi - lo < 1e-12:
        return np.array([lo - 0.5, lo + 0.5])
    if tol and tol > 0:
        width = max(float(tol), (hi - lo) / MAX_BINS)
        n = int(np.ceil((hi - lo) / width + 1e-9)) or 1
        return lo + width * np.arange(n + 1)
    edges = np.histogram_bin_edges(v, bins="auto")
    return edges if len(edges) <= MAX_BINS + 1 else np.histogram_bin_edges(v, bins=MAX_BINS)


def histogram_counts(values: list[float], right: list[bool], edges: np.ndarray) -> tuple[list, list]:
    """(right counts, wrong counts) per bin; the last bin includes its right edge."""
    v = np.asarray(values, dtype=float)
    ok = np.asarray(right, dtype=bool)
    return (np.histogram(v[ok], bins=edges)[0].tolist(), np.histogram(v[~ok], bins=edges)[0].tolist())


def answer_histogram(rounds: dict[str, list[tuple[float, bool]]], labels: dict[str, str],
                     tol: float | None = None) -> go.Figure:
    """A numeric checkpoint's answers: rounds ("1", "2") -> [(value, correct)]. One group of bars
    per bin, one bar per round, its right answers (green) under its wrong ones (red).
    labels: title / x / y / round (with {round}) / right / wrong."""
    every = [x for answers in rounds.values() for x, _ in answers]
    edges = histogram_edges(every, tol)
    mids = (edges[:-1] + edges[1:]) / 2
    ticks = [f"{a:.3g} … {b:.3g}" for a, b in zip(edges[:-1], edges[1:])]
    fig = go.Figure()
    ordered = sorted(rounds, key=int)
    for i, rnd in enumerate(ordered):
        faint = len(ordered) > 1 and i < len(ordered) - 1
        ok, bad = histogram_counts([x for x, _ in rounds[rnd]], [c for _, c in rounds[rnd]], edges)
        name = labels["round"].format(round=rnd)
        fig.add_bar(x=mids, y=ok, name=f"{name} · {labels['right']}", offsetgroup=rnd, marker_color=RIGHT,
                    opacity=0.45 if faint else 1.0, customdata=ticks, hovertemplate="%{customdata}: %{y}")
        fig.add_bar(x=mids, y=bad, base=ok, name=f"{name} · {labels['wrong']}", offsetgroup=rnd,
                    marker_color=WRONG, opacity=0.45 if faint else 1.0, customdata=ticks,
                    hovertemplate="%{customdata}: %{y}")
    fig.update_layout(barmode="group", showlegend=True, xaxis_title=labels["x"], yaxis_title=labels["y"],
                      yaxis_rangemode="tozero", bargap=0.05)
    return style(fig, labels["title"], height=320)


def qr_png(url: str, box: int = 12) -> bytes:
    """The URL as a QR code, PNG bytes (black on white, a 4-module quiet zone)."""
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, box_size=box, border=4)
    code.add_data(url)
    code.make(fit=True)
    out = io.BytesIO()
    code.make_image(fill_color="black", back_color="white").save(out, format="PNG")
    return out.getvalue()
