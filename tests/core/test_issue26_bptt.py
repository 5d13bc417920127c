"""Issue 26, page 4: |w|^n drawn over the scalar RNN's gradient product. The product of the
scalar tanh RNN against autograd in float64, the line against the closed form |w|^n, and the
figure drawing exactly those two curves on a log axis."""
import math

import numpy as np
import pytest
import torch

from rnnviz.explain import bptt as chains
from rnnviz.figures import bptt as figs
from rnnviz.store.prose import sections


def autograd_products(w, n, u):
    h0 = torch.zeros((), dtype=torch.float64, requires_grad=True)
    h, out = h0, [1.0]
    for _ in range(n):
        h = torch.tanh(w * h + u)
        out.append(float(torch.autograd.grad(h, h0, retain_graph=True)[0]))
    return np.array(out)


@pytest.mark.parametrize("w, n", list(chains.SCALAR_PRESETS.values()) + [(-1.5, 7), (1.0, 12)])
def test_scalar_tanh_product_under_the_closed_form(w, n):
    r = chains.scalar_tanh_products(w, n)
    assert np.allclose(r["bound"], [abs(w) ** k for k in range(n + 1)], rtol=1e-14, atol=0)  # |w|^k
    assert np.allclose(r["products"], autograd_products(w, n, r["u"]), rtol=1e-12, atol=0)
    assert np.all(np.abs(r["products"]) <= r["bound"] * (1 + 1e-12))  # every slope <= 1
    assert abs(r["products"][-1]) < r["bound"][-1]  # strictly under it: tanh' < 1 once h != 0
    hs = [0.0]
    for _ in range(n):
        hs.append(math.tanh(w * hs[-1] + r["u"]))
    assert r["products"][-1] == pytest.approx(w ** n * np.prod([1 - h * h for h in hs[1:]]), rel=1e-12)


def test_figure_draws_the_product_and_the_line():
    w, n = chains.SCALAR_PRESETS["w = 2, 10 steps"]
    r = chains.scalar_tanh_products(w, n)
    fig = figs.scalar_chain_plot(r["products"], w, bound=r["bound"])
    prod, line = fig.data
    assert np.allclose(prod.y, np.abs(r["products"])) and np.allclose(line.y, 2.0 ** np.arange(n + 1))
    assert line.line.dash == "dash" and fig.layout.yaxis.type == "log"
    assert float(fig.layout.yaxis.dtick).is_integer()  # labels on whole decades only, no minor ticks


@pytest.mark.parametrize("lang", ("en", "zh"))
def test_scalar_tanh_text(lang):
    text = sections("bptt", lang)["scalar-tanh"]
    assert "{prod}" in text and "{bound}" in text and "|w|^k" in text


def test_english_plurals_are_written_out():
    """Issue 26: no "token(s)" / "loss(es)" in the English catalogue or prose; a count picks
    the singular or the plural ({n|token|tokens})."""
    import re
    from pathlib import Path

    from rnnviz.formatting import plurals
    from rnnviz.store.prose import section

    root = Path(__file__).resolve().parents[2]
    files = [*(root / "prose" / "en").glob("*.md"), *(root / "locales" / "en").glob("*.toml"),
             root / "locales" / "en.toml"]
    found = [f"{p.name}: {m.group(0)}" for p in files
             for m in re.finditer(r"\b([a-z]+)\((?:s|es)\)", p.read_text(encoding="utf-8"))
             if m.group(1) != "softmax"]  # softmax(s): a function of the scores s
    assert not found, found
    assert plurals("{n} {n|token|tokens}", {"n": 1}) == "{n} token"
    assert plurals("{n} {n|token|tokens}", {"n": "1,000"}) == "{n} tokens"
    assert plurals("{{n|a|b}}", {"n": 1}) == "{{n|a|b}}"  # a literal brace pair stays
    one = section("bptt", "paths_later", n_later=1, names="L", later="0.1", **_paths_rest())
    two = section("bptt", "paths_later", n_later=2, names="L", later="0.1", **_paths_rest())
    assert "1 later loss (L) adds" in one and "2 later losses (L) add" in two


def _paths_rest():
    import re

    from rnnviz.store.prose import sections

    keys = set(re.findall(r"\{(\w+)(?:[:|][^{}]*)?\}", sections("bptt", "en")["paths_later"]))
    return {k: "x" for k in keys - {"n_later", "names", "later"}}


def test_negative_weight_power_is_written_with_brackets():
    """(−2)³, never "-2.0^3" (which reads -(2³)); the hint's power is the one the product uses."""
    ex = {"w": -2.0, "n": 3, "slopes": [0.5, 0.5, 0.5]}
    ex["answer"] = float(chains.scalar_chain(ex["w"], ex["n"], ex["slopes"])[-1])
    assert ex["answer"] == pytest.approx((-2.0) ** 3 * 0.125)
    v = chains.check_chain(ex, ex["answer"])
    assert v.ok and v.values["power"] == "(−2)³" and "(−2)³" in v.solution and "^" not in v.solution
