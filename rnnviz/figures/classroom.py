"""The teacher view's pictures: a class's answers per round as bars side by side, and the
student link as a QR code (PNG bytes made in memory, never a file)."""
from __future__ import annotations

import io

import plotly.graph_objects as go
import qrcode

from .common import style

RIGHT, WRONG = "#2e7d32", "#c62828"


def answer_bars(rounds: dict[str, dict[str, int]], names: dict[str, str], right: set[str],
                labels: dict[str, str]) -> go.Figure:
    """rounds: round ("1", "2") -> {answer code: count}. One group of bars per answer, one bar per
    round; a right answer's bars are green, a wrong one's red (lighter for the first round).
    names: answer code -> its label; labels: title / x / y / round (with {round})."""
    codes = sorted({c for counts in rounds.values() for c in counts}, key=lambda c: names.get(c, c))
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


def qr_png(url: str, box: int = 12) -> bytes:
    """The URL as a QR code, PNG bytes (black on white, a 4-module quiet zone)."""
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, box_size=box, border=4)
    code.add_data(url)
    code.make(fit=True)
    out = io.BytesIO()
    code.make_image(fill_color="black", back_color="white").save(out, format="PNG")
    return out.getvalue()
