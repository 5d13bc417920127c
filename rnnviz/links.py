"""Links that reproduce a view: pure checks of what a shared URL asks for.

Streamlit binds widgets to query parameters but drops a value it cannot use without a word;
these functions find such values and say why, so the page can tell the learner.
"""
from __future__ import annotations

import math
from urllib.parse import urlencode

from .catalog import BUILTINS

OWN_PREFIX = "own:"  # model keys of a session's own models


def overflowing(values: list[str]) -> bool:
    """A value that reads as an infinite number ("1e309", "-inf"): Streamlit 1.67's whole-number
    inputs crash on it (int(inf) raises OverflowError, which it does not catch)."""
    for v in values:
        try:
            if math.isinf(float(v)):
                return True
        except (ValueError, OverflowError):
            continue
    return False


def link_model_problem_item(asked: str, options: list[str]) -> tuple[str, dict] | None:
    """link_model_problem as (catalogue key under "links.", values), for another language."""
    if asked in options:
        return None
    shown = asked[:40] + ("…" if len(asked) > 40 else "")
    if asked.startswith(OWN_PREFIX):
        return "model_own", {"shown": shown}
    return "model_unknown", {"shown": shown, "models": ", ".join(BUILTINS)}


def link_model_problem(asked: str, options: list[str]) -> str | None:
    """Why a model named in a link cannot be shown (None if it can)."""
    if asked in options:
        return None
    shown = asked[:40] + ("…" if len(asked) > 40 else "")
    if asked.startswith(OWN_PREFIX):
        return (f"The link names “{shown}”, a model trained in another session: own models "
                "live only in the session that made them (download it on page 6 and upload it "
                "there). Showing the default model.")
    return (f"The link names an unknown model “{shown}”; the models are "
            f"{', '.join(BUILTINS)}. Showing the default model.")


REJECTED = "The link's value “{shown}” for “{name}” is not valid here; showing {value} instead."


def rejected_items(initial: dict, state: dict, skip=("model",)) -> tuple[list[dict], list[str]]:
    """Compare the link's parameters with the values the widgets ended up with.

    Streamlit drops a bound value it cannot use (wrong type, out of range, unknown option)
    without a word; this finds those. Returns ({shown, name, value} of each rejected value,
    names of parameters no widget on this page uses)."""
    rejected, unused = [], []
    for name, values in initial.items():
        if name in skip or not values:
            continue
        raw = values[-1]
        if name not in state:
            unused.append(name)
        elif not _same_value(raw, state[name], values):
            shown = raw[:40] + ("…" if len(raw) > 40 else "")
            rejected.append({"shown": shown, "name": name, "value": _short(state[name])})
    return rejected, unused


def rejected_params(initial: dict, state: dict, skip=("model",)) -> tuple[list[str], list[str]]:
    """rejected_items with the rejected values as English messages."""
    rejected, unused = rejected_items(initial, state, skip)
    return [REJECTED.format(**r) for r in rejected], unused


def _short(value) -> str:
    text = str(value)
    return text[:40] + ("…" if len(text) > 40 else "")


def _same_value(raw: str, value, values: list[str]) -> bool:
    if isinstance(value, bool):
        return raw.lower() == str(value).lower()
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value] == [v for v in values if v != ""]
    if isinstance(value, (int, float)):
        try:
            return float(raw) == float(value)
        except ValueError:
            return False
    return raw == str(value)


def share_url(base: str | None, params: dict[str, list[str]]) -> str:
    """The page's address with every parameter (repeated keys for lists)."""
    query = urlencode([(k, v) for k, vs in params.items() for v in vs])
    return (base or "") + (f"?{query}" if query else "")
