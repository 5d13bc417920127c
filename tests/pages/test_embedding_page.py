"""The embedding page in AppTest: default model, the notes' and travel presets, a batch of two
sentences, update rules, hashing with one bucket, word order, the exercise, bad input.
Oracles: the model's own E and autograd dL/dE, the notes' numbers, rnnviz.embedding."""
import numpy as np
import pytest

from rnnviz import RNNModel, trace
from rnnviz import embedding as emb
from rnnviz.catalog import default_model
from rnnviz.data import lm_pair
from rnnviz.text import prepare
from tests.apptest_helpers import figures, no_exception

PAGE = "pages/embedding.py"
RULES = {"gd": "Plain gradient descent", "wd": "SGD + weight decay", "adam": "Adam (its 2nd step)",
         "tied": "Tied input/output weights"}  # the radio's shown options (also the URL values)


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
    g = np.asarray(fig(at, "dL/dE")["data"][0]["z"], dtype=float)
    np.testing.assert_allclose(g, tr.grads["E"].double().numpy(), atol=1e-6)
    assert "6 of 79 rows changed" in text(at)
    assert len(frame_with(at, "||change||")) == len(set(inp))


def test_notes_preset_reproduces_the_notes_numbers(app):
    at = app(PAGE)
    at.radio(key="emb_preset").set_value("Notes example (V=5, d=3)").run()
    no_exception(at)
    md = text(at)
    assert "id 2 (row 3" in md and "E[2] = [-0.4, 0.8, 0.1]" in md
    assert "[-0.4, 0.8, 0.1] - 0.1 · [2, -1, 3] = [-0.6, 0.9, -0.2]" in md
    upd = frame_with(at, "||change||")
    assert list(upd["token"]) == ["cats"] and upd["after"][0] == "[-0.6, 0.9, -0.2]"
    outer = frame_with(at, "x_k·g_1")
    assert list(outer.iloc[2][["x_k·g_1", "x_k·g_2", "x_k·g_3"]]) == ["2", "-1", "3"]
    assert (outer.drop(index=2)[["x_k·g_1", "x_k·g_2", "x_k·g_3"]] == "0").all().all()
    assert "B x T x d = 2 x 4 x 3" in md  # "I like cats" and a 4-token sentence


def test_travel_preset_looks_up_taipei(app):
    at = app(PAGE)
    at.radio(key="emb_preset").set_value("Travel vocabulary (note 004)").run()
    no_exception(at)
    assert "E[2] = [0.67, 0.89, -0.34]" in text(at)


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
    at.radio(key="emb_rule").set_value(RULES[rule]).run()
    no_exception(at)
    assert fig(at, "Which rows moved")["layout"]["title"]["text"].startswith(f"Which rows moved: {changed}")


def test_adam_state_moves_rows_of_the_earlier_sentence(app, default):
    model, vocab = default
    at = app(PAGE)
    at.radio(key="emb_rule").set_value(RULES["adam"]).run()
    no_exception(at)
    now = set(lm_pair(list(prepare("Arrive Taipei on November 2nd", vocab).ids), vocab)[0])
    before = set(lm_pair(list(prepare("man bites dog", vocab).ids), vocab)[0])
    y = np.asarray(fig(at, "Which rows moved")["data"][0]["y"], dtype=float)
    assert {int(k) for k in np.nonzero(y)[0]} == now | before


def test_hashing_with_one_bucket_collides_words_of_equal_length(app, default):
    _, vocab = default
    at = app(PAGE)
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
    at.radio(key="emb_gsrc").set_value("typed in by you").run()
    at.text_input(key="emb_ge").input("2, x, 3").run()
    no_exception(at)
    assert any("not a number" in e.value for e in at.error)
    at.text_input(key="emb_ge").input("1" + ", 0" * 15).run()
    no_exception(at)
    assert "1 of 79 rows changed" in text(at)


def test_repeated_token_adds_up_in_one_row(app):
    at = on_page(app, sentence="cats like cats")
    no_exception(at)
    assert "more than once" in text(at)
    rows = frame_with(at, "contributions g_t")
    assert rows[rows["token"] == "cats"]["steps"].iloc[0] == "t=2, t=4"


def test_exercise_diagnoses_the_notes_sign_slip(app):
    at = app(PAGE)
    at.radio(key="emb_preset").set_value("Notes example (V=5, d=3)").run()
    at.radio(key="emb_ex_kind").set_value("the row after one step").run()
    at.text_input(key="emb_ex_answer").input("0.6, 0.9, -0.2").run()
    no_exception(at)
    assert any("Sign slip" in e.value for e in at.error)
    at.text_input(key="emb_ex_answer").input("-0.6, 0.9, -0.2").run()
    assert any("Right" in s.value for s in at.success)


def test_new_exercise_button_changes_the_numbers(app):
    at = app(PAGE)
    first = frame_with(at, "E[id]").to_dict()
    at.button(key="emb_ex_new").click().run()
    no_exception(at)
    assert at.number_input(key="emb_ex_seed").value == 2
    ex = emb.make_exercise(2)
    assert list(frame_with(at, "E[id]")["token"]) == list(ex.itos)
    assert frame_with(at, "E[id]").to_dict() != first


def test_one_token_sentence_on_the_notes_model(app):
    at = on_page(app, "notes", "cats")
    no_exception(at)
    assert "E[2] = [-0.4, 0.8, 0.1]" in text(at)
    assert not [s for s in at.slider if s.key == "emb_step"]  # T = 1: no step to choose
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
    at = app(PAGE)
    out = fig(at, "Output rows W_o")
    coords, _ = emb.pca_2d(model.W_o)
    ys = np.concatenate([np.asarray(tr["y"], dtype=float) for tr in out["data"]])
    assert np.allclose(np.sort(ys), np.sort(coords[:, 1].numpy()))


def test_a_link_reproduces_the_notes_view():
    """?emb_preset=...&emb_rule=... (as 'Share this view' writes them) opens the same view."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP, ROOT
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["emb_preset"] = "Notes example (V=5, d=3)"
    at.query_params["emb_rule"] = RULES["wd"]
    at.switch_page(str(ROOT / PAGE))
    at.run()
    no_exception(at)
    assert "E[2] = [-0.4, 0.8, 0.1]" in text(at)  # the step follows cats without a click
    assert "5 of 5 rows changed" in text(at)


def test_padding_row_says_which_row_id_0_is(app):
    at = app(PAGE)
    at.radio(key="emb_preset").set_value("Notes example (V=5, d=3)").run()
    md = text(at)
    assert "row of “I”" in md and "here both happen to be 3" in md  # T = d = 3 in the notes' sentence
    at = app(PAGE)
    at.text_input(key="emb_batch2").input("man bites dog").run()
    md = text(at)
    assert "the row of the \\<pad\\> token" in md and "happen to be" not in md
    assert "Pick an example just below" in md


def test_similar_words_default_and_drift_are_computed(app, default):
    model, vocab = default
    at = app(PAGE)
    no_exception(at)
    E0 = emb.f64(RNNModel(model.cfg, seed=0).E)
    r = emb.neighbour_drift(model.E, E0, vocab.itos)
    assert at.selectbox(key="emb_word").value == vocab.itos[r["best"]]
    md = text(at)
    flat = " ".join(md.split())
    assert f"seed 0) and moved it only a little: the mean cosine between a word's trained row and its own " \
           f"initial row is {emb.num(r['mean_cos'], 2)}" in flat
    assert f"keeps {r['kept'][r['best']]} of 5" in md
    one_hot = frame_with(at, "x_k · E[k]")
    assert one_hot["E[k]"].str.endswith("… (16 in all)]").all()


def test_notes_model_has_no_made_up_before_training(app):
    at = on_page(app, "notes", "I like cats")
    no_exception(at)
    md = text(at)
    assert "starting E is not recorded" in md and "Training started from" not in md
    assert "in this model's E:" in md and "trained E" not in md
    assert at.selectbox(key="emb_word").value == "I"  # step t's word
