"""BPE: merges known by hand, an independent naive learner as oracle, exact round trips,
no unknown token for any text, and the tokenizer comparison counted by hand."""
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnviz.text.bpe import (
    BPE,
    BYTE_TOKENS,
    MARK,
    Merge,
    bpe_vocab,
    compare_tokenizers,
    decode,
    learn_bpe,
    merge_pair,
    pretokenize,
)
from rnnviz.text.corpora import english_sentences

# Sennrich et al.'s example corpus (low x5, lower x2, newest x6, widest x3)
SENNRICH = ["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3
# Worked by hand: pairs are counted with frequencies; ties go to the smaller (left, right)
# by code point, and "▁" (U+2581) sorts after every ASCII letter.
#   e s 9 and s t 9 tie -> (e, s); es t 9; then l o / o w / ▁ l all 7 -> (l, o); lo w 7 vs
#   ▁ lo 7 -> (lo, w); ▁ low 7; then e w / n ew... 6 -> (e, w), (ew, est), (n, ewest),
#   (▁, newest); then the widest pairs at 3 -> (d, est) first.
SENNRICH_MERGES = [("e", "s", 9), ("es", "t", 9), ("l", "o", 7), ("lo", "w", 7), (MARK, "low", 7),
                   ("e", "w", 6), ("ew", "est", 6), ("n", "ewest", 6), (MARK, "newest", 6),
                   ("d", "est", 3)]


@pytest.fixture(scope="module")
def sennrich():
    return learn_bpe(SENNRICH, 10)


def test_merges_of_the_sennrich_corpus_are_the_hand_worked_ones(sennrich):
    assert [(m.left, m.right, m.count) for m in sennrich.merges] == SENNRICH_MERGES


def test_learning_does_not_depend_on_input_order(sennrich):
    shuffled = SENNRICH[:]
    random.Random(5).shuffle(shuffled)
    assert learn_bpe(shuffled, 10) == sennrich


def test_training_and_unknown_words_split_as_worked_by_hand(sennrich):
    assert sennrich.tokenize("newest") == [MARK + "newest"]
    assert sennrich.tokenize("lower") == [MARK + "low", "e", "r"]
    assert sennrich.tokenize("widest") == [MARK, "w", "i", "dest"]
    assert sennrich.tokenize("lowest") == [MARK + "low", "est"]  # never seen, still known pieces
    steps = sennrich.merge_steps(" lowest")
    assert [rank for rank, _, _ in steps] == [0, 1, 2, 3, 4]
    assert steps[0][2] == [MARK, "l", "o", "w", "es", "t"]
    # the table after k merges: a page shows merge k of the learning
    assert sennrich.first(3).tokenize("lowest") == [MARK, "lo", "w", "est"]
    assert sennrich.first(0).tokenize("low") == [MARK, "l", "o", "w"]


def test_a_character_outside_the_alphabet_falls_back_to_its_utf8_bytes(sennrich):
    assert sennrich.tokenize("猫") == [MARK, "<0xE7>", "<0x8C>", "<0xAB>"]
    assert decode(sennrich.tokenize("猫")) == "猫"
    # a literal "▁" typed by the learner is a character, not a space mark
    assert decode(sennrich.tokenize("a▁b")) == "a▁b"


def naive_bpe(texts, num_merges):
    """Oracle: recount every pair from scratch before each merge (no incremental bookkeeping)."""
    pieces = Counter(p for t in texts for p in pretokenize(t))
    alphabet = learn_bpe(texts, 0).alphabet
    table = BPE(alphabet, ())
    words = {p: table.base_symbols(p) for p in pieces}
    merges = []
    for _ in range(num_merges):
        counts = Counter()
        for p, syms in words.items():
            for a, b in zip(syms, syms[1:]):
                if not (a.startswith("<0x") or b.startswith("<0x")):
                    counts[a, b] += pieces[p]
        if not counts:
            break
        (a, b), c = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        if c < 2:
            break
        merges.append(Merge(a, b, c))
        words = {p: merge_pair(syms, a, b) for p, syms in words.items()}
    return BPE(alphabet, tuple(merges)), words


def test_incremental_learning_equals_the_naive_oracle_and_words_split_as_learned():
    texts = english_sentences()[:400]
    table = learn_bpe(texts, 150)
    oracle, final = naive_bpe(texts, 150)
    assert table.merges == oracle.merges and len(table.merges) == 150
    for piece, symbols in final.items():
        assert table.split(piece) == symbols, piece


text_anything = st.text(alphabet=st.characters(codec="utf-8"), max_size=60)


@settings(max_examples=300, deadline=None)
@given(text_anything)
def test_any_text_round_trips_and_has_no_unknown_token(s):
    table = _corpus_table()
    assert "".join(pretokenize(s)) == (" " + s if s else "")
    tokens = table.tokenize(s)
    assert decode(tokens) == s
    symbols = set(table.symbols)
    assert all(t in symbols for t in tokens)


_TABLE = {}


def _corpus_table():
    if "t" not in _TABLE:
        _TABLE["t"] = learn_bpe(english_sentences()[:300], 200)
    return _TABLE["t"]


def test_table_survives_a_plain_dict_and_makes_a_vocab_without_duplicates(sennrich):
    again = BPE.from_dict(sennrich.to_dict())
    assert again == sennrich
    vocab = bpe_vocab(sennrich)
    assert vocab.tokenizer == "bpe" and vocab.subwords is sennrich
    assert vocab.itos[:4] == ("<pad>", "<unk>", "<bos>", "<eos>")
    assert set(BYTE_TOKENS) <= set(vocab.itos)
    assert len(vocab) == 4 + len(sennrich.alphabet) + 256 + len({m.token for m in sennrich.merges})


def test_comparison_counted_by_hand(sennrich):
    # train: "low lower" -> words {low, lower}; chars {l,o,w,e,r," "};
    #   trigrams of low: #lo low ow#; of lower: #lo low owe wer er#  -> 6 distinct
    # held-out: "lowest low" -> words lowest (OOV), low -> 1/2;
    #   trigrams #lo low owe wes est st# #lo low ow# -> unseen wes, est, st# -> 3/9;
    #   chars l o w e s t ' ' l o w -> s, t unseen -> 2/10
    rows = {r["tokenizer"]: r for r in compare_tokenizers(["low lower"], ["lowest low"], sennrich)}
    assert (rows["word"]["vocab_size"], rows["word"]["oov"], rows["word"]["units"]) == (2, 1, 2)
    assert rows["word"]["oov_rate"] == 0.5 and rows["word"]["mean_length"] == 2
    tri = rows["letter trigrams"]
    assert (tri["vocab_size"], tri["oov"], tri["units"], tri["mean_length"]) == (6, 3, 9, 2)
    ch = rows["characters"]
    assert (ch["vocab_size"], ch["oov"], ch["units"], ch["mean_length"]) == (6, 2, 10, 10)
    bpe = rows["BPE"]  # ▁low est ▁low
    assert (bpe["oov"], bpe["units"], bpe["mean_length"], bpe["byte_fallback"]) == (0, 3, 3, 0)
    assert bpe["vocab_size"] == len(sennrich.symbols)


def test_encoding_equals_huggingface_tokenizers_given_the_same_merges():
    """Reference: the `tokenizers` library's BPE model, loaded with our symbols and merges
    (byte fallback on), splits every piece as we do. Optional: skipped if not installed."""
    hf = pytest.importorskip("tokenizers")
    texts = english_sentences()[:400]
    table = learn_bpe(texts, 150)
    model = hf.models.BPE(vocab={t: i for i, t in enumerate(table.symbols)},
                          merges=[(m.left, m.right) for m in table.merges], byte_fallback=True)
    pieces = {p for t in texts + ["Crème brûlée, 猫 and 🙂 on 2026-11-30!"] for p in pretokenize(t)}
    for piece in sorted(pieces):
        theirs = [tok.value for tok in model.tokenize(piece.replace(" ", MARK))]
        assert table.split(piece) == theirs, piece
