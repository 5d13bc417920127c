"""Subscripts in running text read as written on paper: "the same Wₓ, Wₕ at every step", not
"W_x, W_h" (rnnviz.formatting.plain_subscripts). Formulas ($...$), code, {placeholders}, link
targets and HTML are never touched, and every catalogue string and prose section is already
written that way, in both languages."""
from __future__ import annotations

import re
import string
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from rnnviz.formatting import plain_subscripts
from rnnviz.store import prose
from rnnviz.store.export import safe_filename

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("raw, shown", [
    ("the same W_x, W_h and b_h are used", "the same Wₓ, Wₕ and bₕ are used"),
    ("x_k·g_1, h_{t-1}, x_12 and Σ_k exp(z_k)", "xₖ·g₁, hₜ₋₁, x₁₂ and Σₖ exp(zₖ)"),
    ("的h_t和W_h，单元", "的hₜ和Wₕ，单元"),
    ("recurrent path h_s → h_{{s+1}}", "recurrent path hₛ → hₛ₊₁"),  # a catalogue template's {{ }}
])
def test_running_text_gets_unicode_subscripts(raw, shown):
    assert plain_subscripts(raw) == shown


@pytest.mark.parametrize("kept", [
    "$h_t = \\tanh(a_t)$ and $$W_h h_{t-1}$$",  # formulas
    "`model.W_h` and [the link](#w_h) and <span class='x_y'>",  # code, link target, HTML
    "https://example.org/a_b",
    "hid_step, y_prev, h_Arrive, p_guess",  # words and long indices
    "Step {t}: h_{t} = {x}",  # a placeholder as the index: filled in later
    "∂L/∂h_{{t}} ({{tok}})",  # a literal-brace name: a figure's template, filled in later
    "σ(u_o·v_c)",  # v_c has no Unicode form: the paragraph keeps both as they are
    "∂L_T/∂h_s",
])
def test_what_cannot_or_must_not_change_stays(kept):
    assert plain_subscripts(kept) == kept


def test_a_paragraph_is_written_one_way():
    text = "u_o and v_c\n\nthen h_t"
    assert plain_subscripts(text) == "u_o and v_c\n\nthen hₜ"


@settings(max_examples=300, deadline=None)
@given(hst.text(alphabet="hWxkT_{}$`ab12 \n∂·", max_size=40), hst.text(alphabet="hWx_{}t1 ", max_size=12))
def test_idempotent_and_formulas_untouched(text, formula):
    once = plain_subscripts(text)
    assert plain_subscripts(once) == once
    framed = f"a ${formula}$ b"  # a formula on one line is never rewritten
    assert f"${formula}$" in plain_subscripts(framed)


def _fields(text: str) -> list:
    return sorted(f for _, f, _, _ in string.Formatter().parse(text) if f is not None)


def catalogue_strings():
    """(file, key, text) of every catalogue string but the LaTeX phrases of formulas.*."""
    def walk(path, table, prefix=""):
        for key, value in table.items():
            if isinstance(value, dict):
                yield from walk(path, value, f"{prefix}{key}.")
            elif isinstance(value, str) and not f"{prefix}{key}".startswith("formulas."):
                yield path.relative_to(ROOT), f"{prefix}{key}", value

    for path in sorted((ROOT / "locales").rglob("*.toml")):
        yield from walk(path, tomllib.loads(path.read_text(encoding="utf-8")))


def test_every_catalogue_string_is_written_as_it_reads():
    strings = list(catalogue_strings())
    assert len(strings) > 1500  # both languages
    raw = [(str(f), k, v) for f, k, v in strings if plain_subscripts(v) != v]
    assert raw == []
    assert all(_fields(plain_subscripts(v)) == _fields(v) for _, _, v in strings)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_prose_section_is_written_as_it_reads(lang):
    pages = sorted(p.stem for p in (prose.PROSE_ROOT / lang).glob("*.md"))
    assert len(pages) >= 10
    raw = [(page, key) for page in pages for key, text in prose.sections(page, lang).items()
           if plain_subscripts(text) != text]
    assert raw == []


def test_a_file_name_keeps_its_subscripts_in_ascii():
    assert safe_filename("Hidden states hₜ", "csv") == safe_filename("hidden states h_t", "csv") \
        == "hidden-states-h_t.csv"
    assert re.fullmatch(r"[\w-]+\.csv", safe_filename("∂L/∂hₜ₋₁", "csv"))
    assert safe_filename("∂L/∂hₜ₋₁", "csv") == "l-h_t-1.csv"
