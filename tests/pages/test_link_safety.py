"""The sidebar with hostile links: notices are escaped, a huge sentence is cut before the URL."""
from rnnviz import limits
from tests.apptest_helpers import no_exception


def test_a_huge_link_sentence_is_cut_to_the_text_limit_in_the_box_and_the_url(app):
    at = app(query={"text": "cats " * 10_000})
    no_exception(at)
    assert len(at.sidebar.text_area(key="text").value) == limits.MAX_TEXT_CHARS
    assert len(at.query_params["text"][0] if isinstance(at.query_params["text"], list)
               else at.query_params["text"]) <= limits.MAX_TEXT_CHARS
    assert len(at.sidebar.code[0].value) < limits.MAX_TEXT_CHARS * 4


def test_markdown_in_a_link_reaches_the_notices_escaped(app):
    at = app(query={"model": "![i](https://example.invalid/i.png)", "[x](y)": "1"})
    no_exception(at)
    notices = " ".join(w.value for w in at.sidebar.warning)
    assert "\\!\\[i\\]\\(https\\:" in notices and "\\[x\\]\\(y\\)" in notices
    assert "![i](" not in notices and "[x](y)" not in notices


def test_the_share_link_holds_only_widgets_drawn_now(app):
    at = app(query={"text": "I like cats", "nonsense": "1"})
    no_exception(at)
    link = at.sidebar.code[0].value
    assert "text=I+like+cats" in link and "nonsense" not in link
