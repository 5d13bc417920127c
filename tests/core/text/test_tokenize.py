"""Tokenizers, Vocab, prepare() limits on both sides, upload decoding, word hashing."""
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.text.tokenize import (
    BOS,
    EOS,
    PAD,
    UNK,
    Vocab,
    clean_text,
    decode_upload,
    hash_word,
    letter_trigrams,
    prepare,
    tokenize,
    trigram_bucket,
    upload_lines,
)

VOCAB = Vocab((PAD, UNK, BOS, EOS, "Arrive", "Taipei", "on", "November", "2nd", "I", "like", "cats"))


def test_word_tokenizer_splits_words_punctuation_and_cjk():
    assert tokenize("Arrive Taipei, on November 2nd!") == ["Arrive", "Taipei", ",", "on",
                                                          "November", "2nd", "!"]
    assert tokenize("我爱猫 cats") == ["我", "爱", "猫", "cats"]
    assert tokenize("I 😀 like") == ["I", "😀", "like"]


def test_invisible_characters_are_dropped():
    assert tokenize("ca\u200bts\u0000 like\u202e") == ["cats", "like"]


def test_char_tokenizer():
    assert tokenize("ab  c", "char") == ["a", "b", " ", "c"]


def test_vocab_maps_both_ways_and_is_case_tolerant():
    ids, unknown = VOCAB.encode(["arrive", "Taipei", "Zorp"])
    assert ids == [4, 5, 1] and unknown == ["Zorp"]
    assert VOCAB.decode(ids) == ["Arrive", "Taipei", UNK]


def test_vocab_without_unk_drops_unknown_words():
    notes = Vocab(("I", "like", "cats", "dogs", "you"))
    assert notes.encode(["I", "like", "fish", "cats"]) == ([0, 1, 2], ["fish"])
    assert notes.id_of("cats") == 2  # "row 3" of the notes


def test_vocab_build_puts_specials_first_then_frequency():
    v = Vocab.build([["b", "a", "b"], ["c", "b", "a"]])
    assert v.itos == (PAD, UNK, BOS, EOS, "b", "a", "c")
    assert len(Vocab.build([["w%d" % i for i in range(50)]], max_size=10)) == 10


def test_prepare_reports_unknown_and_rejects_empty():
    p = prepare("I like zebras", VOCAB)
    assert p.tokens == ("I", "like", "zebras") and p.unknown == ("zebras",)
    assert any("zebras" in n for n in p.notices)
    for bad in ("", "   ", "\u200b\u200b", "\n\t"):
        with pytest.raises(InputError, match="empty"):
            prepare(bad, VOCAB)


def test_token_limit_on_both_sides():
    at_limit = prepare(" ".join(["cats"] * limits.MAX_TOKENS), VOCAB)
    assert len(at_limit.ids) == limits.MAX_TOKENS and at_limit.dropped == 0 and not at_limit.notices
    over = prepare(" ".join(["cats"] * (limits.MAX_TOKENS + 5)), VOCAB)
    assert len(over.ids) == limits.MAX_TOKENS and over.dropped == 5
    assert "5 more were dropped" in " ".join(over.notices)


def test_character_limit_on_both_sides():
    text = "cats " * (limits.MAX_TEXT_CHARS // 5)
    assert prepare(text, VOCAB).chars_cut == 0
    assert prepare(text + "x" * 7, VOCAB).chars_cut == 7
    huge = prepare("cats " * 20_000, VOCAB)  # 100,000 characters
    assert huge.chars_cut == 100_000 - limits.MAX_TEXT_CHARS and len(huge.ids) == limits.MAX_TOKENS


def test_only_unknown_words_with_a_vocab_without_unk():
    with pytest.raises(InputError, match="None of these words"):
        prepare("fish birds", Vocab(("I", "like", "cats", "dogs", "you")))


def test_decode_upload():
    assert decode_upload("I like cats\n".encode()) == "I like cats\n"
    assert decode_upload("\ufeffhello".encode("utf-8")) == "hello"  # BOM dropped
    with pytest.raises(InputError, match="empty"):
        decode_upload(b"")
    with pytest.raises(InputError, match="binary"):
        decode_upload(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(InputError, match="not UTF-8"):
        decode_upload("caf\u00e9".encode("latin-1"))
    ok = b"a" * limits.MAX_UPLOAD_BYTES
    assert len(decode_upload(ok)) == limits.MAX_UPLOAD_BYTES
    with pytest.raises(InputError, match="limit"):
        decode_upload(ok + b"a")


def test_upload_lines_bounded():
    lines, skipped = upload_lines("a\n\n b \n" + "x\n" * 5, max_lines=3)
    assert lines == ["a", "b", "x"] and skipped == 4
    with pytest.raises(InputError):
        upload_lines("\n \n")


def test_letter_trigrams_as_in_the_notes():
    assert letter_trigrams("good") == ["#go", "goo", "ood", "od#"]
    assert letter_trigrams("apple") == ["#ap", "app", "ppl", "ple", "le#"]
    assert letter_trigrams("a") == ["#a#"]


def test_hashing_is_stable_and_bounded():
    assert trigram_bucket("goo", 1000) == trigram_bucket("goo", 1000)
    assert all(0 <= trigram_bucket(t, 7) < 7 for t in letter_trigrams("zebra"))
    assert hash_word("good", 1) == [4]  # one bucket: everything collides
    assert sum(hash_word("unseenword", 64)) == len("unseenword")  # an OOV word still gets trigrams
    with pytest.raises(InputError):
        trigram_bucket("goo", 0)


def test_nfd_text_is_normalised():
    assert tokenize(unicodedata.normalize("NFD", "café")) == ["café"]
    assert tokenize(unicodedata.normalize("NFD", "café"), "char") == ["c", "a", "f", "é"]


def test_emoji_with_variation_selector_skin_tone_and_zwj_is_one_token():
    assert tokenize("I like cats ❤️") == ["I", "like", "cats", "❤️"]
    assert tokenize("👍🏽 👨\u200d👩\u200d👧 🇹🇼") == ["👍🏽", "👨\u200d👩\u200d👧", "🇹🇼"]
    assert tokenize("👨\u200d👩\u200d👧", "char") == ["👨\u200d👩\u200d👧"]


@pytest.mark.parametrize("word", ["नमस्ते", "สวัสดี", "مَرْحَبًا", "ภาษาไทย"])
def test_words_with_combining_marks_are_not_cut(word):
    assert tokenize(f"{word} ok") == [word, "ok"]
    assert "".join(tokenize(word, "char")) == word
    assert all(unicodedata.category(c[0])[0] != "M" for c in tokenize(word, "char"))


def test_cjk_extension_b_and_half_width_katakana_split_per_character():
    assert tokenize("𠀋𠀌𪜀") == ["𠀋", "𠀌", "𪜀"]
    assert tokenize("ｶﾀｶﾅ") == ["ｶ", "ﾀ", "ｶ", "ﾅ"]
    assert tokenize("ｶﾞｷ") == ["ｶﾞ", "ｷ"]  # the half-width voiced mark stays on its kana


def test_invisible_characters_still_dropped_but_not_inside_clusters():
    assert tokenize("ca\u200bts\u0000 like\u202e") == ["cats", "like"]
    assert tokenize("x\u200d y") == ["x", "y"]  # a dangling joiner is dropped
    assert tokenize("\ufeffhi\u00ad") == ["hi"]


# ASCII text takes a shortcut (issue 24: the English Word2Vec corpus, 3,304 sentences, was read in
# 0.12 s); it must cut exactly as the cluster-by-cluster path does, which handles any text
_ASCII = hst.text(hst.characters(max_codepoint=127), max_size=60)


@settings(max_examples=400, deadline=None)
@given(_ASCII)
def test_ascii_shortcut_cleans_as_the_cluster_path(text):
    from rnnviz.text.tokenize import _clean_clusters
    assert clean_text(text) == _clean_clusters(text)


@settings(max_examples=400, deadline=None)
@given(_ASCII)
def test_ascii_shortcut_cuts_words_as_the_cluster_path(text):
    from rnnviz.text.tokenize import _clean_clusters, _cluster_tokens, _word_tokens
    assert _word_tokens(text) == _cluster_tokens(text)  # on raw text too (spaces of every kind)
    cleaned = clean_text(text)
    assert tokenize(text) == _cluster_tokens(_clean_clusters(text)) == _word_tokens(cleaned)


def test_ascii_shortcut_keeps_the_hard_cases():
    assert tokenize("a\r\nb\rc\td\x00e\x7ff_g-2.5") == ["a", "bc", "def_g", "-", "2", ".", "5"]
    assert tokenize("x\x1cy \x0bz") == ["xy", "z"]  # control characters go, as in any text
