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


def num_inside(v, bound: float = 1.0, digits: int = DIGITS) -> str:
    """num(v), with as many more digits as it takes for a value strictly inside (-bound, bound) not
    to read as the bound: tanh's 0.99999899 is '0.999999', not '1', beside "every value in
    (-1, 1)"; -0.99999994 is '-0.9999999'. A value at or beyond the bound is num(v)."""
    v = float(v)
    text = num(v, digits)
    while not math.isnan(v) and abs(v) < bound and abs(float(text)) >= bound and digits < 17:
        digits += 1
        text = num(v, digits)
    return text


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


_SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"  # of "0123456789+−=()aehijklmnoprstuvx"
_SUB = str.maketrans(dict(zip("0123456789+−=()aehijklmnoprstuvx", _SUBSCRIPTS)))
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


# What plain_subscripts leaves alone: formulas ($$...$$, $...$), code spans, link targets, HTML
# tags and web addresses; then, in the text between them, {placeholders} and literal braces.
_KEPT = re.compile(r"\$\$.*?\$\$|(?<!\\)\$[^$\n]*?(?<!\\)\$|`[^`\n]*`|\]\([^)]*\)|<[^>\n]*>|https?://\S+",
                   re.S)
_BRACES = re.compile(r"\{\{|\}\}|\{[A-Za-z_]\w*(?:[|:!][^{}]*)?\}")
# a symbol with a subscript in running text: 1-2 Latin or Greek letters, "_", then one letter, a
# number or a braced index (h_t, W_o, Σ_k, x_12, h_{t-1}); not inside a word (hid_step) or a
# longer index (y_prev)
_SYMBOL = r"(?<![A-Za-z0-9_\\α-ωΑ-Ω])([A-Za-zα-ωΑ-Ω]{1,2})_"
_TEXT_SUB = re.compile(_SYMBOL + r"(?:\{([^{}]+)\}|([A-Za-z]|\d+))(?![A-Za-z0-9_])")
# the same with a literal-brace index in a catalogue template (h_{{s+1}}); an index that is a name
# (h_{{t}}) is left: it may be a placeholder that the string's user fills in later
_TEMPLATE_SUB = re.compile(_SYMBOL + r"\{\{([^{}]+)\}\}")


def _write_sub(m) -> str:
    index = next(g for g in m.groups()[1:] if g is not None)
    if not all(c in _SUBBABLE for c in index) or index.isidentifier() and len(index) > 1:
        return m.group(0)
    return m.group(1) + sub(index)


def _plain_between(text: str) -> str:
    text = _TEMPLATE_SUB.sub(lambda m: m.group(0) if m.group(2).isidentifier() else _write_sub(m), text)
    out, last = [], 0
    for kept in _BRACES.finditer(text):
        out += [_TEXT_SUB.sub(_write_sub, text[last:kept.start()]), kept.group(0)]
        last = kept.end()
    out.append(_TEXT_SUB.sub(_write_sub, text[last:]))
    return "".join(out)


def plain_subscripts(text: str) -> str:
    """The subscripts of running text (Markdown prose, a label) written as they read, outside
    formulas: 'the same W_x, W_h at every step, and $h_t$' -> 'the same Wₓ, Wₕ at every step,
    and $h_t$'. Placeholders, code spans, link targets and HTML stay as they are, so a catalogue
    template keeps working. Paragraph by paragraph: one with a subscript that has no Unicode form
    (v_c, h_T: 'h₍T₎' reads worse) or whose index is a placeholder (h_{t}) stays as it is, rather
    than write the same symbols two ways. Idempotent."""
    return "\n\n".join(_plain_paragraph(p) for p in text.split("\n\n"))


def _plain_paragraph(text: str) -> str:
    out, last = [], 0
    for kept in _KEPT.finditer(text):
        out += [_plain_between(text[last:kept.start()]), kept.group(0)]
        last = kept.end()
    out.append(_plain_between(text[last:]))
    new = "".join(out)
    return text if new != text and _raw_left(new) else new


def _raw_left(text: str) -> bool:
    """Whether text still has a subscript written raw outside its formulas and code."""
    between = _KEPT.sub(" ", text)
    return bool(_TEXT_SUB.search(between) or _TEMPLATE_SUB.search(between))


_ASCII = str.maketrans(dict(zip(_SUBSCRIPTS, "0123456789+-=()aehijklmnoprstuvx")))  # a hyphen, not −
_SUB_RUN = re.compile(f"[{_SUBSCRIPTS}]+")


def ascii_subscripts(text: str) -> str:
    """Unicode subscripts back in ASCII, for a file name: 'hₜ₋₁' -> 'h_t-1'."""
    return _SUB_RUN.sub(lambda m: "_" + m.group(0).translate(_ASCII), text)


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
