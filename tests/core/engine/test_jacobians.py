"""BPTT engine against oracles: autograd.functional.jacobian, matrix_norm(ord=2), autograd
gradients, the gradient-flow identity, and the notes' numbers."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnviz import InputError, RNNConfig, RNNModel, limits
from rnnviz.conventions import IGNORE
from rnnviz.engine import jacobians, jacwindow
from rnnviz.engine.jacobians import (
    SPECTRAL_TOL,
    backward_jacobian_norms,
    gradient_flow,
    hand_bptt,
    jacobian_factors,
    jacobian_norms,
    loss_to_state_grads,
    output_error,
    product_chain,
    product_norms,
    spectral_bracket,
    spectral_norms,
    step_jacobians,
)
from rnnviz.engine.model import activate
from rnnviz.engine.trace import trace
from rnnviz.explain import gates
from rnnviz.explain.notes import errata
from rnnviz.figures.bptt import jacobian_parts
from rnnviz.formatting import num


def small_model(H=6, seed=3, nonlinearity="tanh", scale=1.0):
    model = RNNModel(RNNConfig(10, 4, H, nonlinearity=nonlinearity), seed=seed).double()
    with torch.no_grad():
        model.W_h.mul_(scale)
    return model


def h_from(model, tr, t, h_t, s):
    """h_s as a function of h_t (0-based), re-running the recurrence with the same inputs."""
    h = h_t
    for k in range(t + 1, s + 1):
        h = activate(model.W_x @ tr.x[k] + model.W_h @ h + model.b_h, model.cfg.nonlinearity)
    return h


@pytest.mark.parametrize("scale", [0.5, 1.0, 3.0])
def test_all_pair_norms_equal_autograd_jacobians(scale):
    model = small_model(scale=scale)
    ids = torch.tensor([1, 4, 2, 9, 9, 0, 3])
    tr = trace(model, ids)
    fro, spec = jacobian_norms(model, tr, "fro"), jacobian_norms(model, tr, 2)
    T = tr.T
    for s in range(T):
        for t in range(s + 1):
            Jst = torch.autograd.functional.jacobian(lambda h: h_from(model, tr, t, h, s),  # noqa: B023
                                                     tr.h[t].detach())  # (H, H)
            torch.testing.assert_close(fro[s, t], torch.linalg.matrix_norm(Jst), rtol=1e-10, atol=0)
            torch.testing.assert_close(spec[s, t], torch.linalg.matrix_norm(Jst, ord=2),
                                       rtol=1e-6, atol=0)
        assert torch.isnan(fro[s, s + 1:]).all() and torch.isnan(spec[s, s + 1:]).all()


def test_step_jacobian_is_autograd_of_one_step():
    model = small_model()
    tr = trace(model, torch.tensor([1, 2, 3, 4]))
    J = step_jacobians(model, tr)
    for t in range(1, tr.T):
        ref = torch.autograd.functional.jacobian(lambda h: h_from(model, tr, t - 1, h, t),  # noqa: B023
                                                 tr.h[t - 1].detach())
        torch.testing.assert_close(J[t], ref, rtol=1e-12, atol=1e-14)
        torch.testing.assert_close(J[t], torch.diag(1 - tr.h[t] ** 2) @ model.W_h.detach())


@pytest.mark.parametrize("H", [5, 24])
def test_spectral_norms_of_long_products_match_matrix_norm(H):
    """Larger H than the Ritz block, long products, growth and decay: rtol 1e-6."""
    gen = torch.Generator().manual_seed(7)
    T = 30
    for scale in (0.6, 1.4):
        J = torch.randn(T, H, H, dtype=torch.float64, generator=gen) * scale / H ** 0.5
        got = product_norms(J, 2)
        P = [torch.eye(H, dtype=torch.float64)]
        for s in range(1, T):
            P = [J[s] @ p for p in P] + [torch.eye(H, dtype=torch.float64)]
            ref = torch.linalg.matrix_norm(torch.stack(P), ord=2)
            torch.testing.assert_close(got[s, : s + 1], ref, rtol=1e-6, atol=0)


def test_spectral_norms_batch_with_zero_and_equal_singular_values():
    Q = torch.stack([torch.zeros(6, 6), torch.eye(6) * 2.5, torch.diag(torch.tensor([3., 3, 1, 1, 0, 0]))])
    V = torch.linalg.qr(torch.randn(3, 6, 4)).Q
    norms, _ = spectral_norms(Q.double(), V.double())
    torch.testing.assert_close(norms, torch.tensor([0.0, 2.5, 3.0], dtype=torch.float64), rtol=1e-6, atol=0)


def test_huge_and_tiny_products_keep_their_scale_and_overflow_to_inf_only_past_float64():
    H = 3
    J = torch.eye(H, dtype=torch.float64).repeat(400, 1, 1)
    for ord_ in ("fro", 2):
        big = product_norms(J * 10.0, ord_)   # ||P_{s,t}|| = 10^(s-t) (x sqrt(3) for fro)
        small = product_norms(J * 0.1, ord_)
        c = 3 ** 0.5 if ord_ == "fro" else 1.0
        torch.testing.assert_close(big[250, 0], torch.tensor(1e250 * c, dtype=torch.float64), rtol=1e-9, atol=0)
        torch.testing.assert_close(small[250, 0], torch.tensor(1e-250 * c, dtype=torch.float64), rtol=1e-9, atol=0)
        assert torch.isinf(big[399, 0]) and small[399, 0] == 0  # 1e399, 1e-399: beyond float64


def test_zero_jacobians_give_zero_norms_and_progress_reaches_the_end():
    J = torch.zeros(5, 4, 4, dtype=torch.float64)
    seen = []
    N = product_norms(J, 2, progress=lambda d, n: seen.append((d, n)))
    assert seen[0] == (1, 5) and seen[-1] == (5, 5)
    assert (N.tril(-1) == 0).all() and (N.diagonal() == 1).all()


def test_too_long_sentence_is_an_input_error():
    model = small_model(H=2)
    tr = trace(model, torch.zeros(limits.MAX_JACOBIAN_T + 1, dtype=torch.long))
    with pytest.raises(InputError):
        jacobian_norms(model, tr)


def test_gradient_flow_identity_and_sum_equals_total_grad_h():
    model = small_model()
    tr = trace(model, torch.tensor([3, 1, 4, 1, 5, 9]))
    G = loss_to_state_grads(model, tr)  # (T, T, H)
    torch.testing.assert_close(G.sum(0), tr.grad_h, rtol=1e-10, atol=1e-12)
    J = step_jacobians(model, tr)
    direct = output_error(tr) @ model.W_o.detach()  # (T, H)
    T = tr.T
    for t in range(T - 1):  # dL/dh_t = J_{t+1}^T dL/dh_{t+1} + W_o^T dL_t/dz_t
        torch.testing.assert_close(tr.grad_h[t], J[t + 1].T @ tr.grad_h[t + 1] + direct[t])
    F = gradient_flow(model, tr)
    assert torch.isnan(F[0, 1:]).all()  # h_2 gets nothing from L_1
    for s in range(T - 1):  # each dL_s/dh_t against autograd of the single loss L_s
        torch.testing.assert_close(G[s], _autograd_grad_h(model, tr, s), rtol=1e-10, atol=1e-12)


def _autograd_grad_h(model, tr, s):
    """dL_s/dh_t for all t by autograd, L_s the loss at step s alone."""
    h = torch.zeros(model.cfg.hidden_size, dtype=torch.float64)
    hs = []
    for t in range(tr.T):
        h = torch.tanh(model.W_x @ tr.x[t] + model.W_h @ h + model.b_h)
        hs.append(h)
    z = model.W_o @ hs[s] + model.b_o
    loss = torch.nn.functional.cross_entropy(z[None], tr.targets[s:s + 1])
    return torch.stack(torch.autograd.grad(loss, hs, allow_unused=True, materialize_grads=True))


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_hand_bptt_equals_autograd(reduction):
    model = small_model()
    tr = trace(model, torch.tensor([2, 2, 7, 1, 0]), reduction=reduction)
    hand = hand_bptt(model, tr)
    for name in ("E", "W_x", "W_h", "b_h", "W_o", "b_o"):
        torch.testing.assert_close(hand[name], tr.grads[name], rtol=1e-10, atol=1e-12, msg=name)
    torch.testing.assert_close(hand["delta"], tr.delta, rtol=1e-10, atol=1e-12)


def test_product_chain_matches_direct_product():
    model = small_model()
    tr = trace(model, torch.tensor([1, 2, 3, 4, 5]))
    J = step_jacobians(model, tr)
    chain = product_chain(J, 4, 1)
    torch.testing.assert_close(chain["product"], J[4] @ J[3] @ J[2])
    assert [r["k"] for r in chain["rows"]] == [2, 3, 4]
    N = jacobian_norms(model, tr, 2)
    assert chain["rows"][-1]["product_norm_2"] == pytest.approx(float(N[4, 1]), rel=1e-6)


# ---- chains: the notes' numbers, the bound, precision, the exercise -------------------

from rnnviz.explain import bptt as chains  # noqa: E402


@pytest.mark.parametrize("key,value", [("w = 0.5, 3 steps", 0.125), ("w = 0.5, 10 steps", 0.0009765625),
                                       ("w = 2, 10 steps", 1024.0), ("w = 0.2, 5 steps", 0.00032)])
def test_scalar_chains_of_the_notes(key, value):
    w, n = chains.SCALAR_PRESETS[key]
    assert chains.scalar_chain(w, n)[-1] == pytest.approx(value, rel=1e-12)


def test_long_range_example_of_the_notes():
    small, big = chains.long_range(0.9), chains.long_range(1.1)
    assert small["n"] == 195 and 1e-9 <= small["factor"] < 2e-9   # "about 1e-9"
    assert 1e8 <= big["factor"] < 2e8                              # "about 1e8"


def test_norm_vs_distance_respects_the_bound():
    model = small_model(H=6, scale=2.5)
    tr = trace(model, torch.tensor([1, 5, 2, 7, 3, 3, 8, 0, 4]))
    N = jacobian_norms(model, tr, 2)
    J = step_jacobians(model, tr)
    out = chains.norm_vs_distance(N, J, model.W_h)
    assert out["max_J"] == pytest.approx(float(torch.linalg.matrix_norm(J[1:], ord=2).max()))
    assert (out["max"] <= out["bound"] * (1 + 1e-9)).all()
    assert out["rho"] == pytest.approx(float(torch.linalg.eigvals(model.W_h.detach()).abs().max()))
    assert out["max"][2] == pytest.approx(float(torch.diagonal(N, -2).max()))


def test_precision_chain_underflow_overflow_and_nan():
    down = chains.precision_chain(0.5, 200)
    assert 2.0 ** -down["subnormal"] < chains.FLOAT32_SMALLEST_NORMAL <= 2.0 ** -(down["subnormal"] - 1)
    assert down["subnormal"] == 127 and down["zero"] == 150 and down["inf"] is None
    assert down["float64"][200] == 2.0 ** -200 and down["floor"] == 24  # 2^-24 < 1e-7 < 2^-23
    up = chains.precision_chain(2.0, 200)
    assert up["inf"] == 128 and math.isinf(up["float32"][128]) and up["float64"][128] == 2.0 ** 128
    f32, f64 = chains.nan_examples(2.0, 200)
    assert math.isnan(f32["w^n - w^n"]) and math.isnan(f32["(1/w)^n x w^n"])
    assert f64["w^n - w^n"] == 0 and f64["(1/w)^n x w^n"] == 1.0
    assert chains.FLOAT32_MAX == pytest.approx(3.4028e38, rel=1e-4)


def test_scaled_model_is_a_copy():
    model = small_model()
    before = model.W_h.detach().clone()
    big = chains.scaled_model(model, 2.0)
    torch.testing.assert_close(big.W_h.detach(), 2 * before)
    torch.testing.assert_close(model.W_h.detach(), before)
    with pytest.raises(InputError):
        chains.scaled_model(model, float("nan"))


def test_chain_exercise_checker_names_the_slip():
    for seed in range(20):
        ex = chains.chain_exercise(seed)
        w, n, sl = ex["w"], ex["n"], ex["slopes"]
        right = w ** n * math.prod(sl)
        assert ex["answer"] == pytest.approx(right)
        assert chains.check_chain(ex, right)[0]
    ex = {"w": 0.5, "n": 3, "slopes": [0.9, 0.8, 0.5], "answer": 0.045}
    assert "w^n alone" in chains.check_chain(ex, 0.125)[1]
    assert "added" in chains.check_chain(ex, 0.5 * 2.2)[1]
    assert "sign" in chains.check_chain(ex, -0.045)[1]
    assert "missing" in chains.check_chain(ex, 0.045 / (0.5 * 0.5))[1]
    assert not chains.check_chain(ex, float("nan"))[0]


def test_log_heatmap_shows_zero_and_inf_as_such():
    from rnnviz.figures.bptt import log_norm_heatmap, precision_plot

    N = np.array([[1.0, np.nan, np.nan], [0.0, 1.0, np.nan], [np.inf, 1e-300, 1.0]])
    fig = log_norm_heatmap(N, ["a", "b", "b"], "t", "log10", "norm")
    z, text = np.asarray(fig.data[0].z, dtype=float), np.asarray(fig.data[0].customdata)
    assert np.isnan(z[1, 0]) and np.isnan(z[2, 0]) and z[2, 1] == pytest.approx(-300)
    assert text[1, 0] == "0" and text[2, 0] == "inf" and text[0, 1] == "no path (t > s)"
    assert len(set(fig.data[0].y)) == 3  # repeated tokens keep unique labels
    pc = chains.precision_chain(2.0, 200)
    fig = precision_plot(pc, 2.0, chains.FLOAT32_SMALLEST_NORMAL, chains.FLOAT32_MAX, chains.PRACTICAL_FLOOR)
    f32 = [tr for tr in fig.data if tr.name == "float32"][0]
    assert np.isnan(np.asarray(f32.y, dtype=float)[128:]).all()  # inf is a gap, not a crash


def test_jacobian_factors_and_delta_steps():
    from rnnviz.engine.jacobians import delta_steps, jacobian_factors, shared_weight_terms

    model = small_model()
    tr = trace(model, torch.tensor([1, 2, 3, 4]))
    jf = jacobian_factors(model, tr, 2)
    torch.testing.assert_close(jf["J"], torch.diag(1 - tr.h[2] ** 2) @ model.W_h.detach())
    assert jf["norm_J"] <= float(jf["slope"].max()) * jf["norm_W"] + 1e-12
    assert jf["norm_W"] == pytest.approx(float(torch.linalg.svdvals(model.W_h.detach())[0]))
    ds = delta_steps(model, tr)
    torch.testing.assert_close(ds["delta"], tr.delta, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(ds["slope"] * (ds["from_output"] + ds["from_later"]), tr.delta)
    terms = shared_weight_terms(model, tr)
    for name, v in terms.items():
        assert v["terms"].shape[0] == tr.T
        assert v["max_diff"] < 1e-12, name


def test_state_grad_sources_count_only_losses_that_exist():
    from rnnviz.engine.jacobians import state_grad_sources
    from rnnviz.figures.bptt import paths_bar

    model = small_model()
    ids = torch.tensor([1, 2, 3, 4])
    targets = torch.tensor([2, 3, 4, IGNORE])  # the notes' shift: the last step has no loss
    tr = trace(model, ids, targets)
    G = loss_to_state_grads(model, tr)
    src = state_grad_sources(G, tr, 2)  # step 3 of 4: its own loss, and step 4 has none
    assert src["steps"] == [2] and src["later_steps"] == [] and src["has_direct"]
    assert src["later_norm"] == 0.0
    torch.testing.assert_close(src["parts"].sum(0), tr.grad_h[2])  # nothing else reaches h_3
    src = state_grad_sources(G, tr, 3)  # the last step: no loss at all
    assert src["steps"] == [] and not src["has_direct"] and src["parts"].shape == (0, 6)
    src = state_grad_sources(G, tr, 0)
    assert src["later_steps"] == [1, 2]
    torch.testing.assert_close(src["parts"].sum(0), tr.grad_h[0])
    assert src["later_norm"] == pytest.approx(float((tr.grad_h[0] - G[0, 0]).norm()))
    names = [d.name for d in paths_bar(src["parts"].numpy(), src["steps"], 0, ["a", "b", "c", "d"]).data]
    assert names == ["from L₁ (direct)", "from L₂ via J₂..J₂", "from L₃ via J₂..J₃", "total ∂L/∂hₜ"]
    empty = paths_bar(np.zeros((0, 6)), [], 3, ["a", "b", "c", "d"], 6)
    assert [d.name for d in empty.data] == ["total ∂L/∂hₜ"] and len(empty.data[0].x) == 6


def test_clip_line_spans_the_bars_without_extra_categories():
    from rnnviz.figures.bptt import clip_bar

    fig = clip_bar(40.0, 1.0, 1.0)
    cats = {x for d in fig.data for x in (d.x if d.x is not None else ())}
    assert cats == {"before", "after"}
    [line] = fig.layout.shapes
    assert (line.xref, line.x0, line.x1, line.y0, line.y1) == ("paper", 0, 1, 1.0, 1.0)


def test_log_axes_use_exponents_and_steps_are_whole_numbers():
    from rnnviz.figures import bptt as figs

    rows = product_chain(step_jacobians(small_model(), trace(small_model(), torch.tensor([1, 2, 3, 4]))), 3, 0)
    dist = chains.norm_vs_distance(torch.tensor([[1.0, np.nan], [0.5, 1.0]], dtype=torch.float64),
                                   torch.eye(2, dtype=torch.float64)[None].repeat(2, 1, 1), None)
    pc = chains.precision_chain(0.5, 10)
    built = [figs.chain_plot(rows["rows"], 3, 0), figs.distance_plot(dist, chains.PRACTICAL_FLOOR),
             figs.precision_plot(pc, 0.5, chains.FLOAT32_SMALLEST_NORMAL, chains.FLOAT32_MAX, 1e-7),
             figs.t_sweep_plot([{"T": 4, "a": 1e-3}, {"T": 8, "a": 1e-4}]), figs.clip_bar(40.0, 1.0, 1.0)]
    for fig in built:
        assert fig.layout.yaxis.type == "log" and fig.layout.yaxis.exponentformat == "power", fig.layout.title
    for fig in built[1:3]:  # step-count axes: no 0.5 steps
        assert fig.layout.xaxis.dtick == 1
    prods = chains.scalar_chain(0.5, 3)
    fig = figs.scalar_chain_plot(prods, 0.5)
    assert fig.layout.xaxis.dtick == 1
    assert list(fig.layout.yaxis.ticktext) == ["1", "0.5", "0.25", "0.125"]  # not the digits 5 4 3 2
    np.testing.assert_allclose(fig.layout.yaxis.tickvals, [1, 0.5, 0.25, 0.125])
    fig = figs.scalar_chain_plot(chains.scalar_chain(2.0, 40), 2.0)
    assert len(fig.layout.yaxis.ticktext) <= 8 and fig.layout.yaxis.ticktext[-1] == num(2.0 ** 40)


def test_jacobian_heatmap_has_its_own_colour_scale():
    from rnnviz.engine.jacobians import jacobian_factors

    model = small_model()
    tr = trace(model, torch.tensor([1, 2, 3, 4]))
    jf = jacobian_factors(model, tr, 2)
    assert jf["max_W"] == float(model.W_h.detach().abs().max()) and jf["max_J"] == float(jf["J"].abs().max())
    fig = jacobian_parts(jf["slope"].numpy() * 0.1, jf["W_h"].numpy(), jf["J"].numpy() * 0.1, 2)
    W, J = [d for d in fig.data if d.type == "heatmap"]
    assert W.zmax == pytest.approx(jf["max_W"]) and J.zmax == pytest.approx(0.1 * jf["max_J"])
    assert J.zmin == -J.zmax and J.zmid == 0 and W.showscale and J.showscale


def test_log_ticks_are_decades_or_one_two_five():
    from rnnviz.figures.bptt import clip_bar, t_sweep_plot

    assert clip_bar(40.0, 1.0, 1.0).layout.yaxis.dtick == 1  # more than a decade: 10^0, 10^1
    y = t_sweep_plot([{"T": 4, "a": 0.4032}, {"T": 32, "a": 0.0803}]).layout.yaxis  # under a decade
    assert list(y.ticktext) == ["0.08", "0.1", "0.15", "0.2", "0.3", "0.4"]  # not the lone digits 2 3 4
    np.testing.assert_allclose(y.tickvals, [0.08, 0.1, 0.15, 0.2, 0.3, 0.4])


# ---- issue 17: the all-pairs views on a window of the last steps (rnnviz/engine/jacwindow.py) ----------




def _cell_model(cell, bidirectional=False, H=5, seed=1):
    return RNNModel(RNNConfig(12, 3, H, cell=cell, bidirectional=bidirectional), seed=seed).double()


@pytest.mark.parametrize("cell", ["elman", "jordan", "lstm", "gru"])
def test_windowed_norms_are_the_block_of_the_full_computation(cell):
    model = _cell_model(cell)
    ids = torch.tensor([1, 4, 2, 9, 9, 0, 3, 7, 11, 5, 6])
    tr = trace(model, ids)
    S = step_jacobians(model, tr).shape[1]
    budget = jacwindow.work(4, S)  # a tiny budget: 4 of the 11 steps
    win = jacwindow.jacobian_window(tr.T, S, budget=budget)
    assert (win.start, win.stop, win.size, win.first, win.last) == (7, 11, 4, 8, 11) and not win.full
    for ord_ in ("fro", 2):
        full = jacobian_norms(model, tr, ord_)
        part = jacobian_norms(model, tr, ord_, start=win.start)  # (4, 4)
        assert part.shape == (4, 4)
        torch.testing.assert_close(part, full[win.start:, win.start:], rtol=1e-12 if ord_ == "fro" else 3e-6,
                                   atol=0, equal_nan=True)
    # the oracle: explicit products of the window's own step Jacobians, with SVD
    J = step_jacobians(model, tr).double()
    spec = jacobian_norms(model, tr, 2, start=win.start)
    for i in range(win.size):
        P = torch.eye(S, dtype=torch.float64)
        for j in range(i, -1, -1):
            t = win.start + j
            torch.testing.assert_close(spec[i, j], torch.linalg.matrix_norm(P, ord=2), rtol=1e-6, atol=1e-300)
            P = P @ J[t]


def test_windowed_backward_norms_and_input_norms_are_blocks():
    model = _cell_model("elman", bidirectional=True)
    tr = trace(model, torch.tensor([3, 1, 4, 1, 5, 9, 2, 6]))
    for ord_ in ("fro", 2):
        full = backward_jacobian_norms(model, tr, ord_)
        torch.testing.assert_close(backward_jacobian_norms(model, tr, ord_, start=5), full[5:, 5:],
                                   rtol=1e-12 if ord_ == "fro" else 3e-6, atol=0, equal_nan=True)
    for cell in ("elman", "lstm", "gru"):
        m = _cell_model(cell)
        tr = trace(m, torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5]))
        full = jacobians.input_jacobian_norms(m, tr)  # (T, T)
        torch.testing.assert_close(jacobians.input_jacobian_norms(m, tr, start=6), full[6:, 6:], rtol=1e-12,
                                   atol=0, equal_nan=True)
        row = jacobians.last_state_input_norms(m, tr)  # (T,) exact at any length
        torch.testing.assert_close(row, full[-1], rtol=1e-10, atol=1e-300)
        assert gates.first_word_reach_row(row, 1) == pytest.approx(gates.first_word_reach(full, 1), rel=1e-10)


def test_notes_eigen_claim_on_a_window_is_the_windows():
    model = small_model(scale=1.5)
    tr = trace(model, torch.tensor([1, 4, 2, 9, 9, 0, 3, 8]))
    part = errata.note002_eigen_claim(model, tr, start=5)
    N = jacobian_norms(model, tr, 2)[5:, 5:]
    assert part["n"] == 2 and part["by_distance"] == pytest.approx(
        [float(torch.diagonal(N, -d).max()) for d in (1, 2)], rel=3e-6)
    assert part["rho_power"] == pytest.approx(part["rho_w"] ** 2)


def test_notes_eigen_claim_reuses_the_callers_step_jacobians(monkeypatch):
    """Given the page's J and N, the claim computes no step Jacobian of its own, and its numbers
    are those it computes alone."""
    model = small_model(scale=1.5)
    tr = trace(model, torch.tensor([1, 4, 2, 9, 9, 0, 3, 8]))
    alone = errata.note002_eigen_claim(model, tr, start=2)
    J, N = step_jacobians(model, tr), jacobian_norms(model, tr, 2, start=2)
    calls = []
    real = errata.step_jacobians
    monkeypatch.setattr(errata, "step_jacobians", lambda *a, **k: calls.append(1) or real(*a, **k))
    given = errata.note002_eigen_claim(model, tr, start=2, N=N, J=J)
    assert calls == [] and given == alone
    errata.note002_eigen_claim(model, tr, start=2, N=N)
    assert calls == [1]  # without J it computes them: the counter counts


@settings(max_examples=300, deadline=None)
@given(T=st.integers(0, 600), S=st.integers(1, 300), budget=st.integers(0, 10**11), k=st.none() | st.integers(1, 300))
def test_window_respects_the_budget_and_is_monotone(T, S, budget, k):
    w = jacwindow.jacobian_window(T, S, k=k, budget=budget)
    assert w.stop == T and 0 <= w.start <= T and w.size == T - w.start and w.size >= min(T, 2)
    per = S * S * (S if k is None else k)
    assert jacwindow.work(w.size, S, k) == per * w.size * (w.size - 1)
    # within budget, or the two-step minimum; and the largest such window
    assert jacwindow.work(w.size, S, k) <= budget or w.size == min(T, 2)
    if w.size < T:
        assert jacwindow.work(w.size + 1, S, k) > budget
    if jacwindow.work(T, S, k) <= budget:
        assert w.full and w.size == T
    # monotone: a longer sentence never shows fewer steps, a larger state never more
    assert jacwindow.jacobian_window(T + 1, S, k=k, budget=budget).size >= w.size
    assert jacwindow.jacobian_window(T, S + 1, k=k, budget=budget).size <= w.size
    assert jacwindow.jacobian_window(T, S, k=k, budget=budget + per * 7).size >= w.size


def test_window_default_budget_is_the_limit(monkeypatch):
    assert jacwindow.jacobian_window(200, 16).full  # the small built-in models: everything shown
    assert jacwindow.jacobian_window(200, 256).size < 200  # H = 128 LSTM: a window
    monkeypatch.setattr(limits, "MAX_JACOBIAN_WORK", jacwindow.work(10, 8))
    assert jacwindow.jacobian_window(60, 8).size == 10


@pytest.mark.parametrize("cell", ["elman", "jordan", "lstm", "gru"])
def test_state_size_is_the_step_jacobians(cell):
    model = _cell_model(cell, H=4)
    J = step_jacobians(model, trace(model, torch.tensor([1, 2, 3])))
    assert J.shape[1] == J.shape[2] == jacwindow.state_size(model.cfg)


def test_exact_norm2_is_the_svd_norm_at_any_scale():
    from rnnviz.engine.jacobians import exact_norm2
    g = torch.Generator().manual_seed(0)
    M = torch.randn(6, 9, 9, dtype=torch.float64, generator=g)
    M[1] *= 1e160  # Gram would overflow without the rescaling
    M[2] *= 1e-170  # ... or underflow
    M[3] = 0
    M[4, 0, 0] = float("inf")
    M[5] = torch.outer(torch.arange(9.0, dtype=torch.float64), torch.ones(9, dtype=torch.float64))  # rank 1
    got = exact_norm2(M)
    for i in (0, 1, 2, 5):
        want = torch.linalg.svdvals(M[i] / M[i].abs().max())[0] * M[i].abs().max()
        torch.testing.assert_close(got[i], want, rtol=1e-12, atol=0)
    assert got[3] == 0 and torch.isnan(got[4])


def test_product_chain_rows_are_svd_norms_of_the_products():
    model = _cell_model("lstm", H=4)
    tr = trace(model, torch.tensor([1, 2, 3, 4, 5, 6, 7]))
    J = step_jacobians(model, tr).double()
    rows = product_chain(J, 6, 1)["rows"]
    P = torch.eye(J.shape[1], dtype=torch.float64)
    for r, k in zip(rows, range(2, 7)):
        P = J[k] @ P
        assert r["factor_norm_2"] == pytest.approx(float(torch.linalg.matrix_norm(J[k], ord=2)), rel=1e-12)
        assert r["product_norm_2"] == pytest.approx(float(torch.linalg.matrix_norm(P, ord=2)), rel=1e-12)
        assert r["product_norm_fro"] == pytest.approx(float(torch.linalg.matrix_norm(P)), rel=1e-14)


def test_shared_weight_summary_is_shared_weight_terms_without_the_stack():
    from rnnviz.engine.jacobians import shared_weight_summary, shared_weight_terms
    model = small_model()
    tr = trace(model, torch.tensor([1, 4, 2, 9, 0]), torch.tensor([4, 2, 9, 0, 3]))
    terms, summ = shared_weight_terms(model, tr), shared_weight_summary(model, tr)
    wh = terms["W_h"]["terms"]
    assert summ["W_h_term"].tolist() == pytest.approx([float(wh[k].norm()) for k in range(tr.T)], rel=1e-12)
    want = [float(wh[: k + 1].sum(0).norm()) for k in range(tr.T)]
    assert summ["W_h_running"].tolist() == pytest.approx(want, rel=1e-12)
    for name, v in terms.items():
        torch.testing.assert_close(summ["params"][name]["sum"], v["sum"], rtol=1e-12, atol=1e-14)
        assert summ["params"][name]["max_diff"] < 1e-12


def test_budget_boundary_on_both_sides(monkeypatch):
    S, T = 32, 120
    monkeypatch.setattr(limits, "MAX_JACOBIAN_WORK", jacwindow.work(T, S))
    assert jacwindow.jacobian_window(T, S).full  # exactly the budget: everything
    monkeypatch.setattr(limits, "MAX_JACOBIAN_WORK", jacwindow.work(T, S) - 1)
    win = jacwindow.jacobian_window(T, S)  # one unit less: the last T - 1 steps
    assert (win.start, win.size, win.first, win.last) == (1, T - 1, 2, T)


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


def test_bptt_functions_reuse_a_given_J():
    model = RNNModel(RNNConfig(7, 3, 4), seed=3)
    tr = trace(model, [1, 2, 3, 4])
    J = step_jacobians(model, tr)
    torch.testing.assert_close(loss_to_state_grads(model, tr, J), loss_to_state_grads(model, tr))
    torch.testing.assert_close(gradient_flow(model, tr, J), gradient_flow(model, tr), equal_nan=True)
    a, b = jacobian_factors(model, tr, 2, J), jacobian_factors(model, tr, 2)
    torch.testing.assert_close(a["J"], b["J"])
    # the given J is what is used (not recomputed): a zero J leaves only the direct terms
    G0 = loss_to_state_grads(model, tr, torch.zeros_like(J))
    assert torch.count_nonzero(G0[1:, 0]) == 0
