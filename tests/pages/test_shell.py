"""The app shell: the start model reads an own sentence, the word model helps with unknown
words, the language switch (en / 中文) keeps the numbers, the glossary, messages by key."""
import re

import numpy as np
import pytest

from rnnviz.errors import InputError
from rnnviz.store.catalog import BUILTINS, START_MODEL, load_builtin
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import no_exception, overview_h
from ui import i18n
from ui.sections.glossary import TERMS

HOME, TRAIN, GLOSSARY = "pages/home.py", "pages/train.py", "pages/glossary.py"
SEEDS = "/work/shared/seeds"


def han_share(text: str) -> float:
    """Share of Chinese characters among the letters (Han + Latin) of a text."""
    han = len(re.findall(r"[\u4e00-\u9fff]", text))
    latin = len(re.findall(r"[A-Za-z]", re.sub(r"\$[^$]*\$|`[^`]*`|<[^>]*>|\b\w_\{?\w+\}?", " ", text)))
    return han / max(1, han + latin)




def test_a_fresh_session_opens_the_subword_model_and_reads_an_own_sentence(app):
    at = app(model=None)
    no_exception(at)
    assert at.sidebar.selectbox(key="model").value == START_MODEL == "subword"
    at.sidebar.text_area(key="text").input("the cat sat on the mat").run()
    no_exception(at)
    tokens = list(at.dataframe[0].value["token"])
    assert "<unk>" not in tokens and len(tokens) > 6
    assert at.query_params["model"] == "subword"  # the share link names the model
    assert "model=subword" in at.sidebar.code[0].value
    assert any("BPE subwords" in c.value for c in at.sidebar.caption)
    assert not at.sidebar.warning


def test_the_word_model_says_what_it_does_not_know_and_offers_a_way_out(app):
    at = app()  # pinned to model=default, the word-level travel model
    assert at.sidebar.selectbox(key="model").value == "default"
    assert "Word-level travel model (79 words)" in at.sidebar.selectbox(key="model").options
    at.sidebar.text_area(key="text").input("the cat sat on the mat").run()
    no_exception(at)
    warning = " ".join(w.value for w in at.sidebar.warning)
    assert "does not know" in warning and "mat" in warning
    labels = [b.label for b in at.sidebar.button]
    assert any("Subword English model" in lb for lb in labels)  # a model that reads it all
    _, vocab, meta = load_builtin("default")
    example = next(b for b in at.sidebar.button if b.key == "words_example_0")
    assert not prepare(example.label.replace("\\", ""), vocab, meta.get("level")).unknown
    example.click().run()
    no_exception(at)
    assert not at.sidebar.warning  # the example sentence is all known


def test_use_another_model_keeps_the_sentence(app):
    at = app()
    at.sidebar.text_area(key="text").input("the cat sat on the mat").run()
    next(b for b in at.sidebar.button if b.key == "words_use_subword").click().run()
    no_exception(at)
    assert at.sidebar.selectbox(key="model").value == "subword"
    assert at.sidebar.text_area(key="text").value == "the cat sat on the mat"
    assert "<unk>" not in list(at.dataframe[0].value["token"])


def test_vocabulary_search_lists_matching_tokens(app):
    at = app()
    at.sidebar.text_area(key="text").input("Arrive Zorblax").run()
    at.sidebar.text_input(key="words_search").input("taip").run()
    no_exception(at)
    df = next(d.value for d in at.sidebar.dataframe)
    assert list(df["token"]) == ["Taipei"]


@pytest.mark.parametrize("page", [HOME, TRAIN, GLOSSARY])
def test_shell_pages_in_chinese(app, page):
    at = app(model=None)
    at.session_state["lang"] = "zh"
    at.run()
    at.switch_page(page).run()
    no_exception(at)
    body = " ".join(m.value for m in at.markdown if not m.value.startswith("<"))
    assert han_share(body) > 0.6, body[:300]
    assert han_share(at.title[0].value) > 0.25  # the glossary's title is bilingual on purpose
    assert at.sidebar.selectbox(key="model").label == "模型"


def test_numbers_are_the_same_in_both_languages(app):
    shown = {}
    for lang in ("en", "zh"):
        at = app(model=None)
        at.session_state["lang"] = lang
        at.run()
        no_exception(at)
        shown[lang] = overview_h(at)
    np.testing.assert_array_equal(shown["en"], shown["zh"])


def test_switching_language_keeps_model_sentence_and_page(app):
    at = app(query={"model": "notes"})
    at.sidebar.text_area(key="text").input("I like dogs").run()
    at.switch_page(TRAIN).run()
    at.session_state["lang"] = "zh"
    at.run()
    no_exception(at)
    assert at.sidebar.selectbox(key="model").value == "notes"
    assert at.sidebar.text_area(key="text").value == "I like dogs"
    assert at.title[0].value == i18n.text_for("zh", "train.title")


def test_an_empty_sentence_is_explained_in_chinese(app):
    at = app(model=None)
    at.session_state["lang"] = "zh"
    at.run()
    at.sidebar.text_area(key="text").input("   ").run()
    no_exception(at)
    assert i18n.text_for("zh", "errors.empty_sentence") in [e.value for e in at.error]


def test_browser_language_picks_the_interface_language():
    assert i18n.lang_from_locale("zh-CN") == "zh" and i18n.lang_from_locale("zh_TW") == "zh"
    assert i18n.lang_from_locale("en-US") == "en" and i18n.lang_from_locale(None) == "en"
    assert i18n.lang_from_locale("fr-FR") == "en"


def test_input_errors_carry_a_catalogue_key_for_every_language():
    _, vocab, _ = load_builtin("notes")
    for text, key in (("   ", "empty_sentence"), ("zzz qqq", "none_known")):
        with pytest.raises(InputError) as info:
            prepare(text, vocab)
        assert info.value.key == key
        for lang in i18n.languages():
            assert i18n.text_for(lang, f"errors.{key}", **info.value.values)


def test_glossary_filters_and_names_real_notes(app):
    at = app(GLOSSARY)
    no_exception(at)
    assert len(at.table[0].value) == len(TERMS)
    at.text_input(key="glossary_q").input("雅可比").run()
    assert list(at.table[0].value["English"]) == ["Jacobian matrix"]
    from pathlib import Path
    notes = {p.name[:3]: p.read_text(encoding="utf-8") for p in Path(SEEDS).glob("*.txt")}
    for key, _en, _zh, used_in, _ in TERMS:
        for lang in ("en", "zh"):
            assert i18n.text_for(lang, f"glossary.def.{key}")
        assert set(used_in) <= set(notes), key


# issue 18: the terms of pages 7 and 8, each with the word that shows where its notes use it
NEW_TERMS = {"word2vec": "Word2Vec", "skip_gram": "Skip-gram", "negative_sampling": "Negative Sampling",
             "subword": "BPE", "gate": "门控", "lstm": None, "gru": None, "cell_state": None}


def test_glossary_has_the_word2vec_subword_and_gated_terms(app):
    from pathlib import Path
    notes = {p.name[:3]: p.read_text(encoding="utf-8") for p in Path(SEEDS).glob("*.txt")}
    terms = {term[0]: term for term in TERMS}
    for key, mark in NEW_TERMS.items():
        _, en, zh, used_in, pages = terms[key]
        assert pages and (mark is None) == (not used_in), key  # LSTM, GRU, c_t: not in the notes
        for n in used_in:
            assert mark in notes[n], (key, n)  # the note really uses the term
    at = app(GLOSSARY)
    no_exception(at)
    for query, english in (("遗忘门", "gate (forget, input, output; update, reset)"), ("负采样", "negative sampling"),
                           ("skip-gram", "skip-gram"), ("门控循环", "GRU (gated recurrent unit)")):
        at.text_input(key="glossary_q").input(query).run()
        assert list(at.table[0].value["English"]) == [english], query
    at.text_input(key="glossary_q").input("LSTM").run()
    rows = at.table[0].value
    lstm = rows[rows["English"] == "LSTM (long short-term memory)"].iloc[0]
    assert lstm["notes"] == "(not in the notes)" and lstm["shown on"] == i18n.text_for("en", "nav.gates")


def test_every_page_links_the_glossary_from_the_sidebar(app):
    at = app()
    assert any("Glossary" in p.label for p in at.sidebar.get("page_link"))


def test_builtin_labels_name_their_vocabulary_size():
    for key in BUILTINS:
        _, vocab, _ = load_builtin(key)
        if i18n.has(f"models.{key}.label"):
            label = i18n.text_for("en", f"models.{key}.label", V=len(vocab))
            assert str(len(vocab)) in label or key == "notes"
    assert f"({len(load_builtin('default')[1])} words)" in BUILTINS["default"].label


def test_chinese_on_the_word_model_points_to_a_model_that_reads_it(app):
    at = app()
    at.sidebar.text_area(key="text").input("我喜欢猫，也喜欢狗。").run()
    no_exception(at)
    assert any(b.key == "words_use_subword" for b in at.sidebar.button)
    at = app(query={"model": "notes", "text": "我喜欢猫"})  # nothing known: an error, and a way out
    no_exception(at)
    assert at.error and any(b.key == "words_use_subword" for b in at.sidebar.button)


def test_has_cjk():
    from rnnviz.text.tokenize import has_cjk
    assert has_cjk("我喜欢猫") and has_cjk("I like 猫") and has_cjk("ねこ") and not has_cjk("the cat")


def test_switching_language_keeps_a_page_setting(app):
    at = app(TRAIN)
    at.number_input(key="train_steps").set_value(20).run()
    at.radio(key="train_level").set_value("char").run()
    at.session_state["lang"] = "zh"
    at.run()
    no_exception(at)
    assert at.number_input(key="train_steps").value == 20 and at.radio(key="train_level").value == "char"
    assert at.number_input(key="train_steps").label == i18n.text_for("zh", "train.steps")


def test_the_link_keeps_the_language_as_its_code(app):
    """?lang=zh stays in the link (a bound radio would drop it as not one of its labels, and a
    share link made in 中文 would open in English); switching writes the new code."""
    at = app(query={"lang": "zh"})
    no_exception(at)
    assert at.query_params["lang"] == "zh" and not at.sidebar.warning
    at.session_state["lang"] = "en"
    at.run()
    assert at.query_params["lang"] == "en"
