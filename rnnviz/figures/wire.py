"""A figure's arrays on the wire: which go as JSON lists and which stay plotly's base64.

Plotly.react compares typed (base64) arrays by identity, so a chart handed a copy of its figure
redraws whole if any array of it is typed; with lists (and a fixed `layout.datarevision`) it
redraws nothing (issue 24, ui/charts.py). Lists cost bytes, so only short arrays become lists,
and a figure with one array that must stay typed keeps them all typed. Pure: no Streamlit."""
from __future__ import annotations

import base64

import numpy as np

LIST_MAX = 1000  # numbers: an array up to this long may go as a JSON list


def listed(value, limit: int = LIST_MAX):
    """value (a trace, or any part of one) with its short finite arrays as lists: numpy arrays
    and the base64 arrays some builders write themselves ({"dtype", "bdata"}). An array with a
    NaN or an infinity stays typed (JSON has no NaN: it would arrive as null)."""
    if isinstance(value, np.ndarray):
        return as_list(value) if value.size <= limit and _finite(value) else value
    if isinstance(value, dict):
        if isinstance(value.get("bdata"), str) and isinstance(value.get("dtype"), str):
            arr = decoded(value)
            return as_list(arr) if arr is not None and arr.size <= limit and _finite(arr) else value
        return {k: listed(v, limit) for k, v in value.items()}
    return value


def has_typed(value) -> bool:
    """Does value (a trace, or any part of one) still hold a typed array?"""
    if isinstance(value, np.ndarray):
        return True
    if isinstance(value, dict):
        return "bdata" in value or any(has_typed(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, (dict, np.ndarray, list, tuple)) and has_typed(v) for v in value[:4])
    return False


def as_list(arr: np.ndarray) -> list:
    """An array as a list; float32 numbers (sent as float32 where only their height is drawn)
    in their shortest float32 digits, not the 17 of their float64 widening (fewer bytes)."""
    if arr.dtype == np.float32:
        return arr.astype(str).astype(np.float64).tolist()
    return arr.tolist()


def decoded(spec: dict):
    """A plotly typed-array spec as a numpy array (None if it is not one numpy reads)."""
    try:
        arr = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=np.dtype(spec["dtype"]))
        shape = spec.get("shape")
        return arr.reshape([int(n) for n in str(shape).split(",")]) if shape not in (None, "") else arr
    except (ValueError, TypeError):
        return None


def _finite(arr: np.ndarray) -> bool:
    return arr.dtype.kind not in "fc" or bool(np.isfinite(arr).all())


def compact(value, least: int = 8):
    """A list or array of at least `least` numbers that float32 holds exactly (a model's float32
    values widened to float64) as plotly's base64 float32 spec ({"dtype": "f4", "bdata"}): 4
    bytes a number instead of up to 20 digits; anything else as it is. decoded() reads it back
    to the same numbers."""
    if isinstance(value, (list, tuple)) and len(value) >= least and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        arr = np.asarray(value, dtype=np.float64)
    elif isinstance(value, np.ndarray) and value.ndim == 1 and value.size >= least \
            and value.dtype.kind in "fiu":
        arr = value.astype(np.float64)
    else:
        return value
    f4 = arr.astype(np.float32)
    if not np.array_equal(f4.astype(np.float64), arr):
        return value
    return {"dtype": "f4", "bdata": base64.b64encode(f4.tobytes()).decode("ascii")}
