"""The one way numbers and vectors are written on screen: at most 4 significant digits.

Python's `g` format picks plain or e-notation ("0.1235", "1.577e-07"), so tiny gradients are
never shown as 0 and huge ones never overflow a cell; NaN and inf are spelled out (they are a
lesson on the BPTT page, not a crash) and -0 is shown as 0. These two functions, under these
names, are the only number formatters; sub and plain_math write subscripts for plain text.
"""
from __future__ import annotations

import math
import re

DIGITS = 4  # significant digits of every number on screen


def num(v, digits: int = DIGITS) -> str:
    """'0.1235', '1.577e-07', 'NaN', 'inf', '-inf'; -0 as '0'."""
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v + 0.0:.{digits}g}"


def vector(values, digits: int = DIGITS, shown: int | None = None) -> str:
    """'[-0.6, 0.9, -0.2]'. shown: keep the first `shown` entries and add '… (n in all)' so that
    a long row fits in a table cell. Takes a list, numpy array or tensor of any shape (flattened)."""
    if hasattr(values, "detach"):
        values = values.detach().double().reshape(-1).tolist()
    elif hasattr(values, "reshape"):
        values = values.reshape(-1).tolist()
    vals = [float(x) for x in values]
    head = ", ".join(num(x, digits) for x in vals[:shown])
    if shown is None or len(vals) <= shown:
        return "[" + head + "]"
    return f"[{head}, … ({len(vals)} in all)]"


def vector_rows(named, name_header: str = "vector") -> list[dict]:
    """Vectors as table rows, not inside sentences: one row per (name, values), one column per
    component numbered from 1, each cell num() (4 significant digits, text: one type per
    column). Vectors of different lengths leave the missing cells empty ("")."""
    rows = []
    for name, values in named:
        if hasattr(values, "detach"):
            values = values.detach().double().reshape(-1).tolist()
        elif hasattr(values, "reshape"):
            values = values.reshape(-1).tolist()
        rows.append({name_header: str(name), **{str(j + 1): num(v) for j, v in enumerate(values)}})
    width = max((len(r) for r in rows), default=1) - 1
    return [{**r, **{str(j + 1): r.get(str(j + 1), "") for j in range(width)}} for r in rows]


_SUB = str.maketrans(dict(zip("0123456789+−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")))
_SUBBABLE = set("0123456789+-−=()aehijklmnoprstuvx")
_SUB_RE = re.compile(r"_\{([^{}]*)\}|_(\d+|[A-Za-z])")
_SUP = str.maketrans(dict(zip("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")))
_SUP_RE = re.compile(r"\^\{?(\d+)\}?")


def sub(text) -> str:
    """Text as a subscript in Unicode ('t-1' -> 'ₜ₋₁'); characters with no subscript form are
    kept in brackets ('T' -> '₍T₎')."""
    text = str(text)
    if all(c in _SUBBABLE for c in text):
        return text.replace("-", "−").translate(_SUB)
    return "₍" + text.replace("-", "−") + "₎"


def plain_math(text: str) -> str:
    """LaTeX-style subscripts written for a plain-text place (a code block, table, legend or
    button), where they would show raw: 'h_{t-1}' -> 'hₜ₋₁', 'W_h^2' -> 'Wₕ²', 'x_2' -> 'x₂'. A
    number filled into a template ('L_{s}' with s = 11 gives 'L_11') is one subscript: 'L₁₁'."""
    text = _SUB_RE.sub(lambda m: sub(m.group(1) if m.group(1) is not None else m.group(2)), text)
    return _SUP_RE.sub(lambda m: m.group(1).translate(_SUP), text)


_PLURAL = re.compile(r"(?<!\{)\{(\w+)\|([^{}|]*)\|([^{}|]*)\}(?!\})")


def plurals(text: str, values: dict) -> str:
    """A catalogue string's plural choices made before it is filled: '{n|token|tokens}' becomes
    'token' when values['n'] is 1 and 'tokens' otherwise (also for a count not given, or not a
    number), so '{n} {n|token|tokens}' reads '1 token', '3 tokens', never 'token(s)'."""
    def pick(m):
        try:
            one = float(str(values.get(m.group(1))).replace(",", "")) == 1
        except ValueError:
            one = False
        return m.group(2) if one else m.group(3)
    return _PLURAL.sub(pick, text) if "|" in text else text
