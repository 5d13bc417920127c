"""Exports: a Trace as tables (tokens, h_t, probabilities, losses, gradients) for CSV, and a
plotly figure as one standalone HTML file.

Tables are built straight from the Trace's tensors (no rounding), so a downloaded CSV read
back equals the trace to float precision; steps are numbered t = 1..T as on screen.
"""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import torch

from rnnviz.conventions import IGNORE
from rnnviz.engine.trace import Trace
from rnnviz.formatting import ascii_subscripts
from rnnviz.text.tokenize import Vocab

TABLES = ("tokens", "h", "a", "p", "grad_h", "delta", "grad_x")


def _steps(tr: Trace, vocab: Vocab) -> pd.DataFrame:
    return pd.DataFrame({"t": range(1, tr.T + 1), "token": vocab.decode(tr.ids)})


def token_frame(tr: Trace, vocab: Vocab) -> pd.DataFrame:
    """One row per step: token, id, target, p(target), loss_t (target '' where there is none),
    and the model's own guess for the next token (argmax p_t) with its probability."""
    df = _steps(tr, vocab)
    valid = tr.targets != IGNORE  # (T,)
    safe = torch.where(valid, tr.targets, torch.zeros_like(tr.targets))  # (T,)
    p_target = tr.p.gather(1, safe[:, None])[:, 0]  # (T,)
    df["id"] = tr.ids.tolist()
    df["target"] = [vocab.itos[int(i)] if v else "" for i, v in zip(safe, valid)]
    df["target_id"] = pd.array([int(i) if v else None for i, v in zip(safe, valid)], dtype="Int64")
    df["p_target"] = [float(p) if v else None for p, v in zip(p_target, valid)]
    df["loss_t"] = tr.loss_t.tolist()
    guess = tr.p.argmax(dim=1)  # (T,) the model's most likely next token
    df["guess"] = vocab.decode(guess)
    df["p_guess"] = tr.p.gather(1, guess[:, None])[:, 0].tolist()
    return df


def matrix_frame(tr: Trace, vocab: Vocab, name: str, columns: list[str] | None = None) -> pd.DataFrame:
    """A (T, n) tensor of the trace (h, a, p, grad_h, delta, grad_x, z, grad_z) with step labels.

    Columns are unit numbers 1..n (p / z / grad_z: the vocabulary's tokens, or `columns`)."""
    values = getattr(tr, name).detach().double().numpy()  # (T, n)
    if columns is None:
        if name in ("p", "z", "grad_z") and values.shape[1] == len(vocab):
            columns = [f"{name}[{tok}]" for tok in vocab.itos]
        else:
            columns = [f"{name}_{j + 1}" for j in range(values.shape[1])]
    return pd.concat([_steps(tr, vocab), pd.DataFrame(values, columns=columns)], axis=1)


def grads_frame(tr: Trace) -> pd.DataFrame:
    """Every parameter gradient in long form: parameter, row, col (1-based; col 1 for vectors), value."""
    rows = []
    for name, g in tr.grads.items():
        g2 = g.detach().double().reshape(g.shape[0] if g.dim() else 1, -1)  # (rows, cols)
        for i, row in enumerate(g2.tolist()):
            rows += [{"parameter": name, "row": i + 1, "col": j + 1, "value": v}
                     for j, v in enumerate(row)]
    return pd.DataFrame(rows, columns=["parameter", "row", "col", "value"])


def trace_frame(tr: Trace, vocab: Vocab, table: str) -> pd.DataFrame:
    """One of TABLES (or "grads") as a DataFrame."""
    if table == "tokens":
        return token_frame(tr, vocab)
    if table == "grads":
        return grads_frame(tr)
    if table in TABLES:
        return matrix_frame(tr, vocab, table)
    raise ValueError(f"unknown table {table!r}")


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet reads these as a formula


def neutralise(cell):
    """A text cell that a spreadsheet would run as a formula gets a leading apostrophe (OWASP
    "CSV injection"): a vocabulary token `=HYPERLINK(...)` must stay text. Numbers, including
    negative ones, are not text cells and are left alone."""
    if isinstance(cell, str) and cell.startswith(FORMULA_START):
        return "'" + cell
    return cell


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The table with every text cell and column name neutralised (numeric columns untouched)."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col].dtype):
            out[col] = out[col].map(neutralise)
    out.columns = [neutralise(str(c)) for c in out.columns]
    return out


def csv_bytes(df: pd.DataFrame) -> bytes:
    """UTF-8 CSV with a byte-order mark (spreadsheets then read Chinese tokens correctly) and
    full float precision (round-trips exactly through pandas.read_csv(encoding="utf-8-sig")).
    Text cells that start like a formula are neutralised (see neutralise). Rows end in CRLF
    (RFC 4180), which also makes the writer quote a cell holding a lone CR."""
    return safe_frame(df).to_csv(index=False, float_format="%.17g",
                                 lineterminator="\r\n").encode("utf-8-sig")


def figure_html(fig: go.Figure) -> bytes:
    """A standalone HTML file (plotly.js embedded: opens offline, no server needed)."""
    return fig.to_html(include_plotlyjs=True, full_html=True).encode("utf-8")


def safe_filename(name: str, ext: str) -> str:
    """'Hidden states hₜ' -> 'hidden-states-h_t.csv' (letters, digits, _ and -, never empty; a
    subscript written as _ and its letters: 'hₜ₋₁' -> 'h_t-1')."""
    name = ascii_subscripts(name)
    stem = "".join(c if c.isalnum() or c in "_-" else "-" for c in name.lower().strip())
    stem = "-".join(p for p in stem.split("-") if p)[:60] or "export"
    return f"{stem}.{ext}"
