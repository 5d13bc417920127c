"""Byte-pair encoding (BPE) learned step by step, with a character and byte fallback.

Note 004 says large models replaced word hashing by subwords. BPE starts from single
characters and repeatedly glues the most frequent adjacent pair into one new symbol; the
ordered list of those merges *is* the tokenizer. A word it never saw still splits into
pieces it knows, down to single characters, and a character outside its alphabet (an
emoji, Chinese) into its UTF-8 bytes (`<0xE7>`), so no text ever becomes `<unk>`.

Conventions (SentencePiece's): a word that follows a space starts with the mark "▁", and a
dummy space is put before the text, so "the cat" -> "▁the", "▁cat". Merges never cross a
word, a digit run or a punctuation mark. Ties between equally frequent pairs go to the pair
that sorts first by code point ((left, right) compared as strings): the table is the same
on every run and every machine. `decode(encode(s)) == s` for any string s.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise

from rnnviz.text.tokenize import SPECIALS, Vocab, letter_trigrams, tokenize

MARK = "▁"  # U+2581: "a space came before this"
BASE_CHARS = tuple(chr(c) for c in range(33, 127))  # printable ASCII: always in the alphabet
BYTE_TOKENS = tuple(f"<0x{b:02X}>" for b in range(256))
_BYTE_RE = re.compile(r"<0x([0-9A-F]{2})>\Z")
# Words (letters), digit runs, "_", any other single character; each may take one space
# before it; a space before a space (or at the end) stands alone. Covers every character.
_PIECE_RE = re.compile(r" ?[^\W\d_]+| ?\d+| ?_| ?[^\w ]| ", re.UNICODE)


def pretokenize(text: str) -> list[str]:
    """Text -> the pieces BPE works inside: " the", " cat", ".", ... (dummy space first).

    "".join(pretokenize(s)) == " " + s for every non-empty s.
    """
    return _PIECE_RE.findall(" " + text) if text else []


def byte_value(token: str) -> int | None:
    """`<0xE7>` -> 231; None for any other token."""
    m = _BYTE_RE.match(token)
    return int(m.group(1), 16) if m else None


@dataclass(frozen=True)
class Merge:
    """One learned merge: left + right -> token, and how often the pair occurred then."""

    left: str
    right: str
    count: int

    @property
    def token(self) -> str:
        return self.left + self.right


@dataclass(frozen=True)
class BPE:
    """A learned table: the base alphabet and the merges in the order they were learned."""

    alphabet: tuple[str, ...]       # single characters (and MARK) that are symbols as they are
    merges: tuple[Merge, ...]

    @cached_property
    def ranks(self) -> dict:
        ranks: dict = {}
        for k, m in enumerate(self.merges):
            ranks.setdefault((m.left, m.right), k)
        return ranks

    @cached_property
    def symbols(self) -> tuple[str, ...]:
        """Every token this table can emit: alphabet, the 256 byte tokens, merged tokens."""
        return tuple(dict.fromkeys(self.alphabet + BYTE_TOKENS + tuple(m.token for m in self.merges)))

    def first(self, k: int) -> BPE:
        """The table after only its first k merges (a page shows merge k of the learning)."""
        return BPE(self.alphabet, self.merges[: max(0, k)])

    def base_symbols(self, piece: str) -> list[str]:
        """A piece as characters: a leading space -> MARK, a character outside the alphabet
        -> its UTF-8 bytes (the fallback that makes `<unk>` impossible)."""
        out = []
        if piece.startswith(" "):
            out.append(MARK)
            piece = piece[1:]
        alphabet = self._alphabet_set
        for ch in piece:
            if ch in alphabet:
                out.append(ch)
            else:
                out += [BYTE_TOKENS[b] for b in ch.encode("utf-8")]
        return out

    @cached_property
    def _alphabet_set(self) -> frozenset:
        return frozenset(self.alphabet) - {MARK}

    def merge_steps(self, piece: str) -> list[tuple[int, Merge, list[str]]]:
        """How a piece is encoded: after each merge applied, (its rank, the merge, the symbols).

        The merge of lowest rank present is applied first (to every place it occurs, left to
        right), exactly as during learning, so a training word splits as it was learned.
        """
        symbols = self.base_symbols(piece)
        steps = []
        while len(symbols) > 1:
            rank = min(self.ranks.get(p, len(self.merges)) for p in pairwise(symbols))
            if rank == len(self.merges):
                break
            m = self.merges[rank]
            symbols = merge_pair(symbols, m.left, m.right)
            steps.append((rank, m, list(symbols)))
        return steps

    def split(self, piece: str) -> list[str]:
        """The tokens of one piece (a word with its leading space, a digit run, a mark)."""
        steps = self.merge_steps(piece)
        return steps[-1][2] if steps else self.base_symbols(piece)

    def tokenize(self, text: str) -> list[str]:
        """Any text -> subword tokens, none unknown. Pieces are cached per call."""
        cache: dict = {}
        out: list[str] = []
        for piece in pretokenize(text):
            if piece not in cache:
                cache[piece] = self.split(piece)
            out += cache[piece]
        return out

    encode = tokenize

    def to_dict(self) -> dict:
        """Plain lists only, so a model bundle can hold it (torch.load(weights_only=True))."""
        return {"alphabet": list(self.alphabet),
                "merges": [[m.left, m.right, m.count] for m in self.merges]}

    @classmethod
    def from_dict(cls, d: dict) -> BPE:
        return cls(tuple(str(a) for a in d["alphabet"]),
                   tuple(Merge(str(a), str(b), int(c)) for a, b, c in d["merges"]))


def decode(tokens) -> str:
    """Subword tokens -> text: MARK is a space, byte tokens are joined and read as UTF-8,
    and the dummy space `tokenize` put first is removed."""
    parts, pending = [], bytearray()
    for tok in tokens:
        b = byte_value(tok)
        if b is not None:
            pending.append(b)
            continue
        if pending:
            parts.append(pending.decode("utf-8", errors="replace"))
            pending = bytearray()
        parts.append(tok.replace(MARK, " ") if tok.startswith(MARK) else tok)
    if pending:
        parts.append(pending.decode("utf-8", errors="replace"))
    text = "".join(parts)
    return text.removeprefix(" ")


def merge_pair(symbols: list[str], left: str, right: str) -> list[str]:
    """Replace every adjacent (left, right) by left+right, scanning left to right."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def alphabet_of(pieces) -> tuple[str, ...]:
    """MARK, printable ASCII, and every other printable character of the training pieces."""
    seen = {ch for p in pieces for ch in p if ch.isprintable() and ch not in (" ", MARK)}
    return (MARK,) + tuple(sorted(set(BASE_CHARS) | seen))


def learn_bpe(texts, num_merges: int, min_count: int = 2) -> BPE:
    """Learn up to `num_merges` merges from texts (stops early when no pair occurs
    `min_count` times). Each merge records the pair's count at the moment it was chosen.

    Incremental: only the words that hold the chosen pair are recounted.
    """
    piece_counts = Counter(p for t in texts for p in pretokenize(t))
    table = BPE(alphabet_of(piece_counts), ())
    words = [table.base_symbols(p) for p in piece_counts]
    freq = list(piece_counts.values())
    pairs: Counter = Counter()
    where: dict = {}
    for i, w in enumerate(words):
        for p in _pairs(w):
            pairs[p] += freq[i]
            where.setdefault(p, set()).add(i)
    merges = []
    while len(merges) < num_merges and pairs:
        (left, right), count = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))
        if count < min_count:
            break
        merges.append(Merge(left, right, count))
        for i in sorted(where.pop((left, right))):
            old = words[i]
            new = merge_pair(old, left, right)
            if new == old:
                continue
            for p in _pairs(old):
                pairs[p] -= freq[i]
                if pairs[p] <= 0:
                    del pairs[p]
            for p in _pairs(new):
                pairs[p] += freq[i]
                where.setdefault(p, set()).add(i)
            words[i] = new
        pairs.pop((left, right), None)
    return BPE(table.alphabet, tuple(merges))


def _pairs(symbols: list[str]) -> list[tuple[str, str]]:
    """Adjacent pairs that may merge (byte tokens never merge: they stay single bytes)."""
    return [(a, b) for a, b in pairwise(symbols)
            if byte_value(a) is None and byte_value(b) is None]


# ---- comparing tokenizers on held-out text (note 004: word, hashing, subwords, characters) ----

def compare_tokenizers(train_texts, heldout_texts, table: BPE, word_level: str = "word") -> list[dict]:
    """Word level, letter trigrams, BPE and characters, each fitted on train_texts and run on
    heldout_texts: vocabulary size, OOV rate (share of held-out units never seen in training)
    and sequence length (held-out units per sentence).

    Letter trigrams: the vocabulary is the distinct trigrams of the training words (the
    feature size without hash collisions), a unit for OOV is one trigram occurrence, and the
    sequence stays one vector per word. BPE: the table's symbols; it has no OOV because an
    unseen character falls back to bytes (`byte_fallback` counts those byte tokens).
    `word_level` is how words are cut: "word" (spaces), or "zh_word" (jieba) for Chinese.
    """
    def words(t):
        return tokenize(t, word_level)

    def chars(t):
        return tokenize(t, "char")

    def trigrams(t):
        return [g for w in words(t) for g in letter_trigrams(w)]

    rows = []
    for name, units in (("word", words), ("letter trigrams", trigrams), ("characters", chars)):
        seen = {u for t in train_texts for u in units(t)}
        held = [units(t) for t in heldout_texts]
        n = sum(map(len, held))
        oov = sum(u not in seen for h in held for u in h)
        length = [len(words(t)) for t in heldout_texts] if name == "letter trigrams" else list(map(len, held))
        rows.append(_row(name, len(seen), oov, n, length))
    held = [table.tokenize(t) for t in heldout_texts]
    n = sum(map(len, held))
    row = _row("BPE", len(table.symbols), 0, n, list(map(len, held)))
    row["byte_fallback"] = sum(byte_value(u) is not None for h in held for u in h)
    rows.append(row)
    return rows


def _row(name: str, vocab_size: int, oov: int, units: int, lengths: list[int]) -> dict:
    return {"tokenizer": name, "vocab_size": vocab_size, "oov": oov, "units": units,
            "oov_rate": oov / units if units else 0.0,
            "mean_length": sum(lengths) / len(lengths) if lengths else 0.0,
            "byte_fallback": 0}


def bpe_vocab(table: BPE) -> Vocab:
    """The model vocabulary of a BPE table: the specials, then every symbol the table emits
    (alphabet, byte tokens, merged tokens); it carries the table so `prepare` reads with it."""
    return Vocab(SPECIALS + table.symbols, subwords=table)
