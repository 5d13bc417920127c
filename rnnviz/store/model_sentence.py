"""A model file's default sentence, checked when the file is loaded (issue 22, R8).

Every page starts on the model's default sentence. A file whose sentence cannot be read with
its own vocabulary (unknown words and no `<unk>` to map them to, or only zero-width characters)
would leave every page without a sentence, so the sentence is replaced by one made from the
vocabulary's own tokens; a vocabulary with no readable token at all is refused.
"""
from __future__ import annotations

from rnnviz.errors import InputError
from rnnviz.text.bpe import MARK
from rnnviz.text.tokenize import SPECIALS, Vocab, prepare

SCAN_TOKENS = 200     # vocabulary tokens tried for a made-up sentence
SENTENCE_TOKENS = 5   # tokens in the made-up sentence


def readable(text: object, vocab: Vocab, level: str) -> bool:
    """Whether the pages can read `text` with this vocabulary (at least one known token)."""
    if not isinstance(text, str) or not text.strip():
        return False
    try:
        prepare(text, vocab, level)
    except InputError:
        return False
    return True


def vocab_sentence(vocab: Vocab, level: str) -> str | None:
    """A few of the vocabulary's own tokens, each one readable alone, as a sentence."""
    picked = []
    for tok in vocab.itos[:SCAN_TOKENS + len(SPECIALS)]:
        word = tok.replace(MARK, "").strip()
        if tok in SPECIALS or not word:
            continue
        try:
            p = prepare(word, vocab, level)
        except InputError:
            continue
        if not p.unknown:
            picked.append(word)
        if len(picked) == SENTENCE_TOKENS:
            break
    for n in range(len(picked), 0, -1):   # the longest prefix that still reads as a whole
        text = ("" if level == "char" else " ").join(picked[:n])
        if readable(text, vocab, level):
            return text
    return None


def usable_default(text: object, vocab: Vocab, level: str) -> str:
    """`text` when it can be read, else a sentence made from the vocabulary."""
    if readable(text, vocab, level):
        return text  # type: ignore[return-value]
    made = vocab_sentence(vocab, level)
    if made is None:
        raise InputError("No token of this model's vocabulary can be read as a sentence, so "
                         "the pages could not show it.", "no_readable_token")
    return made
