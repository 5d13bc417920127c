"""Word2Vec (note 004): window pairs counted by hand, one SGNS pair's loss and gradient step
against float64 autograd, seeded training that learns, stops on request, and the neighbour
overlap with the RNN language model's E against a brute-force count."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.explain import word2vec as w2v


def test_window_pairs_on_the_notes_sentence():
    toks = "Arrive Taipei on November 2nd".split()
    pairs = w2v.window_pairs(toks, radius=1)
    assert [(p.centre, p.context) for p in pairs] == [
        ("Arrive", "Taipei"), ("Taipei", "Arrive"), ("Taipei", "on"), ("on", "Taipei"),
        ("on", "November"), ("November", "on"), ("November", "2nd"), ("2nd", "November")]
    assert all(toks[p.centre_pos] == p.centre and toks[p.context_pos] == p.context for p in pairs)
    for T in range(1, 9):
        for r in range(1, 4):
            expected = sum(min(T, t + r + 1) - max(0, t - r) - 1 for t in range(T))
            brute = sum(1 for c in range(T) for o in range(T) if o != c and abs(o - c) <= r)
            assert len(w2v.window_pairs(range(T), r)) == expected == brute
    assert w2v.window_span(5, 0, 2) == (0, 3) and w2v.window_span(5, 4, 2) == (2, 5)
    for bad in (0, 6, 1.5):
        with pytest.raises(InputError):
            w2v.window_pairs(toks, bad)
    with pytest.raises(InputError):
        w2v.window_span(5, 5, 2)


def _autograd_pair(v_c, u_o, u_neg):
    v, uo, un = (t.clone().requires_grad_(True) for t in (v_c, u_o, u_neg))
    J = torch.log(torch.sigmoid(uo @ v)) + torch.log(torch.sigmoid(-(un @ v))).sum()
    (-J).backward()
    return float(-J.detach()), v.grad, uo.grad, un.grad


@pytest.mark.parametrize("seed", range(5))
def test_pair_terms_equal_autograd(seed):
    g = torch.Generator().manual_seed(seed)
    d, k = 4, 3
    v_c, u_o = torch.randn(d, generator=g, dtype=torch.float64), torch.randn(d, generator=g, dtype=torch.float64)
    u_neg = torch.randn(k, d, generator=g, dtype=torch.float64)
    t = w2v.pair_terms(v_c, u_o, u_neg)
    loss, gv, go, gn = _autograd_pair(v_c, u_o, u_neg)
    assert float(t["loss"]) == pytest.approx(loss, rel=1e-13)
    torch.testing.assert_close(t["grad_v_c"], gv, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(t["grad_u_o"], go, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(t["grad_u_neg"], gn, rtol=1e-12, atol=1e-14)
    # the written-out terms add up to the objective
    assert float(t["log_pos"] + t["log_neg"].sum()) == pytest.approx(float(t["objective"]))
    assert float(t["sigma_o"]) == pytest.approx(1 / (1 + np.exp(-float(u_o @ v_c))))


def test_pair_step_on_matrices_with_repeated_negatives():
    """A negative drawn twice, and one equal to the context word: contributions add in the row."""
    g = torch.Generator().manual_seed(7)
    n, d = 6, 3
    V, U = torch.randn(n, d, generator=g, dtype=torch.float64), torch.randn(n, d, generator=g, dtype=torch.float64)
    c, o, negs, lr = 1, 2, [4, 4, 2, 0], 0.5
    out = w2v.pair_step(V, U, c, o, negs, lr)
    Vg, Ug = V.clone().requires_grad_(True), U.clone().requires_grad_(True)
    idx = torch.tensor(negs)
    loss = -(torch.log(torch.sigmoid(Ug[o] @ Vg[c])) + torch.log(torch.sigmoid(-(Ug[idx] @ Vg[c]))).sum())
    loss.backward()
    torch.testing.assert_close(out["grad_V"], Vg.grad, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(out["grad_U"], Ug.grad, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(out["V_new"], V - lr * Vg.grad)
    torch.testing.assert_close(out["U_new"], U - lr * Ug.grad)
    untouched = [r for r in range(n) if r not in (o, *negs)]
    assert torch.equal(out["U_new"][untouched], U[untouched])
    # the step lowers this pair's loss for a small learning rate
    small = w2v.pair_step(V, U, c, o, negs, 0.01)
    after = w2v.pair_terms(small["V_new"][c], small["U_new"][o], small["U_new"][idx])["loss"]
    assert float(after) < float(out["loss"])
    with pytest.raises(InputError):
        w2v.pair_step(V, U, c, o, negs, float("nan"))


def test_pair_corpus_and_noise():
    pc = w2v.pair_corpus([["a", "b", "a"], ["c"], ["b", "c"]], radius=1)
    assert pc.vocab.itos == ("a", "b", "c") and pc.counts.tolist() == [2, 2, 2]
    words = [(pc.vocab.itos[c], pc.vocab.itos[o]) for c, o in zip(pc.centres.tolist(), pc.contexts.tolist())]
    assert words == [("a", "b"), ("b", "a"), ("b", "a"), ("a", "b"), ("b", "c"), ("c", "b")]
    p = w2v.noise_distribution([8, 1])
    assert float(p[0]) == pytest.approx(8 ** 0.75 / (8 ** 0.75 + 1)) and float(p.sum()) == pytest.approx(1)
    with pytest.raises(InputError):
        w2v.pair_corpus([["a", "a"]])
    with pytest.raises(InputError):
        w2v.pair_corpus([["a"], ["b"]])
    with pytest.raises(InputError):
        w2v.text_sentences("   \n  ")
    assert w2v.text_sentences("cats like fish\ndogs like cats\n")[1] == ["dogs", "like", "cats"]


@pytest.fixture(scope="module")
def trained():
    pc = w2v.pair_corpus(w2v.builtin_sentences(), radius=2)
    return pc, w2v.train_word2vec(pc, w2v.W2VConfig(steps=600, seed=0))


def test_training_is_seeded_learns_and_groups_words(trained):
    pc, r = trained
    again = w2v.train_word2vec(pc, w2v.W2VConfig(steps=600, seed=0))
    assert torch.equal(r.V, again.V) and [h["loss"] for h in r.history] == [h["loss"] for h in again.history]
    first, last = np.mean([h["loss"] for h in r.history[:20]]), np.mean([h["loss"] for h in r.history[-20:]])
    assert last < 0.6 * first
    # the loss really is the SGNS loss of the returned vectors (recomputed on fresh negatives)
    gen = torch.Generator().manual_seed(1)
    negs = torch.multinomial(w2v.noise_distribution(pc.counts), len(pc.centres) * 5, True, generator=gen)
    full = float(w2v.batch_loss(r.V, r.U, pc.centres, pc.contexts, negs.view(-1, 5)))
    assert full < 0.6 * first
    cities = {"Tokyo", "Paris", "London", "Seoul", "Denver", "Sydney", "Madrid", "Chicago",
              "Berlin", "Toronto", "Boston"}
    assert {w for w, _ in w2v.neighbours(r.V, r.vocab, "Taipei", 3)} <= cities
    assert w2v.neighbours(r.V, r.vocab, "cats", 1)[0][0] in {"dogs", "birds", "fish"}
    assert [s for s, _ in r.snapshots] == [0, 75, 150, 225, 300, 375, 450, 525, 600]
    views = w2v.checkpoint_views(r, ["Taipei"], k=3)
    assert len(views) == 9 and views[-1]["coords"].shape == (len(r.vocab), 2)
    np.testing.assert_allclose(views[-1]["coords"], w2v.projection(r.V)[0], atol=1e-10)
    for v in views:  # turning never changes distances within one picture
        raw = w2v.projection(dict(r.snapshots)[v["step"]])[0]
        np.testing.assert_allclose(np.linalg.norm(v["coords"][:, None] - v["coords"][None], axis=-1),
                                   np.linalg.norm(raw[:, None] - raw[None], axis=-1), atol=1e-10)
    assert views[-1]["neighbours"]["Taipei"] == w2v.neighbours(r.V, r.vocab, "Taipei", 3)
    with pytest.raises(InputError):
        w2v.neighbours(r.V, r.vocab, "Qwerty")


def test_callback_stops_and_keeps_a_snapshot():
    pc = w2v.pair_corpus(w2v.builtin_sentences()[:200], radius=1)
    seen = []
    r = w2v.train_word2vec(pc, w2v.W2VConfig(steps=500), callback=lambda rec: seen.append(rec) or rec["step"] < 7)
    assert r.stopped and len(r.history) == 7 == len(seen) and seen[-1]["steps"] == 500
    assert r.snapshots[-1][0] == 7


def test_config_bounds():
    for bad in ({"dim": 1}, {"dim": limits.W2V_MAX_DIM + 1}, {"negatives": 0}, {"steps": limits.W2V_MAX_STEPS + 1},
                {"batch_size": 0}, {"lr": float("inf")}, {"lr": 0.0}, {"lr": limits.W2V_MAX_LR * 1.01},
                {"checkpoints": 0}):
        with pytest.raises(InputError):
            w2v.W2VConfig(**bad)


def _brute_overlap(A, itos_a, B, itos_b, k):
    words = [w for w in itos_a if w in itos_b]
    Xa = np.array([A[list(itos_a).index(w)] for w in words], dtype=float)
    Xb = np.array([B[list(itos_b).index(w)] for w in words], dtype=float)

    def top(X, i):
        Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
        c = Xn @ Xn[i]
        order = sorted((j for j in range(len(X)) if j != i), key=lambda j: (-c[j], j))
        return set(order[:k])

    return {w: len(top(Xa, i) & top(Xb, i)) for i, w in enumerate(words)}


def test_neighbour_overlap_against_brute_force_and_invariances():
    rng = np.random.default_rng(0)
    itos_a = ("w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7")
    itos_b = ("<pad>", "w7", "x", "w1", "w2", "w0", "w5", "w3", "w6", "w4")
    A, B = rng.normal(size=(8, 3)), rng.normal(size=(10, 5))
    out = w2v.neighbour_overlap(A, itos_a, B, itos_b, k=3)
    assert out["per_word"] == _brute_overlap(A, itos_a, B, itos_b, 3)
    assert out["chance"] == pytest.approx(9 / 7)
    # the same vectors, rotated and rescaled per row, keep every neighbour (cosine ignores both)
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    A2 = (A @ Q) * rng.uniform(0.5, 2.0, size=(8, 1))
    same = w2v.neighbour_overlap(A, itos_a, A2, itos_a, k=3)
    assert same["mean"] == pytest.approx(3.0)
    with pytest.raises(InputError):
        w2v.neighbour_overlap(A, itos_a, B, itos_b, k=8)


def test_learned_vectors_beside_the_language_model(trained):
    from rnnviz.store.catalog import default_model
    _, r = trained
    model, vocab, _ = default_model()
    E = model.E.detach()
    out = w2v.neighbour_overlap(r.V, r.vocab.itos, E, vocab.itos, k=5)
    assert len(out["words"]) >= 70 and "<pad>" not in out["words"]
    assert out["per_word"] == _brute_overlap(r.V.numpy(), r.vocab.itos, E.numpy(), vocab.itos, 5)
    assert out["mean"] > out["chance"]  # two different objectives, same corpus: they agree above chance


def test_pair_example_on_the_learners_sentence(trained):
    pc, r = trained
    ex = w2v.pair_example(r.V, r.U, r.vocab, pc.counts, "Taipei", "Arrive", k=4, lr=0.1, seed=3)
    assert ex["negatives"] == w2v.draw_negatives(pc.counts, 4, 3) and len(ex["negative_words"]) == 4
    assert ex["negative_words"] == [r.vocab.itos[j] for j in ex["negatives"]]
    t = w2v.pair_terms(r.V[ex["c"]], r.U[ex["o"]], r.U[ex["negatives"]])
    assert float(ex["loss"]) == float(t["loss"])
    with pytest.raises(InputError):
        w2v.pair_example(r.V, r.U, r.vocab, pc.counts, "Taipei", "Qwerty")
    with pytest.raises(InputError):
        w2v.draw_negatives(pc.counts, 0)


def test_vocabulary_is_capped_and_rare_words_leave_the_window():
    pc = w2v.pair_corpus([["a", "b", "a", "c", "a", "b"]], radius=1, max_vocab=2)
    assert pc.vocab.itos == ("a", "b") and pc.dropped_types == 1
    words = [(pc.vocab.itos[c], pc.vocab.itos[o]) for c, o in zip(pc.centres.tolist(), pc.contexts.tolist())]
    assert words == [(p.centre, p.context) for p in w2v.window_pairs("a b a a b".split(), 1)]


def test_overlap_lists_neighbours_best_first():
    itos = ("a", "b", "c", "d")
    A = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.5, 0.5]])
    out = w2v.neighbour_overlap(A, itos, A, itos, k=2)
    assert [w for w, _ in out["neighbours_a"]["a"]] == ["b", "d"]
    cos = out["neighbours_a"]["a"][0][1]
    assert cos == pytest.approx(0.9 / np.hypot(0.9, 0.1))


def test_training_step_is_sgd_on_the_summed_loss_by_autograd():
    """The batch step the training runs (hand gradients, index_add) equals autograd's SGD step
    on the sum of the pairs' losses, with rows repeated within and across pairs."""
    g = torch.Generator().manual_seed(11)
    n, d, lr = 7, 4, 0.3
    V, U = torch.randn(n, d, generator=g, dtype=torch.float64), torch.randn(n, d, generator=g, dtype=torch.float64)
    c, o = torch.tensor([0, 3, 0, 5]), torch.tensor([1, 1, 2, 0])
    negs = torch.tensor([[4, 4, 1], [0, 2, 6], [1, 5, 5], [3, 3, 3]])
    Vg, Ug = V.clone().requires_grad_(True), U.clone().requires_grad_(True)
    total = w2v.batch_loss(Vg, Ug, c, o, negs) * len(c)
    total.backward()
    Vh, Uh = V.clone(), U.clone()
    mean = w2v.sgd_batch_step(Vh, Uh, c, o, negs, lr)
    assert mean == pytest.approx(float(total.detach()) / len(c), rel=1e-14)
    torch.testing.assert_close(Vh, V - lr * Vg.grad, rtol=1e-13, atol=1e-14)
    torch.testing.assert_close(Uh, U - lr * Ug.grad, rtol=1e-13, atol=1e-14)


def test_align_2d_undoes_a_rotation_and_a_reflection():
    rng = np.random.default_rng(2)
    ref = rng.normal(size=(10, 2))
    th = 1.1
    R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    np.testing.assert_allclose(w2v.align_2d(ref @ R, ref), ref, atol=1e-12)
    np.testing.assert_allclose(w2v.align_2d(ref * [1, -1], ref), ref, atol=1e-12)


def test_learner_text_is_bounded_and_checked():
    from rnnviz import limits
    with pytest.raises(InputError):
        w2v.text_sentences("a " * (limits.MAX_UPLOAD_BYTES // 2 + 1))
    with pytest.raises(InputError):
        w2v.text_sentences(b"cats like fish")
    pc = w2v.pair_corpus(w2v.text_sentences("猫 喜欢 鱼\n狗 喜欢 猫 🙂\n"), radius=1)
    assert "猫" in pc.vocab.itos and len(pc.centres) > 0
    w2v.W2VConfig(dim=limits.W2V_MAX_DIM, negatives=limits.W2V_MAX_NEGATIVES, steps=limits.W2V_MAX_STEPS,
                  batch_size=limits.W2V_MAX_BATCH, lr=limits.W2V_MAX_LR)


@pytest.mark.parametrize("seed", range(6))
def test_pair_exercise_and_checker(seed):
    ex = w2v.pair_exercise(seed)
    again = w2v.pair_exercise(seed)
    assert all(np.array_equal(getattr(ex, f), getattr(again, f)) for f in ("v_c", "u_o", "u_k"))
    v = torch.tensor(ex.v_c, requires_grad=True)
    J = torch.log(torch.sigmoid(torch.tensor(ex.u_o) @ v)) + torch.log(torch.sigmoid(-(torch.tensor(ex.u_k) @ v)))
    (-J).backward()
    np.testing.assert_allclose(ex.answer(), v.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert w2v.check_pair_exercise(ex, np.round(ex.answer(), 3).tolist())[0]
    so, sk = 1 / (1 + np.exp(-ex.u_o @ ex.v_c)), 1 / (1 + np.exp(-ex.u_k @ ex.v_c))
    cases = {"left out the negative": (so - 1) * ex.u_o, "left out the true": sk * ex.u_k,
             "not σ(u_o·v_c)": so * ex.u_o + sk * ex.u_k, "not 1 − σ": (so - 1) * ex.u_o + (1 - sk) * ex.u_k,
             "sign is flipped": -ex.answer()}
    for needle, wrong in cases.items():
        ok, msg = w2v.check_pair_exercise(ex, wrong.tolist())
        assert not ok and needle in msg
    assert not w2v.check_pair_exercise(ex, (ex.answer() + 1).tolist())[0]
    for bad in (["x", "1"], [1.0], [float("inf"), 0.0]):
        with pytest.raises(InputError):
            w2v.check_pair_exercise(ex, bad)


@pytest.mark.parametrize("text", ["a b c d\n" * 50, ". , ! ?\n" * 50, "a b\n" * 200])
def test_defaults_stay_finite_on_a_tiny_repetitive_corpus(text):
    """Issue 22 R5: with 4 words every row took ~B(1+k)/n summed pushes per step and blew up;
    a row now moves by at most MAX_ROW_PUSHES pushes' worth, so the defaults stay finite."""
    pc = w2v.pair_corpus(w2v.text_sentences(text), 2)
    r = w2v.train_word2vec(pc, w2v.W2VConfig(steps=300, lr=limits.W2V_MAX_LR))
    assert not r.diverged and all(np.isfinite(h["loss"]) for h in r.history)
    assert torch.isfinite(r.V).all()
    views = w2v.checkpoint_views(r, [pc.vocab.itos[0]], 2)
    assert np.isfinite(views[-1]["coords"]).all()


def test_capped_pushes_equal_the_sum_when_rows_are_rare():
    g = torch.Generator().manual_seed(3)
    V, U = torch.randn(9, 3, generator=g, dtype=torch.float64), torch.randn(9, 3, generator=g, dtype=torch.float64)
    c, o, negs = torch.tensor([0, 1]), torch.tensor([2, 3]), torch.tensor([[4, 5], [6, 7]])
    a = (V.clone(), U.clone())
    b = (V.clone(), U.clone())
    w2v.sgd_batch_step(*a, c, o, negs, 0.1)
    w2v.sgd_batch_step(*b, c, o, negs, 0.1, max_pushes=1)
    torch.testing.assert_close(a, b)
    # one row used 4 times with max_pushes=2 moves by half its summed push
    c4, o4, n4 = torch.tensor([0, 0, 0, 0]), torch.tensor([1, 1, 1, 1]), torch.tensor([[2], [2], [2], [2]])
    s, h = (V.clone(), U.clone()), (V.clone(), U.clone())
    w2v.sgd_batch_step(*s, c4, o4, n4, 0.1)
    w2v.sgd_batch_step(*h, c4, o4, n4, 0.1, max_pushes=2)
    torch.testing.assert_close(h[0][0] - V[0], (s[0][0] - V[0]) / 2)


def test_a_non_finite_loss_stops_the_run_and_the_views_stay_nan_safe():
    pc = w2v.pair_corpus(w2v.text_sentences("the cat sat on the mat\nthe dog sat\n" * 40), 2)
    cfg = w2v.W2VConfig()
    object.__setattr__(cfg, "lr", 1e6)  # beyond the page's bound: the run must still not crash
    r = w2v.train_word2vec(pc, cfg)
    assert r.diverged and not r.stopped and not np.isfinite(r.history[-1]["loss"])
    assert len(r.history) < cfg.steps and r.snapshots[-1][0] == len(r.history)
    views = w2v.checkpoint_views(r, ["cat"], 3)
    assert len(views) == len(r.snapshots)
    assert w2v.align_2d(np.full((3, 2), np.nan), np.ones((3, 2))).shape == (3, 2)
    assert w2v.align_2d(np.full((3, 2), 1e300), np.full((3, 2), 1e300)).shape == (3, 2)
