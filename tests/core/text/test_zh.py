"""Chinese tokenization: per character by default, jieba words on request, mixed Chinese and
English, which tokenizer ran, and jieba loaded once, quietly, without writing to disk."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import jieba
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnviz.errors import InputError
from rnnviz.text.tokenize import Vocab, clean_text, prepare, tokenize, unknown_rate
from rnnviz.text.zh import has_chinese, jieba_tokenizer, segment, tokenizer_name

ROOT = Path(__file__).resolve().parents[3]
SENTENCE = "我喜欢猫，也喜欢狗。"


def test_chinese_is_one_token_per_character_by_default():
    assert tokenize(SENTENCE) == list(SENTENCE)
    assert tokenize("狗咬人") == ["狗", "咬", "人"]


def test_mixed_sentences_keep_english_words_whole():
    text = "我用Python写了一个RNN model，very good!"
    assert tokenize(text) == ["我", "用", "Python", "写", "了", "一", "个", "RNN", "model", "，",
                              "very", "good", "!"]
    assert tokenize(text, "zh_word") == ["我", "用", "Python", "写", "了", "一个", "RNN", "model",
                                         "，", "very", "good", "!"]


def test_word_level_is_jiebas_dictionary_segmentation():
    """Oracle: jieba's own lcut (HMM off) on text without spaces or Latin letters."""
    for text in (SENTENCE, "我想从上海飞到北京", "十一月二日离开台北", "循环神经网络可以一个字一个字地读句子。",
                 "明天下午三点到达台北"):
        assert tokenize(text, "zh_word") == jieba.lcut(text, HMM=False)
    assert segment(SENTENCE) == ["我", "喜欢", "猫", "，", "也", "喜欢", "狗", "。"]
    assert segment("我想从上海飞到北京") == ["我", "想", "从", "上海", "飞", "到", "北京"]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="我喜欢猫狗人咬上海北京台到达离开 abcXYZ019，。!?_-😀\u200b", max_size=30))
def test_word_level_loses_no_character(text):
    """Every visible character lands in exactly one token, in order; spaces separate."""
    tokens = tokenize(text, "zh_word")
    assert "".join(tokens) == "".join(clean_text(text).split())
    assert all(tok.strip() == tok and tok for tok in tokens)


def test_prepared_sentence_says_which_tokenizer_ran():
    vocab = Vocab.build([list(SENTENCE), ["I", "like", "cats"], ["喜欢"]])
    assert prepare(SENTENCE, vocab).tokenizer == "zh_char"
    assert prepare(SENTENCE, vocab, "zh_word").tokenizer == "zh_word"
    assert prepare(SENTENCE, vocab, "zh_word").tokens == ("我", "喜欢", "猫", "，", "也", "喜欢", "狗", "。")
    assert prepare("I like cats", vocab).tokenizer == "word"
    assert prepare("I like cats", vocab, "char").tokenizer == "char"
    assert tokenizer_name("word", "abc") == "word" and tokenizer_name("word", "a猫") == "zh_char"
    assert has_chinese("猫") and not has_chinese("cat ねこ")


def test_bad_input_is_a_message():
    with pytest.raises(InputError, match="zh_word"):
        tokenize(SENTENCE, "jieba")
    vocab = Vocab.build([list(SENTENCE)])
    with pytest.raises(InputError):
        prepare("   \u200b ", vocab, "zh_word")
    assert tokenize("😀猫<script>", "zh_word") == ["😀", "猫", "<", "script", ">"]


def test_jieba_is_loaded_once_and_shared_between_threads():
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(jieba_tokenizer())) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(seen) == 4 and all(tk is seen[0] for tk in seen)
    assert seen[0].initialized and seen[0].FREQ["喜欢"] > 0


def test_segmenting_is_quiet_and_writes_nothing(tmp_path):
    """A fresh process with an empty TMPDIR and working directory: after segmenting, both are
    still empty (jieba's own initialize() would write jieba.cache there) and nothing is logged."""
    work, tmp = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    tmp.mkdir()
    code = ("from rnnviz.text.tokenize import tokenize; "
            f"print('|'.join(tokenize({SENTENCE!r}, 'zh_word')))")
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    assert out.stdout.strip() == "我|喜欢|猫|，|也|喜欢|狗|。"
    assert out.stderr == ""
    assert list(work.iterdir()) == [] and list(tmp.iterdir()) == []


def test_unknown_rate_against_a_direct_count():
    vocab = Vocab.build([list("我喜欢猫")])
    lines = ["我喜欢狗。", "猫 likes 鱼"]
    rate, unknown, total = unknown_rate(lines, vocab)
    han = [c for line in lines for c in line if "\u4e00" <= c <= "\u9fff"]
    missing = [c for c in han if c not in "我喜欢猫"]
    assert (unknown, total) == (len(missing), len(han)) == (2, 6)
    assert rate == pytest.approx(2 / 6)
    assert unknown_rate([], vocab) == (0.0, 0, 0)
