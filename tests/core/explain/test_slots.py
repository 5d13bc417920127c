"""Slot-filling taggers: forward passes against oracles, the FNN's blindness to context,
the shipped taggers' held-out accuracies, slot extraction, metrics, files."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rnnviz.conventions import IGNORE, TAGS
from rnnviz.engine.taggers import KINDS, FNNTagger, hidden_states, kind_of, make_tagger, tag_probs
from rnnviz.errors import InputError
from rnnviz.explain.slots import (
    compare_word,
    confusion,
    evaluate,
    extract_slots,
    force_tag,
    revisions,
    scores,
    streaming_tags,
    tag_sentence,
    tagging_data,
    train_tagger,
    with_unknowns,
)
from rnnviz.store.tagger_files import TAGGERS_DIR, load_tagger, save_tagger
from rnnviz.text.corpora import tag_tensors
from tests.oracles import torch_rnn_like

ARRIVE, LEAVE = "Arrive Taipei on November 2nd", "Leave Taipei on November 2nd"
K = len(TAGS)


@pytest.fixture(scope="module")
def data():
    return tagging_data()


@pytest.fixture(scope="module")
def shipped():
    return {k: load_tagger((TAGGERS_DIR / f"{k}.pt").read_bytes()) for k in KINDS}


def _ids(T=6, V=20, B=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, V, (T,) if B is None else (B, T), generator=g)


# ---- forward passes against oracles ----------------------------------------------------------

@pytest.mark.parametrize("bidirectional", [False, True])
def test_elman_tagger_equals_torch_rnn(bidirectional):
    model = make_tagger("bi" if bidirectional else "elman", 20, hidden_size=7, seed=3).double()
    ids = _ids(B=3)
    rnn = torch_rnn_like(model)
    with torch.no_grad():
        h, _ = rnn(model.E[ids])  # (B, T, H_out)
        expected = h @ model.W_o.T + model.b_o  # (B, T, K)
        assert model(ids).shape == (3, 6, K)
        torch.testing.assert_close(model(ids), expected)
        torch.testing.assert_close(torch.as_tensor(hidden_states(model, ids[0])), h[0])


def test_jordan_tagger_equals_hand_loop():
    model = make_tagger("jordan", 20, hidden_size=5, seed=4).double()
    ids = _ids()
    with torch.no_grad():
        y = torch.zeros(K, dtype=torch.float64)
        zs = []
        for t in range(len(ids)):
            h = torch.tanh(model.W_x @ model.E[ids[t]] + model.W_y @ y + model.b_h)
            z = model.W_o @ h + model.b_o
            y = torch.softmax(z, 0)
            zs.append(z)
        torch.testing.assert_close(model(ids), torch.stack(zs))


def test_fnn_tagger_equals_hand_formula():
    model = make_tagger("fnn", 20, hidden_size=6, seed=5).double()
    ids = _ids()
    with torch.no_grad():
        expected = torch.stack([model.W_o @ torch.tanh(model.W_1 @ model.E[i] + model.b_1) + model.b_o
                                for i in ids])
        torch.testing.assert_close(model(ids), expected)


def test_fnn_tag_of_a_word_is_independent_of_its_neighbours():
    """Jacobian of z_t with respect to every other word's embedding is exactly zero."""
    model = make_tagger("fnn", 20, seed=1).double()
    ids = _ids(T=5)
    x = model.E[ids].detach()  # (T, d)

    def logits(x):
        return torch.tanh(x @ model.W_1.T + model.b_1) @ model.W_o.T + model.b_o  # (T, K)

    torch.testing.assert_close(logits(x), model(ids).detach())
    J = torch.autograd.functional.jacobian(logits, x)  # (T, K, T, d)
    for t in range(5):
        for s in range(5):
            if s != t:
                assert torch.count_nonzero(J[t, :, s]) == 0
        assert torch.count_nonzero(J[t, :, t]) > 0
    # and directly: any neighbours give the same probabilities for the word "7"
    base = tag_probs(model, [7])[0]
    for seed in range(5):
        ids = _ids(T=6, seed=seed)
        ids[3] = 7
        np.testing.assert_allclose(tag_probs(model, ids)[3], base, rtol=1e-12, atol=0)


def test_rnn_taggers_do_depend_on_the_left_neighbour():
    for kind in ("elman", "jordan", "bi"):
        model = make_tagger(kind, 20, seed=2)
        assert not np.allclose(tag_probs(model, [1, 7])[1], tag_probs(model, [2, 7])[1])


# ---- the shipped taggers ---------------------------------------------------------------------

def test_shipped_taggers_reach_the_recorded_heldout_accuracy(data, shipped):
    report = json.loads((TAGGERS_DIR / "taggers.json").read_text())
    assert report["heldout_sentences"] == len(data.heldout) > 100
    for kind, (model, vocab, _meta) in shipped.items():
        assert kind_of(model) == kind and vocab == data.vocab
        acc = evaluate(model, data)["accuracy"]
        recorded = report["taggers"][kind]["heldout_accuracy"]
        assert acc == pytest.approx(recorded, abs=0.002), kind
    accs = {k: v["heldout_accuracy"] for k, v in report["taggers"].items()}
    assert accs["bi"] >= accs["elman"] > accs["fnn"] + 0.03  # context helps, right context more


def test_shipped_files_are_small_and_safe_to_load():
    total = sum(p.stat().st_size for p in TAGGERS_DIR.iterdir())
    assert total < 1_000_000
    for kind in KINDS:
        obj = torch.load(TAGGERS_DIR / f"{kind}.pt", weights_only=True)
        assert obj["meta"]["kind"] == kind


def test_preset_pair_fnn_same_tag_elman_differs(shipped):
    fnn, vocab, _ = shipped["fnn"]
    a, b = tag_sentence(fnn, vocab, ARRIVE), tag_sentence(fnn, vocab, LEAVE)
    assert a.tags[1] == b.tags[1]
    np.testing.assert_allclose(a.probs[1], b.probs[1], rtol=1e-6, atol=0)
    elman = shipped["elman"][0]
    assert tag_sentence(elman, vocab, ARRIVE).tags[1] == "destination"
    assert tag_sentence(elman, vocab, LEAVE).tags[1] == "departure"
    bi = shipped["bi"][0]
    assert tag_sentence(bi, vocab, ARRIVE).tags[1] == "destination"
    assert tag_sentence(bi, vocab, LEAVE).tags[1] == "departure"


def test_hidden_state_at_taipei(shipped):
    vocab = shipped["fnn"][1]
    fnn = compare_word(shipped["fnn"][0], vocab, ARRIVE, LEAVE, "Taipei")
    assert fnn.position == 1 and fnn.distance == 0.0
    elman_model = shipped["elman"][0]
    pair = compare_word(elman_model, vocab, ARRIVE, LEAVE, "taipei")
    ids = torch.tensor(vocab.encode(ARRIVE.split())[0])
    assert hidden_states(elman_model, ids).shape == (5, 32)
    with torch.no_grad():  # oracle: the recurrence by hand from the weights
        h = torch.zeros(32)
        for t in range(2):
            h = torch.tanh(elman_model.W_x @ elman_model.E[ids[t]] + elman_model.W_h @ h
                           + elman_model.b_h)
    np.testing.assert_allclose(pair.h_a, h.double().numpy(), rtol=1e-5, atol=1e-6)
    assert pair.distance == pytest.approx(np.sqrt(((pair.h_a - pair.h_b) ** 2).sum()))
    assert pair.distance > 1.0
    bi = compare_word(shipped["bi"][0], vocab, ARRIVE, LEAVE, "Taipei")
    assert bi.h_a.shape == (64,)
    np.testing.assert_allclose(bi.h_a[32:], bi.h_b[32:], atol=1e-6)  # same right context
    with pytest.raises(InputError):
        compare_word(elman_model, vocab, ARRIVE, LEAVE, "Paris")


def test_unknown_words_read_as_unk(shipped):
    model, vocab, _ = shipped["elman"]
    tagged = tag_sentence(model, vocab, "Arrive Qwertyville on November 2nd")
    assert tagged.words[1] == "<unk>" and tagged.tokens[1] == "Qwertyville"
    assert tagged.tags[1] == "destination"  # trained with <unk> copies: context decides
    assert tagged.notices == ()
    with pytest.raises(InputError):
        tag_sentence(model, vocab, "   ")
    long = tag_sentence(model, vocab, "Arrive " * 300)
    assert len(long.tags) == 200 and "100 more were dropped" in long.notices[0]


def test_jordan_forced_tag_propagates_elman_does_not(shipped):
    vocab = shipped["jordan"][1]
    ids = vocab.encode(ARRIVE.split())[0]
    for kind in ("jordan", "elman"):
        model = shipped[kind][0]
        clean = tag_probs(model, ids)
        forced = force_tag(model, ids, 0, "date")
        assert forced[0].argmax() == TAGS.index("date")
        if kind == "elman":
            np.testing.assert_allclose(forced[1:], clean[1:])
        else:
            assert np.abs(forced[1] - clean[1]).sum() > 0.5
            assert TAGS[forced[1].argmax()] != TAGS[clean[1].argmax()]
    with pytest.raises(InputError):
        force_tag(shipped["elman"][0], ids, 9, "date")


# ---- slots, metrics, training, files ---------------------------------------------------------

def test_extract_slots():
    toks = "Leave Boston and arrive in New York on May 5th at 5 pm".split()
    tags = ["other", "departure", "other", "other", "other", "destination", "destination",
            "other", "date", "date", "other", "time", "time"]
    assert extract_slots(toks, tags) == {"Destination": "New York", "Departure": "Boston",
                                         "Date": "May 5th", "Time": "5 pm",
                                         "Date/time of": "arrival"}
    assert extract_slots(["Paris", "or", "Rome"], ["destination", "other", "destination"]) == \
        {"Destination": "Paris / Rome", "Departure": "", "Date": "", "Time": "", "Date/time of": ""}
    # the notes' example: "Time of Arrival: November 2nd"
    notes = extract_slots(ARRIVE.split(), ["other", "destination", "other", "date", "date"])
    assert (notes["Destination"], notes["Date"], notes["Date/time of"]) == \
        ("Taipei", "November 2nd", "arrival")
    leave = extract_slots("at 5 pm leave Boston".split(),
                          ["other", "time", "time", "other", "departure"])
    assert leave["Date/time of"] == "departure" and leave["Time"] == "5 pm"


def test_confusion_and_scores_against_a_direct_count():
    rng = np.random.default_rng(0)
    gold = torch.as_tensor(rng.integers(0, K, (7, 9)))
    pred = torch.as_tensor(rng.integers(0, K, (7, 9)))
    gold[0, 5:] = IGNORE
    cm = confusion(gold, pred)
    valid = [(int(g), int(p)) for g, p in zip(gold.flatten(), pred.flatten()) if g != IGNORE]
    for i in range(K):
        for j in range(K):
            assert cm[i, j] == sum(1 for g, p in valid if (g, p) == (i, j))
    s = scores(cm)
    assert s["accuracy"] == pytest.approx(np.mean([g == p for g, p in valid]))
    for i, tag in enumerate(TAGS):
        tp = sum(1 for g, p in valid if g == p == i)
        fp = sum(1 for g, p in valid if p == i and g != i)
        fn = sum(1 for g, p in valid if g == i and p != i)
        assert s["f1"][tag] == pytest.approx(2 * tp / (2 * tp + fp + fn))


def test_training_lowers_the_loss_and_is_deterministic(data):
    m1, h1 = train_tagger("elman", data, hidden_size=8, steps=30, seed=1)
    m2, h2 = train_tagger("elman", data, hidden_size=8, steps=30, seed=1)
    assert [r["loss"] for r in h1] == [r["loss"] for r in h2]
    assert h1[-1]["loss"] < h1[0]["loss"]
    ids, tags = tag_tensors(data.train[:20], data.vocab)
    with torch.no_grad():
        loss = F.cross_entropy(m1(ids).reshape(-1, K), tags.reshape(-1), ignore_index=IGNORE)
    assert float(loss) < h1[0]["loss"]
    stopped = train_tagger("fnn", data, steps=30, callback=lambda r: r["step"] < 5)[1]
    assert len(stopped) == 5


def test_with_unknowns_keeps_tags_and_adds_a_copy(data):
    out = with_unknowns(data.train[:50], rate=0.5, seed=0)
    assert len(out) == 100 and out[:50] == list(data.train[:50])
    assert any("<unk>" in toks for toks, _ in out[50:])
    assert [tags for _, tags in out[50:]] == [tags for _, tags in data.train[:50]]


@pytest.mark.parametrize("kind", KINDS)
def test_save_load_roundtrip(kind, data):
    model = make_tagger(kind, len(data.vocab), hidden_size=4, seed=0)
    loaded, vocab, meta = load_tagger(save_tagger(model, data.vocab, {"kind": kind}))
    assert vocab == data.vocab and meta["kind"] == kind and kind_of(loaded) == kind
    ids = _ids(V=len(vocab))
    torch.testing.assert_close(loaded(ids), model(ids))
    assert isinstance(loaded, FNNTagger) == (kind == "fnn")


def test_load_tagger_refuses_garbage():
    with pytest.raises(InputError):
        load_tagger(b"not a file")


def test_streaming_tags_only_the_bidirectional_tagger_revises(shipped):
    vocab = shipped["bi"][1]
    ids = vocab.encode("Tokyo is my departure".split())[0]
    for kind in ("fnn", "elman", "jordan"):
        rows = streaming_tags(shipped[kind][0], ids)
        full = [TAGS[k] for k in tag_probs(shipped[kind][0], ids).argmax(1)]
        assert all(row == full[: n + 1] for n, row in enumerate(rows))
    rows = streaming_tags(shipped["bi"][0], ids)
    assert [len(r) for r in rows] == [1, 2, 3, 4]
    assert rows[-1][0] == "departure" and rows[0][0] != "departure"  # revised when the end came
    assert revisions(rows) == sum(r[0] != "departure" for r in rows) >= 1
    assert revisions([["a"], ["a", "b"], ["c", "b"]], t=1) == 0


@pytest.mark.parametrize("seed", range(6))
def test_jordan_exercise_and_checker(seed):
    from rnnviz.engine.model import step
    from rnnviz.explain.slots import check_jordan, jordan_exercise
    ex = jordan_exercise(seed)
    again = jordan_exercise(seed)  # reproducible from the seed
    assert all(np.array_equal(getattr(ex, f), getattr(again, f))
               for f in ("W_x", "x", "W_y", "prev_tag", "b"))
    t = {k: torch.as_tensor(v, dtype=torch.float64) for k, v in
         (("x", ex.x), ("y", ex.y_prev), ("W_x", ex.W_x), ("W_y", ex.W_y), ("b", ex.b))}
    a, _ = step(t["x"], t["y"], t["W_x"], t["W_y"], t["b"], "linear")  # the model's own step
    np.testing.assert_allclose(ex.answer(), a.numpy())
    assert check_jordan(ex, a.tolist())[0]
    fb = ex.W_y[:, ex.prev_tag]  # one-hot y_prev picks this column
    cases = {"W_y y_prev": ex.W_x @ ex.x + ex.b, "bias": ex.W_x @ ex.x + fb,
             "transposed": ex.W_x.T @ ex.x + fb + ex.b, "Sign slip": ex.W_x @ ex.x - fb + ex.b}
    for needle, wrong in cases.items():
        ok, msg = check_jordan(ex, wrong.tolist())
        assert not ok and needle in msg
    assert not check_jordan(ex, (ex.answer() + 100).tolist())[0]
    for bad in (["x", "1"], [1.0], [float("nan"), 1.0]):
        with pytest.raises(InputError):
            check_jordan(ex, bad)


def test_figures_carry_the_numbers():
    from rnnviz.figures.slots import confusion_figure, forced_change, hidden_pair, tag_grid
    rng = np.random.default_rng(1)
    p = {name: rng.dirichlet(np.ones(K), size=3) for name in ("A", "B")}
    fig = tag_grid(["x", "y", "x"], p)
    hm = fig.data[0]
    assert list(hm.x) == ["A", "B"] and list(hm.y) == ["1 x", "2 y", "3 x"]
    for j, name in enumerate(p):
        for t in range(3):
            k = int(p[name][t].argmax())
            assert int(np.asarray(hm.z)[t, j]) == k
            assert hm.text[t][j] == f"{TAGS[k]} ({p[name][t, k]:.2f})"
    cm = np.arange(K * K).reshape(K, K)
    cfig = confusion_figure(cm, "cm")
    assert np.asarray(cfig.data[0].text).tolist() == cm.astype(str).tolist()
    hp = hidden_pair([0.1, -0.2], [0.3, 0.4], "a", "b", "t")
    assert list(hp.data[0].y) == [0.1, -0.2] and list(hp.data[1].y) == [0.3, 0.4]
    fc = forced_change(["a", "b"], {"J": [1.0, 0.5]}, 0, "t")
    assert list(fc.data[0].y) == [1.0, 0.5] and fc.layout.xaxis.title.text


def test_figures_show_the_tag_names_they_are_given():
    """tag_names (目的地 for destination, ...) replace the codes in the grid's cells, hover and
    legend and on the confusion matrix's axes; the colours and z stay by code."""
    from rnnviz.figures.slots import TAG_COLOURS, confusion_figure, loss_curve, tag_grid
    names = dict(zip(TAGS, ("其他", "目的地", "出发地", "日期", "时间")))
    p = {"A": np.eye(K)[[1, 2]] * 0.9 + 0.02}
    fig = tag_grid(["台", "北"], p, tag_names=names)
    assert fig.data[0].text[0][0].startswith("目的地 (") and fig.data[0].text[1][0].startswith("出发地 (")
    assert "p(目的地)" in fig.data[0].customdata[0][0] and "destination" not in fig.data[0].customdata[0][0]
    legend = {d.name: d.marker.color for d in fig.data[1:]}
    assert legend == {names[tag]: TAG_COLOURS[tag] for tag in TAGS}
    assert [int(z) for z in np.asarray(fig.data[0].z)[:, 0]] == [1, 2]
    cfig = confusion_figure(np.eye(K), "cm", tag_names=names)
    assert list(cfig.data[0].x) == list(cfig.data[0].y) == list(names.values())
    lc = loss_curve([{"step": 1, "loss": 2.0}], "t", labels={"opt_step": "优化步", "loss": "损失"})
    assert lc.data[0].hovertemplate.startswith("优化步 %{x}<br>损失")


def test_training_settings_are_bounded(data):
    with pytest.raises(InputError):
        train_tagger("elman", data, steps=0)
    with pytest.raises(InputError):
        train_tagger("bi", data, hidden_size=0, steps=1)
    with pytest.raises(InputError):
        make_tagger("gru", 10)


def test_the_pages_claims_about_the_shipped_taggers(data, shipped):
    """What prose/slots.md says in words (not numbers) holds for the shipped files."""
    vocab = shipped["fnn"][1]
    cm = np.asarray(evaluate(shipped["fnn"][0], data)["confusion"])
    errors = cm.sum() - np.trace(cm)
    cities = [TAGS.index("destination"), TAGS.index("departure")]
    assert errors > 0 and (cm[cities].sum() - cm[cities, cities].sum()) >= 0.9 * errors
    jordan = shipped["jordan"][0]
    for text in (ARRIVE, LEAVE):  # y_1 is "other" after both verbs: Jordan's memory is the same
        assert tag_sentence(jordan, vocab, text).tags[0] == "other"
    pair = compare_word(jordan, vocab, ARRIVE, LEAVE, "Taipei")
    assert pair.distance < 0.01 < compare_word(shipped["elman"][0], vocab, ARRIVE, LEAVE,
                                               "Taipei").distance
