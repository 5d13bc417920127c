"""Note 004's flattened FNN, the fifth tagger: forward pass by hand, context on both sides but
no sharing across positions, a fixed length, the shipped file's held-out scores, files."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from rnnviz.conventions import TAGS
from rnnviz.engine.taggers import (
    ALL_KINDS,
    FLAT,
    FLAT_LEN,
    KINDS,
    LABELS,
    FlatFNNTagger,
    context_reach,
    hidden_states,
    kind_of,
    make_tagger,
    param_count,
)
from rnnviz.errors import InputError
from rnnviz.explain.slots import (
    compare_word,
    evaluate,
    force_tag,
    shifted_heldout,
    tag_sentence,
    tagging_data,
    train_tagger,
)
from rnnviz.store.tagger_files import TAGGERS_DIR, load_tagger, save_tagger

ARRIVE, LEAVE = "Arrive Taipei on November 2nd", "Leave Taipei on November 2nd"
K = len(TAGS)


@pytest.fixture(scope="module")
def data():
    return tagging_data()


@pytest.fixture(scope="module")
def shipped():
    return {k: load_tagger((TAGGERS_DIR / f"{k}.pt").read_bytes()) for k in ALL_KINDS}


def test_forward_equals_the_flattened_formula():
    model = make_tagger(FLAT, 20, hidden_size=6, seed=5).double()
    assert kind_of(model) == FLAT and KINDS == ("fnn", "elman", "jordan", "bi") and FLAT in LABELS
    ids = torch.tensor([3, 7, 1, 9])
    with torch.no_grad():
        padded = torch.cat([ids, torch.zeros(FLAT_LEN - 4, dtype=torch.long)])  # <pad> is id 0
        x = torch.cat([model.E[i] for i in padded])  # (L*d,)
        z = model.W_o @ torch.tanh(model.W_1 @ x + model.b_1) + model.b_o  # (L*K,)
        torch.testing.assert_close(model(ids), z.view(FLAT_LEN, K)[:4])
        batch = torch.stack([ids, torch.tensor([2, 2, 0, 0])])
        torch.testing.assert_close(model(batch)[0], model(ids))
    assert model.W_1.shape == (6, FLAT_LEN * 16) and model.W_o.shape == (FLAT_LEN * K, 6)
    assert param_count(model) == 20 * 16 + 6 * FLAT_LEN * 16 + 6 + FLAT_LEN * K * 6 + FLAT_LEN * K
    with pytest.raises(InputError, match="fixed 12 words"):
        model(torch.zeros(FLAT_LEN + 1, dtype=torch.long))


def test_context_reach_full_for_flat_diagonal_for_per_word():
    ids = [3, 7, 1, 9, 4]
    flat = context_reach(make_tagger(FLAT, 20, seed=1), ids)
    fnn = context_reach(make_tagger("fnn", 20, seed=1), ids)
    assert flat.shape == fnn.shape == (5, 5)
    assert (flat > 0).all()  # every word reaches every tag, right context included
    assert (np.diag(fnn) > 0).all() and np.count_nonzero(fnn - np.diag(np.diag(fnn))) == 0
    # oracle: finite differences of one tag's logits when one word's vector moves
    model = make_tagger(FLAT, 20, seed=1).double()
    with torch.no_grad():
        x = model.embed(torch.tensor(ids))
        d, eps = model.cfg.embed_dim, 1e-6
        J = torch.zeros(K, d, dtype=torch.float64)
        for j in range(d):
            e = torch.zeros_like(x)
            e[4 * d + j] = eps  # word 5
            J[:, j] = (model.from_input(x + e, 5)[0] - model.from_input(x - e, 5)[0]) / (2 * eps)
    assert float(J.norm()) == pytest.approx(flat[0, 4], rel=1e-6)
    with pytest.raises(InputError):
        context_reach(make_tagger("elman", 20), ids)


def test_shipped_flat_tagger_scores_as_recorded(data, shipped):
    report = json.loads((TAGGERS_DIR / "taggers.json").read_text())
    model, vocab, meta = shipped[FLAT]
    assert isinstance(model, FlatFNNTagger) and vocab == data.vocab and meta["kind"] == FLAT
    scores = evaluate(model, data)
    entry = report["taggers"][FLAT]
    assert scores["accuracy"] == pytest.approx(entry["heldout_accuracy"], abs=0.002)
    for tag in TAGS:
        assert scores["f1"][tag] == pytest.approx(entry["heldout_f1"][tag], abs=0.005)
    # context on both sides: it beats the per-word FNN on the cities
    fnn = report["taggers"]["fnn"]
    assert entry["heldout_accuracy"] > fnn["heldout_accuracy"] + 0.05
    assert entry["heldout_f1"]["destination"] > fnn["heldout_f1"]["destination"] + 0.3
    assert tag_sentence(model, vocab, ARRIVE).tags[1] == "destination"
    assert tag_sentence(model, vocab, LEAVE).tags[1] == "departure"


def test_no_sharing_across_positions_costs_it_when_slots_move(data, shipped):
    """One extra word in front: the RNN taggers shrug, the flattened FNN falls apart."""
    moved = shifted_heldout(data)
    assert all(t[0] == "please" and t[1:] == list(s[0]) for t, s in zip((m[0] for m in moved.heldout), data.heldout))
    acc = {k: evaluate(shipped[k][0], moved)["accuracy"] for k in (FLAT, "elman", "bi")}
    assert acc[FLAT] < evaluate(shipped[FLAT][0], data)["accuracy"] - 0.2
    assert acc["elman"] > 0.9 and acc["bi"] > 0.9 and acc[FLAT] < acc["elman"] - 0.2


def test_one_hidden_vector_per_sentence_and_a_fixed_length(shipped):
    model, vocab, _ = shipped[FLAT]
    ids = vocab.encode(ARRIVE.split())[0]
    h = hidden_states(model, ids)
    assert h.shape == (5, 32) and np.allclose(h, h[0])
    pair = compare_word(model, vocab, ARRIVE, LEAVE, "Taipei")
    assert pair.distance > 0  # Leave vs Arrive changes the whole sentence's vector
    with pytest.raises(InputError, match="fixed 12 words"):
        tag_sentence(model, vocab, " ".join(["Arrive"] * (FLAT_LEN + 1)))
    with pytest.raises(InputError):
        force_tag(model, ids, 0, "date")


def test_training_save_load(data):
    m1, h1 = train_tagger(FLAT, data, hidden_size=8, steps=20, seed=1)
    m2, h2 = train_tagger(FLAT, data, hidden_size=8, steps=20, seed=1)
    assert [r["loss"] for r in h1] == [r["loss"] for r in h2] and h1[-1]["loss"] < h1[0]["loss"]
    assert torch.equal(m1.W_1, m2.W_1)
    loaded, vocab, meta = load_tagger(save_tagger(m1, data.vocab, {"kind": FLAT}))
    assert isinstance(loaded, FlatFNNTagger) and vocab == data.vocab and meta["kind"] == FLAT
    ids = torch.tensor(vocab.encode(ARRIVE.split())[0])
    torch.testing.assert_close(loaded(ids), m1(ids))
    bad = torch.load(__import__("io").BytesIO(save_tagger(m1, data.vocab)), weights_only=True)
    bad["config"]["max_len"] = 0
    buf = __import__("io").BytesIO()
    torch.save(bad, buf)
    with pytest.raises(InputError):
        load_tagger(buf.getvalue())
