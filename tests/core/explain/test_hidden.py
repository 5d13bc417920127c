"""rnnviz.hidden against oracles: torch.nn.RNN (Elman uni / bi), a hand loop (Jordan),
the notes' numbers, the linear expansion equal to a linear model's output, numpy PCA."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine.trace import trace
from rnnviz.errors import InputError
from rnnviz.explain import hidden as hd
from rnnviz.explain.hidden import step_terms
from rnnviz.figures import hidden as fh
from rnnviz.store.catalog import NOTES_VOCAB, notes_model
from rnnviz.text.tokenize import Vocab
from tests.oracles import NUM_IDS, NUM_TARGETS, num_model, torch_rnn_like

IDS = [0, 1, 2]  # "I like cats"


@pytest.fixture
def notes():
    model, vocab = notes_model()
    return model, vocab, trace(model, IDS)


# ---- step terms -----------------------------------------------------------------------

def test_step_terms_add_up_to_the_models_a_and_h(notes):
    model, _, tr = notes
    for t in range(tr.T):
        s = hd.step_terms(model, tr, t)
        h_prev = tr.h[t - 1] if t else torch.zeros(4)
        # oracle: the equation written out directly from the weights
        a = model.W_x.detach() @ model.E.detach()[IDS[t]] + model.W_h.detach() @ h_prev + model.b_h.detach()
        torch.testing.assert_close(s["a_sum"], a)
        torch.testing.assert_close(s["a"], a)
        torch.testing.assert_close(s["h"], torch.tanh(a))
        torch.testing.assert_close(s["h_from_a"], s["h"])
    assert float(hd.step_terms(model, tr, 0)["Wh_h"].abs().max()) == 0.0  # h_0 = 0


def test_step_terms_jordan_feed_back_the_previous_output():
    model = RNNModel(RNNConfig(5, 3, 4, cell="jordan"), seed=1)
    tr = trace(model, IDS)
    s = hd.step_terms(model, tr, 2)
    torch.testing.assert_close(s["Wh_h"], model.W_y.detach() @ torch.softmax(tr.z[1], -1))
    torch.testing.assert_close(s["a_sum"], tr.a[2])


def test_step_terms_reject_a_step_outside_the_sentence(notes):
    model, _, tr = notes
    with pytest.raises(InputError):
        hd.step_terms(model, tr, 3)


def test_shape_table_is_the_notes_table_for_d3_H4_V5(notes):
    rows = {r["symbol"]: r["shape"] for r in hd.shape_table(notes[0].cfg)}
    assert rows == {"x_t": "3 x 1", "h_{t-1}, h_t": "4 x 1", "W_x": "4 x 3", "W_h": "4 x 4",
                    "b_h": "4 x 1", "W_o": "5 x 4"}
    # and the shapes are the parameters' own
    m = notes[0]
    assert tuple(m.W_x.shape) == (4, 3) and tuple(m.W_h.shape) == (4, 4) and tuple(m.W_o.shape) == (5, 4)


# ---- the notes' scalar examples ---------------------------------------------------------

def test_scalar_rnn_reproduces_the_notes():
    assert hd.scalar_rnn([1, 3], 2, 0.5) == [2.0, 7.0]
    assert hd.scalar_rnn([3, 1], 2, 0.5) == [6.0, 5.0]
    assert hd.scalar_steps([1, 3], 2, 0.5) == ["h_1 = 2(1) + 0.5(0) = 2", "h_2 = 2(3) + 0.5(2) = 7"]


def test_scalar_rnn_with_tanh_is_a_torch_rnn_of_size_one():
    rnn = torch.nn.RNN(1, 1, bias=False, dtype=torch.float64)
    with torch.no_grad():
        rnn.weight_ih_l0.fill_(0.7)
        rnn.weight_hh_l0.fill_(-1.3)
    out, _ = rnn(torch.tensor([[0.5], [2.0], [-1.0]], dtype=torch.float64))
    assert np.allclose(hd.scalar_rnn([0.5, 2.0, -1.0], 0.7, -1.3, nonlinearity="tanh"),
                       out[:, 0].detach().numpy())


def test_growth_linear_doubles_tanh_stays_bounded():
    g = hd.growth(2.0, 1.0, 10)
    assert g["linear"] == [2.0 ** k for k in range(1, 11)]
    assert all(-1 < v < 1 for v in g["tanh"])
    assert g["tanh"][0] == pytest.approx(np.tanh(2.0))
    with pytest.raises(InputError):
        hd.growth(2.0, 1.0, 0)


# ---- linear vs tanh ----------------------------------------------------------------------

@pytest.mark.parametrize("t", [0, 1, 2])
def test_linear_expansion_equals_the_linear_models_state(notes, t):
    model = notes[0]
    lin = hd.with_nonlinearity(model, "linear")
    tr = trace(lin, IDS)
    terms = hd.linear_expansion(lin, tr.x, t)
    torch.testing.assert_close(sum(v for _, v in terms).float(), tr.h[t], atol=1e-6, rtol=1e-5)
    assert model.cfg.nonlinearity == "tanh"  # the shared model is untouched


def test_linear_expansion_of_h2_has_the_notes_terms(notes):
    names = [n for n, _ in hd.linear_expansion(notes[0], notes[2].x, 1)]
    assert names[:2] == ["W_x x_2", "W_h W_x x_1"] and names[-1] == "W_h^2 h_0"
    assert set(names[2:4]) == {"b_h", "W_h b_h"}


def test_with_nonlinearity_keeps_the_weights(notes):
    model = notes[0]
    relu = hd.with_nonlinearity(model, "relu")
    assert relu.cfg.nonlinearity == "relu"
    for (n, p), (_, q) in zip(model.named_parameters(), relu.named_parameters()):
        assert torch.equal(p, q), n
    tr = trace(relu, IDS)
    a = relu.W_x.detach() @ relu.E.detach()[0] + relu.b_h.detach()
    torch.testing.assert_close(tr.h[0], torch.relu(a))


def test_saturation_counts_values_above_threshold():
    h = torch.tensor([[0.96, -0.99, 0.1], [0.5, -0.951, 0.95]])
    s = hd.saturation(h)
    assert (s["count"], s["total"]) == (3, 6)
    assert s["share"] == pytest.approx(0.5)
    assert s["per_step"] == pytest.approx([2 / 3, 1 / 3])


# ---- parameters ------------------------------------------------------------------------

@pytest.mark.parametrize("cfg", [RNNConfig(5, 3, 4), RNNConfig(79, 16, 32),
                                 RNNConfig(7, 3, 4, cell="jordan"),
                                 RNNConfig(7, 3, 4, bidirectional=True)])
def test_param_terms_match_the_model_and_do_not_depend_on_T(cfg):
    model = RNNModel(cfg)
    counts = model.param_counts()
    terms = {r["parameter"]: r["count"] for r in hd.param_terms(cfg)}
    assert terms == {k: v for k, v in counts.items() if k != "E"}
    tot3, tot30 = hd.param_totals(cfg, 3), hd.param_totals(cfg, 30)
    assert tot3["shared"] == tot30["shared"] == sum(counts.values()) - counts["E"]
    assert tot30["per_step"] == 30 * tot3["shared"]
    assert tot3["embedding"] == counts["E"]


def test_param_formula_for_the_notes_model():
    H, d, K = 4, 3, 5
    assert hd.param_totals(RNNConfig(5, 3, 4), 1)["shared"] == H * H + H * d + H + K * H + K == 57


# ---- PCA -------------------------------------------------------------------------------

def test_pca_matches_numpy_eigendecomposition():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 6)), rng.normal(size=(3, 6)) + 1
    (pa, pb), share = hd.pca_2d([a, b])
    X = np.concatenate([a, b])
    Xc = X - X.mean(0)
    vals, vecs = np.linalg.eigh(Xc.T @ Xc)  # oracle: covariance eigenvectors
    top = vecs[:, ::-1][:, :2]
    proj = Xc @ top
    got = np.concatenate([pa, pb])
    for i in range(2):  # equal up to the sign of each axis
        assert np.allclose(np.abs(got[:, i]), np.abs(proj[:, i]))
    assert np.allclose(share, vals[::-1][:2] / vals.sum())


def test_pca_of_too_few_points_and_nan():
    (p,), share = hd.pca_2d([np.array([[1.0, 2.0]])])
    assert p.shape == (1, 2) and np.allclose(p, 0) and np.allclose(share, 0)
    with pytest.raises(InputError):
        hd.pca_2d([np.array([[np.nan, 1.0], [0.0, 1.0]])])


# ---- order ---------------------------------------------------------------------------------

def test_reordered_sentence_same_bag_different_final_state(notes):
    model, _, tr = notes
    tr_b = trace(model, [2, 1, 0])  # "cats like I"
    c = hd.order_comparison(tr.x, tr_b.x, tr.h, tr_b.h)
    assert c["same_bag"] and c["sum_diff"] < 1e-6
    assert c["final_diff"] == pytest.approx(float((tr.h[-1] - tr_b.h[-1]).norm()))
    assert c["final_diff"] > 1e-3


def test_presets_and_reversal_follow_the_vocabulary():
    notes_vocab = Vocab(NOTES_VOCAB)
    assert hd.order_presets(notes_vocab) == [("I like cats", "cats like I"),
                                              ("I like dogs", "dogs like I")]
    assert hd.reversed_words(["<bos>", "dog", "bites", "man"]) == "man bites dog"
    ids, targets, prep = hd.sentence_pair("cats like I", notes_vocab)
    assert ids == [2, 1, 0] and targets == [1, 0, -100] and not prep.unknown
    with pytest.raises(InputError):
        hd.sentence_pair("   ", notes_vocab)


# ---- cell variants --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["elman", "bidirectional"])
def test_elman_variants_equal_torch_nn_rnn(notes, kind):
    model, _, _ = notes
    var, shared, fresh = hd.cell_variant(model, kind)
    tr = trace(var, IDS)
    out, _ = torch_rnn_like(var)(var.E.detach()[IDS])
    torch.testing.assert_close(tr.h, out.detach())
    for name in ("E", "W_x", "W_h", "b_h"):
        assert name in shared and torch.equal(getattr(var, name), getattr(model, name))
    if kind == "bidirectional":
        assert {"W_x_rev", "W_h_rev", "b_h_rev", "W_o"} <= set(fresh) and "b_o" in shared
        torch.testing.assert_close(tr.h[:, :4], trace(model, IDS).h)  # forward half = current model
    else:
        assert fresh == []


def test_variant_comparison(notes):
    model, _, tr = notes
    bi, _, _ = hd.cell_variant(model, "bidirectional")
    c = hd.variant_comparison("bidirectional", tr.h, trace(bi, IDS).h, 4)
    assert c["forward_max_diff"] < 1e-6
    jo, _, _ = hd.cell_variant(model, "jordan")
    h_j = trace(jo, IDS).h
    c = hd.variant_comparison("jordan", tr.h, h_j, 4)
    assert c["final_diff"] == pytest.approx(float(np.linalg.norm(h_j[-1].numpy() - tr.h[-1].numpy())),
                                            rel=1e-5)


def test_jordan_variant_equals_a_hand_loop(notes):
    model, _, _ = notes
    var, shared, fresh = hd.cell_variant(model, "jordan")
    assert fresh == ["W_y"] and {"E", "W_x", "b_h", "W_o", "b_o"} <= set(shared)
    tr = trace(var, IDS)
    W_x, W_y, b, W_o, b_o = (p.detach() for p in (var.W_x, var.W_y, var.b_h, var.W_o, var.b_o))
    y = torch.zeros(5)
    for t, i in enumerate(IDS):  # oracle: the notes' Jordan recurrence written out
        h = torch.tanh(W_x @ var.E.detach()[i] + W_y @ y + b)
        torch.testing.assert_close(tr.h[t], h)
        y = torch.softmax(W_o @ h + b_o, -1)


def test_variant_from_a_jordan_model_gets_a_fresh_W_h():
    jordan = RNNModel(RNNConfig(5, 3, 4, cell="jordan"), seed=2)
    var, shared, fresh = hd.cell_variant(jordan, "elman")
    assert "W_h" in fresh and "W_x" in shared
    with pytest.raises(InputError):
        hd.cell_variant(jordan, "gru")


def test_variant_equations_name_their_state():
    assert "W_y" in hd.variant_equations("jordan")[0]
    assert len(hd.variant_equations("bidirectional")) == 3
    assert "h_{t-1}" in hd.variant_equations("elman")[0]


# ---- try it by hand -----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_exercise_answers_match_torch_and_checker_names_each_mistake(seed):
    ex = hd.make_exercise(seed)
    rnn = torch.nn.RNN(2, 2, dtype=torch.float64)
    with torch.no_grad():
        rnn.weight_ih_l0.copy_(torch.tensor(ex.W_x))
        rnn.weight_hh_l0.copy_(torch.tensor(ex.W_h))
        rnn.bias_ih_l0.copy_(torch.tensor(ex.b))
        rnn.bias_hh_l0.zero_()
    out, _ = rnn(torch.tensor([ex.x1, ex.x2], dtype=torch.float64))
    h1, h2 = hd.exercise_answers(ex)
    assert np.allclose(h1, out[0].detach().numpy()) and np.allclose(h2, out[1].detach().numpy())
    ok = hd.check_exercise(ex, np.round(h1, 2), np.round(h2, 2))  # 2 decimals are accepted
    assert ok["h1_ok"] and ok["h2_ok"] and ok["mistake"] is None
    for m in hd.MISTAKES:
        got = hd.check_exercise(ex, *[np.round(v, 3) for v in hd.exercise_answers(ex, m)])
        assert got["mistake"] == m and not (got["h1_ok"] and got["h2_ok"])
    nonsense = hd.check_exercise(ex, [5.0, 5.0], [5.0, 5.0])
    assert nonsense["mistake"] is None and not nonsense["h1_ok"]


def test_exercise_mistakes_by_hand_formula():
    ex = hd.Exercise(((0.5, 0.0), (0.0, 0.5)), ((1.0, 0.0), (0.0, 1.0)), (0.1, -0.1),
                     (1.0, 1.0), (0.0, 0.0))
    _, h2 = hd.exercise_answers(ex, "forgot h_{t-1}")
    assert np.allclose(h2, np.tanh([0.1, -0.1]))  # x_2 = 0: only the bias is left
    h1, _ = hd.exercise_answers(ex, "forgot the bias")
    assert np.allclose(h1, np.tanh([0.5, 0.5]))
    h1, _ = hd.exercise_answers(ex, "applied tanh twice")
    assert np.allclose(h1, np.tanh(np.tanh([0.6, 0.4])))
    with pytest.raises(InputError):
        hd.check_exercise(ex, [np.nan, 0], [0, 0])


def test_exercises_differ_by_seed():
    assert hd.make_exercise(0) != hd.make_exercise(1)
    assert hd.make_exercise(4) == hd.make_exercise(4)


# ---- figures --------------------------------------------------------------------------------

def test_figures_carry_the_data(notes):
    model, vocab, tr = notes
    tokens = vocab.decode(IDS)
    fig = fh.time_heatmap(tr.h.numpy(), tokens, 1)
    assert np.allclose(np.asarray(fig.data[0].z), tr.h.numpy().T)
    assert fig.layout.shapes[0].x0 == 0.5 and fig.layout.xaxis.title.text
    bar = fh.step_terms_bar(hd.step_terms(model, tr, 1))
    assert np.allclose(bar.data[3].y, tr.a[1].numpy())
    coords, share = hd.pca_2d([tr.h.numpy()])
    pf = fh.pca_trajectory([("s", coords[0], tokens)], share)
    assert list(pf.data[0].text) == ["1 I", "2 like", "3 cats"]
    inf_fig = fh.norms_plot({"linear": [1.0, float("inf")]}, tokens[:2])
    assert list(inf_fig.data[0].text) == ["1", "inf"]
    assert len(fh.unrolled(["<bos>"] * 30).layout.annotations) == 5 * 10


# ---- reviewer fixes: default overlay, expansion caption, line colours, shapes table -----------

def test_default_overlay_reverses_or_falls_back_to_a_known_preset():
    from rnnviz.store.catalog import default_model
    _, vocab, _ = default_model()
    assert hd.default_overlay(["<bos>", "dog", "bites", "man"], vocab) == ("man bites dog", "")
    # every word unknown: the reversal is empty, so a preset the model knows, with a note
    text, note = hd.default_overlay(["<bos>", "<unk>", "<unk>"], vocab)
    assert (text, text) in [(b, b) for _, b in hd.order_presets(vocab)]
    ids, _, prep = hd.sentence_pair(text, vocab)  # usable: no InputError, no unknown word
    assert ids and not prep.unknown and "no word the model knows" in note and text in note
    # a vocabulary that knows no preset: no second sentence, still a note
    text, note = hd.default_overlay(["zz"], Vocab(["a", "b"]))
    assert text == "" and "no second sentence" in note


@pytest.mark.parametrize("t, T, k, says", [
    (0, 3, 1, "slider is at step 1"), (1, 3, 1, "Step 2, the step slider's step"),
    (2, 3, 2, "Step 3, the step slider's step"), (5, 9, 4, "slider is at step 6, but the "
                                                          "expansion stops at step 5"),
    (0, 1, 0, "only one step")])
def test_expansion_step_caption_says_which_step_and_why(t, T, k, says):
    got, note = hd.expansion_step(t, T)
    assert got == k and note.startswith(f"Step {k + 1}") and says in note


def test_unit_lines_have_distinct_colours(notes):
    _, _, tr = notes
    fig = fh.unit_lines(tr.h.numpy(), ["I", "like", "cats"], [0, 1, 2, 3])
    colors = [d.line.color for d in fig.data]
    assert len(set(colors)) == 4 and all(colors)
    assert len(set(fh.unit_colors(24))) == 24


def test_shape_table_cells_are_short():
    cfg = RNNConfig(vocab_size=79, embed_dim=16, hidden_size=32)
    assert all(len(r["meaning"]) <= 26 for r in hd.shape_table(cfg))


# ---- page 2 rework: Play clock, expansion captions, h_0, ReLU dead units --------------------

def test_play_tick_moves_one_step_per_tick_and_never_jumps():
    from rnnviz.explain.hidden import PLAY_PERIOD as P
    from rnnviz.explain.hidden import play_tick
    assert play_tick(2, None, 100.0, 4) == (2, 100.0)               # Play starts: no move yet
    assert play_tick(2, 100.0, 100.0 + P, 4) == (3, 100.0 + P)      # a tick: one step
    assert play_tick(4, 100.0, 100.0 + P, 4) == (1, 100.0 + P)      # loops after T
    assert play_tick(2, 100.0, 100.0 + 5 * P, 4) == (3, 100.0 + 5 * P)  # a late tick: still one step
    assert play_tick(2, 100.0, 100.0 + 0.3 * P, 4) == (2, 100.0)    # a redraw between ticks: none
    assert play_tick(1, 100.0, 200.0, 1) == (1, 200.0)


def test_expansion_case_names_the_same_step_as_expansion_step():
    for T in (1, 2, 3, 8):
        for t in range(T):
            k, case = hd.expansion_case(t, T)
            assert k == hd.expansion_step(t, T)[0]
            assert case == ("only" if T == 1 else "slider" if t == k else "below" if t < k else "above")


def test_first_step_check_h0_is_a_fixed_zero(notes):
    model, _, tr = notes
    assert hd.first_step_check(model, tr) < 1e-6
    own = torch.tanh(model.W_x.double() @ model.E[0].double() + model.b_h.double())  # (H,) no W_h h_0 term
    assert torch.allclose(own, tr.h[0].double(), atol=1e-6)
    names = [n for n, _ in model.named_parameters()]
    assert "h0" not in names and "h_0" not in names


def test_dead_units_per_step_and_state_norms():
    h = torch.tensor([[0.0, 1.0], [0.0, 0.0], [2.0, 3.0]])
    assert hd.dead_per_step(h).tolist() == [0.5, 1.0, 0.0]
    assert hd.state_norms(h) == pytest.approx([1.0, 0.0, 13 ** 0.5])


def test_param_terms_use_H_d_K():
    from rnnviz.engine.model import RNNConfig
    rows = hd.param_terms(RNNConfig(5, 3, 4))
    assert [r["formula"] for r in rows] == ["H²", "H · d", "H", "K · H", "K"]
    assert sum(r["count"] for r in rows) == 57










def test_term_norms_by_hand(num_mt):
    m, tr = num_mt
    with torch.no_grad():
        for t in (0, 3):
            n = hd.term_norms(hd.step_terms(m, tr, t))
            h_prev = tr.h[t - 1] if t else torch.zeros(5, dtype=torch.float64)
            assert n["Wx_x"] == pytest.approx(float(np.linalg.norm(m.W_x.numpy() @ tr.x[t].numpy())), rel=1e-12)
            assert n["Wh_h"] == pytest.approx(float(np.linalg.norm(m.W_h.numpy() @ h_prev.numpy())), rel=1e-12)
            assert n["b"] == pytest.approx(float(np.linalg.norm(m.b_h.numpy())), rel=1e-12)


def test_pca_numbers_against_numpy_svd(num_mt):
    m, tr = num_mt
    tr2 = trace(m, NUM_IDS[::-1], NUM_TARGETS)
    _, share = hd.pca_2d([tr.h.numpy(), tr2.h.numpy()])
    n = hd.pca_numbers(share, tr.h, tr2.h)
    X = np.concatenate([tr.h.numpy(), tr2.h.numpy()])
    s = np.linalg.svd(X - X.mean(0), compute_uv=False)
    assert n["share"] == pytest.approx(float((s[:2] ** 2).sum() / (s ** 2).sum()), rel=1e-9)
    assert n["dist"] == pytest.approx(float(np.linalg.norm(tr.h[-1].numpy() - tr2.h[-1].numpy())), rel=1e-12)
    assert hd.pca_numbers(share, tr.h, tr.h)["dist"] == 0.0


def test_expansion_check_rebuilds_the_linear_state():
    lin = num_model(nonlinearity="linear")
    tr = trace(lin, NUM_IDS, NUM_TARGETS)
    for k in (0, 2, 4):
        total, err = hd.expansion_check(hd.linear_expansion(lin, tr.x, k), tr.h[k])
        assert torch.allclose(total, tr.h[k].double(), atol=1e-12) and err < 1e-12
    total, err = hd.expansion_check([("a", torch.ones(3, dtype=torch.float64))], torch.zeros(3))
    assert err == 1.0


@pytest.mark.parametrize("cell", ["elman", "jordan"])
def test_step_terms_float64_first_step(cell):
    m = RNNModel(RNNConfig(8, 3, 4, cell=cell), seed=1).double()
    tr = trace(m, [1, 2, 3])
    st = step_terms(m, tr, 0)
    assert st["state"].dtype == torch.float64 and not bool(st["state"].any())
    torch.testing.assert_close(st["h_from_a"], tr.h[0], rtol=0, atol=1e-15)
