"""Page 7, where embeddings come from: the small pieces the page needs beside rnnviz.word2vec
and rnnviz.subwords (corpora, the merge table as rows, a word split at merge k, the exercise's
verdict with catalogue hint keys). Pure: no streamlit.
"""
from __future__ import annotations

import numpy as np

from rnnviz.errors import InputError
from rnnviz.explain import word2vec as w2v
from rnnviz.explain.exercises.verdict import Verdict
from rnnviz.formatting import num
from rnnviz.text.bpe import BPE, compare_tokenizers, learn_bpe, pretokenize
from rnnviz.text.corpora import (
    english_sentences,
    everyday_corpus,
    split_heldout,
    travel_corpus,
    zh_everyday_corpus,
    zh_everyday_lines,
)
from rnnviz.text.tokenize import tokenize
from rnnviz.text.zh import has_chinese

CORPORA = ("travel", "english", "zh")  # the built-in corpora Word2Vec can train on (codes in the URL)
MAX_WORD_CHARS = 60              # an "unknown word" the learner types for BPE to split


ZH_BPE_MERGES = 400  # merges learned on the Chinese everyday corpus (in 中文; the last ones seen 3 times)
WORD_LEVEL = {"en": "word", "zh": "zh_word"}  # what "words" means in each language's comparison


def subword_corpus(lang: str = "en") -> tuple[list[str], list[str]]:
    """(training, held-out) sentences of the BPE section. English: the subword model's, the
    English files then the word model's distinct sentences, split by their own text as
    scripts/build_bpe.py did, so that learn_bpe(training, 800) gives back the shipped merge
    table (a test checks). Chinese ("zh"): the distinct everyday Chinese lines, split alike."""
    if lang == "zh":
        return split_heldout(list(dict.fromkeys(zh_everyday_lines())))
    old = [" ".join(t) for t, _ in travel_corpus()] + [" ".join(s) for s in everyday_corpus()]
    return split_heldout(list(dict.fromkeys(english_sentences() + old)))


def zh_subword_table() -> BPE:
    """The merge table the BPE section shows in 中文: ZH_BPE_MERGES merges learned on the
    training split of subword_corpus("zh") (the Chinese model itself reads characters)."""
    return learn_bpe(subword_corpus("zh")[0], ZH_BPE_MERGES)


def tokenizer_rows(lang: str, table: BPE) -> list[dict]:
    """compare_tokenizers on the language's BPE corpus (fitted on its training split, run on
    its held-out split), with that language's words: jieba's for Chinese, spaces for English."""
    train, held = subword_corpus(lang)
    return compare_tokenizers(train, held, table, word_level=WORD_LEVEL[lang])


def corpus_sentences(code: str) -> list[list[str]]:
    """A built-in corpus as word tokens: "travel" (the default model's travel + everyday
    sentences), "english" (the subword model's training sentences) or "zh" (the Chinese
    everyday sentences, one token per Han character, as the Chinese model reads them)."""
    if code == "zh":
        return zh_everyday_corpus()
    if code == "travel":
        return w2v.builtin_sentences()
    if code == "english":
        return [tokenize(s, "word") for s in subword_corpus()[0]]
    raise InputError(f"Unknown corpus {code!r}: choose one of {', '.join(CORPORA)}.")


def default_corpus(lang: str, text: str, tokenizer: str | None, has_page6: bool) -> str:
    """The corpus Word2Vec starts on: page 6's text when there is one, else the built-in corpus
    in the sentence's script (Chinese everyday for Chinese; the subword model's English for a
    BPE model, the travel corpus otherwise), the interface language's when the sentence has
    neither."""
    if has_page6:
        return "page6"
    latin = any("a" <= ch.lower() <= "z" for ch in text)
    if has_chinese(text) or (lang == "zh" and not latin):
        return "zh"
    return "english" if tokenizer == "bpe" else "travel"


def sentence_words(text: str) -> list[str]:
    """The sidebar sentence as words (the window slides over words, whatever the model reads)."""
    return tokenize(text, "word")


def known_pair(words, centre: int, radius: int, vocab) -> tuple[int | None, list[str]]:
    """The worked pair's centre: the position nearest `centre` (0-based) whose word the corpus
    knows and that has a context word the corpus knows within `radius`, with those context
    words (sorted). (None, []) when no two words of the sentence make such a pair."""
    known = [p for p in w2v.window_pairs(words, radius)
             if vocab.id_of(p.centre) is not None and vocab.id_of(p.context) is not None]
    if not known:
        return None, []
    pos = min({p.centre_pos for p in known}, key=lambda q: (abs(q - centre), q))
    return pos, sorted({p.context for p in known if p.centre_pos == pos})


def corpus_pair(pc) -> tuple[str, str]:
    """A pair the corpus itself makes (its first window pair): the fallback when the sentence
    has no known pair."""
    itos = pc.vocab.itos
    return itos[int(pc.centres[0])], itos[int(pc.contexts[0])]


def known_words(words, vocab) -> list[str]:
    """The words of `words` that the vocabulary has, each once, in order."""
    return [w for w in dict.fromkeys(words) if vocab.id_of(w) is not None]


def shown_ids(itos, highlight, n: int = 60) -> list[int]:
    """Ids to label on the 2-D map: the n most frequent words (itos is by frequency) plus the
    highlighted ones, so the map stays readable on a 1,000-word vocabulary."""
    stoi = {w: i for i, w in enumerate(itos)}
    extra = [stoi[w] for w in highlight if w in stoi and stoi[w] >= n]
    return list(range(min(n, len(itos)))) + sorted(set(extra))


def merge_rows(table: BPE, lo: int, hi: int) -> list[dict]:
    """Merges lo..hi-1 (0-based) as rows: merge number (1-based), left, right, new token, count."""
    return [{"k": k + 1, "left": m.left, "right": m.right, "token": m.token, "count": m.count}
            for k, m in enumerate(table.merges[max(0, lo):max(0, hi)], start=max(0, lo))]


def split_at(table: BPE, k: int, text: str) -> list[dict]:
    """How `text` splits after the first k merges: per piece (a word with its space), the
    characters it starts from, each merge applied (1-based number, pair, symbols after), and
    the final tokens."""
    text = str(text).strip()
    if not text:
        raise InputError("Type a word to split.")
    if len(text) > MAX_WORD_CHARS:
        raise InputError(f"Type at most {MAX_WORD_CHARS} characters.")
    sub = table.first(k)
    return [{"piece": piece, "start": sub.base_symbols(piece),
             "steps": [(rank + 1, m.left, m.right, list(sym)) for rank, m, sym in sub.merge_steps(piece)],
             "tokens": sub.split(piece)} for piece in pretokenize(text)]


def tokenizer_of(meta: dict) -> str:
    """Which tokenizer made a model's tokens: "word", "char" or "bpe" (its level)."""
    level = (meta or {}).get("level", "word")
    return level if level in ("word", "char", "bpe") else "word"


def pair_verdict(ex: w2v.PairExercise, answer) -> Verdict:
    """check_pair_exercise as a Verdict whose hint names a catalogue key (origins.hint_*), so
    the page shows it in the learner's language; the solution has every number."""
    ok, message = w2v.check_pair_exercise(ex, answer)
    keys = dict(zip(w2v._exercise_mistakes(ex), ("no_negative", "no_context", "factor_context",
                                                 "factor_negative", "sign")))
    key = "right" if ok else keys.get(message, "not_yet")
    t = ex.terms()
    g = ex.answer()
    values = {"s_o": _n(t["s_o"]), "s_k": _n(t["s_neg"][0]), "sig_o": _n(t["sigma_o"]),
              "sig_k": _n(t["sigma_neg"][0]), "g1": _n(g[0]), "g2": _n(g[1])}
    solution = (f"s_o = u_o·v_c = {values['s_o']}, s_k = u_k·v_c = {values['s_k']}; "
                f"σ(s_o) = {values['sig_o']}, σ(s_k) = {values['sig_k']}; "
                f"dL/dv_c = (σ(s_o) − 1) u_o + σ(s_k) u_k = [{values['g1']}, {values['g2']}]")
    return Verdict(ok, message, hint_key=f"origins.hint_{key}", values=values, solution=solution)


def _n(v) -> str:
    return num(float(np.asarray(v)))


def sentences_of(sequences, level: str) -> list[list[str]]:
    """A page-6 corpus (token sequences at word or character level) as word sentences, so that
    Word2Vec can slide its window over words whichever level that model was trained at."""
    if level == "word":
        return [list(s) for s in sequences]
    return [tokenize("".join(s), "word") for s in sequences]
