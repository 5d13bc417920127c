"""The embedding page in AppTest: default model, the notes' numbers on the notes model, a batch of
two sentences, update rules (the tied one on rnnviz.tied's model), hashing with one bucket, word
order, the exercise, bad input, old links, Chinese.
Oracles: the model's own E and autograd dL/dE, the notes' numbers, rnnviz.embedding / tied."""
import numpy as np
import pytest

from rnnviz import RNNModel, formatting
from rnnviz.engine.trace import trace
from rnnviz.explain import embedding as emb
from rnnviz.store.catalog import default_model
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import figures, no_exception, skip_checkpoints

PAGE = "pages/embedding.py"
RULES = {"gd": "Plain gradient descent", "wd": "SGD + weight decay", "adam": "Adam (its 2nd step)",
         "tied": "Tied input/output weights"}  # the radio's shown options (the URL held them before)


@pytest.fixture(scope="module")
def default():
    model, vocab, _ = default_model()
    return model, vocab


def on_page(app, model: str | None = None, sentence: str | None = None):
    """The embedding page after choosing a model / sentence in the sidebar (drawn on the home page)."""
    from tests.conftest import ROOT
    at = app()
    if model:
        at.sidebar.selectbox(key="model").set_value(model).run()
    if sentence is not None:
        at.sidebar.text_area(key="text").input(sentence).run()
    at.switch_page(str(ROOT / PAGE))
    return at.run()


def fig(at, starts: str) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(starts))


def text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def vector_shown(at, label: str) -> list[str]:
    """The components of the vector named `label` in a vector table beside the prose."""
    for d in at.dataframe:
        df = d.value
        if "vector" in df.columns and label in list(df["vector"]):
            row = df[df["vector"] == label].iloc[0]
            return [str(v) for k, v in row.items() if k != "vector" and str(v) != ""]
    raise AssertionError(f"no vector table with a row {label!r}")


def frame_with(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_default_model_shows_its_e_and_the_autograd_gradient(app, default):
    model, vocab = default
    at = app(PAGE)
    no_exception(at)
    z = np.asarray(fig(at, "E (79 x 16)")["data"][0]["z"], dtype=float)
    np.testing.assert_allclose(z, model.E.detach().double().numpy(), atol=1e-7)
    inp, tgt = lm_pair(list(prepare("Arrive Taipei on November 2nd", vocab).ids), vocab)
    tr = trace(model, inp, tgt)
    g = np.asarray(fig(at, "∂L/∂E")["data"][0]["z"], dtype=float)
    np.testing.assert_allclose(g, tr.grads["E"].double().numpy(), atol=1e-6)
    assert "6 of 79 rows changed" in text(at)
    assert len(frame_with(at, "||change||")) == len(set(inp))


def test_notes_model_shows_the_notes_numbers_without_a_page_switch(app):
    at = on_page(app, "notes", "I like cats")
    no_exception(at)
    assert not [r for r in at.radio if r.key == "emb_preset"]  # no page-level "Notes example" switch
    md = text(at)
    assert "“row 3”" in md and "E[2] = [" not in md  # vectors in tables, not in sentences
    assert vector_shown(at, "E[2]") == ["-0.4", "0.8", "0.1"] and vector_shown(at, "gₑ") == ["2", "-1", "3"]
    assert vector_shown(at, "E[2] − 0.1 · gₑ") == ["-0.6", "0.9", "-0.2"]
    assert "The notes print 0.6 for the first entry" in " ".join(md.split())
    assert "B x T x d = 2 x 4 x 3" in md  # "I like cats" and the notes' 4-token sentence
    assert "“Taipei” (id 2) as its row 2" in md
    travel = frame_with(at, "E[id]")
    assert list(travel["token"]) == list(emb.PRESETS["travel"].itos)
    assert travel["E[id]"][2] == "[0.67, 0.89, -0.34]"
    # the general sections follow the step the learner picks: cats at t = 3, the notes' g_e and lr
    at.slider(key="emb_step").set_value(3).run()
    md = text(at)
    assert "id 2 (note 000 says “row 3”" in md
    assert "For “cats” (table beside)" in md
    assert vector_shown(at, "E[2] before") == ["-0.4", "0.8", "0.1"]
    assert vector_shown(at, "row 2 of ∂L/∂E") == ["2", "-1", "3"]
    assert vector_shown(at, "E[2] after") == ["-0.6", "0.9", "-0.2"]
    upd = frame_with(at, "||change||")
    assert list(upd["token"]) == ["cats"] and upd["after"][0] == "[-0.6, 0.9, -0.2]"
    outer = frame_with(at, "xₖ·g₁")
    assert list(outer.iloc[2][["xₖ·g₁", "xₖ·g₂", "xₖ·g₃"]]) == ["2", "-1", "3"]
    assert (outer.drop(index=2)[["xₖ·g₁", "xₖ·g₂", "xₖ·g₃"]] == "0").all().all()


def test_default_model_has_no_notes_block(app):
    at = app(PAGE)
    no_exception(at)
    assert "The notes' worked example" not in text(at)
    assert "[Lookup](#emb-lookup)" in text(at) and "(#emb-notes)" not in text(at)


def test_batch_of_two_sentences_is_padded_with_a_mask(app):
    at = app(PAGE)
    at.text_input(key="emb_batch2").input("man bites dog").run()
    no_exception(at)
    assert "B x T x d = 2 x 6 x 16" in text(at)
    mask = next(d.value for d in at.dataframe if "t=6" in d.value.columns and d.value.dtypes.iloc[0] == bool)  # noqa: E721
    assert mask.values.tolist() == [[True] * 6, [True] * 4 + [False] * 2]
    X = np.asarray(fig(at, "A padded batch")["data"][1]["z"], dtype=float)
    assert np.all(X[4:] == 0) and np.any(X[:4] != 0)


@pytest.mark.parametrize("rule, changed", [("wd", "79 of 79"), ("tied", "79 of 79")])
def test_other_rows_change_under_weight_decay_and_tied_weights(app, rule, changed):
    at = app(PAGE)
    at.radio(key="emb_rule").set_value(rule).run()
    no_exception(at)
    assert fig(at, "Which rows moved")["layout"]["title"]["text"].startswith(f"Which rows moved: {changed}")


def test_adam_state_moves_rows_of_the_earlier_sentence(app, default):
    model, vocab = default
    at = app(PAGE)
    at.radio(key="emb_rule").set_value("adam").run()
    no_exception(at)
    now = set(lm_pair(list(prepare("Arrive Taipei on November 2nd", vocab).ids), vocab)[0])
    before = set(lm_pair(list(prepare("man bites dog", vocab).ids), vocab)[0])
    y = np.asarray(fig(at, "Which rows moved")["data"][0]["y"], dtype=float)
    assert {int(k) for k in np.nonzero(y)[0]} == now | before


def test_hashing_with_one_bucket_collides_words_of_equal_length(app, default):
    _, vocab = default
    at = app(PAGE, query={"emb_collisions": "true"})  # the collisions' expander, opened (issue 24)
    at.number_input(key="emb_buckets").set_value(1).run()
    no_exception(at)
    groups = frame_with(at, "words with the same vector")["words with the same vector"]
    want = emb.hash_collisions(vocab.itos, 1)["words"]
    assert len(groups) == len(want) > 0
    for g in groups:
        assert len({len(w) for w in g.split(", ")}) == 1
    assert "#go goo ood od#" in " ".join(frame_with(at, "trigrams")["trigrams"])


def test_dog_bites_man_and_random_init_comparison(app, default):
    model, _ = default
    at = app(PAGE)
    no_exception(at)
    assert "the same sum" in text(at) and "different matrices" in text(at)
    init = fig(at, "Random initial E")
    coords, _ = emb.pca_2d(RNNModel(model.cfg, seed=0).E)
    xs = np.concatenate([np.asarray(tr["x"], dtype=float) for tr in init["data"]])
    assert np.allclose(np.sort(xs), np.sort(coords[:, 0].numpy()))


def test_typed_gradient_and_bad_input(app):
    at = app(PAGE)
    at.radio(key="emb_gsrc").set_value("typed").run()
    at.text_input(key="emb_ge").input("2, x, 3").run()
    no_exception(at)
    assert any("not a number" in e.value for e in at.error)
    assert any(i.value.startswith("Until gₑ has d = 16 numbers") for i in at.info)
    assert at.radio(key="emb_rule").value == "gd"  # the update still shows, on the backward gradient
    at.text_input(key="emb_ge").input("1" + ", 0" * 15).run()
    no_exception(at)
    assert "1 of 79 rows changed" in text(at)


def test_repeated_token_adds_up_in_one_row(app):
    at = on_page(app, sentence="cats like cats")
    no_exception(at)
    assert "more than once" in text(at)
    rows = frame_with(at, "contributions gₜ")
    assert rows[rows["token"] == "cats"]["steps"].iloc[0] == "t=2, t=4"


def answer(at, value: str):
    at.text_input(key="emb_ex_answer").input(value).run()
    at.button(key="emb_ex_check").click().run()
    return at


def test_exercise_diagnoses_the_notes_sign_slip(app):
    at = on_page(app, "notes", "I like cats")
    at.radio(key="emb_ex_kind").set_value("update").run()
    answer(at, "0.6, 0.9, -0.2")
    no_exception(at)
    assert any("Sign slip" in e.value for e in at.error)
    answer(at, "-0.6, 0.9, -0.2")
    assert any("Right" in s.value for s in at.success)
    at.toggle(key="emb_ex_solution").set_value(True).run()
    assert any("[-0.6, 0.9, -0.2]" in i.value.replace("\\", "") for i in at.info)  # md-escaped


def exercise_frame(at):
    return [d.value for d in at.dataframe if "E[id]" in d.value.columns][-1]


def test_new_exercise_button_changes_the_numbers(app):
    at = app(PAGE)
    first = exercise_frame(at).to_dict()
    assert at.number_input(key="emb_ex_n").value == 1
    at.button(key="emb_ex_new").click().run()
    no_exception(at)
    assert at.number_input(key="emb_ex_n").value == 2
    ex = emb.make_exercise(2)
    assert list(exercise_frame(at)["token"]) == list(ex.itos)
    assert exercise_frame(at).to_dict() != first


def test_one_token_sentence_on_the_notes_model(app):
    at = on_page(app, "notes", "cats")
    no_exception(at)
    assert vector_shown(at, "E[2]") == ["-0.4", "0.8", "0.1"]
    assert not [s for s in at.slider if s.key == "emb_step"]  # T = 1: no step to choose
    assert "1 of 5 rows changed" in text(at)  # the notes' typed g_e = [2, -1, 3] at cats
    at.radio(key="emb_gsrc").set_value("backward").run()
    assert "0 of 5 rows changed" in text(at)  # no next token, so no loss and no gradient


def test_unknown_word_still_gets_trigrams_but_one_hot_says_unk(app):
    at = on_page(app, sentence="Arrive Zorpville")
    no_exception(at)
    rows = frame_with(at, "word hashing (length 1,000)")
    zorp = rows[rows["token"] == "Zorpville"].iloc[0]
    assert "<unk>" in zorp["one-hot (length V)"]
    sig = emb.hash_signature("Zorpville", 1000)
    assert zorp["word hashing (length 1,000)"] == ", ".join(f"{c} at {b}" for b, c in sig)


def test_output_rows_pca_matches_w_o(app, default):
    model, _ = default
    at = app(PAGE, query={"emb_out_rows": "true"})  # the expander, opened (issue 24)
    out = fig(at, "Output rows Wₒ")
    coords, _ = emb.pca_2d(model.W_o)
    ys = np.concatenate([np.asarray(tr["y"], dtype=float) for tr in out["data"]])
    assert np.allclose(np.sort(ys), np.sort(coords[:, 1].numpy()))


def link_app(params: dict):
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP, ROOT
    at = AppTest.from_file(APP, default_timeout=60)
    skip_checkpoints(at)
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(str(ROOT / PAGE))
    at.run()
    return at


def test_a_link_reproduces_the_notes_view():
    """?model=notes&emb_rule=wd (as 'Share this view' writes them) opens the same view."""
    at = link_app({"model": "notes", "emb_rule": "wd"})
    no_exception(at)
    assert vector_shown(at, "E[2]") == ["-0.4", "0.8", "0.1"]
    assert "5 of 5 rows changed" in text(at)
    assert not at.warning  # the app's own link opens with no warning


def test_an_old_link_still_opens_the_notes_view():
    """Links made before the page used codes: ?emb_preset=Notes+example...&emb_rule=SGD+...&emb_ex_seed=5."""
    at = link_app({"emb_preset": "Notes example (V=5, d=3)", "emb_rule": RULES["wd"],
                   "emb_gsrc": "typed in by you", "emb_ex_seed": "5"})
    at.run()  # the old preset queues the notes model; the next run shows it
    no_exception(at)
    assert at.radio(key="emb_rule").value == "wd" and at.radio(key="emb_gsrc").value == "typed"
    assert vector_shown(at, "E[2]") == ["-0.4", "0.8", "0.1"] and "5 of 5 rows changed" in text(at)
    assert not [w for w in at.warning if "not valid" in w.value or "Ignored" in w.value]


def test_padding_row_says_which_row_id_0_is(app):
    at = on_page(app, "notes", "I like cats")
    md = text(at)
    assert "row of “I”" in md and "here both happen to be 3" in md  # T = d = 3 in the notes' sentence
    at = app(PAGE)
    at.text_input(key="emb_batch2").input("man bites dog").run()
    md = text(at)
    assert "the row of the \\<pad\\> token" in md and "happen to be" not in md
    assert "choose the model “Notes example”" in md


def test_similar_words_default_and_drift_are_computed(app, default):
    model, vocab = default
    at = app(PAGE)
    no_exception(at)
    E0 = emb.f64(RNNModel(model.cfg, seed=0).E)
    r = emb.neighbour_drift(model.E, E0, vocab.itos)
    words = [w for w in at.session_state["text"].split() if w in vocab.stoi]
    ids = [vocab.stoi[w] for w in words]
    # issue 26: the default is a word of the sentence (the one whose neighbours moved most)
    assert at.selectbox(key="emb_word").value == vocab.itos[emb.sentence_pick(r, ids, ids[0])]
    assert at.selectbox(key="emb_word").value in words
    md = text(at)
    flat = " ".join(md.split())
    assert f"seed 0) and moved it only a little: the mean cosine between a word's trained row and its own " \
           f"initial row is {formatting.num(r['mean_cos'], 2)}" in flat
    assert f"keeps {r['kept'][r['best']]} of 5" in md
    one_hot = frame_with(at, "xₖ · E[k]")
    assert one_hot["E[k]"].str.endswith("… (16 in all)]").all()


def test_notes_model_has_no_made_up_before_training(app):
    at = on_page(app, "notes", "I like cats")
    no_exception(at)
    md = text(at)
    assert "starting E is not recorded" in md and "Training started from" not in md
    assert "in this model's E:" in md and "trained E" not in md
    assert at.selectbox(key="emb_word").value == "I"  # step t's word


def test_tied_rule_updates_a_real_tied_model(app):
    from rnnviz.explain.tied import shipped_tied_model, tied_gradient_parts
    model, vocab, report = shipped_tied_model()  # = a fresh training run (tests/core/explain/test_tied.py)
    at = app(PAGE)
    at.radio(key="emb_rule").set_value("tied").run()
    no_exception(at)
    inp, tgt = lm_pair(list(prepare("Arrive Taipei on November 2nd", vocab).ids), vocab)
    parts = tied_gradient_parts(model, inp, tgt)
    y = np.asarray(fig(at, "Which rows moved")["data"][0]["y"], dtype=float)
    np.testing.assert_allclose(y, (0.1 * parts["total"]).norm(dim=1).numpy(), rtol=1e-9)
    md = " ".join(text(at).split())
    assert f"held-out perplexity {formatting.num(report['heldout_perplexity'])}" in md
    assert "reaches the 6 rows the sentence read" in md and "reaches 79 rows" in md
    assert "fit error" not in md  # no stand-in output map any more


def test_nn_embedding_equals_a_bias_free_linear(app):
    at = app(PAGE, query={"emb_linear": "true"})  # the expander, opened (issue 24)
    no_exception(at)
    md = " ".join(text(at).split())
    assert "79 x 16 = 1264 weights" in md and "differ by at most 0." in md
    rows = frame_with(at, "xₜ Wᵀ")
    assert (rows["E[id]"] == rows["xₜ Wᵀ"]).all() and len(rows) == 6


def test_why_marks_shows_good_and_goods(app):
    at = app(PAGE, query={"emb_marks": "true"})  # the expander, opened (issue 24)
    md = " ".join(text(at).split())
    assert "“good” is cut into goo ood" in md and "“#good#” gives #go goo ood od#" in md
    assert "“good” keeps od#" in md


def test_compared_sentences_keep_unk_in_place(app):
    at = app(PAGE)
    at.text_input(key="emb_order_a").input("the cat sat on Taipei").run()
    at.text_input(key="emb_order_b").input("Taipei on sat cat the").run()
    no_exception(at)
    rows = frame_with(at, "tokens compared")
    assert list(rows["tokens compared"]) == ["<unk> <unk> <unk> on Taipei", "Taipei on <unk> <unk> <unk>"]
    assert "the same sum" in text(at)


def zh_page():
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP, ROOT
    at = AppTest.from_file(APP, default_timeout=60)
    skip_checkpoints(at)
    at.query_params["model"] = "default"  # pinned like conftest's app(): the word-level model
    at.session_state["lang"] = "zh"
    at.switch_page(str(ROOT / PAGE))
    return at.run()


def test_chinese_page_is_mostly_chinese():
    at = zh_page()
    no_exception(at)
    md = "".join(m.value for m in at.markdown)
    han = sum("\u4e00" <= ch <= "\u9fff" for ch in md)
    letters = sum(ch.isascii() and ch.isalpha() for ch in md)
    assert han > letters, (han, letters)
    assert at.radio(key="emb_rule").options[0] == "普通梯度下降"
    assert any(f["layout"]["title"]["text"].startswith("E（79 x 16）") for f in figures(at))


def test_numbers_are_the_same_in_both_languages(app):
    en, zh = app(PAGE), zh_page()
    for a, b in zip(figures(en), figures(zh)):
        for ta, tb in zip(a["data"], b["data"]):
            if "z" in ta:
                np.testing.assert_array_equal(np.asarray(ta["z"], dtype=float), np.asarray(tb["z"], dtype=float))


def test_old_exercise_number_link_is_kept():
    at = link_app({"emb_ex_seed": "5"})
    no_exception(at)
    assert at.number_input(key="emb_ex_n").value == 5
    assert list(exercise_frame(at)["token"]) == list(emb.make_exercise(5).itos)


def test_padding_prose_shows_the_model_s_own_step():
    at = link_app({"emb_batch2": "man bites dog"})
    md = text(at)
    assert r"h_t = \tanh\!\left(W_x x_t + W_h h_{t-1} + b_h\right)" in md and "h_(t-1)" not in md


def test_word_order_suggestion_on_the_subword_model_is_a_sentence(app):
    """On the subword model the untouched word-order boxes compare "dog bites man" with "man
    bites dog", not the vocabulary's first entries (▁, !, ") with ▁ read back as bytes."""
    at = on_page(app, model="subword")
    no_exception(at)
    rows = frame_with(at, "tokens compared")
    shown = " | ".join(rows["tokens compared"])
    assert "<0x" not in shown and "dog" in shown and "man" in shown, shown
    assert "the same sum" in text(at)


def test_a_typed_gradient_of_the_wrong_length_is_said_in_zh_and_the_update_stays(app):
    """Issue 25: the notes' default g_e (3 numbers) on a d = 16 model, in 中文: the message is the
    catalogue's, and the update rule (emb_rule) is still there, on the backward gradient."""
    at = app(PAGE, query={"lang": "zh", "emb_gsrc": "typed", "emb_rule": "tied"})
    no_exception(at)
    assert [e.value for e in at.error] == ["gₑ 需要 16 个数（d = 16），你输入了 3 个。"]
    assert at.radio(key="emb_rule").value == "tied"


@pytest.mark.parametrize("model,lang", [(None, "en"), ("zh", "zh")])
def test_the_word_picked_first_is_the_one_the_prose_names(app, model, lang):
    """"The word picked first" named the whole vocabulary's most changed word (▁library, 糖) while
    the box held the sentence's own (▁cat, 狗): the prose names both, each with its own count."""
    import re

    from rnnviz.store.catalog import load_builtin
    from tests.conftest import ROOT

    at = app(query={"lang": lang}, model=model)
    at.switch_page(str(ROOT / PAGE)).run()
    no_exception(at)
    word = at.selectbox(key="emb_word").value
    said = text(at)
    pick = re.findall(r"among your sentence's words, those of “([^”]+)”" if lang == "en" else
                      r"在你句子里的词中，“([^”]+)”的邻居改变最多", said)
    assert pick == [word], (pick, word)
    key = model or "subword"
    m, vocab, meta = load_builtin(key)
    E = emb.f64(m.E)
    E0 = emb.f64(RNNModel(type(m.cfg)(**m.cfg.to_dict()), seed=emb.training_seed(meta)).E)
    drift = emb.neighbour_drift(E, E0, vocab.itos)
    best = vocab.itos[drift["best"]]
    assert f"“{best}” ({drift['kept'][drift['best']]} of" in said or f"“{best}”的邻居（{drift['k']} 个中只保留了 {drift['kept'][drift['best']]} 个" in said
    kept = drift["kept"][vocab.stoi[word]]
    assert (f"“{word}”\n({kept} of" in said or f"“{word}” ({kept} of" in said
            or f"“{word}”的邻居改变最多（{drift['k']} 个中保留了\n{kept} 个" in said), said[-600:]
    typed = at.sidebar.text_area(key="text").value
    ids = list(prepare(typed, vocab, meta.get("level", "word")).ids)
    mine = [i for i in ids if i in drift["kept"]]
    if mine:  # the word a learner typed whose neighbours training changed most (fewest kept)
        assert kept == min(drift["kept"][i] for i in mine)
