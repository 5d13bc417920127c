"""Page 7 (where embeddings come from): every number it shows is the rnnviz computation for the
same inputs, redone here independently; training fills the checkpoints and the overlap; the
exercise checks; the BPE table and the tokenizer comparison match rnnviz; links and zh work."""
from __future__ import annotations

import re

import numpy as np
import pytest

from rnnviz.explain import origins
from rnnviz.explain import word2vec as w2v
from rnnviz.formatting import num, vector
from rnnviz.store.catalog import load_builtin
from rnnviz.text.bpe import BPE, compare_tokenizers
from tests.apptest_helpers import figures, finish_job, no_exception

PAGE = "pages/origins.py"
TEXT = "Arrive Taipei on November 2nd"


def text(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [e.value for e in at.error]
                     + [i.value for i in at.info] + [s.value for s in at.success])


def frame_with(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.fixture(scope="module")
def table() -> BPE:
    return BPE.from_dict(load_builtin("subword")[2]["bpe"])


def test_page_sections_window_and_one_pair_are_rnnviz_numbers(app):
    at = app(PAGE, {"model": "default", "text": TEXT})
    no_exception(at)
    heads = [s.value for s in at.subheader]
    assert len(heads) == 11 and heads[0] == "The sliding window"
    assert "(#origins-window)" in text(at) and "(#origins-yours)" in text(at)
    # the window: centre 2 ("Taipei"), r = 2 -> its pairs, as rnnviz.word2vec makes them
    words = TEXT.split()
    want = [p for p in w2v.window_pairs(words, 2) if p.centre_pos == 1]
    df = frame_with(at, "offset")
    assert list(df["context"]) == [p.context for p in want]
    assert list(df["offset"]) == [p.context_pos - 1 for p in want]
    # one pair with the random start vectors (no run yet): the loss and the terms
    pc = w2v.pair_corpus(w2v.builtin_sentences(), 2, 2000)
    V, U = w2v.init_vectors(len(pc.vocab), 16, 0)
    o = at.selectbox(key="origins_context").value
    ex = w2v.pair_example(V, U, pc.vocab, pc.counts, "Taipei", o, k=5, lr=0.025, seed=0)
    terms = frame_with(at, "score u·v_c")
    assert list(terms["word"]) == [o] + ex["negative_words"]
    assert list(terms["value"]) == [num(ex["log_pos"])] + [num(v) for v in ex["log_neg"]]
    assert f"L = {num(ex['loss'])}" in text(at)
    grads = frame_with(at, "vector")
    assert grads["gradient ∂L/∂(vector), entries 1–4 of 16"].iloc[0] == vector(ex["grad_v_c"][:4])
    assert grads.iloc[:, 3].iloc[0] == vector(ex["V_new"][ex["c"]][:4])
    after = w2v.pair_terms(ex["V_new"][ex["c"]], ex["U_new"][ex["o"]], ex["U_new"][ex["negatives"]])
    shown = f"from {num(ex['loss'], 7)} to {num(after['loss'], 7)} (Δ = {num(float(after['loss']) - ex['loss'])})"
    assert shown in text(at) and num(ex["loss"], 7) != num(after["loss"], 7)  # issue 26: not 4.157 -> 4.157
    assert "Train Word2Vec above" in text(at)  # before training: a message, no empty charts


def test_training_fills_the_curve_checkpoints_neighbours_and_overlap(app):
    at = app(PAGE, {"model": "default", "text": TEXT})
    at.number_input(key="origins_steps").set_value(120)
    at.button(key="origins_go").click().run()
    finish_job(at, "origins_w2v_job")
    no_exception(at)
    # the same run, redone here: seeded, so every number must agree
    pc = w2v.pair_corpus(w2v.builtin_sentences(), 2, 2000)
    res = w2v.train_word2vec(pc, w2v.W2VConfig(steps=120))
    figs = figures(at)
    loss = next(f for f in figs if f["layout"]["title"]["text"].startswith("Word2Vec loss"))
    assert np.allclose(loss["data"][0]["y"], [r["loss"] for r in res.history])
    assert at.slider(key="origins_ckpt").value == len(res.snapshots)
    nb = frame_with(at, "neighbour 1")
    first = w2v.neighbours(res.V, res.vocab, "Taipei", 5)[0]
    assert nb.set_index("word").loc["Taipei", "neighbour 1"] == f"{first[0]} ({num(first[1])})"
    model, vocab, _ = load_builtin("default")
    ov = w2v.neighbour_overlap(res.V, res.vocab.itos, model.E.detach(), vocab.itos, 5)
    assert f"on average {num(ov['mean'])} of the 5" in text(at) and num(ov["chance"]) in text(at)
    side = frame_with(at, "nearest in the RNN's E").set_index("word")
    assert side.loc["Taipei", "nearest in Word2Vec's V"] == ", ".join(n for n, _ in ov["neighbours_a"]["Taipei"])
    assert side.loc["Taipei", "nearest in the RNN's E"] == ", ".join(n for n, _ in ov["neighbours_b"]["Taipei"])
    assert side.loc["Taipei", "shared (of 5)"] == ov["per_word"]["Taipei"]
    # the pair now uses the learned vectors
    assert "the vectors your training run learned" in text(at)
    # the checkpoint slider moves the map (first checkpoint: the random start)
    at.slider(key="origins_ckpt").set_value(1).run()
    no_exception(at)
    assert "after 0 steps" in text(at) or any("after 0 step" in f["layout"]["title"]["text"]
                                                for f in figures(at))


def test_exercise_right_and_wrong_answers(app):
    at = app(PAGE, {"model": "default", "text": TEXT})
    ex = w2v.pair_exercise(1)
    g = ex.answer()
    at.number_input(key="origins_ex_g1").set_value(float(-g[0]))
    at.number_input(key="origins_ex_g2").set_value(float(-g[1]))
    at.button(key="origins_ex_check").click().run()
    assert any("sign is flipped" in e.value for e in at.error)
    shown = next(d.value for d in at.dataframe if "1" in d.value.columns and "v_c" in list(d.value.get("vector", [])))
    assert list(shown["vector"]) == ["v_c", "u_o", "u_k"]  # the exercise's vectors beside its question
    assert list(shown.iloc[0][["1", "2"]]) == [vector(ex.v_c[:1])[1:-1], vector(ex.v_c[1:])[1:-1]]
    at.number_input(key="origins_ex_g1").set_value(round(float(g[0]), 4))
    at.number_input(key="origins_ex_g2").set_value(round(float(g[1]), 4))
    at.button(key="origins_ex_check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)


def test_bpe_merges_split_and_comparison_match_rnnviz(app, table):
    at = app(PAGE, {"model": "subword", "text": "the cat sat on the mat", "origins_merge": "5",
                    "origins_word": "cats"})
    no_exception(at)
    # AppTest opens the overview first (which names the page's parameters as unused there);
    # no value of the link was refused, and the widgets took them
    assert not [w.value for w in at.warning if "instead" in w.value]
    assert at.slider(key="origins_merge").value == 5 and at.text_input(key="origins_word").value == "cats"
    merges = frame_with(at, "pair count")
    assert list(merges["new token"]) == [m.token for m in table.merges[:5]]
    assert list(merges["pair count"]) == [m.count for m in table.merges[:5]]
    tokens = origins.split_at(table, 5, "cats")[0]["tokens"]
    assert re.sub(r"\\(.)", r"\1", " | ".join(tokens)) in re.sub(r"\\(.)", r"\1", text(at))
    train, held = origins.subword_corpus()
    rows = {r["tokenizer"]: r for r in compare_tokenizers(train, held, table)}
    cmp = frame_with(at, "OOV rate (%)").set_index("tokenizer")
    assert cmp.loc["words", "vocabulary size"] == rows["word"]["vocab_size"]
    assert cmp.loc["BPE subwords", "units"] == rows["BPE"]["units"]
    assert cmp.loc["letter trigrams (hashing)", "OOV rate (%)"] == num(100 * rows["letter trigrams"]["oov_rate"])
    # a trigram row's length is its words' (one hashed vector a word), not its units per sentence:
    # the header says vectors, and the caption says why the two columns do not divide
    tri = rows["letter trigrams"]
    assert cmp.loc["letter trigrams (hashing)", "vectors per sentence"] == num(rows["word"]["mean_length"])
    assert abs(tri["units"] / len(held) - tri["mean_length"]) > 1
    assert any("as many per sentence as words" in c.value for c in at.caption)
    # the sidebar sentence on the subword model: BPE tokens
    assert "reads with BPE subwords" in text(at)
    toks = frame_with(at, "position")["token"].tolist()
    assert toks == list(table.tokenize("the cat sat on the mat"))
    # the corpus follows the current model: the English corpus for the subword model
    assert at.radio(key="origins_source").value == "english"


def test_pasted_text_and_page6_without_a_run(app):
    at = app(PAGE, {"model": "default", "text": TEXT, "origins_source": "page6"})
    no_exception(at)
    assert any("No training run on page 6" in i.value for i in at.info)
    at.text_area(key="origins_text").set_value("cat\ndog").run()  # no two words in a line
    assert any("no sentence has two words" in e.value.lower() for e in at.error)
    assert at.button(key="origins_go").disabled


def test_chinese_page_is_mostly_chinese(app):
    at = app(PAGE, {"model": "default", "text": TEXT})
    at.session_state["lang"] = "zh"
    at.run()
    no_exception(at)
    body = "\n".join(m.value for m in at.markdown)
    han = len(re.findall(r"[\u4e00-\u9fff]", body))
    latin = len(re.findall(r"[A-Za-z]", body))
    assert han > latin, (han, latin)
    assert [s.value for s in at.subheader][0] == "滑动窗口"


def test_corpus_choice_is_a_short_code_in_the_link(app):
    at = app(PAGE, {"model": "default", "text": TEXT, "origins_source": "english"})
    no_exception(at)
    assert at.radio(key="origins_source").value == "english"
    at.radio(key="origins_source").set_value("paste").run()
    assert at.query_params["origins_source"] == "paste"
    at.radio(key="origins_source").set_value("travel").run()  # the default for this model: no parameter
    assert "origins_source" not in at.query_params
    bad = app(PAGE, {"model": "default", "text": TEXT, "origins_source": "nonsense"})
    no_exception(bad)
    assert bad.radio(key="origins_source").value == "travel"  # an unknown code: the default


def test_notes_model_and_a_one_word_sentence_give_messages_not_errors(app):
    at = app(PAGE, {"model": "notes", "text": "I like cats"})
    no_exception(at)
    assert "reads with words" in text(at)
    one = app(PAGE, {"model": "default", "text": "Taipei"})
    no_exception(one)
    assert any("one word" in i.value for i in one.info)
