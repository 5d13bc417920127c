"""Issue 12, every reproduction as a regression test: spectral norms on ReLU and inf/NaN
Jacobians, float32 chains, step_terms in float64, grapheme tokens, Jordan's grad_z, figure
titles, and the backward direction of a bidirectional model."""
import unicodedata

import numpy as np
import pytest
import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine.jacobians import (
    SPECTRAL_TOL,
    backward_jacobian_norms,
    jacobian_norms,
    output_error,
    product_norms,
    spectral_bracket,
    step_jacobians,
)
from rnnviz.engine.trace import trace
from rnnviz.explain.bptt import precision_chain
from rnnviz.explain.hidden import step_terms
from rnnviz.figures.bptt import jacobian_parts
from rnnviz.figures.hidden import step_terms_bar
from rnnviz.text.tokenize import tokenize


def exact_products(J):
    """(T, T) spectral norms of J[s] ... J[t+1] by plain products and matrix_norm, float64."""
    J = J.double()
    T, H = J.shape[0], J.shape[1]
    out = torch.full((T, T), float("nan"), dtype=torch.float64)
    for t in range(T):
        P = torch.eye(H, dtype=torch.float64)
        out[t, t] = 1.0
        for s in range(t + 1, T):
            P = J[s] @ P
            out[s, t] = torch.linalg.matrix_norm(P, ord=2)
    return out


def assert_spectral_right(N, exact, tol=SPECTRAL_TOL):
    lower = torch.tril(torch.ones_like(N, dtype=torch.bool))
    got, want = N[lower], exact[lower]
    zero = want == 0
    assert torch.equal(got[zero], want[zero])
    rel = ((got[~zero] - want[~zero]).abs() / want[~zero]).max()
    assert rel <= 2 * tol, float(rel)


def relu_issue_model():
    m = RNNModel(RNNConfig(30, 8, 16, nonlinearity="relu"), seed=4).double()
    with torch.no_grad():
        m.b_h.sub_(1)
        m.W_h.mul_(2)
        m.W_x.mul_(2)
    return m


# ---- 1. spectral norms: never a silent wrong value ------------------------------------------

def test_relu_dead_units_spectral_norm_is_right_for_every_pair():
    m = relu_issue_model()
    ids = np.random.default_rng(4).integers(0, 30, 30).tolist()
    tr = trace(m, ids)
    J = step_jacobians(m, tr)
    N = jacobian_norms(m, tr, 2)
    truth = torch.linalg.matrix_norm(J[28] @ J[27], 2)
    assert truth > 1
    assert abs(N[28, 26] - truth) <= 1e-6 * truth  # was 0.0
    assert_spectral_right(N, exact_products(J))


def test_a_dominant_direction_that_revives_later_is_found():
    """Unit 0 is dead for 10 steps, then revives with a huge gain: the warm-started vectors
    of the earlier steps hold nothing of it (the case that was reported as 1, truth 1e11)."""
    H, T = 4, 14
    J = torch.zeros(T, H, H, dtype=torch.float64)
    for s in range(T):
        J[s] = torch.diag(torch.tensor([0.0, 1.0, 0.5, 0.25], dtype=torch.float64))
        J[s, 0, 1] = 1e-3
    for s in range(11, T):
        J[s, 0, 0] = 1e4
    N = product_norms(J, 2)
    assert_spectral_right(N, exact_products(J))
    assert N[13, 0] > 1e9


def test_spectral_bracket_is_certified_even_with_useless_vectors():
    g = torch.Generator().manual_seed(0)
    Q = torch.randn(20, 6, 6, dtype=torch.float64, generator=g)
    Q[:, :, 0] *= 50  # a dominant direction the vectors below do not contain
    V = torch.zeros(20, 6, 2, dtype=torch.float64)
    V[:, 4, 0] = 1
    V[:, 5, 1] = 1
    lo, hi, _, _ = spectral_bracket(Q, V)
    exact = torch.linalg.matrix_norm(Q, ord=2)
    assert bool((lo <= exact * (1 + 1e-12)).all()) and bool((exact <= hi * (1 + 1e-12)).all())


def test_inf_and_nan_jacobians_give_inf_nan_like_frobenius():
    """A linear Jordan model with W_y, W_o x 1e20: eigh used to raise."""
    m = RNNModel(RNNConfig(10, 4, 6, cell="jordan", nonlinearity="linear"), seed=0)
    with torch.no_grad():
        m.W_y.mul_(1e20)
        m.W_o.mul_(1e20)
    tr = trace(m, [1, 2, 3, 4, 5, 6])
    assert not bool(torch.isfinite(step_jacobians(m, tr)).all())
    fro, spec = jacobian_norms(m, tr, "fro"), jacobian_norms(m, tr, 2)
    assert torch.equal(torch.isnan(fro), torch.isnan(spec))
    assert torch.equal(torch.isinf(fro), torch.isinf(spec))


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), 1e300])
def test_spectral_norms_of_non_finite_blocks_match_frobenius(bad):
    J = torch.stack([torch.eye(3, dtype=torch.float64) * 2] * 5)
    J[2, 0, 1] = bad
    fro, spec = product_norms(J, "fro"), product_norms(J, 2)
    assert torch.equal(torch.isnan(fro), torch.isnan(spec))
    assert torch.equal(torch.isinf(fro), torch.isinf(spec))
    assert spec[1, 0] == 2.0
    if bad == 1e300:  # huge but finite: the norms are finite too (they were inf)
        assert bool(torch.isfinite(fro[2:, :2]).all()) and bool(torch.isfinite(spec[2:, :2]).all())
        P = J[3] @ J[2]
        torch.testing.assert_close(fro[3, 1], torch.linalg.matrix_norm(P / 1e300) * 1e300, rtol=1e-12, atol=0)
        torch.testing.assert_close(spec[3, 1], torch.linalg.matrix_norm(P / 1e300, 2) * 1e300, rtol=1e-6, atol=0)


# ---- 2. float32 chain ------------------------------------------------------------------------

def float32_oracle(w, n):
    """Step-by-step float32 products with torch scalars (a different library from the code's)."""
    p, out = torch.tensor(1.0, dtype=torch.float32), [1.0]
    wt = torch.tensor(w, dtype=torch.float32)
    for _ in range(n):
        p = p * wt
        out.append(float(p))
    return np.array(out)


def test_precision_chain_float32_is_real_float32_arithmetic():
    r = precision_chain(0.9, 1000)
    assert r["zero"] is None  # cumprod in double said 0 at k = 987
    np.testing.assert_array_equal(r["float32"], float32_oracle(0.9, 1000))
    smallest = float(torch.finfo(torch.float32).tiny) * float(torch.finfo(torch.float32).eps)
    assert r["float32"][-1] > 0 and r["float32"][-1] == 4 * smallest  # 0.9 x 4 ulps rounds back to 4


@pytest.mark.parametrize("w", [0.6, 0.75, -0.95])
def test_float32_chain_never_reaches_zero_for_w_between_half_and_one(w):
    r = precision_chain(w, 2000)
    assert r["zero"] is None and r["subnormal"] is not None
    np.testing.assert_array_equal(r["float32"], float32_oracle(w, 2000))


def test_float32_chain_below_half_does_reach_zero_and_overflow_gives_inf():
    assert precision_chain(0.4, 200)["zero"] is not None
    r = precision_chain(3.0, 200)
    assert r["inf"] == int(np.argmax(np.isinf(float32_oracle(3.0, 200))))


# ---- 3. step_terms on float64 models at t = 0 ----------------------------------------------------

@pytest.mark.parametrize("cell", ["elman", "jordan"])
def test_step_terms_float64_first_step(cell):
    m = RNNModel(RNNConfig(8, 3, 4, cell=cell), seed=1).double()
    tr = trace(m, [1, 2, 3])
    st = step_terms(m, tr, 0)
    assert st["state"].dtype == torch.float64 and not bool(st["state"].any())
    torch.testing.assert_close(st["h_from_a"], tr.h[0], rtol=0, atol=1e-15)


# ---- 4. tokens are grapheme clusters -----------------------------------------------------------

def test_nfd_text_is_normalised():
    assert tokenize(unicodedata.normalize("NFD", "café")) == ["café"]
    assert tokenize(unicodedata.normalize("NFD", "café"), "char") == ["c", "a", "f", "é"]


def test_emoji_with_variation_selector_skin_tone_and_zwj_is_one_token():
    assert tokenize("I like cats ❤️") == ["I", "like", "cats", "❤️"]
    assert tokenize("👍🏽 👨\u200d👩\u200d👧 🇹🇼") == ["👍🏽", "👨\u200d👩\u200d👧", "🇹🇼"]
    assert tokenize("👨\u200d👩\u200d👧", "char") == ["👨\u200d👩\u200d👧"]


@pytest.mark.parametrize("word", ["नमस्ते", "สวัสดี", "مَرْحَبًا", "ภาษาไทย"])
def test_words_with_combining_marks_are_not_cut(word):
    assert tokenize(f"{word} ok") == [word, "ok"]
    assert "".join(tokenize(word, "char")) == word
    assert all(unicodedata.category(c[0])[0] != "M" for c in tokenize(word, "char"))


def test_cjk_extension_b_and_half_width_katakana_split_per_character():
    assert tokenize("𠀋𠀌𪜀") == ["𠀋", "𠀌", "𪜀"]
    assert tokenize("ｶﾀｶﾅ") == ["ｶ", "ﾀ", "ｶ", "ﾅ"]
    assert tokenize("ｶﾞｷ") == ["ｶﾞ", "ｷ"]  # the half-width voiced mark stays on its kana


def test_invisible_characters_still_dropped_but_not_inside_clusters():
    assert tokenize("ca\u200bts\u0000 like\u202e") == ["cats", "like"]
    assert tokenize("x\u200d y") == ["x", "y"]  # a dangling joiner is dropped
    assert tokenize("\ufeffhi\u00ad") == ["hi"]


# ---- 5. Jordan's grad_z is not p - y ---------------------------------------------------------

def test_grad_z_is_p_minus_y_for_elman_but_not_for_jordan():
    for cell, equal in (("elman", True), ("jordan", False)):
        m = RNNModel(RNNConfig(8, 3, 5, cell=cell), seed=2).double()
        with torch.no_grad():
            m.W_o.mul_(4)
        tr = trace(m, [1, 5, 2, 7, 3])
        diff = float((tr.grad_z - output_error(tr)).abs().max())
        assert (diff < 1e-12) == equal, diff
    # the feedback path's share is the gradient that reaches z_t through y_t -> a_{t+1}
    zs = tr.z.detach().clone().requires_grad_(True)
    p = torch.softmax(zs, -1)
    (g,) = torch.autograd.grad((tr.delta[1:] * (p[:-1] @ m.W_y.T)).sum(), zs)
    torch.testing.assert_close(tr.grad_z - output_error(tr), g, rtol=0, atol=1e-12)


# ---- 6. figures name the model's nonlinearity -------------------------------------------------

def test_jacobian_figure_titles_follow_the_nonlinearity():
    one = np.ones(2)
    texts = lambda f: " ".join(a.text for a in f.layout.annotations) + f.layout.title.text
    assert "1 - h_2^2" in texts(jacobian_parts(one, np.eye(2), np.eye(2), 1))  # default unchanged
    relu = texts(jacobian_parts(one, np.eye(2), np.eye(2), 1, "relu"))
    assert "tanh" not in relu and "1[a_2 > 0]" in relu and "ReLU" in relu
    lin = texts(jacobian_parts(one, np.eye(2), np.eye(2), 1, "linear"))
    assert "tanh" not in lin and "1 - h" not in lin and "identity slopes and W_h" in lin


def test_step_terms_legend_follows_the_activation():
    terms = {k: np.zeros(2) for k in ("Wx_x", "Wh_h", "b", "a", "h")}
    names = lambda f: [tr.name for tr in f.data]
    assert "h_t = tanh(a_t)" in names(step_terms_bar(terms))
    assert "h_t = ReLU(a_t)" in names(step_terms_bar(terms, activation="ReLU"))
    assert "h_t = a_t" in names(step_terms_bar(terms, activation="identity"))


# ---- 7. the backward direction of a bidirectional model ----------------------------------------

@pytest.mark.parametrize("nl", ["tanh", "relu"])
def test_backward_direction_norms_equal_autograd(nl):
    m = RNNModel(RNNConfig(7, 3, 4, nonlinearity=nl, bidirectional=True), seed=0).double()
    ids = [1, 2, 3, 4, 5, 6]
    tr = trace(m, ids)
    fro, spec = backward_jacobian_norms(m, tr, "fro"), backward_jacobian_norms(m, tr, 2)
    x, H = tr.x, 4

    def run_back(t, h, s):  # h<-_s from h<-_t, t >= s
        for k in range(t - 1, s - 1, -1):
            h = torch.relu(x[k] @ m.W_x_rev.T + h @ m.W_h_rev.T + m.b_h_rev) if nl == "relu" else \
                torch.tanh(x[k] @ m.W_x_rev.T + h @ m.W_h_rev.T + m.b_h_rev)
        return h
    for s in range(tr.T):
        for t in range(s + 1, tr.T):
            Jst = torch.autograd.functional.jacobian(lambda h, t=t, s=s: run_back(t, h, s), tr.h[t, H:])
            torch.testing.assert_close(fro[s, t], torch.linalg.matrix_norm(Jst), rtol=1e-12, atol=1e-300)
            torch.testing.assert_close(spec[s, t], torch.linalg.matrix_norm(Jst, 2), rtol=2e-6, atol=1e-300)
        assert bool(torch.isnan(fro[s, :s]).all())
