"""rnnviz.output against its oracles: F.cross_entropy, autograd's dL/dz, hand loops for masks and
reductions, torch.optim.SGD, seeded sampling, and the notes' numbers (note 000, section 10)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rnnviz.conventions import IGNORE, TAGS
from rnnviz.engine import generation
from rnnviz.engine.trace import trace
from rnnviz.errors import InputError
from rnnviz.explain import output as out
from rnnviz.explain import slots
from rnnviz.store.catalog import NOTES_VOCAB, load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import BOS, EOS, PAD, Vocab
from tests.oracles import NUM_TARGETS


@pytest.fixture(scope="module")
def default():
    return load_builtin("default")[:2]


@pytest.fixture(scope="module")
def notes():
    return load_builtin("notes")[:2]


def lm_trace(model, vocab, words, reduction="sum"):
    ids, _ = vocab.encode(words)
    inp, tgt = lm_pair(ids, vocab)
    return trace(model, inp, tgt, reduction)


# ---- labels ---------------------------------------------------------------------------------

def test_shift_pairs_reproduce_the_notes_tables():
    words = ["I", "like", "cats", "today"]
    assert out.shift_pairs(words, specials=False) == (["I", "like", "cats"], ["like", "cats", "today"])
    assert out.shift_pairs(words, specials=True) == ([BOS, "I", "like", "cats", "today"],
                                                     ["I", "like", "cats", "today", EOS])


def test_shift_pairs_agree_with_lm_pair(default, notes):
    model, vocab = default
    words = ["Arrive", "Taipei", "on", "November", "2nd"]
    ids, _ = vocab.encode(words)
    inp, tgt = lm_pair(ids, vocab)
    assert (vocab.decode(inp), vocab.decode(tgt)) == out.shift_pairs(words, specials=True)
    nv = notes[1]
    ids, _ = nv.encode(["I", "like", "cats"])
    inp, tgt = lm_pair(ids, nv)
    s_in, s_tg = out.shift_pairs(["I", "like", "cats"], specials=False)
    assert nv.decode(inp[:-1]) == s_in and nv.decode(tgt[:-1]) == s_tg and tgt[-1] == IGNORE


def test_context_rows_and_missing_targets(notes):
    _, vocab = notes
    targets = out.target_tokens(vocab, [1, 2, IGNORE])
    assert targets == ["like", "cats", None]
    rows = out.context_rows(["I", "like", "cats"], targets)
    assert [r["context seen so far"] for r in rows] == ["I", "I like", "I like cats"]
    assert rows[2]["target (next token)"].startswith("(none")
    long = out.context_rows([f"w{i}" for i in range(30)], [None] * 30)
    assert long[-1]["context seen so far"].startswith("… ") and long[-1]["context seen so far"].endswith("w29")


def test_vocab_size_counts_specials(default, notes):
    d = out.vocab_size_note(default[1])
    assert d["V"] == 79 and d["n_special"] == 4 and d["n_words"] == 75
    n = out.vocab_size_note(notes[1])
    assert n["V"] == 5 and n["n_special"] == 0 and n["specials"] == "none"


# ---- one step -----------------------------------------------------------------------------------

def test_notes_preset_gives_the_notes_numbers():
    v = out.notes_view(NOTES_VOCAB)
    assert v.labels[v.target] == "cats"
    assert round(v.loss, 3) == 0.916 and v.loss == pytest.approx(-math.log(0.4), abs=1e-12)
    assert np.allclose(v.p, [0.1, 0.1, 0.4, 0.3, 0.1], atol=1e-12)
    assert np.allclose(v.p_minus_y, [0.1, 0.1, -0.6, 0.3, 0.1], atol=1e-12)
    assert np.allclose(v.autograd, [0.1, 0.1, -0.6, 0.3, 0.1], atol=1e-12)
    assert v.normaliser == pytest.approx(1.0)  # exp(ln p) sums to 1


@pytest.mark.parametrize("which", ["default", "notes"])
def test_step_view_matches_cross_entropy_and_autograd(which, default, notes):
    model, vocab = default if which == "default" else notes
    words = ["Arrive", "Taipei", "on"] if which == "default" else ["I", "like", "cats"]
    tr = lm_trace(model, vocab, words)
    for t in range(tr.T):
        v = out.step_view(tr, t, vocab.itos)
        if not bool(tr.valid[t]):
            assert v.target is None and v.loss is None and not v.p_minus_y.any()
            continue
        z = tr.z[t].double().clone().requires_grad_(True)  # (K,)
        loss = F.cross_entropy(z[None], tr.targets[t:t + 1])
        (g,) = torch.autograd.grad(loss, z)
        assert v.loss == pytest.approx(float(loss.detach()), abs=1e-5)
        assert v.loss == pytest.approx(-math.log(v.p[v.target]), abs=1e-5)
        assert np.allclose(v.p_minus_y, g.numpy(), atol=1e-6)
        assert np.allclose(v.autograd, g.numpy(), atol=1e-6)  # Elman: the trace's dL/dz_t = p - y
        assert np.allclose(v.exps / v.normaliser, v.p, atol=1e-6)
        assert np.allclose(v.shifted_exps / v.shifted_exps.sum(), v.p, atol=1e-6)
        assert v.p_minus_y.sum() == pytest.approx(0, abs=1e-6)


def test_step_view_undoes_the_mean_scaling(default):
    model, vocab = default
    tr_m = lm_trace(model, vocab, ["Leave", "Boston", "at"], "mean")
    tr_s = lm_trace(model, vocab, ["Leave", "Boston", "at"], "sum")
    assert np.allclose(out.step_view(tr_m, 1, vocab.itos).p_minus_y,
                       out.step_view(tr_s, 1, vocab.itos).p_minus_y, atol=1e-6)


def test_step_view_rejects_bad_steps(notes):
    tr = lm_trace(*notes, ["I", "like"])
    with pytest.raises(InputError):
        out.step_view(tr, 5, notes[1].itos)


def test_logit_rows_add_up_to_z(default):
    model, vocab = default
    tr = lm_trace(model, vocab, ["Fly", "to", "Paris"])
    v = out.step_view(tr, 2, vocab.itos)
    idx = out.shown_outputs(v, 5)
    assert len(idx) in (5, 6) and (v.target in idx)
    assert list(v.p[idx[:5]]) == sorted(v.p, reverse=True)[:5]
    for row, i in zip(out.logit_rows(model, tr, 2, idx, vocab.itos), idx):
        assert row["W_o[k] · h_t"] + row["b_o[k]"] == pytest.approx(float(tr.z[2, i]), abs=1e-5)


def test_shown_outputs_keep_vocabulary_order_when_all_fit():
    v = out.notes_view(NOTES_VOCAB)
    assert out.shown_outputs(v, 5) == [0, 1, 2, 3, 4]
    assert out.shown_outputs(v, 2) == [2, 3]
    assert out.shown_outputs(out.view_from_probs([0.5, 0.3, 0.2], 2, "abc"), 1) == [0, 2]  # + the target


def test_softmax_rows(notes):
    v = out.notes_view(NOTES_VOCAB)
    rows = out.softmax_rows(v, [2, 3])
    assert rows[0]["output"] == "cats" and rows[0]["y_k"] == 1 and rows[0]["p_k - y_k"] == pytest.approx(-0.6)
    assert rows[1]["exp(z_k)"] == pytest.approx(0.3)


def test_view_from_probs_rejects_bad_input():
    with pytest.raises(InputError):
        out.view_from_probs([0.5, 0.6], 0, ["a", "b"])
    with pytest.raises(InputError):
        out.view_from_probs([0.5, 0.5], 2, ["a", "b"])


# ---- whole sentence ---------------------------------------------------------------------------------

def test_top_k_and_target_ranks(default):
    model, vocab = default
    tr = lm_trace(model, vocab, ["Arrive", "Taipei", "on", "November", "2nd"])
    idx, vals = out.top_k(tr, 4)
    assert idx.shape == (tr.T, 4)
    for t in range(tr.T):
        order = np.argsort(-tr.p[t].numpy(), kind="stable")
        assert np.allclose(vals[t], tr.p[t].numpy()[order[:4]])
        hand = 1 + int(np.sum(tr.p[t].numpy() > tr.p[t, tr.targets[t]].item()))
        assert out.target_ranks(tr)[t] == hand
    rows = out.sentence_rows(tr, vocab, 3, vocab.decode(tr.ids))
    assert rows[0]["target"] == "Arrive" and rows[-1]["target"] == EOS
    assert rows[1]["L_t (nats)"] == pytest.approx(-math.log(rows[1]["p(target)"]), abs=1e-5)


def test_sum_vs_mean_against_a_hand_loop(default):
    model, vocab = default
    words = ["I", "want", "to", "leave", "Boston"]
    tr_s, tr_m = lm_trace(model, vocab, words, "sum"), lm_trace(model, vocab, words, "mean")
    hand = [-math.log(float(tr_s.p[t, tr_s.targets[t]])) for t in range(tr_s.T) if tr_s.targets[t] != IGNORE]
    r = out.reductions(tr_s, tr_m)
    assert r["N"] == len(hand)
    assert r["sum"] == pytest.approx(sum(hand), rel=1e-5)
    assert r["mean"] == pytest.approx(sum(hand) / len(hand), rel=1e-5)
    assert r["grad_max_diff"] < 1e-6
    assert r["grad_norm_mean"] == pytest.approx(r["grad_norm_sum"] / len(hand), rel=1e-5)


def test_mean_gradient_is_divided_by_valid_steps_notes(notes):
    tr_s, tr_m = lm_trace(*notes, ["I", "like", "cats"], "sum"), lm_trace(*notes, ["I", "like", "cats"], "mean")
    assert out.reductions(tr_s, tr_m)["N"] == 2  # the last step has no target
    assert torch.allclose(tr_m.grad_z * 2, tr_s.grad_z, atol=1e-7)


# ---- padded batch --------------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_padding_carries_no_loss(default, reduction):
    model, vocab = default
    sents = [["Arrive", "Taipei", "on", "November", "2nd"], ["Leave", "Boston"]]
    pairs = [lm_pair(vocab.encode(s)[0], vocab) for s in sents]
    b = out.padded_batch(model, pairs, vocab.stoi[PAD], reduction)
    assert b.ids.shape == (2, 6) and b.mask.tolist()[1] == [True, True, True, False, False, False]
    assert (b.loss_t[~b.mask] == 0).all() and (b.targets[~b.mask] == IGNORE).all()
    hand, n = 0.0, 0
    for inp, tgt in pairs:  # each sentence alone, no padding at all
        z = model(torch.tensor(inp)).detach()  # (T, K)
        hand += float(F.cross_entropy(z, torch.tensor(tgt), reduction="sum"))
        n += len(tgt)
    assert b.n_valid == n
    assert b.loss == pytest.approx(hand if reduction == "sum" else hand / n, rel=1e-5)


def test_padding_logits_get_no_gradient(notes):
    model, vocab = notes
    pairs = [lm_pair([0, 1, 2], vocab), lm_pair([4], vocab)]
    b = out.padded_batch(model, pairs, 0)
    z = model(b.ids).detach().requires_grad_(True)  # (B, T, K)
    loss = F.cross_entropy(z.reshape(-1, 5), b.targets.reshape(-1), ignore_index=IGNORE, reduction="sum")
    (g,) = torch.autograd.grad(loss, z)
    assert (g[b.targets == IGNORE] == 0).all() and (g[b.targets != IGNORE] != 0).any()
    assert b.loss == pytest.approx(float(loss.detach()), rel=1e-6)


def test_padded_batch_limits(notes):
    with pytest.raises(InputError):
        out.padded_batch(notes[0], [], 0)


# ---- generation ---------------------------------------------------------------------------------------------

def test_sampling_distribution_temperature_and_top_k():
    z = torch.tensor([2.0, 1.0, 0.5, -1.0])
    for temp in (0.5, 1.0, 2.0):
        assert torch.allclose(generation.sampling_distribution(z, temp), torch.softmax(z.double() / temp, -1))
    q = generation.sampling_distribution(z, 1.0, 2)
    assert (q[2:] == 0).all() and torch.allclose(q[:2], torch.softmax(z[:2].double(), -1))


def test_generation_is_reproducible_with_a_seed(default):
    model, vocab = default
    prefix = [vocab.stoi[BOS]]
    how = generation.Sampling("sample", 1.5, 0, seed=7, max_new=10)
    a = generation.generate(model, prefix, how, vocab.stoi[EOS])
    b = generation.generate(model, prefix, how, vocab.stoi[EOS])
    assert [s.chosen for s in a] == [s.chosen for s in b]
    runs = {tuple(s.chosen for s in generation.generate(model, prefix, generation.Sampling("sample", 1.5, 0, seed=s),
                                                   vocab.stoi[EOS])) for s in range(6)}
    assert len(runs) > 1  # different seeds draw different continuations


def test_generation_feeds_back_and_stops(default):
    model, vocab = default
    tr = lm_trace(model, vocab, ["Arrive", "Taipei"])
    eos = vocab.stoi[EOS]
    steps = generation.generate(model, list(tr.ids[:2].tolist()), generation.Sampling(max_new=30), eos)
    assert steps[0].chosen == int(tr.p[1].argmax())  # greedy = the teacher-forced argmax on the prefix
    assert steps[0].p_model == pytest.approx(float(tr.p[1].max()), abs=1e-6)
    for prev, nxt in zip(steps, steps[1:]):
        assert nxt.input_id == prev.chosen  # each pick is fed back
    assert steps[-1].chosen == eos or len(steps) == 30
    assert all(s.chosen != eos for s in steps[:-1])
    top1 = generation.generate(model, [vocab.stoi[BOS]], generation.Sampling("sample", 1.0, 1, seed=3, max_new=8), eos)
    greedy = generation.generate(model, [vocab.stoi[BOS]], generation.Sampling(max_new=8), eos)
    assert [s.chosen for s in top1] == [s.chosen for s in greedy]


def test_generation_length_limit_without_eos(notes):
    model, vocab = notes
    steps = generation.generate(model, [0], generation.Sampling("sample", 1.0, 0, seed=1, max_new=5), None)
    assert len(steps) == 5 and all(0 <= s.chosen < 5 for s in steps)


def test_sampling_validation():
    for bad in (dict(strategy="beam"), dict(temperature=0), dict(top_k=-1), dict(max_new=0),
                dict(max_new=generation.MAX_NEW_TOKENS + 1), dict(seed=-1)):
        with pytest.raises(InputError):
            generation.Sampling(**bad)
    with pytest.raises(InputError):
        generation.generate(None, [], generation.Sampling())


def test_forcing_rows_side_by_side(default):
    model, vocab = default
    tr = lm_trace(model, vocab, ["Arrive", "Taipei", "on"])
    steps = generation.generate(model, tr.ids[:2].tolist(), generation.Sampling(max_new=6), vocab.stoi[EOS])
    rows = out.forcing_rows(tr, vocab, 2, steps)
    assert len(rows) == max(tr.T - 1, len(steps))
    assert rows[0]["teacher forcing: fed"] == rows[0]["free run: fed"] == "Arrive"
    assert rows[0]["predicts (top 1)"] == rows[0]["picks"]
    assert rows[1]["teacher forcing: fed"] == "Taipei"  # the true token, whatever the free run picked


# ---- one gradient step -----------------------------------------------------------------------------------------

def test_output_step_against_the_formula_and_sgd(notes):
    model, vocab = notes
    before = model.fingerprint()
    tr = lm_trace(model, vocab, ["I", "like", "cats"])
    t, lr = 1, 0.7
    res = out.output_layer_step(model, tr, t, lr)
    assert model.fingerprint() == before  # the shared model is untouched
    y = F.one_hot(tr.targets[t], 5).float()
    err = tr.p[t] - y  # (K,)
    assert torch.allclose(res.grad_W, torch.outer(err, tr.h[t]), atol=1e-6)
    assert torch.allclose(res.grad_b, err, atol=1e-6)
    W = model.W_o.detach() - lr * res.grad_W  # (K, H)
    b = model.b_o.detach() - lr * res.grad_b
    assert torch.allclose(res.p_after, torch.softmax(tr.h @ W.T + b, -1), atol=1e-6)  # h unchanged
    pb, pa = res.target_probs(tr.targets)
    assert pa[t] > pb[t] and np.isnan(pb[2])
    assert res.moved[0] > 0  # another position moved too
    assert np.allclose(res.moved, 0.5 * (res.p_after - res.p_before).abs().sum(-1).numpy())


def test_output_step_matches_torch_optim_on_default(default):
    import copy

    model, vocab = default
    tr = lm_trace(model, vocab, ["Leave", "Boston", "at"])
    res = out.output_layer_step(model, tr, 2, 0.3)
    m = copy.deepcopy(model)
    opt = torch.optim.SGD([m.W_o, m.b_o], lr=0.3)
    F.cross_entropy(m(tr.ids)[2:3], tr.targets[2:3]).backward()
    opt.step()
    assert torch.allclose(res.p_after, torch.softmax(m(tr.ids), -1).detach(), atol=1e-6)


@pytest.mark.parametrize("kind", [{"cell": "jordan"}, {"cell": "lstm", "bidirectional": True},
                                  {"cell": "elman", "attention": True}, {"cell": "gru"}])
def test_output_step_is_sgd_on_a_copy_for_every_cell(kind):
    """W_o feeds the recurrence of a Jordan cell and reads [h; c] with attention: the step's
    p_after is a real forward run of the stepped model (oracle: torch.optim.SGD on a deep copy),
    and the shared model is left as it was."""
    import copy

    from rnnviz.engine.model import RNNConfig, RNNModel

    model = RNNModel(RNNConfig(vocab_size=7, embed_dim=3, hidden_size=4, **kind), seed=3)
    tr = trace(model, [1, 2, 3, 4], [2, 3, 4, 5])
    before = model.fingerprint()
    res = out.output_layer_step(model, tr, 1, 0.4)
    assert model.fingerprint() == before
    m = copy.deepcopy(model)
    opt = torch.optim.SGD([m.W_o, m.b_o], lr=0.4)
    F.cross_entropy(m(tr.ids)[1:2], tr.targets[1:2]).backward()
    opt.step()
    assert torch.allclose(res.p_after, torch.softmax(m(tr.ids), -1).detach(), atol=1e-6)
    assert torch.allclose(res.grad_W, -(m.W_o.detach() - model.W_o.detach()) / 0.4, atol=1e-5)


def test_output_step_refuses_steps_without_target(notes):
    tr = lm_trace(*notes, ["I", "like"])
    with pytest.raises(InputError):
        out.output_layer_step(notes[0], tr, 1, 0.5)
    with pytest.raises(InputError):
        out.output_layer_step(notes[0], tr, 0, float("nan"))


# ---- try it by hand ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(8))
def test_exercises_are_seeded_and_answers_are_right(seed):
    ex = out.make_exercise(seed)
    again = out.make_exercise(seed)
    assert (again.kind, again.labels, again.given, again.target) == (ex.kind, ex.labels, ex.given, ex.target)
    p = np.array(ex.given) if ex.kind == "probs" else np.exp(ex.given) / np.exp(ex.given).sum()
    assert np.isclose(p.sum(), 1) and (p > 0).all()
    assert ex.view.loss == pytest.approx(-math.log(p[ex.target]), abs=1e-9)
    y = np.eye(len(p))[ex.target]
    assert np.allclose(ex.view.p_minus_y, p - y, atol=1e-9)


def _ans(vec):
    return ", ".join(f"{v:.2f}" for v in vec)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_checker_diagnoses_the_usual_slips(seed):
    ex = out.make_exercise(seed)
    v, K, tgt = ex.view, len(ex.labels), ex.target
    L = v.loss
    assert out.check_loss(ex, f"{L:.2f}").correct
    assert out.check_loss(ex, "").correct is None
    assert "minus" in out.check_loss(ex, f"{-L:.3f}").message
    assert "log10" in out.check_loss(ex, f"{L / math.log(10):.3f}").message
    assert "log2" in out.check_loss(ex, f"{L / math.log(2):.3f}").message
    assert out.check_grad(ex, _ans(v.p_minus_y)).correct
    assert "y - p" in out.check_grad(ex, _ans(-v.p_minus_y)).message
    assert "subtract y" in out.check_grad(ex, _ans(v.p)).message
    wrong = next(j for j in range(K) if j != tgt and not np.isclose(v.p[j], v.p[tgt]))
    assert "wrong target" in out.check_loss(ex, f"{-math.log(v.p[wrong]):.3f}").message
    assert "wrong target" in out.check_grad(ex, _ans(v.p - np.eye(K)[wrong])).message
    assert "Give" in out.check_grad(ex, _ans(v.p_minus_y[:-1])).message
    assert out.check_grad(ex, "[" + _ans(v.p_minus_y).replace("-", "\u2212") + "]").correct


def test_checker_on_the_notes_numbers_and_bad_text():
    ex = out.Exercise("probs", NOTES_VOCAB, out.NOTES_P, 2, out.notes_view(NOTES_VOCAB))
    assert out.check_loss(ex, "0.916").correct and out.check_loss(ex, "0.92").correct
    assert "log2" in out.check_loss(ex, "1.32").message
    dogs = out.Exercise("probs", NOTES_VOCAB, out.NOTES_P, 3, out.view_from_probs(out.NOTES_P, 3, NOTES_VOCAB))
    assert "probability" in out.check_loss(dogs, "0.3").message  # p(dogs) itself, not -ln of it
    assert "wrong target" in out.check_loss(dogs, "0.92").message  # -ln p(cats)
    assert out.check_grad(ex, "0.1, 0.1, -0.6, 0.3, 0.1").correct
    assert not out.check_grad(ex, "0.1, 0.1, 0.6, 0.3, 0.1").correct
    with pytest.raises(InputError):
        out.check_loss(ex, "zero point nine")
    with pytest.raises(InputError):
        out.check_grad(ex, "0.1, inf, 0, 0, 0")


# ---- display helpers (reviewer findings) -----------------------------------------------------

def test_display_rows_format_floats_like_the_prose():
    from rnnviz.formatting import num

    rows = out.display_rows([{"t": 1, "p(target)": 1.577e-07, "L": None, "w": "cats"},
                             {"t": 2, "p(target)": float("nan"), "L": 0.91629, "w": "dogs"}])
    assert rows[0] == {"t": 1, "p(target)": num(1.577e-07), "L": "", "w": "cats"}
    assert rows[0]["p(target)"] == "1.577e-07"  # the same text the prose shows, not 0.0000002
    assert rows[1]["p(target)"] == "NaN" and rows[1]["L"] == "0.9163"


def test_column_widths_fit_header_and_longest_cell():
    rows = [{"target (next token)": "(none: no next token)", "top 8": "a " * 40}, {"target (next token)": "x"}]
    w = out.column_widths(rows)
    assert w["target (next token)"] == out.PX_PAD + out.PX_PER_CHAR * len("(none: no next token)")
    assert w["top 8"] == out.PX_PAD + out.PX_PER_CHAR * 80
    assert out.column_widths([{"step t": 1}])["step t"] == out.PX_PAD + out.PX_PER_CHAR * len("step t")
    assert out.column_widths(rows, max_px=300)["top 8"] == 300


def test_step_window_keeps_at_most_20_steps_around_t():
    assert out.step_window(5, 3) == (0, 5)
    assert out.step_window(20, 19) == (0, 20)
    for T in (21, 60, 61):
        for t in range(T):
            lo, hi = out.step_window(T, t)
            assert hi - lo == out.MAX_HEATMAP_STEPS and 0 <= lo <= t < hi <= T


@pytest.mark.parametrize("a, b", [(12.1265, 15.0975), (12.13, 15.09), (0.004, 0.0049), (1 / 3, 2 / 3),
                                  (12.125, 15.095)])
def test_exact_sum_shows_numbers_that_add_up(a, b):
    from decimal import Decimal

    sa, sb, ss = out.exact_sum(a, b)
    assert Decimal(sa) + Decimal(sb) == Decimal(ss)
    assert abs(float(ss) - (a + b)) <= 10 ** -(len(ss.split(".")[1])) and abs(float(sa) - a) < 0.01
    assert out.exact_sum(float("inf"), 1.0)[2] == "inf"


def test_log_axis_uses_exponents_not_si_prefixes():
    from rnnviz.figures import output as figs

    f = figs.moved_bars(["1 a", "2 b"], [0.0, 1e-6], [1e-5, 1e-7], 0, "moved")
    y_axes = [ax for name, ax in f.layout.to_plotly_json().items() if name.startswith("yaxis")]
    assert any(ax.get("type") == "log" for ax in y_axes)
    assert len(y_axes) == 2 and all(ax.get("exponentformat") in ("e", "power") for ax in y_axes)


# ---- page 3 rework: one type per column, the combined verdict, worst step -----------------

def test_display_rows_keep_one_type_per_column():
    rows = out.display_rows([{"step t": 1, "rank of target": 2, "p": 0.123456},
                             {"step t": 2, "rank of target": None, "p": None}])
    assert [r["rank of target"] for r in rows] == ["2", ""]       # mixed int / none: text
    assert [r["step t"] for r in rows] == [1, 2]                  # never empty: stays int
    assert [r["p"] for r in rows] == ["0.1235", ""]
    assert {type(r[c]) for r in rows for c in ("rank of target", "p")} == {str}


def test_check_both_names_the_first_slip_and_carries_hint_keys():
    import math
    ex = out.make_exercise(0)
    L, g = ex.view.loss, ex.view.p_minus_y
    right_L, right_g = f"{L:.3f}", ", ".join(f"{v:.3f}" for v in g)
    v = out.check_both(ex, right_L, right_g)
    assert v.ok and v.hint_key == "output.hint_both_right" and f"{L:.4g}" in v.solution
    v = out.check_both(ex, f"{-L:.3f}", right_g)
    assert v.ok is False and v.hint_key == "output.hint_sign"
    v = out.check_both(ex, right_L, ", ".join(f"{-x:.3f}" for x in g))
    assert v.ok is False and v.hint_key == "output.hint_flipped"
    assert out.check_both(ex, "", "").ok is None
    v = out.check_both(ex, f"{L / math.log(10):.3f}", "")
    assert v.hint_key == "output.hint_log10"


def test_worst_step_and_most_moved_other():
    from rnnviz.store.catalog import notes_model
    model, _ = notes_model()
    tr = trace(model, [0, 1, 2], [1, 2, -100])
    assert out.worst_step(tr) == int(np.argmax(tr.loss_t[:2].numpy()))
    assert out.worst_step(trace(model, [0], [-100])) is None
    assert out.most_moved_other(np.array([0.3, 0.1, 0.2]), 0) == 2 and out.most_moved_other([0.5], 0) == 0


def test_notes_view_gives_the_notes_numbers():
    v = out.notes_view(["I", "like", "cats", "dogs", "you"])
    assert round(v.loss, 3) == 0.916 and np.allclose(v.p_minus_y, [0.1, 0.1, -0.6, 0.3, 0.1])










def test_output_step_numbers_against_cross_entropy(num_mt):
    m, tr = num_mt
    assert out.valid_count(tr) == sum(t != IGNORE for t in NUM_TARGETS) == 5
    v = out.step_view(tr, 1, [str(i) for i in range(9)])
    assert v.zmax == float(tr.z[1].max())
    z = tr.z[1].detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(F.cross_entropy(z[None], tr.targets[1:2]), z)
    y = F.one_hot(torch.tensor(NUM_TARGETS[1]), 9).double()
    assert v.autograd_diff == pytest.approx(float((torch.softmax(tr.z[1], -1) - y - g).abs().max()), abs=1e-15)
    assert v.autograd_diff < 1e-12


def test_gradient_step_numbers_against_a_hand_sgd_step(num_mt):
    m, tr = num_mt
    t, lr = 0, 0.5
    res = out.output_layer_step(m, tr, t, lr)
    g = out.gradient_step_numbers(res, tr.targets)
    assert g["loss_before"] == pytest.approx(float(F.cross_entropy(tr.z[t:t + 1], tr.targets[t:t + 1])), rel=1e-12)
    with torch.no_grad():
        e = torch.softmax(tr.z[t], -1) - F.one_hot(tr.targets[t], 9).double()   # dL_t/dz_t
        W, b = m.W_o - lr * torch.outer(e, tr.h[t]), m.b_o - lr * e
        z_after = tr.h @ W.T + b
    assert g["loss_after"] == pytest.approx(float(F.cross_entropy(z_after[t:t + 1], tr.targets[t:t + 1])), rel=1e-9)
    p_b, p_a = torch.softmax(tr.z, -1), torch.softmax(z_after, -1)
    moved = 0.5 * (p_a - p_b).abs().sum(-1)
    o = max((s for s in range(tr.T) if s != t), key=lambda s: float(moved[s]))
    assert g["other"] == o
    assert np.allclose(g["moved"], moved.numpy(), atol=1e-12)
    if NUM_TARGETS[o] == IGNORE:
        assert g["other_dp"] is None
    else:
        assert g["other_dp"] == pytest.approx(float(p_a[o, NUM_TARGETS[o]] - p_b[o, NUM_TARGETS[o]]), abs=1e-12)
    assert np.isnan(g["dp"][2]) and not np.isnan(g["dp"][0])  # step 3 has no target


def test_index_words_and_top_tags():
    vocab = Vocab(["a", "b", "c"])
    assert out.index_words(vocab, np.array([[0, 2], [1, 1]])).tolist() == [[vocab.itos[0], vocab.itos[2]],
                                                                            [vocab.itos[1], vocab.itos[1]]]
    p = np.full((3, len(TAGS)), 0.1)
    p[0, 2], p[1, 0], p[2, len(TAGS) - 1] = 0.9, 0.5, 0.7
    assert slots.top_tags(p) == [TAGS[2], TAGS[0], TAGS[-1]]


def test_check_both_reports_every_slip():
    """Issue 26: a wrong loss AND a wrong p - y are both named (not only the first)."""
    ex = out.make_exercise(0)
    L, g = ex.view.loss, ex.view.p_minus_y
    v = out.check_both(ex, f"{-L:.3f}", ", ".join(f"{-x:.3f}" for x in g))
    assert v.ok is False and v.hint_key == "output.hint_sign"
    assert [m.hint_key for m in v.more] == ["output.hint_flipped"]
    assert "minus" in v.message and "flipped" in v.message
    v = out.check_both(ex, f"{L:.3f}", ", ".join(f"{-x:.3f}" for x in g))
    assert v.hint_key == "output.hint_flipped" and v.more == ()
