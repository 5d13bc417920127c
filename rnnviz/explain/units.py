"""Ask the model directly, the lessons around rnnviz.engine.units: a property over a text (the
learner's span, inside quotes, the second half, after a word, a slot tag), its labelled tokens
with a held-out part, and the worked example of the prose (page 2): in page 5's Elman tagger, the
unit that best separates destination from departure, its held-out AUC, and what holding it at
its mean does to the city's tag in the notes' pair (Arrive / Leave Taipei, 到达台北 / 离开台北).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from rnnviz.conventions import TAGS
from rnnviz.engine import units
from rnnviz.engine.model import RNNModel
from rnnviz.errors import InputError
from rnnviz.text.tokenize import Vocab, prepare

PROPERTIES = ("span", "quotes", "half", "after")  # over the learner's text; "slot" on page 5's data
SEED = 0  # the permutations' generator: the same ranking on every visit


@dataclass(frozen=True)
class Labelled:
    """Tokens' states and labels: pos / neg (T,) bool (a token in neither is left out)."""

    h: torch.Tensor  # (T, H_out)
    pos: torch.Tensor
    neg: torch.Tensor


def property_mask(kind: str, tokens, span: tuple[int, int] = (0, 0), word: str = "") -> torch.Tensor:
    """The learner's property over one sentence's tokens: (T,) bool."""
    if kind == "span":
        return units.span_mask(len(tokens), *span)
    if kind == "quotes":
        return units.quotes_mask(tokens)
    if kind == "half":
        return units.second_half_mask(len(tokens))
    if kind == "after":
        return units.after_word_mask(tokens, word)
    raise ValueError(f"unknown property {kind!r}")


def label_lines(model: RNNModel, vocab: Vocab, lines, kind: str, word: str = "") -> Labelled:
    """Every line of a text run through the model (each from the zero state) and labelled by the
    property: the lines' tokens stacked. Lines with no token are skipped."""
    preps = []
    for line in lines:
        try:
            preps.append(prepare(line, vocab))
        except InputError:
            continue
    hs = units.states_of(model, [list(p.ids) for p in preps])  # [(T, H_out)]
    masks = [property_mask(kind, p.tokens, word=word) for p in preps]
    if not hs:
        raise InputError("The text has no line the model can read.", "units_no_lines")
    pos = torch.cat(masks)
    return Labelled(torch.cat(hs), pos, ~pos)


def split_lines(lines, every: int = 3) -> tuple[list, list]:
    """(fitting lines, held-out lines): every third line is held out (whole lines, so a held-out
    token never sits next to a fitting one)."""
    lines = list(lines)
    held = [x for i, x in enumerate(lines) if i % every == every - 1]
    return [x for i, x in enumerate(lines) if i % every != every - 1], held


def search_text(model: RNNModel, vocab: Vocab, lines, kind: str, word: str = "") -> dict:
    """The unit search over a text (the built-in corpus or the learner's own), a third of its
    lines held out for the AUC; a text of one line (or too few labelled held-out tokens) is
    ranked and scored in sample, and the result says so."""
    fit_lines, held_lines = split_lines(lines)
    fit = label_lines(model, vocab, fit_lines or lines, kind, word)
    held = label_lines(model, vocab, held_lines, kind, word) if held_lines else None
    gen = torch.Generator().manual_seed(SEED)
    ok = held is not None and int(held.pos.sum()) >= 1 and int(held.neg.sum()) >= 1
    return units.unit_search(fit.h, fit.pos, fit.neg, gen,
                             heldout=(held.h, held.pos, held.neg) if ok else None)


def search_sentence(h: torch.Tensor, tokens, kind: str, span=(0, 0), word: str = "") -> dict:
    """The unit search over the learner's own sentence (in sample: one sentence has no held-out
    part; the result says so)."""
    mask = property_mask(kind, tokens, span, word)
    return units.unit_search(h, mask, ~mask, torch.Generator().manual_seed(SEED))


def slot_labelled(model: RNNModel, vocab: Vocab, tagged, tag_a: str, tag_b: str | None = None) -> Labelled:
    """Page 5's data labelled by slot: pos = tokens tagged tag_a, neg = tokens tagged tag_b (every
    other token when tag_b is None)."""
    hs = units.states_of(model, [vocab.encode(list(toks))[0] for toks, _ in tagged])  # [(T, H_out)]
    pos, neg = [], []
    for _, tags in tagged:
        a = torch.tensor([x == tag_a for x in tags])
        pos.append(a)
        neg.append(torch.tensor([x == tag_b for x in tags]) if tag_b else ~a)
    return Labelled(torch.cat(hs), torch.cat(pos), torch.cat(neg))


def search_slots(model: RNNModel, data, tag_a: str, tag_b: str | None = None) -> dict:
    """The unit search on page 5's training sentences, its AUC on the held-out ones."""
    fit = slot_labelled(model, data.vocab, data.train, tag_a, tag_b)
    held = slot_labelled(model, data.vocab, data.heldout, tag_a, tag_b)
    return units.unit_search(fit.h, fit.pos, fit.neg, torch.Generator().manual_seed(SEED),
                             heldout=(held.h, held.pos, held.neg))


def unit_mean(model: RNNModel, data, unit: int) -> float:
    """The unit's mean over every token of page 5's training sentences (the 'mean' clamp)."""
    hs = units.states_of(model, [data.vocab.encode(list(toks))[0] for toks, _ in data.train])
    return float(torch.cat(hs)[:, unit].mean())


def word_position(tokens, word: str) -> int:
    """The last token of `word` (a Chinese word's last character has read all of it)."""
    low = [x.lower() for x in tokens]
    w = word.lower()
    if w in low:
        return low.index(w)
    joined = ""
    for i, x in enumerate(low):
        joined = joined + x if w.startswith(joined + x) else (x if w.startswith(x) else "")
        if joined == w:
            return i
    raise InputError(f"“{word}” is not in the sentence.", "word_missing", {"word": word})


def slot_example(model: RNNModel, data, pair: tuple[str, str, str]) -> dict:
    """The prose's worked example: the unit that best separates destination from departure in the
    tagger, its d, p and held-out AUC, and for each sentence of the pair (text_a, text_b, word) the
    word's p(destination) and p(departure) before and after holding that unit at its mean."""
    found = search_slots(model, data, "destination", "departure")
    best = found["rows"][0]
    value = unit_mean(model, data, best["unit"])
    dest, dep = TAGS.index("destination"), TAGS.index("departure")
    rows = []
    for text in pair[:2]:
        prep = prepare(text, data.vocab)
        k = word_position(prep.tokens, pair[2])
        out = units.clamp_effect(model, prep.ids, best["unit"], value, lm=False)
        rows.append({"text": text, "position": k,
                     "dest": float(out["p"][k, dest]), "dep": float(out["p"][k, dep]),
                     "dest_clamped": float(out["p_clamped"][k, dest]),
                     "dep_clamped": float(out["p_clamped"][k, dep]),
                     "tag": TAGS[int(out["tags"][k])], "tag_clamped": TAGS[int(out["tags_clamped"][k])]})
    return {"unit": best["unit"], "d": best["d"], "p": best["p"], "auc": best["auc"],
            "tracked": found["tracked"], "value": value, "rows": rows, "search": found}


def sentence_states(model: RNNModel, vocab: Vocab, text: str) -> tuple[list, torch.Tensor]:
    """(tokens as typed, h (T, H_out) float64) of one sentence through a model (a tagger)."""
    prep = prepare(text, vocab)
    return list(prep.tokens), units.run_probs(model, prep.ids)[1]


def slot_clamp(model: RNNModel, vocab: Vocab, text: str, unit: int, value: float) -> dict:
    """A tagger on one sentence with unit `unit` held at `value`: clamp_effect's delta tag
    probability per token (of the tag the plain run chose), with the sentence's tokens."""
    prep = prepare(text, vocab)
    out = units.clamp_effect(model, prep.ids, unit, value, lm=False)
    return {"tokens": list(prep.tokens), **out}


def state_mean(h: torch.Tensor, unit: int) -> float:
    """The mean of one unit over the sentence's states h (T, H): the "mean" clamp value."""
    return float(h[:, unit].mean())


def total_change(delta: torch.Tensor) -> float:
    """The sum of a clamp's per-position changes (Δ log p or Δ p)."""
    return float(delta.sum())
