"""Page 5 (slot filling, note 004): what the page shows of the taggers of rnnviz.engine.taggers
(fnn, elman, jordan, bi, flat), which differ only in what context they see: training them on
the travel corpus, tagging a sentence and extracting its slots, scores and confusion on the
held-out split, the same word in two sentences, a tag forced at one step, streaming tags and
their revisions, and the Jordan step by hand. Everything the page shows is computed here (and
unit-tested).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace

import numpy as np
import torch

from rnnviz.conventions import IGNORE, TAGS
from rnnviz.engine.model import RNNModel
from rnnviz.engine.taggers import FLAT_LEN, HIDDEN, hidden_states, make_tagger, predict, tag_probs
from rnnviz.engine.train import TrainConfig, train
from rnnviz.errors import InputError
from rnnviz.explain.exercises.checker import first_slip, numbers, verdict
from rnnviz.explain.exercises.verdict import Verdict
from rnnviz.text.corpora import TaggingData, split_heldout, tag_tensors, travel_corpus
from rnnviz.text.tokenize import UNK, Vocab, prepare

SLOTS = {"destination": "Destination", "departure": "Departure", "date": "Date", "time": "Time"}
UNK_RATE = 0.1  # share of words replaced by <unk> in an extra copy of the training set
TRAIN_CFG = TrainConfig(steps=400, batch_size=32, optimizer="adam", lr=0.02, clip=1.0, seed=0)
# shifted_heldout's prefix for the Chinese taggers: 请 ("please"), a character they know and
# saw tagged other (请帮我查一下..., 请问...); the English "please" is an unknown word to them
ZH_SHIFT_PREFIX = ("请",)


# ---- data and training ---------------------------------------------------------------------

def tagging_data() -> TaggingData:
    """The travel corpus, its vocabulary (all of it) and the held-out split kept for evaluation."""
    corpus = travel_corpus()
    train_s, test_s = split_heldout(corpus)
    return TaggingData(Vocab.build([toks for toks, _ in corpus]), tuple(train_s), tuple(test_s))


def with_unknowns(tagged, rate: float = UNK_RATE, seed: int = 0) -> list:
    """The sentences plus a copy where each word is <unk> with probability `rate`.

    Without it the <unk> row of E is never trained, and a word the tagger has never
    seen (a new city) would get a random tag; with it, context decides.
    """
    rng = random.Random(seed)
    copy = [([UNK if rng.random() < rate else w for w in toks], tags) for toks, tags in tagged]
    return list(tagged) + copy


def train_tagger(kind: str, data: TaggingData, hidden_size: int = HIDDEN, seed: int = 0,
                 steps: int = TRAIN_CFG.steps, callback=None, max_len: int = FLAT_LEN):
    """Train one tagger on the training split; returns (model in eval mode, loss history)."""
    model = make_tagger(kind, len(data.vocab), hidden_size, seed, max_len)
    ids, tags = tag_tensors(with_unknowns(data.train, seed=seed), data.vocab)  # (N, T), (N, T)
    cfg = TrainConfig(steps=steps, batch_size=TRAIN_CFG.batch_size, optimizer=TRAIN_CFG.optimizer,
                      lr=TRAIN_CFG.lr, clip=TRAIN_CFG.clip, seed=seed)
    history = train(model, ids, tags, cfg, callback)
    return model.eval(), history


@dataclass(frozen=True, eq=False)
class Tagged:
    tokens: tuple      # as typed
    words: tuple       # as the tagger reads them (<unk> for unknown words)
    tags: tuple        # argmax tag per word
    probs: np.ndarray  # (T, K)
    notices: tuple = ()  # text or tokens cut by the limits (unknown words are in `words`)


def tag_sentence(model, vocab: Vocab, text: str) -> Tagged:
    """Tag a typed sentence (unknown words read as <unk>); raises InputError if it is empty."""
    prep = prepare(text, vocab)
    p = tag_probs(model, prep.ids)  # (T, K)
    return Tagged(prep.tokens, tuple(vocab.decode(prep.ids)),
                  tuple(TAGS[k] for k in p.argmax(1)), p,
                  tuple(replace(prep, unknown=()).notices))


def extract_slots(tokens, tags, sep: str = " ", when: str = "before") -> dict[str, str]:
    """The form: each slot's words (a run of equal tags joined by `sep`: a space between
    English words, nothing between Chinese characters; runs by ' / '), and
    whether the date/time is of the arrival or the departure, as in the notes' "Time of
    Arrival: November 2nd": it belongs to the nearest city slot before it (else after it).
    when="after" looks after it first: Chinese puts the date and time before the verb and the
    city (十一月二日到达台北, 晚上七点到巴黎)."""
    runs: dict[str, list[list[str]]] = {tag: [] for tag in SLOTS}
    prev = None
    for tok, tag in zip(tokens, tags):
        if tag in runs:
            if tag != prev:
                runs[tag].append([])
            runs[tag][-1].append(tok)
        prev = tag
    form = {SLOTS[tag]: " / ".join(sep.join(r) for r in rs) for tag, rs in runs.items()}
    form[WHEN_OF] = _when_of(list(tags), when)
    return form


WHEN_OF = "Date/time of"
_CITY = {"destination": "arrival", "departure": "departure"}


def _when_of(tags: list[str], first: str = "before") -> str:
    """The city slot of the first date/time: the nearest one on the `first` side, else the
    nearest on the other side, else ""."""
    if first not in ("before", "after"):
        raise InputError('when must be "before" or "after".')
    when = [t for t, tag in enumerate(tags) if tag in ("date", "time")]
    if not when:
        return ""
    t0 = when[0]
    before = [_CITY[tag] for tag in tags[:t0] if tag in _CITY][::-1]  # nearest first
    after = [_CITY[tag] for tag in tags[t0:] if tag in _CITY]
    sides = (before, after) if first == "before" else (after, before)
    return next((side[0] for side in sides if side), "")


def confusion(gold: torch.Tensor, pred: torch.Tensor, K: int = len(TAGS)) -> np.ndarray:
    """(K, K) counts: row = true tag, column = predicted tag; padding (IGNORE) left out."""
    keep = gold != IGNORE
    flat = gold[keep] * K + pred[keep]
    return torch.bincount(flat, minlength=K * K).reshape(K, K).numpy()


def scores(cm: np.ndarray) -> dict:
    """Accuracy and per-tag precision, recall and F1 (token level) from a confusion matrix."""
    tp = np.diag(cm).astype(float)
    pred, gold = cm.sum(0), cm.sum(1)
    prec = np.divide(tp, pred, out=np.zeros_like(tp), where=pred > 0)
    rec = np.divide(tp, gold, out=np.zeros_like(tp), where=gold > 0)
    f1 = np.divide(2 * prec * rec, prec + rec, out=np.zeros_like(tp), where=prec + rec > 0)
    return {"accuracy": float(tp.sum() / max(cm.sum(), 1)),
            "precision": dict(zip(TAGS, prec.tolist())), "recall": dict(zip(TAGS, rec.tolist())),
            "f1": dict(zip(TAGS, f1.tolist())), "tokens": int(cm.sum())}


def shifted_heldout(data: TaggingData, prefix=("please",)) -> TaggingData:
    """The held-out sentences with `prefix` words (tagged other) put in front: every slot moves
    right by len(prefix). A tagger that shares its weights across positions barely notices;
    the flattened FNN meets its slots at positions whose weights learned something else.
    ("please" is not in the vocabulary: every tagger reads it as <unk>, trained for that.)"""
    prefix = list(prefix)
    moved = tuple((prefix + list(toks), ["other"] * len(prefix) + list(tags))
                  for toks, tags in data.heldout)
    return TaggingData(data.vocab, data.train, moved)


def evaluate(model, data: TaggingData, split: str = "heldout") -> dict:
    """Scores and confusion matrix of one tagger on a split ("heldout" or "train")."""
    ids, gold = tag_tensors(getattr(data, split), data.vocab)  # (N, T), (N, T)
    cm = confusion(gold, predict(model, ids))
    return {**scores(cm), "confusion": cm.tolist()}


@dataclass(frozen=True, eq=False)
class HiddenPair:
    word: str
    position: int        # 0-based position of the word's LAST token in both sentences
    h_a: np.ndarray      # (H_out,)
    h_b: np.ndarray      # (H_out,)
    tag_a: str
    tag_b: str
    token: str = ""      # the token at `position` (the word itself, or 北 of 台北)
    start: int = -1      # 0-based position of the word's first token (= position for one token)

    @property
    def distance(self) -> float:
        return float(np.linalg.norm(self.h_a - self.h_b))


def word_span(tokens, word: str) -> tuple[int, int]:
    """(start, end) of the first occurrence of `word` among the tokens, end exclusive: one
    token (case-insensitive), or a run of tokens that spell it when joined (a Chinese word read
    one character at a time: 台北 -> 台, 北). InputError if it is not there."""
    lowered, w = [t.lower() for t in tokens], word.lower()
    if w in lowered:
        i = lowered.index(w)
        return i, i + 1
    for i in range(len(lowered)):
        joined = ""
        for j in range(i, len(lowered)):
            joined += lowered[j]
            if joined == w:
                return i, j + 1
            if not w.startswith(joined):
                break
    raise InputError(f"“{word}” is not a word of “{' '.join(tokens)}”.")


def compare_word(model, vocab: Vocab, text_a: str, text_b: str, word: str) -> HiddenPair:
    """The hidden state and the tag of `word` in two sentences (its first occurrence in each).
    A word of several tokens (台北, per character) is compared at its last token, whose
    state has read all of it."""
    out = []
    for text in (text_a, text_b):
        prep = prepare(text, vocab)
        start, end = word_span(prep.tokens, word)
        t = end - 1
        out.append((t, hidden_states(model, prep.ids)[t], TAGS[int(tag_probs(model, prep.ids)[t].argmax())],
                    prep.tokens[t], start))
    if out[0][0] != out[1][0]:
        raise InputError("Pick a word at the same position in both sentences.")
    return HiddenPair(word, out[0][0], out[0][1], out[1][1], out[0][2], out[1][2], out[0][3], out[0][4])


def word_tag(tagged: Tagged, word: str) -> str:
    """The tag a tagger gave `word` in a tagged sentence: its tokens' tag, or the distinct tags
    joined by "/" when the tokens of one word (东, 京) got different ones."""
    start, end = word_span(tagged.tokens, word)
    return "/".join(dict.fromkeys(tagged.tags[start:end]))


def force_tag(model, ids, t: int, tag: str, strength: float = 30.0) -> np.ndarray:
    """Tag probabilities (T, K) when the output at step t is forced to `tag` (a wrong tag).

    Jordan feeds y_t = softmax(z_t) into step t+1, so the forced tag travels on; an Elman or
    bidirectional model's later outputs do not depend on z_t at all.
    """
    ids = torch.as_tensor(list(ids), dtype=torch.long)
    if not isinstance(model, RNNModel):
        raise InputError("Forcing a tag is shown for the RNN taggers: an FNN has no output fed back.")
    if not 0 <= t < len(ids):
        raise InputError(f"The step must be from 1 to {len(ids)}.")
    forced = torch.zeros(len(TAGS))
    forced[TAGS.index(tag)] = strength  # softmax of this is one-hot to within e^-30

    def hook(z, step):
        return forced.to(z.dtype).expand_as(z) if step == t else None

    with torch.no_grad():
        z, _ = model.run_with_cache(ids, names_filter=(), hooks=[("hook_logits", hook)])
    return torch.softmax(z.double(), -1).numpy()  # (T, K)


def streaming_tags(model, ids) -> list[list[str]]:
    """Tags as the words arrive: row n holds the tags of the first n+1 words, read on their own.

    A left-to-right tagger never revises a tag (row n agrees with the full sentence up to n);
    a bidirectional one does, since h_bwd at word t depends on every later word.
    """
    ids = list(ids)
    return [[TAGS[k] for k in tag_probs(model, ids[: n + 1]).argmax(1)] for n in range(len(ids))]


def revisions(rows: list[list[str]], t: int = 0) -> int:
    """In streaming_tags rows, how many times word t's tag differs from its final tag."""
    return sum(row[t] != rows[-1][t] for row in rows[t:])


def top_tags(p) -> list[str]:
    """The most probable tag at every step of a (T, n_tags) distribution."""
    return [TAGS[int(k)] for k in np.asarray(p).argmax(1)]


def distribution_change(p, q) -> np.ndarray:
    """Per step, half the L1 distance between two tag distributions (T, K): 0 same, 1 disjoint."""
    return 0.5 * np.abs(np.asarray(p) - np.asarray(q)).sum(-1)  # (T,)


# ---- try it by hand: one Jordan step -------------------------------------------------------

@dataclass(frozen=True, eq=False)
class JordanExercise:
    """a = W_x x + W_y y_prev + b with small integers; y_prev is the one-hot previous tag."""

    W_x: np.ndarray   # (2, 2)
    x: np.ndarray     # (2,)
    W_y: np.ndarray   # (2, 3)
    prev_tag: int     # index into EXERCISE_TAGS
    b: np.ndarray     # (2,)

    @property
    def y_prev(self) -> np.ndarray:
        return np.eye(3)[self.prev_tag]

    def answer(self) -> np.ndarray:
        return self.W_x @ self.x + self.W_y @ self.y_prev + self.b


EXERCISE_TAGS = ("other", "destination", "date")


def jordan_exercise(seed: int) -> JordanExercise:
    """Fresh small integers from a seed, drawn again until every typical mistake gives a
    different answer (so the checker can say which one it was)."""
    rng = np.random.default_rng(seed)
    while True:
        ex = JordanExercise(rng.integers(-2, 3, (2, 2)), rng.integers(-2, 3, 2),
                            rng.integers(-2, 3, (2, 3)), int(rng.integers(0, 3)),
                            rng.integers(-1, 2, 2))
        if len({tuple(v) for v in _mistakes(ex).values()} | {tuple(ex.answer())}) == 5:
            return ex


# slip -> English message (the catalogue's slots.hint.<slip> says the same in each language)
JORDAN_HINTS = {
    "no_feedback": "You left out the fed-back output W_y y_prev: that is the Jordan memory.",
    "no_bias": "You left out the bias b.",
    "transposed": "You used W_x transposed: row i of W_x times x gives a_i.",
    "sign_feedback": "Sign slip: the fed-back term W_y y_prev is added, not subtracted.",
    "right": "Right: a = W_x x + W_y y_prev + b.",
    "flipped": "The sign is flipped everywhere.",
    "other": "Not yet: compute W_x x, add the column of W_y for the previous tag, add b.",
}


def _mistake_vectors(ex: JordanExercise) -> dict[str, np.ndarray]:
    """slip -> the a that slip gives."""
    feedback = ex.W_y @ ex.y_prev
    return {"no_feedback": ex.W_x @ ex.x + ex.b, "no_bias": ex.W_x @ ex.x + feedback,
            "transposed": ex.W_x.T @ ex.x + feedback + ex.b, "sign_feedback": ex.W_x @ ex.x - feedback + ex.b}


def _mistakes(ex: JordanExercise) -> dict[str, np.ndarray]:
    """English message -> the a that slip gives (kept for callers of the message form)."""
    return {JORDAN_HINTS[k]: v for k, v in _mistake_vectors(ex).items()}


def check_jordan(ex: JordanExercise, answer) -> Verdict:
    """(correct?, what is wrong) for the learner's a = [a_1, a_2], as a Verdict (unpacks as
    the old (ok, message) tuple); its solution is the right a; hint_key names the slip in the
    page's catalogue (slots.hint.<slip>)."""
    got = numbers(answer, (2,), "Type two finite numbers, a_1 and a_2.", "Type two numbers, a_1 and a_2.")
    a = ex.answer()
    key = first_slip([(np.allclose(got, a), "right"),
                      *((np.allclose(got, wrong), k) for k, wrong in _mistake_vectors(ex).items()),
                      (np.allclose(got, -a), "flipped")], "other")
    return verdict(key == "right", key, JORDAN_HINTS, "slots.hint.", solution=f"a = [{a[0]:.4g}, {a[1]:.4g}]")


# ---- tables for the page ---------------------------------------------------------------------

def disagreements(tagged_by: dict) -> int:
    """How many words get more than one distinct tag across the taggers (label -> Tagged)."""
    columns = [t.tags for t in tagged_by.values()]
    return sum(len(set(tags)) > 1 for tags in zip(*columns))


def score_rows(scores_by: dict) -> list[dict]:
    """One row per tagger: held-out accuracy and F1 per slot (label -> evaluate() result)."""
    return [{"tagger": label, "accuracy": s["accuracy"],
             **{f"F1 {SLOTS[tag]}": s["f1"][tag] for tag in SLOTS}}
            for label, s in scores_by.items()]
