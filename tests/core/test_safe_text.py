"""safe_text.escape_md / short, and every notice built from a link's values.

A stranger's text inside the app's Markdown messages must stay text: no link, image, HTML,
LaTeX, emphasis, code, heading or directive can start. CommonMark lets a backslash escape
any ASCII punctuation, so the rule checked here is: every ASCII punctuation character in the
output is escaped (except an underscore between two letters, which CommonMark never reads as
emphasis), no line break survives, and removing the escapes gives back the text."""
from __future__ import annotations

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from rnnviz import limits
from rnnviz.safe_text import WJ, escape_md, quote, short
from rnnviz.serve.links import (
    link_model_problem,
    overflow_notice,
    rejected_params,
    share_url,
    unused_notice,
)

PAYLOADS = ("![i](https://example.invalid/i.png)", "[Sign in](https://ex.invalid/a)",
            "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "$\\frac{1}{0}$",
            "$$x$$", "`code`", "**bold** _it_", ":red[alarm] :material/home:",
            "https://ex.invalid/auto", "www.example.invalid", "# Heading", "> quote",
            "- item", "1. item", "line\n\n# two", "&lt;b&gt;", "\\[x\\](y)", "a\\", "||x||",
            "<https://ex.invalid>", "[x]: https://ex.invalid", "~~s~~", "x<!-- c -->")


def unescaped_punct(md: str) -> list[str]:
    """ASCII punctuation in `md` not escaped by a backslash (intraword _ allowed)."""
    out, i = [], 0
    while i < len(md):
        c = md[i]
        if c == "\\" and i + 1 < len(md) and md[i + 1] in string.punctuation:
            i += 2
            continue
        if c in string.punctuation and not (c == "_" and 0 < i < len(md) - 1
                                            and md[i - 1].isalnum() and md[i + 1].isalnum()):
            out.append(c)
        i += 1
    return out


def unescape(md: str) -> str:
    """The text a reader sees: escapes resolved, the invisible word joiners gone."""
    return re.sub(r"\\([" + re.escape(string.punctuation) + "])", r"\1", md).replace(WJ, "")


def assert_inert(md: str) -> None:
    assert not unescaped_punct_outside_app_text(md), md
    assert "\n" not in md and "\r" not in md


def unescaped_punct_outside_app_text(md: str) -> list[str]:
    """The app's own words use only , . ; : ( ) “ ” and ' ; anything else unescaped is foreign."""
    return [c for c in unescaped_punct(md) if c not in ",.;:()'-"]


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_every_punctuation_is_escaped_and_the_text_comes_back(text):
    md = escape_md(text)
    assert not unescaped_punct(md)
    flat = re.sub(r"[\r\n\t\f\v\u0085\u2028\u2029]+", " ", text)
    flat = re.sub(r"[\x00-\x08\x0e-\x1f\x7f]", "", flat)
    assert unescape(md) == flat.replace(WJ, "")
    visible = md.replace("\\", "")
    assert "://" not in visible and "www." not in visible.lower()
    assert not re.search(r"[\w.+-]@", visible)
    assert "\n" not in md and "\r" not in md


def test_known_payloads_lose_every_construct():
    for p in PAYLOADS:
        md = escape_md(p)
        assert not unescaped_punct(md), (p, md)
        for danger in ("](", "![", "<", "$", "`", "**", ":red["):
            assert danger not in md.replace("\\" + danger[0], ""), (p, md)
    assert escape_md("train_steps") == "train_steps"  # intraword: inert, stays readable
    assert escape_md("_x_") == "\\_x\\_"
    assert escape_md("https://a.b") == "https\\:" + WJ + "\\/\\/a\\.b"
    assert escape_md("me@x.org").startswith("me" + WJ + "\\@")
    assert escape_md("a\\b") == "a\\\\b"  # a backslash cannot escape the next escape


def test_short_and_quote():
    assert short("abc", 5) == "abc" and short("abcdef", 4) == "abc…" and len(short("x" * 99)) == 40
    q = quote("[" * 100)
    assert q == "\\[" * 39 + "…"  # cut first, then escaped: no escape is split
    assert quote(12) == "12"


def test_every_link_notice_escapes_what_the_link_says():
    for p in PAYLOADS:
        for asked in (p, "own:" + p):
            msg = link_model_problem(asked, ["default", "notes"])
            assert_inert(msg.replace("“", "").replace("”", ""))
        rejected, unused = rejected_params({p: ["1"], "k": [p]}, {"k": 3})
        assert unused == [p]
        assert_inert(rejected[0])
        assert_inert(unused_notice(unused))
        assert_inert(overflow_notice([p]))
        rejected, _ = rejected_params({"k": ["1"]}, {"k": p})  # the widget's value, too
        assert_inert(rejected[0])


def test_notices_stay_short_for_huge_values():
    huge = "[x](y)" * 100_000
    for msg in (link_model_problem(huge, ["default"]), unused_notice([huge] * 50),
                rejected_params({"k": [huge]}, {"k": 1})[0][0]):
        assert len(msg) < 2_000


def test_a_value_streamlit_kept_in_the_url_is_accepted_in_its_label_form():
    initial = {"train_level": ["characters"], "train_source": ["a .txt file"],
               "hid_cell": ["Jordan"], "slot_pair_tagger": ["Bidirectional Elman"],
               "hid_units": ["u1", "u3"], "train_H": ["abc"]}
    state = {"train_level": "char", "train_source": "upload", "hid_cell": "jordan",
             "slot_pair_tagger": "bi", "hid_units": [0, 2], "train_H": 16}
    current = {k: v for k, v in initial.items() if k != "train_H"}  # Streamlit dropped train_H
    rejected, unused = rejected_params(initial, state, current=current)
    assert unused == [] and len(rejected) == 1 and "train_H" in rejected[0]
    # without the URL at the end of the run (the old check) every label looked rejected
    assert len(rejected_params(initial, state)[0]) == 6
    # links made before (values as values) still pass
    assert rejected_params({"train_level": ["char"]}, {"train_level": "char"}, current={}) == ([], [])


def test_share_links_cut_a_long_sentence_to_the_text_limit():
    url = share_url("http://h/p", {"text": ["a" * 1_000_000], "k": ["1"]})
    assert url.count("a") == limits.MAX_TEXT_CHARS and url.endswith("&k=1")


def test_long_tokens_are_shortened_on_chart_labels_and_stay_unique():
    from rnnviz.explain.embedding import vocab_labels
    from rnnviz.figures.common import step_labels
    toks = ["x" * 1_000_000, "x" * 1_000_001, "ok"]
    for labels in (step_labels(toks), vocab_labels(toks)):
        assert len(set(labels)) == 3
        assert all(len(lb) <= limits.MAX_LABEL_CHARS + 8 for lb in labels)
        assert labels[2].endswith(" ok") and labels[0].endswith("…")


def test_share_links_keep_only_the_widgets_drawn_in_this_run():
    params = {"emb_preset": ["Notes example"], "emb_gsrc": ["typed in by you"], "text": ["a b"]}
    url = share_url("http://h/p", params, keep={"emb_preset", "text", "model"})
    assert url == "http://h/p?emb_preset=Notes+example&text=a+b"
    assert "emb_gsrc" in share_url("http://h/p", params)  # without keep: everything, as before


def test_code_span_shows_a_token_as_it_is():
    from rnnviz.safe_text import code_span
    assert code_span("<0xE6>") == "`<0xE6>`"
    assert code_span("don't!") == "`don't!`"
    assert code_span("a`b") == "``a`b``"
    assert code_span("`") == "`` ` ``"
    assert code_span("x\ny") == "`x y`"
