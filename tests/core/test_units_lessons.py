"""The lessons around the unit search (rnnviz.explain.units): properties over a text, the held-out
split, and the prose's worked example on page 5's shipped Elman taggers, checked piece by piece
against plain references (pair-counted AUC, the tagger's own probabilities, a hand-held unit)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from rnnviz.conventions import TAGS
from rnnviz.engine import units
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.taggers import tag_probs
from rnnviz.explain import slots
from rnnviz.explain import units as lessons
from rnnviz.store import catalog, tagger_files
from rnnviz.text.tokenize import Vocab, prepare

pytestmark = pytest.mark.core


def _pairs_auc(x, pos, neg) -> float:
    a, b = x[pos][:, None], x[neg][None, :]
    return float(((a > b) + 0.5 * (a == b)).mean())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_slot_example(lang):
    if lang == "en":
        data = slots.tagging_data()
        model = tagger_files.load_tagger((tagger_files.TAGGERS_DIR / "elman.pt").read_bytes())[0]
        pair = ("Arrive Taipei on November 2nd", "Leave Taipei on November 2nd", "Taipei")
    else:
        data = catalog.zh_tagging_data()
        model = catalog.zh_taggers()["elman"][0]
        pair = ("十一月二日到达台北", "十一月二日离开台北", "台北")
    ex = lessons.slot_example(model, data, pair)
    u = ex["unit"]
    # the ranking: the largest |d| of all units, on the training sentences
    fit = lessons.slot_labelled(model, data.vocab, data.train, "destination", "departure")
    d = units.selectivity(fit.h, fit.pos, fit.neg)
    assert u == int(torch.argmax(d.abs())) and ex["d"] == pytest.approx(float(d[u]))
    # its AUC on the held-out sentences, by counting pairs
    held = lessons.slot_labelled(model, data.vocab, data.heldout, "destination", "departure")
    x = (held.h[:, u] * np.sign(ex["d"])).numpy()
    assert ex["auc"] == pytest.approx(_pairs_auc(x, held.pos.numpy(), held.neg.numpy()), abs=1e-12)
    assert ex["auc"] > 0.9 and ex["tracked"]
    assert ex["value"] == pytest.approx(float(fit.h[:, u].mean()))
    dest, dep = TAGS.index("destination"), TAGS.index("departure")
    for row, text, want in zip(ex["rows"], pair[:2], ("destination", "departure")):
        prep = prepare(text, data.vocab)
        p = tag_probs(model, prep.ids)
        assert row["dest"] == pytest.approx(p[row["position"], dest], abs=1e-6)
        assert row["dep"] == pytest.approx(p[row["position"], dep], abs=1e-6)
        assert row["tag"] == want
        held_p = units.clamp_effect(model, prep.ids, u, ex["value"], lm=False)["p_clamped"]
        assert row["dest_clamped"] == pytest.approx(float(held_p[row["position"], dest]))


def test_search_text_holds_out_whole_lines():
    fit, held = lessons.split_lines([f"l{i}" for i in range(7)])
    assert held == ["l2", "l5"] and fit == ["l0", "l1", "l3", "l4", "l6"]
    words = "the cat said \" go home now \" and the dog said \" stay \" here".split()
    vocab = Vocab.build([words])
    model = RNNModel(RNNConfig(len(vocab), 4, 6), seed=0).eval()
    lines = [" ".join(words)] * 6
    out = lessons.search_text(model, vocab, lines, "quotes")
    assert not out["in_sample"] and len(out["rows"]) == 6
    one = lessons.search_text(model, vocab, lines[:1], "quotes")
    assert one["in_sample"]
    h = units.states_of(model, [prepare(lines[0], vocab).ids])[0]
    got = lessons.search_sentence(h, prepare(lines[0], vocab).tokens, "span", span=(3, 5))
    want = units.unit_search(h, units.span_mask(len(words), 3, 5), None, torch.Generator().manual_seed(0))
    assert got == want


def test_states_of_equals_one_by_one():
    model = RNNModel(RNNConfig(9, 3, 4, bidirectional=True), seed=1).eval()
    lists = [[1, 2, 3], [4, 5], [6, 7, 8], [0]]
    for ids, h in zip(lists, units.states_of(model, lists)):
        assert torch.allclose(h, units.run_probs(model, ids)[1], atol=1e-6)
