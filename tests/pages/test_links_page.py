"""Links: the sidebar reads ?model= and ?text=, explains what it cannot use, and builds the
share link; the comparison of a link's values with what the widgets ended up with."""
from rnnviz.serve.links import link_model_problem, overflowing, rejected_params, share_url
from rnnviz.store.catalog import START_MODEL
from tests.apptest_helpers import no_exception


def sidebar_alerts(at) -> str:
    return " ".join(w.value for w in at.sidebar.warning)


def test_model_and_sentence_from_the_link(app):
    at = app(query={"model": "notes", "text": "I like dogs"})
    no_exception(at)
    assert at.sidebar.selectbox(key="model").value == "notes"
    assert at.sidebar.text_area(key="text").value == "I like dogs"
    assert sidebar_alerts(at) == ""
    assert list(at.dataframe[0].value["token"]) == ["I", "like", "dogs"]
    assert at.query_params["model"] == "notes"


def test_unknown_and_foreign_models_fall_back_with_a_message(app):
    for asked, words in (("no-such-model", "unknown model"), ("own:abc", "another session"),
                         ("x" * 5000, "unknown model")):
        at = app(query={"model": asked})
        no_exception(at)
        assert at.sidebar.selectbox(key="model").value == START_MODEL
        assert words in sidebar_alerts(at)
        assert at.query_params["model"] == START_MODEL  # the link says which model is shown
        assert len(sidebar_alerts(at)) < 400  # a huge value is cut in the message


def test_unused_parameters_are_named(app):
    at = app(query={"nonsense": "1", "text": "I like cats"})
    no_exception(at)
    assert "not used on this page: nonsense" in sidebar_alerts(at)


def test_choosing_a_model_updates_the_link_and_dismiss_clears_messages(app):
    at = app(query={"model": "bogus"})
    at.sidebar.selectbox(key="model").set_value("notes").run()
    assert at.query_params["model"] == "notes"
    assert "model=notes" in at.sidebar.code[0].value
    at.sidebar.button(key="link_dismiss").click().run()
    no_exception(at)
    assert sidebar_alerts(at) == ""
    at.sidebar.selectbox(key="model").set_value("default").run()
    assert at.query_params["model"] == "default"  # always in the link: a fresh session opens another
    assert "model=default" in at.sidebar.code[0].value


def test_rejected_params_compares_link_values_with_widget_values():
    initial = {"a": ["abc"], "b": ["3"], "c": ["TRUE"], "d": ["0.50"], "e": ["x", "y"],
               "f": ["gone"], "model": ["whatever"], "g": ["5"]}
    state = {"a": 1, "b": 3, "c": True, "d": 0.5, "e": ["x", "y"], "g": 9}
    rejected, unused = rejected_params(initial, state)
    assert unused == ["f"]
    assert len(rejected) == 2
    assert "“abc” for “a”" in rejected[0] and "showing 1 instead" in rejected[0]
    assert "“5” for “g”" in rejected[1]


def test_share_url_and_model_problems():
    assert share_url("http://h/p", {"text": ["a&b c"], "k": ["1", "2"]}) == \
        "http://h/p?text=a%26b+c&k=1&k=2"
    assert share_url("http://h/p", {}) == "http://h/p"
    assert link_model_problem("notes", ["default", "notes"]) is None
    assert "unknown model" in link_model_problem("<b>", ["default"])


def test_infinite_numbers_in_a_link_are_dropped_before_any_widget_reads_them(app):
    """Streamlit 1.67 crashes on ?int_number_input=1e309 (int(inf)); the sidebar drops it first."""
    at = app("pages/train.py", query={"train_steps": "1e309", "train_H": "-inf", "text": "1e309"})
    no_exception(at)
    assert at.number_input(key="train_steps").value == 300
    assert "too large to be a number: train_steps, train_H" in sidebar_alerts(at)
    assert at.sidebar.text_area(key="text").value == "1e309"  # a sentence may be anything
    assert overflowing(["1e309"]) and overflowing(["-Infinity"]) and not overflowing(["NaN", "7", "x"])


def test_text_that_reads_as_infinity_is_kept_as_text(app):
    """?glossary_q=infinity is a search, not a number: no "too large" notice (issue 22, R9)."""
    at = app("pages/glossary.py", query={"glossary_q": "infinity", "text": "-inf"})
    no_exception(at)
    assert "too large" not in sidebar_alerts(at)
    assert at.text_input(key="glossary_q").value == "infinity"
    assert at.query_params["glossary_q"] == "infinity"
