"""Issue 25: 20 everyday Chinese sentences, written for this test (none is a line of the shipped
corpora), read with no <unk> and no byte token by the model a first visit in 中文 opens, by page
7's Chinese corpus, and on every page the learner visits (page 8: by its three Chinese models)."""
from __future__ import annotations

import json
import re

import pytest

from rnnviz.explain import origins
from rnnviz.explain import word2vec as w2v
from rnnviz.store.catalog import load_builtin, start_model
from rnnviz.text.corpora import zh_everyday_lines, zh_travel_corpus
from rnnviz.text.tokenize import prepare
from ui.i18n import catalogue

from ..apptest_helpers import chart_elements, chart_json, no_exception

SENTENCES = (
    "今天天气很好，我们去公园吧。", "妈妈在厨房做饭。", "我明天早上八点上班。", "这本书很有意思。",
    "他每天骑自行车上学。", "你想喝咖啡还是喝茶？", "周末我们一起去看电影。", "弟弟在房间里写作业。",
    "这家饭馆的菜很好吃。", "我的手机快没电了。", "外面下雨了，记得带伞。", "她正在学习开车。",
    "晚饭后我们去散步。", "老师让我们读课文。", "火车站离这里不远。", "我找不到我的钥匙了。",
    "请把窗户打开。", "今年夏天特别热。", "我们家养了一只小猫。", "他生病了，今天没来上课。",
)
PAGES = ("pages/home.py", "pages/embedding.py", "pages/hidden.py", "pages/output.py", "pages/bptt.py",
         "pages/slots.py", "pages/train.py", "pages/origins.py", "pages/gates.py")
TOKEN_TABLES = ("pages/origins.py", "pages/gates.py")  # the tokens read, in tables (page 8: by three models)
UNKNOWN = tuple(catalogue("zh")[k].split("{")[0] for k in ("words.unknown", "notices.unknown"))
BYTE = re.compile(r"<0x[0-9A-Fa-f]{2}>|\\<0x")  # a byte token, anywhere tokens are shown


def test_the_sentences_are_new():
    lines = set(zh_everyday_lines()) | {"".join(toks) for toks, _ in zh_travel_corpus()}
    assert len(set(SENTENCES)) == 20 and not lines & set(SENTENCES)


def test_the_zh_start_model_and_page_7_corpus_read_every_sentence():
    _, vocab, meta = load_builtin(start_model("zh"))
    pc = w2v.pair_corpus(origins.corpus_sentences("zh"), 2)
    for s in SENTENCES:
        prep = prepare(s, vocab, meta.get("level", "word"))
        assert not prep.unknown and not any(t.startswith("<0x") for t in prep.tokens), s
        words = origins.sentence_words(s)
        assert all(pc.vocab.id_of(w) is not None for w in words), s
        pos, contexts = origins.known_pair(words, 1, 2, pc.vocab)
        assert pos == 1 and contexts, s  # the worked pair is the learner's own


def page_text(at) -> str:
    """Everything the page shows as tokens: code spans in its text, tables, chart JSON and the
    options of its choices (the prose may name <unk> when it explains it: not a token read)."""
    parts = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success"):
        parts += [m for e in getattr(at, kind) for m in re.findall(r"`[^`]*`", str(e.value))]
    parts += [str(e.value) for e in at.code]
    parts += [e.value.to_string() for e in at.dataframe]
    parts += [chart_json(el) for el in chart_elements(at)]
    for kind in ("selectbox", "radio", "multiselect"):
        parts += [json.dumps(list(map(str, w.options)), ensure_ascii=False) for w in getattr(at, kind)]
    return "\n".join(parts)


@pytest.mark.parametrize("page", PAGES)
def test_no_unknown_and_no_byte_token_on_any_page(app, page):
    at = app(page, query={"lang": "zh"}, model=None)
    no_exception(at)
    for s in SENTENCES:
        at.sidebar.text_area(key="text").input(s).run()
        no_exception(at)
        assert at.session_state["model"] == "zh"
        said = [w.value for w in [*at.warning, *at.sidebar.warning] if w.value.startswith(UNKNOWN)]
        assert not said, (s, page, said)
        chips = [m for e in at.sidebar.markdown for m in re.findall(r"`[^`]*`", str(e.value))]
        assert not any("<unk>" in c for c in chips), (s, page, chips)  # the tokens the model read
        if page in TOKEN_TABLES:  # pages 7 and 8 list the tokens each model read: none unknown
            tables = "\n".join(e.value.to_string() for e in at.dataframe)
            assert "<unk>" not in tables, (s, page)
        found = BYTE.search(page_text(at))
        assert found is None, (s, page, found and page_text(at)[max(0, found.start() - 80):found.end() + 40])
