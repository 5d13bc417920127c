"""Links that reproduce a view: pure checks of what a shared URL asks for.

Streamlit binds widgets to query parameters but drops a value it cannot use without a word;
these functions find such values and say why, so the page can tell the learner.

Everything a link carries is a stranger's text: every message here quotes it through
safe_text.quote (shortened, Markdown-escaped), so a link cannot put a link, an image, HTML or
LaTeX into the app's own warnings.
"""
from __future__ import annotations

import math
from urllib.parse import urlencode

from rnnviz import limits
from rnnviz.safe_text import escape_md, quote, short
from rnnviz.store.catalog import BUILTINS

OWN_PREFIX = "own:"  # model keys of a session's own models
# Link parameters bound to text widgets (text_input / text_area with bind="query-params"): their
# values are text, whatever they read as ("infinity", "1e309"), and are never checked as numbers.
# tests/core/serve/test_links.py scans ui/ and pages/ so that this set stays complete.
TEXT_PARAMS = frozenset({"text", "glossary_q", "emb_batch2", "emb_ge", "emb_hash_words",
                         "emb_order_a", "emb_order_b", "emb_prev", "hid_overlay", "origins_word",
                         "out_batch2", "slot_text"})


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


def overflowing_params(params: dict[str, list[str]]) -> list[str]:
    """The link parameters to drop before any widget reads them: values reading as an infinite
    number, for every parameter except the text ones (TEXT_PARAMS), whose values are words."""
    return [k for k, values in params.items() if k not in TEXT_PARAMS and overflowing(values)]


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
    shown = quote(asked)
    if asked.startswith(OWN_PREFIX):
        return (f"The link names “{shown}”, a model trained in another session: own models "
                "live only in the session that made them (download it on page 6 and upload it "
                "there). Showing the default model.")
    return (f"The link names an unknown model “{shown}”; the models are "
            f"{', '.join(BUILTINS)}. Showing the default model.")


REJECTED = "The link's value “{shown}” for “{name}” is not valid here; showing {value} instead."


def rejected_items(initial: dict, state: dict, skip=("model",),
                   current: dict | None = None) -> tuple[list[dict], list[str]]:
    """Compare the link's parameters with the values the widgets ended up with.

    Streamlit drops a bound value it cannot use (wrong type, out of range, unknown option)
    without a word; this finds those. `current` is the URL's parameters at the end of the run:
    Streamlit writes a bound widget's value there as its *label* (format_func: "characters"
    for "char", "Jordan" for "jordan", "u1" for unit 0) and removes a value it rejected, so a
    link value still there unchanged was accepted. Returns ({shown, name, value} of each
    rejected value, shortened but NOT escaped: the caller escapes; names of parameters no
    widget on this page uses, unescaped, see unused_notice)."""
    rejected, unused = [], []
    for name, values in initial.items():
        if name in skip or not values:
            continue
        raw = values[-1]
        if name not in state:
            unused.append(name)
        elif not (_same_value(raw, state[name], values) or _kept(name, values, current)):
            rejected.append({"shown": short(raw, 40), "name": short(name, 40),
                             "value": short(str(state[name]), 40)})
    return rejected, unused


def rejected_params(initial: dict, state: dict, skip=("model",),
                    current: dict | None = None) -> tuple[list[str], list[str]]:
    """rejected_items with the rejected values as English messages (every value escaped)."""
    rejected, unused = rejected_items(initial, state, skip, current)
    return [REJECTED.format(**{k: escape_md(v) for k, v in r.items()}) for r in rejected], unused


def _kept(name: str, values: list[str], current: dict | None) -> bool:
    """Streamlit still shows the link's value(s) in the URL: it accepted them."""
    if not current or name not in current:
        return False
    return [v for v in current[name] if v != ""] == [v for v in values if v != ""]


def unused_notice(names: list[str]) -> str:
    """The notice for link parameters nothing on the page uses (names escaped, at most 10)."""
    return ("Ignored link parameter(s) that nothing on this page uses: "
            + ", ".join(quote(n) for n in names[:10]) + ".")


def overflow_notice(names: list[str]) -> str:
    """The notice for link values too large to be a number (names escaped, at most 10)."""
    return ("Ignored link value(s) too large to be a number: "
            + ", ".join(quote(n) for n in names[:10]) + ".")


def _short(value) -> str:
    """Shortened and Markdown-escaped (kept for callers that build their own notices)."""
    return quote(value)


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


def share_url(base: str | None, params: dict[str, list[str]], keep=None) -> str:
    """The page's address with every parameter (repeated keys for lists). No value is longer
    than the text limit: a 1 MB sentence would otherwise go whole into the link, although the
    pages use only its first MAX_TEXT_CHARS characters. `keep`: the widget keys drawn in this
    run; a bound widget hidden by another choice (emb_gsrc once a preset is picked) keeps its
    value in the URL, and a link carrying it would warn "nothing on this page uses" it."""
    if keep is not None:
        params = {k: vs for k, vs in params.items() if k in keep}
    query = urlencode([(k, v[: limits.MAX_TEXT_CHARS]) for k, vs in params.items() for v in vs],
                      safe=",")  # a comma is legal in a query: cell=6,2 reads as it is
    return (base or "") + (f"?{query}" if query else "")


def parse_cell(raw: str, bounds, least: int | None = None) -> tuple[list[int] | None, dict | None]:
    """A cell in a link: "s,t" (a Jacobian map's row and column) or "k" / "k,t" (a hidden map's
    unit, and optionally its step), 1-based. bounds: ((lo, hi), ...) one per number; least: how
    many numbers must be given (default: all). A full-width comma and spaces are allowed.
    Returns (the numbers, each clamped into its range, or None; a problem or None): problem
    {"kind": "format" | "range", "value": raw shortened (NOT escaped), "want": "s,t"-like hint}."""
    least = len(bounds) if least is None else least
    parts = [p.strip() for p in str(raw).replace("，", ",").split(",")]
    numbers = all(p.lstrip("+-").isdigit() and len(p) <= 9 for p in parts)
    if not (least <= len(parts) <= len(bounds) and numbers):
        return None, {"kind": "format", "value": short(str(raw), 40)}
    values = [int(p) for p in parts]
    clamped = [min(max(v, lo), hi) for v, (lo, hi) in zip(values, bounds)]
    problem = None if clamped == values else {"kind": "range", "value": short(str(raw), 40),
                                              "fixed": ",".join(map(str, clamped))}
    return clamped, problem
