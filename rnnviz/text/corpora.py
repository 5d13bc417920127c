"""Built-in corpora (written for this project, generated from templates with a fixed seed),
next-token pairs by shifting, and padding to B x T with masks.

Travel-booking sentences carry one slot tag per word, in the style of note 004:
"Arrive Taipei on November 2nd" -> other destination other date date.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

import torch

from rnnviz.conventions import IGNORE, TAGS
from rnnviz.errors import InputError
from rnnviz.text.tokenize import BOS, EOS, PAD, Vocab, prepare, tokenize

CITIES = ("Taipei", "Boston", "Tokyo", "Paris", "London", "Seoul", "Denver", "Sydney",
          "Madrid", "Chicago", "Berlin", "Toronto")
MONTHS = ("January", "March", "May", "July", "September", "November", "December")
DAYS = ("1st", "2nd", "3rd", "5th", "9th", "12th", "15th", "21st", "28th")
TIMES = (("5", "pm"), ("9", "am"), ("7", "am"), ("3", "pm"), ("11", "am"), ("8", "pm"))

# {A} = arrival city (destination), {D} = departure city, {date}, {time}
TRAVEL_TEMPLATES = (
    "Arrive {A} on {date}", "Arrive in {A} at {time}", "Arrive {A} at {time} on {date}",
    "I want to arrive in {A} on {date}", "Fly to {A} on {date}", "Book a flight to {A} at {time}",
    "Leave {D} on {date}", "Leave {D} at {time}", "I want to leave {D} at {time}",
    "Depart from {D} on {date}", "Fly from {D} at {time}", "Book a flight from {D} on {date}",
    "Leave {D} and arrive in {A} on {date}", "Fly from {D} to {A} at {time}",
    "{A} is my destination", "{D} is my departure", "{A} is where I arrive on {date}",
    "{D} is where I leave at {time}",
)

SUBJECTS = ("I", "you", "we", "they")
VERBS = ("like", "love", "see", "feed")
OBJECTS = ("cats", "dogs", "birds", "fish")
WHENS = ("today", "tomorrow", "now", "")
EVERYDAY_EXTRA = ("dog bites man", "man bites dog", "I like cats today", "you like dogs",
                  "cats like fish", "dogs like you")


def _fill(template: str, rng: random.Random) -> tuple[list[str], list[str]]:
    cities = rng.sample(CITIES, 2)
    slots = {"A": ([cities[0]], "destination"), "D": ([cities[1]], "departure"),
             "date": ([rng.choice(MONTHS), rng.choice(DAYS)], "date"),
             "time": (list(rng.choice(TIMES)), "time")}
    tokens, tags = [], []
    for word in template.split():
        if word.startswith("{"):
            words, tag = slots[word.strip("{}")]
            tokens += words
            tags += [tag] * len(words)
        else:
            tokens.append(word)
            tags.append("other")
    return tokens, tags


def travel_corpus(n: int = 1200, seed: int = 0) -> list[tuple[list[str], list[str]]]:
    """n tagged travel sentences: (tokens, tags), one tag from TAGS per token."""
    rng = random.Random(seed)
    return [_fill(rng.choice(TRAVEL_TEMPLATES), rng) for _ in range(n)]


def everyday_corpus(n: int = 600, seed: int = 1) -> list[list[str]]:
    """n short sentences like "I like cats today" (plus the notes' "dog bites man")."""
    rng = random.Random(seed)
    out = [s.split() for s in EVERYDAY_EXTRA]
    while len(out) < n:
        words = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(WHENS)]
        out.append([w for w in words if w])
    return out


def split_heldout(sentences: list, frac: float = 0.15, seed: int = 2) -> tuple[list, list]:
    """Split by distinct sentence text, so no held-out sentence also appears in training."""
    def key(item):
        return " ".join(item[0] if isinstance(item, tuple) else item)

    distinct = sorted({key(s) for s in sentences})
    rng = random.Random(seed)
    held = set(rng.sample(distinct, max(1, int(len(distinct) * frac))))
    train = [s for s in sentences if key(s) not in held]
    test = [s for s in sentences if key(s) in held]
    return train, test


def lm_pair(ids: list[int], vocab: Vocab) -> tuple[list[int], list[int]]:
    """Input and target ids for next-token prediction.

    With <bos>/<eos> in the vocabulary: input [<bos>, w1..wT], target [w1..wT, <eos>].
    Without (the notes' 5-word model): input [w1..wT], target [w2..wT, IGNORE].
    """
    if vocab.has_specials:
        return [vocab.stoi[BOS]] + list(ids), list(ids) + [vocab.stoi[EOS]]
    return list(ids), list(ids[1:]) + [IGNORE]


def pad_batch(seqs: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad to the longest: ids (B, T) and mask (B, T), True on real tokens."""
    T = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), T), pad_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), T), dtype=torch.bool)
    for b, s in enumerate(seqs):
        ids[b, : len(s)] = torch.tensor(s, dtype=torch.long)
        mask[b, : len(s)] = True
    return ids, mask


def lm_tensors(token_lists, vocab: Vocab) -> tuple[torch.Tensor, torch.Tensor]:
    """All sentences as padded LM inputs (N, T) and targets (N, T) (IGNORE on padding)."""
    pairs = [lm_pair(vocab.encode(toks)[0], vocab) for toks in token_lists]
    pad = vocab.stoi.get(PAD, 0)
    inputs, _ = pad_batch([p[0] for p in pairs], pad)
    targets, mask = pad_batch([p[1] for p in pairs], pad)
    return inputs, targets.masked_fill(~mask, IGNORE)


def tag_tensors(tagged, vocab: Vocab, tags=TAGS) -> tuple[torch.Tensor, torch.Tensor]:
    """Tagged sentences as padded ids (N, T) and tag ids (N, T) (IGNORE on padding)."""
    index = {t: i for i, t in enumerate(tags)}
    pad = vocab.stoi.get(PAD, 0)
    ids, mask = pad_batch([vocab.encode(toks)[0] for toks, _ in tagged], pad)
    tag_ids, _ = pad_batch([[index[t] for t in tg] for _, tg in tagged], 0)
    return ids, tag_ids.masked_fill(~mask, IGNORE)


# ---- the English corpus of the subword default model (rnnviz/corpora/en_*.txt) -------------

CORPORA = Path(__file__).resolve().parents[1] / "corpora"  # rnnviz/corpora
PATTERNS_FILE = "en_patterns.txt"  # generated by english_patterns() (scripts/build_bpe.py --corpus)

_PEOPLE = ("I", "we", "they", "my sister", "my brother", "our neighbour", "the teacher",
           "my friend", "the children", "my parents", "the old man", "a young woman", "the doctor",
           "my grandmother", "the driver", "our family", "the students", "my boss", "the baby",
           "everyone")
_DONE = ("bought a new coat", "cooked a big dinner", "read an old book", "wrote a long letter",
         "cleaned the whole house", "found a small key", "lost a blue umbrella",
         "painted the kitchen door", "watched a funny film", "visited an old friend",
         "planted some flowers", "fixed the broken window", "washed the car",
         "made a chocolate cake", "took a lot of photos", "sold the old bicycle",
         "called the hospital", "heard a strange noise", "saw a beautiful bird",
         "carried the heavy boxes", "opened a new shop", "learned a new song",
         "forgot the tickets", "drank a glass of milk", "ate fresh bread with butter",
         "walked the dog", "fed the ducks", "met a famous singer", "played football",
         "helped a lost child", "waited for the bus", "missed the last train",
         "ordered a pizza", "moved the sofa", "kept the windows open", "answered every question")
_WHERE = ("at home", "in the garden", "at the market", "in the park", "at the station",
          "near the river", "in the city", "at school", "at work", "in the village",
          "by the sea", "on the farm", "at the hotel", "in the kitchen", "at the airport",
          "in the library", "on the beach", "at the hospital", "in the shop", "on the bus")
_WHEN = ("Yesterday", "Last night", "This morning", "Last week", "On Monday", "On Friday",
         "In the afternoon", "After lunch", "Before breakfast", "Last summer", "In winter",
         "Two days ago", "At the weekend", "Early in the morning", "Late in the evening")
_LIKE = ("likes", "loves", "hates", "wants", "needs", "has", "sees", "remembers")
_THINGS = ("hot tea", "cold water", "red apples", "warm socks", "long walks", "quiet evenings",
           "good music", "fresh fish", "sunny days", "old films", "small dogs", "big cities",
           "green tea", "sweet cakes", "funny stories", "new shoes", "rainy mornings",
           "clean rooms", "early trains", "strong coffee")
_HE = ("He", "She", "My mother", "My father", "The girl", "The boy", "Our teacher", "Nobody")
_ASK = ("Where did {p} put the keys?", "Why did {p} leave so early?",
        "When did {p} come home?", "What did {p} eat for lunch?", "Did {p} see the news?",
        "How did {p} find the way?")


def english_patterns(n: int = 2000, seed: int = 3) -> list[str]:
    """n distinct everyday sentences from fixed templates and word lists (past tense, so every
    subject fits every verb): the bulk of common words the hand-written files leave out."""
    rng = random.Random(seed)
    out: dict = {}
    while len(out) < n:
        kind = rng.randrange(4)
        p = rng.choice(_PEOPLE)
        if kind == 0:
            s = f"{rng.choice(_WHEN)} {p} {rng.choice(_DONE)} {rng.choice(_WHERE)}."
        elif kind == 1:
            s = f"{p[0].upper() + p[1:]} {rng.choice(_DONE)}."
        elif kind == 2:
            s = f"{rng.choice(_HE)} {rng.choice(_LIKE)} {rng.choice(_THINGS)}."
        else:
            s = rng.choice(_ASK).format(p=p if p == "I" else p.lower())
        out[s] = None  # distinct sentences, in the order first drawn
    return list(out)


def english_sentences() -> list[str]:
    """Every line of rnnviz/corpora/en_*.txt (files in name order), stripped, blank ones skipped.

    The hand-written files (daily life, people, the world, short stories) are written for
    this project; en_patterns.txt is english_patterns() written out."""
    lines = []
    for path in sorted(CORPORA.glob("en_*.txt")):
        lines += [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return lines


def known_examples(vocab: Vocab, n: int = 5, level: str | None = None) -> list[str]:
    """Up to n sentences of the built-in corpora whose every token the model knows (shortest
    first, then alphabetical): clickable examples for a model that still has unknown words."""

    pool = [" ".join(s) for s in everyday_corpus()] + [" ".join(t) for t, _ in travel_corpus()]
    pool += english_sentences()
    found = []
    for s in sorted(dict.fromkeys(pool), key=lambda s: (len(s), s)):
        try:
            prep = prepare(s, vocab, level)
        except InputError:
            continue
        if not prep.unknown and not prep.dropped:
            found.append(s)
            if len(found) >= n:
                break
    return found


# ---- Chinese corpora (rnnviz/corpora/, written for this project, not machine-translated) ----

ZH_DEFAULT_SENTENCE = "我喜欢猫，也喜欢狗。"
# The notes' pairs in Chinese: word order (000: 狗咬人 / 人咬狗) and context for a slot
# (004: Arrive / Leave Taipei -> 到达台北 / 离开台北, where 台北 is characters 3 and 4).
ZH_ORDER_PAIR = ("狗咬人", "人咬狗")
ZH_SLOT_PAIR = ("到达台北", "离开台北")
ZH_SLOT_WORD = "台北"
ZH_ORDER_PRESETS = (ZH_ORDER_PAIR, ZH_SLOT_PAIR, ("我喜欢猫", "猫喜欢我"), ("你喜欢狗", "狗喜欢你"))
_SLOT_TAG = {"A": "destination", "D": "departure", "date": "date", "time": "time"}
_PLACEHOLDER = re.compile(r"(\{(?:A|D|date|time)\})")


def corpus_lines(name: str) -> list[str]:
    """The non-empty lines of a file in rnnviz/corpora/ that are not # comments."""
    text = (CORPORA / name).read_text(encoding="utf-8")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def zh_everyday_lines() -> list[str]:
    """The everyday Chinese sentences (about 1,100, covering the ~1,500 most common characters)."""
    return corpus_lines("zh_everyday.txt")


def zh_everyday_corpus(level: str = "word") -> list[list[str]]:
    """The everyday sentences as tokens: one per Han character by default (level "word")."""
    return [tokenize(line, level) for line in zh_everyday_lines()]


def zh_travel_parts() -> dict[str, tuple[str, ...]]:
    """zh_travel.tsv by kind: "template", "city", "date", "time" -> the lines of that kind."""
    parts: dict[str, list[str]] = {"template": [], "city": [], "date": [], "time": []}
    for line in corpus_lines("zh_travel.tsv"):
        kind, _, value = line.partition("\t")
        parts[kind].append(value.strip())
    return {k: tuple(v) for k, v in parts.items()}


def _fill_zh(template: str, parts: dict, rng: random.Random) -> tuple[list[str], list[str]]:
    """One template filled: tokens (per character, English words and numbers whole) and tags."""
    cities = rng.sample(parts["city"], 2)
    values = {"A": cities[0], "D": cities[1], "date": rng.choice(parts["date"]),
              "time": rng.choice(parts["time"])}
    tokens, tags = [], []
    for piece in _PLACEHOLDER.split(template):
        if not piece:
            continue
        key = piece.strip("{}") if _PLACEHOLDER.fullmatch(piece) else None
        toks = tokenize(values[key] if key else piece)
        tokens += toks
        tags += [_SLOT_TAG[key] if key else "other"] * len(toks)
    return tokens, tags


def zh_travel_corpus(n: int = 1200, seed: int = 0) -> list[tuple[list[str], list[str]]]:
    """n tagged Chinese travel requests, one tag from TAGS per character: 到达台北 ->
    other other destination destination (the same tag set as the English corpus)."""
    parts = zh_travel_parts()
    rng = random.Random(seed)
    return [_fill_zh(rng.choice(parts["template"]), parts, rng) for _ in range(n)]


def zh_lm_corpus() -> list[list[str]]:
    """What the Chinese language model reads: the everyday sentences and the travel requests."""
    return zh_everyday_corpus() + [toks for toks, _ in zh_travel_corpus()]


def zh_order_presets(vocab: Vocab, level: str = "word") -> list[tuple[str, str]]:
    """The Chinese preset pairs whose every token the model knows."""
    return [pair for pair in ZH_ORDER_PRESETS
            if all(vocab.id_of(t) is not None for s in pair for t in tokenize(s, level))]


@dataclass(frozen=True)
class TaggingData:
    """Tagged sentences for the slot taggers: the vocabulary, and (tokens, tags) pairs split
    into training and held-out parts."""
    vocab: Vocab
    train: tuple   # ((tokens, tags), ...)
    heldout: tuple
