"""Turn user text into tokens and ids: tokenizers, Vocab, upload decoding, word hashing.

Every function here is pure and bounded by `limits`; bad input raises InputError
with a message for the learner, never anything else.
"""
from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field

import regex

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.text import zh
from rnnviz.text.zh import has_chinese

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<bos>", "<eos>"
SPECIALS = (PAD, UNK, BOS, EOS)

# CJK ideographs (every extension, B+ included), kana (half-width too) and hangul are one
# token per character: there are no spaces to split on.
_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\u3040-\u30ff\uff65-\uff9f]")
_GRAPHEME = regex.compile(r"\X")  # an extended grapheme cluster (Unicode UAX #29)
_DROPPED = ("Cc", "Cf", "Cs", "Co", "Cn")  # control, format, surrogate, private, unassigned
_JOINERS = "\u200c\u200d"  # ZWNJ, ZWJ: kept inside a cluster, dropped when left dangling
# ASCII text (most of the English corpora) takes a shortcut with the same result: there every
# character is its own cluster but "\r\n", and its word characters are letters, digits and "_"
_ASCII_SPACE = regex.compile(r"\r\n|[\n\t]")
_ASCII_DROPPED = regex.compile(r"[\x00-\x1f\x7f]")  # control characters (category Cc)
_ASCII_TOKEN = regex.compile(r"[A-Za-z0-9_]+|[^A-Za-z0-9_\t\n\x0b\x0c\r\x1c-\x1f ]")  # not str.isspace


def graphemes(text: str) -> list[str]:
    """User-perceived characters: a base character with its combining marks, variation
    selectors, skin tones and ZWJ emoji sequences (one cluster, as the reader sees it)."""
    return _GRAPHEME.findall(text)


def clean_text(text: str) -> str:
    """NFC, then drop control and zero-width characters (they are invisible and confuse
    tokens), keeping what belongs to a cluster: a ZWJ inside an emoji sequence, a variation
    selector, a combining mark. Newlines and tabs become spaces."""
    if text.isascii():
        return _ASCII_DROPPED.sub("", _ASCII_SPACE.sub(" ", text))
    return _clean_clusters(text)


def _clean_clusters(text: str) -> str:
    """clean_text cluster by cluster (any text)."""
    kept = []
    for cluster in graphemes(unicodedata.normalize("NFC", text)):
        if cluster in ("\n", "\t", " ", "\r\n"):
            kept.append(" ")
        elif len(cluster) == 1 and unicodedata.category(cluster) in _DROPPED:
            continue
        else:
            kept.append(cluster.rstrip(_JOINERS) if len(cluster) > 1 else cluster)
    return "".join(kept)


def _kind(cluster: str) -> str:
    """'space', 'cjk', 'word' (letters, digits, marks, connector _) or 'symbol', by base char."""
    base = cluster[0]
    if base.isspace():
        return "space"
    if _CJK.match(base):
        return "cjk"
    if unicodedata.category(base)[0] in "LNM" or unicodedata.category(base) == "Pc":
        return "word"
    return "symbol"


def _word_tokens(text: str) -> list[str]:
    """Runs of word clusters are one token; each CJK character and each symbol (punctuation,
    emoji with its modifiers) is one token; spaces separate."""
    if text.isascii():
        return _ASCII_TOKEN.findall(text)
    return _cluster_tokens(text)


def _cluster_tokens(text: str) -> list[str]:
    """_word_tokens cluster by cluster (any text)."""
    out, run = [], []
    for cluster in graphemes(text):
        kind = _kind(cluster)
        if kind == "word":
            run.append(cluster)
            continue
        if run:
            out.append("".join(run))
            run = []
        if kind != "space":
            out.append(cluster)
    if run:
        out.append("".join(run))
    return out


def has_cjk(text: str) -> bool:
    """Whether the text holds a Chinese/Japanese/Korean character (the sidebar then points to a
    model that reads it whole, when one is built in)."""
    return bool(_CJK.search(str(text)))


def tokenize(text: str, level: str = "word") -> list[str]:
    """Split text into tokens: "word" (words and punctuation, CJK per character), "char"
    (one token per grapheme cluster, runs of spaces as one space), or "zh_word" (Chinese words
    by jieba, other words whole: zh.segment)."""
    text = clean_text(text)
    if level == "word":
        return _word_tokens(text)
    if level == "char":
        return graphemes(" ".join(text.split()))
    if level in zh.LEVELS:
        return zh.segment(text)
    raise InputError(f"Unknown tokenizer level {level!r}: use 'word', 'char' or 'zh_word'.", "bad_level",
                     {"level": repr(level)})


@dataclass(frozen=True)
class Vocab:
    """Token <-> id, both ways. Ids are list positions (0-based, 'row id+1' in the notes).

    A vocabulary without `<unk>` (the notes' 5-word example) drops unknown words
    instead of mapping them; `encode` reports them either way.
    """

    itos: tuple[str, ...]
    # A subwords.BPE table when the tokens are subwords: `prepare` then reads text with it.
    subwords: object = field(default=None, repr=False)
    stoi: dict = field(init=False, compare=False, repr=False)
    lower: dict = field(init=False, compare=False, repr=False)

    def __post_init__(self):
        if len(set(self.itos)) != len(self.itos):
            raise InputError("A vocabulary cannot list the same token twice.")
        object.__setattr__(self, "stoi", {s: i for i, s in enumerate(self.itos)})
        lower = {}
        for i, s in enumerate(self.itos):
            lower.setdefault(s.lower(), i)
        object.__setattr__(self, "lower", lower)

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def id_of(self, token: str) -> int | None:
        """Exact match first, then case-insensitive ("arrive" finds "Arrive")."""
        if token in self.stoi:
            return self.stoi[token]
        return self.lower.get(token.lower())

    def encode(self, tokens: list[str]) -> tuple[list[int], list[str]]:
        """ids and the list of unknown tokens (mapped to <unk>, or dropped if there is none)."""
        ids, unknown = [], []
        unk = self.stoi.get(UNK)
        for tok in tokens:
            i = self.id_of(tok)
            if i is None:
                unknown.append(tok)
                if unk is None:
                    continue
                i = unk
            ids.append(i)
        return ids, unknown

    def decode(self, ids) -> list[str]:
        return [self.itos[int(i)] for i in ids]

    @property
    def tokenizer(self) -> str | None:
        """"bpe" when the vocabulary carries its BPE table; None when the level comes from
        elsewhere (a model's meta says "word" or "char")."""
        return "bpe" if self.subwords is not None else None

    def search(self, query: str, limit: int = 50) -> list[tuple[int, str]]:
        """(id, token) of tokens containing `query` (case-insensitive; subword marks "▁" are
        ignored), those starting with it first, then by id. Empty query: the first `limit`."""
        q = query.strip().lower()
        hits = []
        for i, tok in enumerate(self.itos):
            plain = tok.replace("▁", "").lower()
            if q in plain:
                hits.append((not plain.startswith(q), i, tok))
        hits.sort()
        return [(i, tok) for _, i, tok in hits[: max(0, limit)]]

    @property
    def has_specials(self) -> bool:
        return all(s in self.stoi for s in (BOS, EOS))

    @classmethod
    def build(cls, token_lists, max_size: int = limits.MAX_VOCAB) -> "Vocab":
        """Specials first, then tokens by frequency (ties by first appearance), capped at max_size."""
        counts: dict[str, int] = {}
        for toks in token_lists:
            for t in toks:
                if t not in SPECIALS:
                    counts[t] = counts.get(t, 0) + 1
        ranked = sorted(counts, key=lambda t: -counts[t])  # stable: first seen wins ties
        return cls(SPECIALS + tuple(ranked[: max(0, max_size - len(SPECIALS))]))


@dataclass(frozen=True)
class Prepared:
    """A sentence ready for the model, with everything the page should tell the learner."""

    tokens: tuple[str, ...]     # tokens as typed (after truncation)
    ids: tuple[int, ...]        # their ids (unknown -> <unk>, or dropped)
    unknown: tuple[str, ...]    # tokens not in the vocabulary
    dropped: int                # tokens cut by the MAX_TOKENS limit
    chars_cut: int              # characters cut by the MAX_TEXT_CHARS limit
    tokenizer: str = "word"     # what made the tokens: "word", "char", "bpe", "zh_char", "zh_word"

    @property
    def notice_items(self) -> list[tuple[str, dict]]:
        """The notices as (catalogue key, values), for an interface in another language."""
        out = []
        if self.chars_cut:
            out.append(("chars_cut", {"cut": f"{self.chars_cut:,}", "limit": f"{limits.MAX_TEXT_CHARS:,}"}))
        if self.dropped:
            out.append(("tokens_dropped", {"limit": limits.MAX_TOKENS, "dropped": f"{self.dropped:,}"}))
        if self.unknown:
            out.append(("unknown", {"tokens": ", ".join(dict.fromkeys(self.unknown[:20]))}))
        return out

    @property
    def notices(self) -> list[str]:
        out = []
        if self.chars_cut:
            out.append(f"The text was {self.chars_cut:,} characters over the "
                       f"{limits.MAX_TEXT_CHARS:,}-character limit; the rest was ignored.")
        if self.dropped:
            out.append(f"Only the first {limits.MAX_TOKENS} tokens are used; "
                       f"{self.dropped:,} more were dropped.")
        if self.unknown:
            shown = ", ".join(dict.fromkeys(self.unknown[:20]))
            out.append(f"Not in the model's vocabulary: {shown}.")
        return out


def prepare(text: str, vocab: Vocab, level: str | None = "word",
            max_tokens: int = limits.MAX_TOKENS) -> Prepared:
    """Validate, bound, tokenize and encode one sentence. Raises InputError if nothing is left.

    A vocabulary that carries a BPE table always reads text with it (its tokens are
    subwords, whatever `level` says); level None means "word" for any other vocabulary.
    """
    if not isinstance(text, str):
        raise InputError("The sentence must be text.", "not_text")
    chars_cut = max(0, len(text) - limits.MAX_TEXT_CHARS)
    level = vocab.tokenizer or level or "word"
    if level == "bpe":
        if vocab.subwords is None:
            raise InputError("This model has no subword table, so it cannot read subwords.")
        # whitespace as the corpus had it: one space between words
        tokens = vocab.subwords.tokenize(" ".join(clean_text(text[: limits.MAX_TEXT_CHARS]).split()))
    else:
        tokens = tokenize(text[: limits.MAX_TEXT_CHARS], level)
    if not tokens:
        raise InputError("The sentence is empty: type at least one word.", "empty_sentence")
    dropped = max(0, len(tokens) - max_tokens)
    tokens = tokens[:max_tokens]
    ids, unknown = vocab.encode(tokens)
    if not ids:
        raise InputError("None of these words is in the model's vocabulary "
                         f"({len(vocab)} tokens): {', '.join(tokens[:10])}.", "none_known",
                         {"V": len(vocab), "tokens": ", ".join(tokens[:10])})
    return Prepared(tuple(tokens), tuple(ids), tuple(unknown), dropped, chars_cut,
                    zh.tokenizer_name(level, text))
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def decode_upload(data: bytes, max_bytes: int = limits.MAX_UPLOAD_BYTES) -> str:
    """Bytes of an uploaded .txt -> text. UTF-8 (with or without BOM), and UTF-16 / UTF-32 with
    a byte-order mark (Windows Notepad's "Unicode"), are read; empty, oversized, binary and
    other files are refused, UTF-16 without a mark by name."""
    if len(data) == 0:
        raise InputError("The file is empty.", "file_empty")
    if len(data) > max_bytes:
        raise InputError(f"The file is {len(data):,} bytes; the limit is {max_bytes:,} bytes.",
                         "file_too_big",
                         {"size": f"{len(data):,}", "max_bytes": f"{max_bytes:,}"})
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                raise InputError(f"The file starts as {codec.upper()} text but is not valid "
                                 f"{codec.upper()}: save it as UTF-8 and upload it again.",
                                 "file_bad_bom", {"codec": codec.upper()}) from None
    if b"\x00" in data[:8192]:
        if _looks_utf16(data[:8192]):
            raise InputError("This looks like UTF-16 text without a byte-order mark: save it "
                             "as UTF-8 (or UTF-16 with BOM) and upload it again.", "file_utf16")
        raise InputError("This looks like a binary file, not text: upload a UTF-8 .txt file.", "file_binary")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"The file is not UTF-8 text (bad byte at position {err.start}): "
                         "save it as UTF-8 and upload it again.", "file_not_utf8",
                         {"position": err.start}) from None


def _looks_utf16(head: bytes) -> bool:
    """Most even (or most odd) bytes zero, the others not: ASCII-range text in UTF-16."""
    even, odd = head[0::2], head[1::2]
    zeros = max(even.count(0) / max(1, len(even)), odd.count(0) / max(1, len(odd)))
    return len(head) >= 4 and zeros > 0.6 and head.count(0) < 0.6 * len(head)


def upload_lines(text: str, max_lines: int = limits.MAX_UPLOAD_LINES) -> tuple[list[str], int]:
    """Non-empty lines of an upload (each cut to MAX_LINE_CHARS) and how many lines were skipped."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    skipped = max(0, len(lines) - max_lines)
    lines = [ln[: limits.MAX_LINE_CHARS] for ln in lines[:max_lines]]
    if not lines:
        raise InputError("The file has no non-empty line.", "file_no_lines")
    return lines, skipped


# ---- word hashing (notes 004) -------------------------------------------------

def letter_trigrams(word: str) -> list[str]:
    """'good' -> ['#go', 'goo', 'ood', 'od#'] (boundary marks, then every 3-letter window)."""
    marked = f"#{word}#"
    return [marked[i:i + 3] for i in range(len(marked) - 2)]


def trigram_bucket(trigram: str, buckets: int) -> int:
    """A stable hash (md5, not Python's salted hash) of a trigram into [0, buckets)."""
    if buckets < 1:
        raise InputError("The number of hash buckets must be at least 1.")
    digest = hashlib.md5(trigram.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little") % buckets


def hash_word(word: str, buckets: int) -> list[int]:
    """Count vector (length `buckets`) of the word's trigram buckets: the word-hashing feature."""
    vec = [0] * buckets
    for tri in letter_trigrams(word):
        vec[trigram_bucket(tri, buckets)] += 1
    return vec


def unknown_rate(lines, vocab, level: str = "word") -> tuple[float, int, int]:
    """Share of Han tokens the vocabulary does not know over some lines: (rate, unknown, total).

    Only Han tokens count: this measures how much everyday Chinese a model can read.
    """
    total = unknown = 0
    for line in lines:
        for tok in tokenize(line, level):
            if has_chinese(tok):
                total += 1
                unknown += vocab.id_of(tok) is None
    return (unknown / total if total else 0.0), unknown, total
