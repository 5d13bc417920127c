"""Issue 25: page 7 on Chinese. Word2Vec runs on the Chinese everyday corpus in 中文; the worked
pair comes from words of the learner's sentence that the corpus knows, and a clear hint in the
learner's language says what was chosen when the sentence's own word is unknown."""
from __future__ import annotations

from rnnviz.explain import origins
from rnnviz.explain import word2vec as w2v

from ..apptest_helpers import no_exception

PAGE = "pages/origins.py"


def contexts(at):
    return [s for s in at.selectbox if s.key == "origins_context"]


def test_zh_first_visit_uses_the_chinese_corpus_and_a_pair_of_the_sentence(app):
    at = app(PAGE, query={"lang": "zh"}, model=None)
    no_exception(at)
    assert at.radio(key="origins_source").value == "zh"
    assert not at.error
    [ctx] = contexts(at)
    pc = w2v.pair_corpus(origins.corpus_sentences("zh"), 2)
    assert pc.vocab.id_of(ctx.value) is not None and ctx.value in at.session_state["text"]


def test_an_unknown_centre_moves_to_the_nearest_known_word(app):
    at = app(PAGE, query={"lang": "zh", "text": "我喜欢猫", "origins_centre": "1"}, model=None)
    no_exception(at)
    pc = w2v.pair_corpus(origins.corpus_sentences("travel"), 2)  # knows none of these characters
    assert origins.known_pair(list("我喜欢猫"), 0, 2, pc.vocab) == (None, [])
    at.radio(key="origins_source").set_value("travel").run()
    no_exception(at)
    [hint] = [i.value for i in at.info if "示例词对取自语料本身" in i.value]
    assert "“" in hint and not at.error
    assert contexts(at)  # the pair is still worked out, on the corpus's own pair


def test_known_pair_prefers_the_nearest_known_centre():
    from rnnviz.text.tokenize import Vocab
    vocab = Vocab(["a", "b", "c"])
    assert origins.known_pair(["zz", "a", "b", "c"], 0, 1, vocab) == (1, ["b"])
    assert origins.known_pair(["a", "zz", "zz", "zz", "b"], 2, 1, vocab) == (None, [])
    assert origins.default_corpus("zh", "我喜欢猫", None, False) == "zh"
    assert origins.default_corpus("zh", "I like cats", "bpe", False) == "english"
    assert origins.default_corpus("en", "我喜欢猫", "bpe", True) == "page6"


def test_bpe_in_zh_shows_merges_learned_on_the_chinese_corpus(app):
    """The BPE section in 中文: the merge table, the split word and the tokenizer comparison are
    the Chinese everyday corpus's (rnnviz.explain.origins), with jieba's words."""
    from rnnviz.formatting import num
    from rnnviz.text.zh import has_chinese
    from ui.i18n import text_for

    at = app(PAGE, query={"lang": "zh"}, model=None)
    no_exception(at)
    table = origins.zh_subword_table()
    k = at.slider(key="origins_merge").value
    assert at.slider(key="origins_merge").max == len(table.merges) == origins.ZH_BPE_MERGES
    merges = next(d.value for d in at.dataframe if text_for("zh", "origins.col_token") in d.value.columns)
    want = [r["token"] for r in origins.merge_rows(table, max(0, k - 12), k)]
    assert list(merges[text_for("zh", "origins.col_token")]) == want and all(map(has_chinese, want))
    word = at.text_input(key="origins_word").value
    assert has_chinese(word)
    pieces = origins.split_at(table, k, word)
    assert any(" | ".join(tok for p in pieces for tok in p["tokens"]).replace("|", "\\|") in m.value
               or " | ".join(tok for p in pieces for tok in p["tokens"]) in m.value for m in at.markdown)
    rows = origins.tokenizer_rows("zh", table)
    col = text_for("zh", "origins.col_tokenizer")
    compare = next(d.value for d in at.dataframe if col in d.value.columns)
    assert list(compare[col]) == [text_for("zh", f"origins.tk_{k}") for k in
                                  ("word_zh", "trigrams_zh", "char_zh", "bpe")]
    assert list(compare[text_for("zh", "origins.col_oov_rate")]) == [num(100 * r["oov_rate"]) for r in rows]
    assert any(f"{rows[-1]['byte_fallback']} 个字节 token" in m.value for m in at.markdown)
