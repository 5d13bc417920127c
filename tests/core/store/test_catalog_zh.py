"""The built-in Chinese models: the character-level LM (sizes, its reported perplexities
re-evaluated, the default sentence without <unk>, equal to torch.nn.RNN), the notes' 狗咬人 /
人咬狗 and 到达台北 / 离开台北 presets computed live, and the four Chinese slot taggers."""
from __future__ import annotations

import copy
import io
import json

import numpy as np
import pandas as pd
import pytest
import torch

from rnnviz.engine.taggers import FLAT, KINDS, context_reach, kind_of
from rnnviz.engine.trace import trace
from rnnviz.engine.train import perplexity
from rnnviz.explain.embedding import order_comparison as embedding_order
from rnnviz.explain.hidden import order_comparison as hidden_order
from rnnviz.explain.slots import ZH_SHIFT_PREFIX, compare_word, evaluate, shifted_heldout, tag_sentence
from rnnviz.store.catalog import (
    BUILTINS,
    PRETRAINED,
    ZH_TAGGERS_DIR,
    load_builtin,
    zh_flat_tagger,
    zh_model,
    zh_taggers,
    zh_taggers_report,
    zh_tagging_data,
    zh_training_report,
)
from rnnviz.store.export import csv_bytes, trace_frame
from rnnviz.text.corpora import (
    TAGS,
    ZH_DEFAULT_SENTENCE,
    ZH_ORDER_PAIR,
    ZH_SLOT_PAIR,
    ZH_SLOT_WORD,
    lm_pair,
    lm_tensors,
)
from rnnviz.text.tokenize import UNK, prepare
from scripts.build_zh import lm_splits
from tests.oracles import torch_rnn_like

MAX_BYTES = 2_000_000


@pytest.fixture(scope="module")
def lm():
    return zh_model()


@pytest.fixture(scope="module")
def taggers():
    return zh_taggers()


def _final_state(model, ids) -> torch.Tensor:
    """Oracle: torch.nn.RNN with the model's weights, h_T for one sentence."""
    model = copy.deepcopy(model).double()
    rnn = torch_rnn_like(model)
    with torch.no_grad():
        out, _ = rnn(model.E[torch.tensor(ids)].unsqueeze(0))  # (1, T, H)
    return out[0, -1]


# ---- the language model ------------------------------------------------------------------

def test_files_are_small_and_registered():
    assert (PRETRAINED / "zh_lm.pt").stat().st_size < MAX_BYTES
    for kind in KINDS:
        assert (ZH_TAGGERS_DIR / f"{kind}.pt").stat().st_size < MAX_BYTES
        obj = torch.load(ZH_TAGGERS_DIR / f"{kind}.pt", weights_only=True)
        assert obj["meta"]["kind"] == kind and obj["meta"]["language"] == "zh"
    assert BUILTINS["zh"].default_sentence == ZH_DEFAULT_SENTENCE == "我喜欢猫，也喜欢狗。"
    model, vocab, meta = load_builtin("zh")
    assert model.cfg.vocab_size == len(vocab) == zh_training_report()["vocab_size"]
    assert meta["report"] == zh_training_report()


def test_default_sentence_has_no_unknown(lm):
    _, vocab, _ = lm
    prep = prepare(ZH_DEFAULT_SENTENCE, vocab)
    assert prep.tokens == tuple(ZH_DEFAULT_SENTENCE) and prep.unknown == ()
    assert UNK not in vocab.decode(prep.ids) and prep.tokenizer == "zh_char"
    english = prepare("我喜欢 Python", vocab)
    assert english.unknown == ("Python",)  # English words read as <unk>, with a notice
    assert any("Python" in n for n in english.notices)


def test_reported_perplexities_hold(lm):
    """Re-evaluated on the held-out split (rebuilt from the corpora) equal the JSON; far
    better than a uniform guess over the vocabulary, for everyday and travel sentences."""
    model, vocab, _ = lm
    report = zh_training_report()
    splits = lm_splits()
    test_s = [s for _, te in splits.values() for s in te]
    assert report["heldout_sentences"] == len(test_s) > 300
    ppl = perplexity(model, *lm_tensors(test_s, vocab))
    assert ppl == pytest.approx(report["heldout_perplexity"], rel=1e-3)
    for name, (_, te) in splits.items():
        got = perplexity(model, *lm_tensors(te, vocab))
        assert got == pytest.approx(report["heldout_perplexity_by_corpus"][name], rel=1e-3)
        assert got < report["uniform_perplexity"] / 5, name
    assert report["uniform_perplexity"] == len(vocab)


def test_perplexity_is_exp_of_the_mean_cross_entropy(lm):
    """Oracle: the log-probabilities of each target character, summed by hand in float64."""
    model, vocab, _ = lm
    ids = list(prepare(ZH_DEFAULT_SENTENCE, vocab).ids)
    inp, tgt = lm_pair(ids, vocab)
    tr = trace(model, inp, tgt)
    logp = torch.log_softmax(tr.z.double(), -1)  # (T, V)
    nll = -sum(float(logp[t, tgt[t]]) for t in range(len(tgt)))
    x, y = lm_tensors([list(ZH_DEFAULT_SENTENCE)], vocab)
    assert perplexity(model, x, y) == pytest.approx(np.exp(nll / len(tgt)), rel=1e-5)
    assert float(tr.loss) == pytest.approx(nll, rel=1e-5)


def test_lm_equals_torch_rnn_on_the_default_sentence(lm):
    model, vocab, _ = lm
    ids = list(prepare(ZH_DEFAULT_SENTENCE, vocab).ids)
    tr = trace(model, ids)
    torch.testing.assert_close(tr.h[-1].double(), _final_state(model, ids), rtol=1e-5, atol=1e-6)


# ---- the notes' presets in Chinese ---------------------------------------------------------

def test_dog_bites_man_same_sum_different_final_state(lm):
    """狗咬人 / 人咬狗: the sum of embeddings (a bag of characters) is the same, the final hidden
    state is not (checked against torch.nn.RNN)."""
    model, vocab, _ = lm
    ids_a, ids_b = (list(prepare(s, vocab).ids) for s in ZH_ORDER_PAIR)
    assert sorted(ids_a) == sorted(ids_b) and ids_a != ids_b
    emb = embedding_order(model.E.detach(), ids_a, ids_b)
    assert emb["same_sum"] and not emb["same_matrix"]
    direct = model.E.detach().double()[ids_a].sum(0) - model.E.detach().double()[ids_b].sum(0)
    assert float(direct.abs().max()) < 1e-12
    tr_a, tr_b = trace(model, ids_a), trace(model, ids_b)
    cmp = hidden_order(tr_a.x, tr_b.x, tr_a.h, tr_b.h)
    assert cmp["same_bag"] and cmp["sum_diff"] < 1e-6
    h_a, h_b = _final_state(model, ids_a), _final_state(model, ids_b)
    assert cmp["final_diff"] == pytest.approx(float((h_a - h_b).norm()), rel=1e-4)
    assert cmp["final_diff"] > 0.1


def test_slot_pair_fnn_same_tag_elman_and_bi_separate(taggers):
    fnn, vocab, _ = taggers["fnn"]
    arrive, leave = ZH_SLOT_PAIR
    pos = [arrive.index(ZH_SLOT_WORD), arrive.index(ZH_SLOT_WORD) + 1]  # 台, 北
    a, b = tag_sentence(fnn, vocab, arrive), tag_sentence(fnn, vocab, leave)
    for t in pos:
        assert a.tags[t] == b.tags[t]
        np.testing.assert_allclose(a.probs[t], b.probs[t], rtol=1e-6, atol=0)
    for kind in ("elman", "bi"):
        model = taggers[kind][0]
        assert [tag_sentence(model, vocab, arrive).tags[t] for t in pos] == ["destination"] * 2
        assert [tag_sentence(model, vocab, leave).tags[t] for t in pos] == ["departure"] * 2


def test_hidden_state_at_taipei(taggers):
    vocab = taggers["fnn"][1]
    arrive, leave = ZH_SLOT_PAIR
    assert compare_word(taggers["fnn"][0], vocab, arrive, leave, "台").distance == 0.0
    elman = taggers["elman"][0]
    pair = compare_word(elman, vocab, arrive, leave, "台")
    ids = list(prepare(arrive, vocab).ids)
    with torch.no_grad():  # oracle: the recurrence by hand
        h = torch.zeros(elman.cfg.hidden_size)
        for t in range(3):
            h = torch.tanh(elman.W_x @ elman.E[ids[t]] + elman.W_h @ h + elman.b_h)
    np.testing.assert_allclose(pair.h_a, h.double().numpy(), rtol=1e-5, atol=1e-6)
    assert pair.position == 2 and pair.distance > 1.0
    bi = compare_word(taggers["bi"][0], vocab, arrive, leave, "北")
    H = taggers["bi"][0].cfg.hidden_size
    np.testing.assert_allclose(bi.h_a[H:], bi.h_b[H:], atol=1e-6)  # the same right context


# ---- the taggers --------------------------------------------------------------------------

def test_taggers_reach_the_recorded_heldout_scores(taggers):
    data = zh_tagging_data()
    report = zh_taggers_report()
    assert report == json.loads((ZH_TAGGERS_DIR / "zh_taggers.json").read_text(encoding="utf-8"))
    assert report["heldout_sentences"] == len(data.heldout) > 100
    for kind, (model, vocab, _meta) in taggers.items():
        assert kind_of(model) == kind and vocab == data.vocab
        scores = evaluate(model, data)
        entry = report["taggers"][kind]
        assert scores["accuracy"] == pytest.approx(entry["heldout_accuracy"], abs=0.002), kind
        for tag in TAGS:
            assert scores["f1"][tag] == pytest.approx(entry["heldout_f1"][tag], abs=0.002)
    accs = {k: v["heldout_accuracy"] for k, v in report["taggers"].items()}
    assert accs["bi"] >= accs["elman"] > accs["fnn"] + 0.05  # context helps, right context more


def test_tagging_a_mixed_and_an_unseen_sentence(taggers):
    model, vocab, _ = taggers["bi"]
    tagged = tag_sentence(model, vocab, "我想从上海飞到北京")
    assert tagged.tags[3:5] == ("departure", "departure")
    assert tagged.tags[7:9] == ("destination", "destination")
    odd = tag_sentence(model, vocab, "到达Qwerty")
    assert odd.words[2] == UNK and len(odd.tags) == 3


def test_chinese_csv_round_trip(lm):
    """The token table of a Chinese sentence read back from the CSV bytes gives the same text."""
    model, vocab, _ = lm
    ids = list(prepare(ZH_DEFAULT_SENTENCE, vocab).ids)
    inp, tgt = lm_pair(ids, vocab)
    df = trace_frame(trace(model, inp, tgt), vocab, "tokens")
    raw = csv_bytes(df)
    back = pd.read_csv(io.BytesIO(raw), encoding="utf-8-sig", keep_default_na=False)
    assert list(back["token"]) == list(df["token"]) == vocab.decode(inp)
    assert "".join(back["token"][1:]) == ZH_DEFAULT_SENTENCE
    assert raw.decode("utf-8-sig").count("喜") >= 2


# ---- the fifth tagger: note 004's flattened FNN, in Chinese ------------------------------------

def test_flat_tagger_file_and_length_cover_the_corpus():
    """flat.pt is small, registered as Chinese, and its fixed length covers the longest
    per-character sentence of the corpus with room for the shifted test's prefix."""
    path = ZH_TAGGERS_DIR / f"{FLAT}.pt"
    assert path.stat().st_size < MAX_BYTES
    obj = torch.load(path, weights_only=True)
    assert obj["meta"]["kind"] == FLAT and obj["meta"]["language"] == "zh"
    model, vocab, _ = zh_flat_tagger()
    data = zh_tagging_data()
    longest = max(len(toks) for toks, _ in data.train + data.heldout)
    report = zh_taggers_report()
    assert report["longest_sentence"] == longest > 12  # the English FLAT_LEN would not do
    assert model.cfg.max_len == report["flat_max_len"] == longest + len(ZH_SHIFT_PREFIX)
    assert kind_of(model) == FLAT and vocab == data.vocab
    assert vocab.itos[model.cfg.pad_id] == "<pad>"


def test_flat_tagger_reaches_its_recorded_scores_and_the_shift_costs_it():
    """Re-evaluated on the held-out split it equals the JSON; with 请 in front (every slot one
    place later) it loses more than the Elman tagger, which shares its weights over positions."""
    model, _, _ = zh_flat_tagger()
    data = zh_tagging_data()
    entry = zh_taggers_report()["taggers"][FLAT]
    scores = evaluate(model, data)
    assert scores["accuracy"] == pytest.approx(entry["heldout_accuracy"], abs=0.002)
    for tag in TAGS:
        assert scores["f1"][tag] == pytest.approx(entry["heldout_f1"][tag], abs=0.002)
    assert scores["accuracy"] > zh_taggers_report()["taggers"]["fnn"]["heldout_accuracy"]
    moved = shifted_heldout(data, ZH_SHIFT_PREFIX)
    elman = zh_taggers()["elman"][0]
    flat_drop = scores["accuracy"] - evaluate(model, moved)["accuracy"]
    elman_drop = evaluate(elman, data)["accuracy"] - evaluate(elman, moved)["accuracy"]
    assert flat_drop > elman_drop + 0.05


def test_flat_tagger_sees_both_sides(taggers):
    """||dz_t/dx_s|| on 到达台北: the per-word FNN is diagonal, the flattened FNN is not, and
    (oracle) the flattened FNN's tags at 台北 differ between 到达 and 离开."""
    model, vocab, _ = zh_flat_tagger()
    ids = list(prepare(ZH_SLOT_PAIR[0], vocab).ids)
    fnn_reach = context_reach(taggers["fnn"][0], ids)
    flat_reach = context_reach(model, ids)
    assert np.count_nonzero(fnn_reach - np.diag(np.diag(fnn_reach))) == 0
    assert (flat_reach > 1e-6).all()
    arrive, leave = (tag_sentence(model, vocab, s).tags[2:] for s in ZH_SLOT_PAIR)
    assert arrive == ("destination",) * 2 and leave == ("departure",) * 2


# ---- a Chinese word of several characters, for the slot page --------------------------------

def test_a_word_of_several_characters(taggers):
    """台北 is two tokens: compared at 北 (its state has read all of it), the form joins its
    characters with nothing between them, and word_tag reads the tags of 东京 in the
    right-context pair. Oracles: compare_word at the single token 北, the tags by position."""
    from rnnviz.explain.slots import extract_slots, word_span, word_tag

    assert word_span(("到", "达", "台", "北"), "台北") == (2, 4)
    assert word_span(("Arrive", "Taipei", "on"), "taipei") == (1, 2)
    with pytest.raises(Exception, match="not a word"):
        word_span(("到", "达", "台"), "台北")
    vocab = taggers["elman"][1]
    for kind in KINDS:
        model = taggers[kind][0]
        whole = compare_word(model, vocab, *ZH_SLOT_PAIR, ZH_SLOT_WORD)
        last = compare_word(model, vocab, *ZH_SLOT_PAIR, "北")
        assert (whole.position, whole.start, whole.token) == (3, 2, "北")
        np.testing.assert_array_equal(whole.h_a, last.h_a)
        assert (whole.tag_a, whole.tag_b, whole.distance) == (last.tag_a, last.tag_b, last.distance)
    arrive = tag_sentence(taggers["elman"][0], vocab, "十一月二日到达台北")
    form = extract_slots(arrive.tokens, arrive.tags, sep="")
    assert form["Destination"] == "台北" and form["Date"] == "十一月二日"
    bi = taggers["bi"][0]
    for text, tag in (("东京是我的目的地", "destination"), ("东京是我的出发地", "departure")):
        tagged = tag_sentence(bi, vocab, text)
        assert word_tag(tagged, "东京") == "/".join(dict.fromkeys(tagged.tags[:2])) == tag


def test_a_chinese_date_belongs_to_the_city_after_it():
    """when="after": 晚上七点到巴黎 is the arrival's time although 伦敦 (a departure) came
    before it; with no city after it the one before is taken; English keeps "before"."""
    from rnnviz.explain.slots import extract_slots

    toks = list("从伦敦出发，晚上七点到巴黎")
    tags = (["other"] + ["departure"] * 2 + ["other"] * 3 + ["time"] * 4 + ["other"]
            + ["destination"] * 2)
    assert extract_slots(toks, tags, "", "after")["Date/time of"] == "arrival"
    assert extract_slots(toks, tags, "", "before")["Date/time of"] == "departure"
    alone = extract_slots(list("离开台北明天"), ["other"] * 2 + ["departure"] * 2 + ["date"] * 2, "", "after")
    assert alone["Date/time of"] == "departure" and alone["Date"] == "明天"
    assert extract_slots(["Arrive"], ["other"], when="after")["Date/time of"] == ""
    with pytest.raises(Exception, match="before"):
        extract_slots(["x"], ["date"], when="sideways")


def test_the_chinese_prose_claims_in_words_hold(taggers):
    """What prose/zh/slots.md says in words (not placeholders) about the shipped Chinese
    taggers: 台北's last character is step 4 (so the state before it is h_3); Jordan tags
    到达 and 离开 all 其他 (so it feeds back the same y); the FNN's errors are mostly cities
    and it almost never gets a departure right; the left-to-right taggers give 东京 one tag
    in both right-context sentences."""
    from rnnviz.explain.slots import word_tag

    vocab = taggers["fnn"][1]
    pair = compare_word(taggers["elman"][0], vocab, *ZH_SLOT_PAIR, ZH_SLOT_WORD)
    assert pair.position + 1 == 4 and pair.token == "北"
    jordan = taggers["jordan"][0]
    for text in ZH_SLOT_PAIR:
        assert tag_sentence(jordan, vocab, text).tags[:2] == ("other", "other")
    cm = np.asarray(evaluate(taggers["fnn"][0], zh_tagging_data())["confusion"])
    d, p = TAGS.index("destination"), TAGS.index("departure")
    errors = cm.sum() - np.trace(cm)
    assert cm[d, p] + cm[p, d] > errors / 2  # mostly cities
    assert cm[p, p] < 0.1 * cm[p].sum()  # a departure is almost always wrong
    for kind in ("fnn", "elman", "jordan"):
        a, b = (word_tag(tag_sentence(taggers[kind][0], vocab, s), "东京")
                for s in ("东京是我的目的地", "东京是我的出发地"))
        assert a == b, kind
