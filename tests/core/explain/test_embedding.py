"""rnnviz.embedding against oracles: autograd, torch.optim, F.embedding / cosine_similarity,
numpy's eigen-decomposition, rnnviz.text.tokenize.hash_word, and the notes' own numbers."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rnnviz import RNNConfig, RNNModel, formatting, limits
from rnnviz.engine.trace import trace
from rnnviz.errors import InputError
from rnnviz.explain import embedding as emb
from rnnviz.store.catalog import NOTES_E, default_model, notes_model
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import hash_word, prepare

NOTES = emb.PRESETS["notes"]


@pytest.fixture(scope="module")
def default():
    model, vocab, _ = default_model()
    return model, vocab


def sentence(vocab, text):
    return lm_pair(list(prepare(text, vocab).ids), vocab)


# ---- lookup --------------------------------------------------------------------------

def test_notes_lookup_cats_is_row_3():
    assert NOTES.ids == [0, 1, 2] and NOTES.tokens[NOTES.focus] == "cats"
    assert emb.lookup(NOTES.E, [2]).tolist() == [[-0.4, 0.8, 0.1]]
    assert emb.lookup(NOTES.E, NOTES.ids).shape == (3, 3)  # "I like cats": T x d = 3 x 3
    prod = emb.one_hot_product(NOTES.E, 2)
    assert prod["x"].tolist() == [0, 0, 1, 0, 0]
    assert prod["result"].tolist() == [-0.4, 0.8, 0.1]
    assert prod["terms"][[0, 1, 3, 4]].abs().sum() == 0


def test_travel_lookup_taipei():
    p = emb.PRESETS["travel"]
    assert emb.lookup(p.E, [p.ids[p.focus]]).tolist() == [[0.67, 0.89, -0.34]]
    assert emb.one_hot_product(p.E, 2)["result"].tolist() == [0.67, 0.89, -0.34]


def test_lookup_equals_f_embedding_and_one_hot_product(default):
    model, vocab = default
    ids, _ = sentence(vocab, "I like cats today")
    want = F.embedding(torch.tensor(ids), model.E.detach().double())
    assert torch.equal(emb.lookup(model.E, ids), want)
    assert torch.allclose(emb.one_hot(ids, len(vocab)) @ emb.f64(model.E), want)


def test_lookup_rejects_ids_outside_the_vocabulary():
    with pytest.raises(InputError, match="outside"):
        emb.lookup(NOTES.E, [5])
    with pytest.raises(InputError):
        emb.lookup(NOTES.E, [])


# ---- gradient ------------------------------------------------------------------------------

def test_notes_gradient_is_zero_except_row_3_and_step_gives_notes_row():
    G = emb.embedding_gradient(NOTES.ids, emb.typed_gradient(3, 3, NOTES.focus, NOTES.g), 5)
    want = torch.zeros(5, 3, dtype=torch.float64)
    want[2] = torch.tensor([2.0, -1.0, 3.0])
    assert torch.equal(G, want)
    new = emb.sgd_step(NOTES.E, G, NOTES.lr)
    assert torch.allclose(new[2], torch.tensor([-0.6, 0.9, -0.2], dtype=torch.float64), atol=1e-12)
    assert torch.equal(new[[0, 1, 3, 4]], emb.f64(NOTES_E)[[0, 1, 3, 4]])


def test_outer_product_element_by_element():
    x, g = torch.tensor([0.0, 0, 1, 0, 0]), torch.tensor([2.0, -1, 3])
    P = emb.outer_product(x, g)
    for i in range(5):
        for j in range(3):
            assert P[i, j] == x[i] * g[j]
    assert torch.equal(P, torch.outer(x, g).double())


def test_embedding_gradient_equals_autograd_with_a_repeated_token():
    ids = [2, 0, 2, 4]
    g = torch.randn(4, 3, dtype=torch.float64)
    E = emb.f64(NOTES_E).requires_grad_()
    (E[ids] * g).sum().backward()
    assert torch.allclose(emb.embedding_gradient(ids, g, 5), E.grad)
    rows = emb.row_contributions(ids, g, NOTES.itos)
    cats = next(r for r in rows if r["token"] == "cats")
    assert cats["steps"] == [0, 2] and len(cats["parts"]) == 2
    assert torch.allclose(cats["total"], g[0] + g[2]) and torch.allclose(cats["total"], E.grad[2])


def test_real_backward_pass_gradient_of_e_is_x_transpose_grad_x(default):
    """The model's own dL/dE equals sum_t x_t^T (dL/dx_t) built from the Trace."""
    model, vocab = default
    ids, tgt = sentence(vocab, "cats like cats")
    tr = trace(model, ids, tgt)
    G = emb.embedding_gradient(ids, tr.grad_x, len(vocab))
    assert torch.allclose(G.float(), tr.grads["E"], atol=1e-6)
    looked = set(ids)
    assert all(G[k].abs().sum() == 0 for k in range(len(vocab)) if k not in looked)


def test_typed_gradient_sits_at_one_step():
    G = emb.typed_gradient(3, 3, 1, [2, -1, 3])
    assert G.tolist() == [[0, 0, 0], [2, -1, 3], [0, 0, 0]]
    with pytest.raises(InputError):
        emb.typed_gradient(3, 3, 3, [2, -1, 3])


# ---- update rules against torch.optim ---------------------------------------------------------

def optim_run(opt_cls, E0, grads, **kw):
    E = emb.f64(E0).requires_grad_()
    opt = opt_cls([E], **kw)
    for g in grads:
        opt.zero_grad()
        E.grad = emb.f64(g)
        opt.step()
    return E.detach()


@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_sgd_step_equals_torch_optim_sgd(wd):
    G = emb.embedding_gradient([2, 3], torch.randn(2, 3), 5)
    want = optim_run(torch.optim.SGD, NOTES_E, [G], lr=0.1, weight_decay=wd)
    new = emb.sgd_step(NOTES_E, G, 0.1, wd)
    assert torch.allclose(new, want, atol=1e-12)
    changed = emb.row_changes(NOTES_E, new) > 0
    assert changed.tolist() == ([False, False, True, True, False] if wd == 0 else [True] * 5)


@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_adam_equals_torch_optim_adam_and_its_state_moves_other_rows(wd):
    G1 = emb.embedding_gradient([0, 1], torch.randn(2, 3), 5)  # earlier sentence: I like
    G2 = emb.embedding_gradient([2], [[2.0, -1.0, 3.0]], 5)     # now: cats
    states = emb.adam_steps(NOTES_E, [G1, G2], lr=0.1, weight_decay=wd)
    for k in (1, 2):
        want = optim_run(torch.optim.Adam, NOTES_E, [G1, G2][:k], lr=0.1, weight_decay=wd)
        assert torch.allclose(states[k - 1].E, want, atol=1e-12)
    moved = emb.row_changes(states[0].E, states[1].E) > 0
    assert moved[0] and moved[1] and moved[2]  # rows 0, 1 have no gradient now but m != 0
    assert states[1].m[0].abs().sum() > 0 and G2[0].abs().sum() == 0
    summary = emb.change_summary(states[0].E, states[1].E, [2])
    assert summary["moved"] == [k for k in range(5) if moved[k]] and summary["n_other"] >= 2
    rows = emb.adam_rows(states[0].E, states[1], G2, NOTES.itos)
    assert [r["id"] for r in rows] == summary["moved"]
    assert rows[0]["m"] == formatting.vector(states[1].m[rows[0]["id"]]) and rows[0]["g now"] == "[0, 0, 0]"


def test_update_rules_reject_bad_learning_rates():
    for lr in (-1.0, math.inf, math.nan, 11.0):
        with pytest.raises(InputError):
            emb.sgd_step(NOTES_E, torch.zeros(5, 3), lr)


def test_tied_gradients_total_equals_autograd_of_one_shared_e_and_reaches_other_rows():
    model, vocab = notes_model()
    ids, tgt = [0, 1, 2], [1, 2, -100]
    r = emb.tied_gradients(model, ids, tgt)
    m = model.double()
    E = m.E.detach().clone().requires_grad_()
    Q = torch.linalg.lstsq(E.detach(), m.W_o.detach()).solution
    x = E[ids]
    h = torch.zeros(4, dtype=torch.float64)
    zs = []
    for t in range(3):
        h = torch.tanh(m.W_x @ x[t] + m.W_h @ h + m.b_h)
        zs.append(E @ (Q @ h) + m.b_o)
    loss = F.cross_entropy(torch.stack(zs)[:2], torch.tensor(tgt[:2]), reduction="sum")
    (gE,) = torch.autograd.grad(loss, [E])
    assert torch.allclose(r["total"], gE, atol=1e-10)
    assert abs(r["loss"] - float(loss.detach())) < 1e-10
    assert r["input"][[3, 4]].abs().sum() == 0       # dogs, you never looked up...
    assert (r["output"][[3, 4]].norm(dim=1) > 0).all()  # ...but the tied output moves them


def test_tied_gradients_need_a_language_model():
    model = RNNModel(RNNConfig(vocab_size=5, embed_dim=3, hidden_size=4, bidirectional=True), seed=0)
    with pytest.raises(InputError, match="Tied"):
        emb.tied_gradients(model, [0, 1], [1, -100])


# ---- similarity -----------------------------------------------------------------------------

def test_cosine_matrix_and_nearest(default):
    model, vocab = default
    E = model.E.detach().double()
    C = emb.cosine_matrix(E)
    want = F.cosine_similarity(E[:, None, :], E[None, :, :], dim=-1)
    assert torch.allclose(C, want, atol=1e-12)
    i = vocab.stoi["cats"]
    near = emb.nearest(E, i, k=5)
    order = [j for j in torch.argsort(want[i], descending=True).tolist() if j != i][:5]
    assert [j for j, _ in near] == order
    Z = torch.zeros(2, 3)
    assert torch.isnan(emb.cosine_matrix(Z)).all()


def test_pca_2d_matches_numpy_eigendecomposition(default):
    model, _ = default
    E = model.E.detach().double().numpy()
    coords, share = emb.pca_2d(E)
    Xc = E - E.mean(0)
    vals, vecs = np.linalg.eigh(np.cov(Xc.T, bias=True))
    top = vecs[:, ::-1][:, :2]
    np.testing.assert_allclose(np.abs(coords.numpy()), np.abs(Xc @ top), atol=1e-9)
    np.testing.assert_allclose(share.numpy(), vals[::-1][:2] / vals.sum(), atol=1e-9)
    again, _ = emb.pca_2d(E)
    assert torch.equal(coords, again)


def test_pca_of_trained_and_random_init_differ(default):
    model, _ = default
    fresh = RNNModel(model.cfg, seed=0)
    assert not torch.allclose(emb.pca_2d(fresh.E)[0], emb.pca_2d(model.E)[0])


# ---- word order, batches ------------------------------------------------------------------------

def test_dog_bites_man_has_the_same_sum_but_not_the_same_matrix(default):
    model, vocab = default
    a = prepare("dog bites man", vocab).ids
    b = prepare("man bites dog", vocab).ids
    assert vocab.stoi["<unk>"] not in a
    r = emb.order_comparison(model.E, a, b)
    assert r["same_sum"] and not r["same_matrix"]
    assert torch.allclose(r["sum_a"], emb.f64(model.E)[list(a)].sum(0))
    assert r["flat_a"] == 3 * 16 and (r["mlp_3"], r["mlp_5"]) == (48, 80)
    assert emb.order_comparison(model.E, a, a + a[:2])["flat_b"] == 5 * 16


def test_notes_batch_of_two_sentences_is_2_by_4_by_3():
    second = [NOTES.itos.index(w) for w in NOTES.second]
    r = emb.batch_embeddings(NOTES_E, [NOTES.ids, second], pad_id=0)
    assert r["shape"] == (2, 4, 3)
    assert r["mask"].tolist() == [[True, True, True, False], [True] * 4]
    assert r["X"][0, 3].abs().sum() == 0
    assert torch.equal(r["X"][1], emb.f64(NOTES_E)[second])
    with pytest.raises(InputError):
        emb.batch_embeddings(NOTES_E, [[0], []], pad_id=0)


# ---- other representations ---------------------------------------------------------------------

def test_word_hashing_trigrams_of_the_notes():
    rows = emb.hash_rows(["good", "apple", "Taipeiish"], 1000, known=["good"])
    assert rows[0]["trigrams"] == ["#go", "goo", "ood", "od#"]
    assert rows[1]["trigrams"] == ["#ap", "app", "ppl", "ple", "le#"]
    assert rows[0]["in_vocabulary"] and not rows[2]["in_vocabulary"]
    assert len(rows[2]["trigrams"]) == len("Taipeiish")  # an unknown word still gets trigrams


def test_a_subword_vocabulary_knows_its_word_initial_pieces():
    """The start model (BPE) lists ▁good and ▁Taipei in its vocabulary: the hashing table said
    "good" and "Taipei" were OOV. A piece inside a word (at, ood) is not the word."""
    from rnnviz.store.catalog import load_builtin

    _, vocab, _ = load_builtin("subword")
    inner = next(w for w in vocab.itos if w.isalpha() and len(w) > 2 and f"▁{w}" not in vocab.itos)
    words = ["good", "Taipei", "apple", inner]
    known = {r["word"]: r["in_vocabulary"] for r in emb.hash_rows(words, 1000, known=vocab.itos)}
    assert known == {w: f"▁{w}" in vocab.itos for w in words}
    assert known["good"] and known["Taipei"] and not known[inner]  # "ood"-like pieces are no words
    cased = emb.hash_rows(["Good", "taipei"], 1000, known=vocab.itos)  # BPE pieces are cased: ▁G o od
    assert [r["in_vocabulary"] for r in cased] == [False, False] and "▁Good" not in vocab.itos
    assert emb.hash_rows(["good"], 10, known=["good"])[0]["in_vocabulary"]  # a word-level vocabulary


@pytest.mark.parametrize("buckets", [1, 7, 1000])
def test_hash_signature_is_the_sparse_form_of_hash_word(buckets):
    for w in ("good", "apple", "cats", "a"):
        dense = hash_word(w, buckets)
        assert emb.hash_signature(w, buckets) == tuple((b, c) for b, c in enumerate(dense) if c)


def test_one_bucket_makes_every_trigram_collide_and_groups_words_by_length():
    words = ["cats", "dogs", "fish", "I", "a", "like", "<bos>"]
    r = emb.hash_collisions(words, 1)
    assert r["n_words"] == 6  # <bos> is left out
    assert len(r["buckets"]) == 1 and r["buckets"][0][0] == 0
    groups = sorted(sorted(g) for g in r["words"])
    assert groups == [["I", "a"], ["cats", "dogs", "fish", "like"]]


def test_collisions_disappear_with_many_buckets_for_distinct_spellings():
    r = emb.hash_collisions(["good", "apple"], 50_000)
    assert r["words"] == []
    with pytest.raises(InputError):
        emb.hash_collisions(["good"], 0)
    with pytest.raises(InputError):
        emb.hash_collisions(["good"], limits.MAX_HASH_BUCKETS + 1)


def test_memory_for_50000_words():
    rows = emb.memory_table(50_000, 256, 30_000)
    one_hot, hashing, dense = rows
    assert one_hot["numbers per word"] == 50_000 and one_hot["non-zeros per word"] == "1"
    assert one_hot["MB per word (stored dense)"] == pytest.approx(0.2)
    assert dense["first layer (MB)"] == pytest.approx(50_000 * 256 * 4 / 1e6)
    assert hashing["numbers per word"] == 30_000


def test_one_hot_vectors_are_all_sqrt2_apart():
    D = emb.pairwise_distances(emb.one_hot([0, 1, 2, 3], 5))
    off = D[~torch.eye(4, dtype=torch.bool)]
    assert torch.allclose(off, torch.full_like(off, math.sqrt(2)))


# ---- try it by hand --------------------------------------------------------------------------

def test_notes_exercise_diagnoses_the_notes_sign_slip():
    ex = emb.notes_exercise()
    assert emb.check_answer(ex, "update", "[-0.6, 0.9, -0.2]").ok
    v = emb.check_answer(ex, "update", "0.6, 0.9, -0.2")
    assert not v.ok and "Sign slip" in v.message and "0.6" in v.message and "-0.6" in v.message
    assert "learning rate" in emb.check_answer(ex, "update", "-2.4, 1.8, -2.9").message
    assert emb.check_answer(ex, "lookup", "-0.4 0.8 0.1").ok
    msg = emb.check_answer(ex, "lookup", "0.6 -0.5 0.9").message
    assert "dogs" in msg and "row 3" in msg


@pytest.mark.parametrize("seed", range(20))
def test_random_exercises_diagnose_each_kind_of_mistake(seed):
    ex = emb.make_exercise(seed)
    assert ex == emb.make_exercise(seed)
    E, i, g, lr = emb.f64(ex.E), ex.token_id, emb.f64(ex.g), ex.lr

    def say(v):
        return ", ".join(f"{x:.4f}" for x in v.tolist())

    want = E[i] - lr * g
    assert emb.check_answer(ex, "update", say(want)).ok
    assert emb.check_answer(ex, "lookup", say(E[i])).ok
    assert "learning rate" in emb.check_answer(ex, "update", say(E[i] - g)).message
    assert "added" in emb.check_answer(ex, "update", say(E[i] + lr * g)).message
    k = (i + 1) % len(E)
    assert f"id {k}" in emb.check_answer(ex, "lookup", say(E[k])).message
    j = int(torch.argmax(want.abs()))
    if want[j].abs() > 0.005:
        slip = want.clone()
        slip[j] = -slip[j]
        assert "Sign slip" in emb.check_answer(ex, "update", say(slip)).message
    assert not emb.check_answer(ex, "update", say(want + 1)).ok


def test_parse_vector_explains_typos():
    assert emb.parse_vector("[2, -1, 3]", 3).tolist() == [2, -1, 3]
    assert emb.parse_vector("2 −1 3", 3).tolist() == [2, -1, 3]  # a typographic minus
    with pytest.raises(InputError, match="not a number"):
        emb.parse_vector("2, x, 3", 3)
    with pytest.raises(InputError, match="needs 3"):
        emb.parse_vector("2, 3", 3)
    with pytest.raises(InputError):
        emb.parse_vector("", 3)
    with pytest.raises(InputError):
        emb.parse_vector("inf 1 2", 3)


def test_term_tables_window_around_the_row_and_keep_the_product():
    E = torch.randn(20, 4, dtype=torch.float64)
    rows = emb.one_hot_rows(E, 18, [str(k) for k in range(20)], radius=3)
    assert [r["k"] for r in rows] == list(range(13, 20))
    assert [r["x_k"] for r in rows].count(1) == 1
    assert rows[-2]["x_k · E[k]"] == formatting.vector(E[18])
    assert len(emb.one_hot_rows(E, 2, [str(k) for k in range(20)])) == 20
    out = emb.outer_rows(0, [2, -1, 3, 0.5], [str(k) for k in range(20)], radius=3)
    assert [r["k"] for r in out] == list(range(7))
    assert [out[0][f"x_k·g_{j}"] for j in range(1, 5)] == ["2", "-1", "3", "0.5"]


def test_sentence_three_ways_unknown_words_still_get_trigrams(default):
    model, vocab = default
    words = ["<bos>", "good", "cats"]
    ids = emb.word_ids(words, vocab)
    assert ids == [vocab.stoi["<bos>"], vocab.stoi["<unk>"], vocab.stoi["cats"]]
    rows = emb.representation_rows(words, ids, model.E, 100, vocab.itos)
    col = "word hashing (length 100)"
    assert "not hashed" in rows[0][col]
    assert "<unk>: unknown word" in rows[1]["one-hot (length V)"]
    for r, w in zip(rows[1:], words[1:]):
        assert r[col] == ", ".join(f"{c} at {b}" for b, c in emb.hash_signature(w, 100))
    assert rows[2]["one-hot (length V)"] == f"1 at position {vocab.stoi['cats']} of 79"
    from rnnviz.text.tokenize import Vocab
    assert emb.word_ids(["cats", "good"], Vocab(emb.NOTES_VOCAB)) == [2, None]
    dropped = emb.representation_rows(["good"], [None], NOTES_E, 100, emb.NOTES_VOCAB)[0]
    assert "dropped" in dropped["one-hot (length V)"] and dropped[col]


def test_distance_rows_one_hot_is_sqrt2_and_embedding_matches_torch(default):
    model, vocab = default
    ids, _ = sentence(vocab, "cats like cats")
    rows = emb.distance_rows(ids, model.E, vocab.itos)
    distinct = list(dict.fromkeys(ids))
    assert len(rows) == len(distinct) * (len(distinct) - 1) // 2
    E = model.E.detach().double()
    for r in rows:
        a, b = vocab.stoi[r["word a"]], vocab.stoi[r["word b"]]
        assert r["one-hot distance"] == formatting.num(math.sqrt(2))
        assert r["embedding distance"] == formatting.num(torch.dist(E[a], E[b]))


# ---- reviewer fixes: padding row, neighbour drift, short cells -------------------------------

def test_pad_note_names_the_real_row_of_id_0(default):
    _, vocab = default
    assert emb.pad_note(emb.NOTES_VOCAB, 0) == "id 0: in this vocabulary that is the row of “I”, a real word"
    assert emb.pad_note(vocab.itos, vocab.stoi["<pad>"]) == f"id {vocab.stoi['<pad>']}, the row of the <pad> token"


def _topk(E, i, k):
    C = F.cosine_similarity(E[:, None, :], E[None, :, :], dim=-1)[i].clone()  # (V,)
    C[i] = -math.inf
    return set(torch.topk(C, k).indices.tolist())


def test_neighbour_drift_against_cosine_topk():
    g = torch.Generator().manual_seed(3)
    E0 = torch.randn(12, 4, generator=g, dtype=torch.float64)
    E = E0.clone()
    E[7] = -E0[7] + 0.1  # one word turned right round: its neighbours change most
    itos = ["<pad>"] + [f"w{k}" for k in range(11)]
    r = emb.neighbour_drift(E, E0, itos, k=3)
    want_cos = F.cosine_similarity(E, E0, dim=1)
    assert r["mean_cos"] == pytest.approx(float(want_cos[1:].mean()))  # <pad> left out
    for i in range(1, 12):
        assert r["kept"][i] == len(_topk(E, i, 3) & _topk(E0, i, 3)) == emb.kept_neighbours(E, E0, i, 3)
    lowest = min(r["kept"].values())
    assert r["kept"][r["best"]] == lowest
    ties = [i for i in r["kept"] if r["kept"][i] == lowest]
    assert r["best"] == min(ties, key=lambda i: (float(want_cos[i]), i))
    same = emb.neighbour_drift(E0, E0, itos, k=3)
    assert same["mean_cos"] == pytest.approx(1.0) and set(same["kept"].values()) == {3}
    with pytest.raises(InputError):
        emb.neighbour_drift(E0, E0[:5], itos)


def test_default_model_drift_picks_a_word_whose_neighbours_changed(default):
    model, vocab = default
    E0 = emb.f64(RNNModel(model.cfg, seed=0).E)
    r = emb.neighbour_drift(model.E, E0, vocab.itos)
    assert 0 < r["mean_cos"] < 1 and vocab.itos[r["best"]] not in ("<pad>", "<unk>", "<bos>", "<eos>")
    assert r["kept"][r["best"]] == min(r["kept"].values())


def test_long_rows_are_cut_in_table_cells():
    E = torch.arange(32, dtype=torch.float64).reshape(2, 16) / 7
    rows = emb.one_hot_rows(E, 1, ["a", "b"])
    assert rows[1]["E[k]"] == formatting.vector(E[1], shown=emb.SHOWN) and rows[1]["E[k]"].endswith(", … (16 in all)]")
    assert rows[1]["E[k]"].startswith("[" + ", ".join(formatting.num(float(v)) for v in E[1, :emb.SHOWN]) + ", …")
    assert rows[0]["x_k · E[k]"] == "[" + "0, " * emb.SHOWN + "… (16 in all)]"
    assert formatting.vector([0.123456, 2]) == "[0.1235, 2]"  # 4 significant digits, as fmt


def test_dense_column_uses_the_page_format(default):
    model, vocab = default
    i = vocab.stoi["cats"]
    row = emb.representation_rows(["cats"], [i], model.E, 100, vocab.itos)[0]
    assert row["dense embedding (length 16)"] == formatting.vector(model.E[i])


def test_training_seed_only_when_recorded_and_drift_words(default):
    model, vocab = default
    from rnnviz.store.catalog import default_model as dm
    meta = dm()[2]
    assert emb.training_seed(meta) == 0
    # the recorded seed is the real start: the build script's RNNModel(cfg, seed=0)
    E0 = RNNModel(model.cfg, seed=emb.training_seed(meta)).E.detach()
    assert float(emb.row_cosines(model.E, E0)[4:].nanmean()) > 0.5  # far from a random match (~0)
    assert emb.training_seed({}) is None and emb.training_seed({"report": {}}) is None
    assert emb.training_seed({"report": {"train_config": {"seed": True}}}) is None
    assert [emb.drift_words(c) for c in (0.85, 0.6, 0.2)] == [
        "moved it only a little", "turned it part of the way", "turned it a lot"]


@pytest.mark.parametrize("seed", range(5))
def test_the_zh_exercise_is_the_same_exercise_in_chinese_words(seed):
    """Issue 25: in 中文 the exercise's vocabulary is Chinese; rows, id, g_e and lr are the same."""
    en, zh = emb.make_exercise(seed), emb.make_exercise(seed, "zh")
    assert (zh.E, zh.token_id, zh.g, zh.lr) == (en.E, en.token_id, en.g, en.lr)
    assert all(any("\u4e00" <= c <= "\u9fff" for c in w) for w in zh.itos) and len(set(zh.itos)) == len(en.itos)
    assert [emb._WORDS_ZH[emb._WORDS.index(w)] for w in en.itos] == list(zh.itos)
