"""piece_words: the overview's "you typed" column on the subword model, one word per piece."""
from rnnviz.explain.home import piece_words, token_table
from rnnviz.store.catalog import load_builtin
from rnnviz.text.tokenize import prepare


def test_pieces_are_named_by_the_word_they_came_from():
    pieces = ["▁The", "▁c", "at", "▁s", "at", ","]
    assert piece_words(pieces, "The  cat sat,") == ["The", "cat (1/2)", "cat (2/2)",
                                                  "sat, (1/3)", "sat, (2/3)", "sat, (3/3)"]


def test_words_the_model_spells_in_bytes_come_out_as_typed():
    _, vocab, meta = load_builtin("subword")
    text = "我喜欢猫 café ok"
    pieces = prepare(text, vocab, meta["level"]).tokens
    words = piece_words(pieces, text)
    assert len(words) == len(pieces)
    assert {w.split(" (")[0] for w in words} == {"我喜欢猫", "café", "ok"}
    assert words[0].startswith("我喜欢猫 (1/")  # its pieces are "▁" and bytes like <0xE6>


def test_every_typed_word_is_rebuilt_from_its_own_pieces():
    """Oracle: joining a word's pieces (▁ removed) gives the word typed, for plain ASCII words."""
    _, vocab, meta = load_builtin("subword")
    text = "the cat sat on the mat, unbelievably quietly"
    pieces = prepare(text, vocab, meta["level"]).tokens
    words = piece_words(pieces, text)
    order = []
    for piece, word in zip(pieces, words):
        if piece.startswith("▁"):
            order.append([word.rsplit(" (", 1)[0], ""])
        order[-1][1] += piece.replace("▁", "")
    assert [w for w, _ in order] == text.split()
    assert all(w == joined for w, joined in order)


def test_a_cut_sentence_keeps_its_words_aligned():
    pieces = ["▁a", "b", "▁c"]
    assert piece_words(pieces, "ab cd ef gh") == ["ab (1/2)", "ab (2/2)", "cd"]


def test_token_table_takes_the_named_pieces():
    model, vocab, meta = load_builtin("subword")
    prepared = prepare("the cat sat", vocab, meta["level"])
    ids = [vocab.stoi["<bos>"], *prepared.ids]
    rows = token_table(model, vocab, ids, piece_words(prepared.tokens, "the cat sat"))
    assert rows[0]["you typed"] == "" and [r["token"] for r in rows[1:]] == list(prepared.tokens)
    assert all(r["you typed"] for r in rows[1:])
