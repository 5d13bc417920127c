"""One notation everywhere (issue 18): the prose and the catalogues never fall back to the old
plain-text forms of the formulas. In prose and headers the formulas are LaTeX
($\\partial L/\\partial h_t$, $h_{t-1}$, $J_{t+1}$, $W_h^\\top$); in tables and figure text, which
cannot render LaTeX, they use ∂, ᵀ and h_{t-1}. Sizes are H, d, K as on every page.
Inline code (`...`, e.g. a line quoted from the notes' code) is exempt."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# the plain forms that must not come back, each with what replaces it
PLAIN_FORMS = {
    r"_\(t": "h_(t-1): write $h_{t-1}$ (LaTeX) or h_{t-1}",
    r"(?<![\\\w])dL/d": r"dL/dh_t: write $\partial L/\partial h_t$ (LaTeX) or ∂L/∂h_t",
    r"(?<![\\\w])dL_\w+/d": r"dL_s/dh_t: write $\partial L_s/\partial h_t$ or ∂L_s/∂h_t",
    r"t-1\^T": r"h_t-1^T: write $h_{t-1}^\top$ or h_{t-1}ᵀ",
    r"[tk][+-]1\^T": r"h_t+1^T: write $h_{t+1}^\top$",
    r"J_t\+1": "J_t+1: write $J_{t+1}$",
    r"(?<![\w\\])d_[hxy](?!\w)": "d_h, d_x, d_y: the app's sizes are H, d, K",
    r"(?<![\w{])h_t-1(?![\w}])": "h_t-1: write $h_{t-1}$",
    r"(?<![\\\w∂])d[hxa]_[\w{}]+/d": r"dh_s/dh_t: write $\partial h_s/\partial h_t$ or ∂h_s/∂h_t",
    r"[\w)]\^T\b": r"x^T: write $x^\top$ (LaTeX) or xᵀ",
}
CODE_SPAN = re.compile(r"`[^`\n]*`")


def text_files() -> list[Path]:
    files = sorted((ROOT / "prose").rglob("*.md")) + sorted((ROOT / "locales").rglob("*.toml"))
    assert len(files) > 20  # both languages, every page
    return files


def plain_forms(text: str) -> list[tuple[int, str, str]]:
    """(line number, matched text, fix) of every plain form outside inline code."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        line = CODE_SPAN.sub("", line)
        for pattern, fix in PLAIN_FORMS.items():
            found += [(n, m.group(0), fix) for m in re.finditer(pattern, line)]
    return found


@pytest.mark.parametrize("path", text_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_plain_formula_forms(path):
    found = plain_forms(path.read_text(encoding="utf-8"))
    assert not found, "\n".join(f"{path.name}:{n}: {m!r} -> {fix}" for n, m, fix in found)


@pytest.mark.parametrize("bad", ["h_(t-1)", "dL/dh_t", "||dL/dW_x||", "h_t-1^T", "J_t+1 ... J_s",
                                 "(B=4, d_x=8, d_h=16)", "dL_1/dh_2", "||dh_s/dh_t||", "dh_{{s}}/dh_{{t}}", "x^T g_e", "(p_t - y_t)^T h_t", "delta_t+1^T", "W_h h_t-1 + b"])
def test_the_check_catches_each_plain_form(bad):
    assert plain_forms(f"some prose with {bad} inside")


@pytest.mark.parametrize("good", [r"$\partial L/\partial h_t$", r"$h_{t-1}^\top$", r"$J_{t+1}$",
                                  "∂L/∂h_t", "h_{t-1}ᵀ", "`RNNCellManual(d_x, d_h, 3)`", "H = 16, d = 8",
                                  "$\\delta_{{t+1}}$", "{{t-1}}", "add_x", "odd_h"])
def test_the_check_lets_the_one_notation_pass(good):
    assert not plain_forms(f"some prose with {good} inside"), good


# one e-notation style, the one rnnviz.formatting.num writes (Python's): 1e-07, 3.4e+38
OTHER_E_STYLE = re.compile(r"(?<![\w.])\d(?:\.\d+)?e(?:[-+]?\d(?!\d)|\d)")


@pytest.mark.parametrize("path", text_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_one_e_notation_style(path):
    found = [m.group(0) for m in OTHER_E_STYLE.finditer(CODE_SPAN.sub("", path.read_text(encoding="utf-8")))]
    assert not found, f"{path.name}: {found} -> write 1e-07, 3.4e+38 (as formatting.num does)"


def test_the_e_notation_check():
    from rnnviz.formatting import num
    assert not OTHER_E_STYLE.search(" ".join(num(v) for v in (1e-7, 3.4e38, 1.19e-9, 2.2e-308, 1e100)))
    for other in ("1e-7", "3.4e38", "1.2e-8", "5e+3", "1e9"):
        assert OTHER_E_STYLE.search(f"about {other} here"), other
