"""The built-in models: the trained default language model, the subword (BPE) English model,
the notes' tiny example, the LSTM and GRU models (word-level, subword beside the BPE Elman,
and character-level beside the Chinese Elman) and the Chinese character-level language model
(with its Chinese slot taggers).

Keys are what links carry (`?model=...`). "default" stays the word-level travel model, so a
link shared before the subword model existed still opens the same model and numbers;
"subword" is the BPE model that reads any English sentence without <unk>, and START_MODEL
names it as the one a fresh session opens when no link says otherwise.

Both are read-only: callers that train or edit weights take `copy.deepcopy` first.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch

from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.taggers import FLAT, KINDS
from rnnviz.errors import InputError
from rnnviz.store.bundle import load_bundle
from rnnviz.store.tagger_files import load_tagger
from rnnviz.text.bpe import BPE, bpe_vocab
from rnnviz.text.corpora import ZH_DEFAULT_SENTENCE, TaggingData, split_heldout, zh_travel_corpus
from rnnviz.text.tokenize import Vocab
from rnnviz.text.zh import has_chinese

PRETRAINED = Path(__file__).resolve().parents[1] / "pretrained"  # rnnviz/pretrained

# Note 000: vocabulary [I, like, cats, dogs, you], V = 5, d = 3, E as printed there.
NOTES_VOCAB = ("I", "like", "cats", "dogs", "you")
NOTES_E = ((0.2, -0.1, 0.7), (0.5, 0.3, -0.2), (-0.4, 0.8, 0.1), (0.6, -0.5, 0.9), (0.0, 0.2, -0.3))
# Note 004: the travel vocabulary and its E; "Other" stands for every unknown word.
TRAVEL_VOCAB = ("Arrive", "Leave", "Taipei", "November", "Other")
TRAVEL_E = ((0.12, -0.45, 0.88), (-0.01, 0.34, -0.12), (0.67, 0.89, -0.34),
            (-0.76, 0.11, 0.55), (0.05, -0.23, 0.01))


@dataclass(frozen=True)
class Builtin:
    key: str
    label: str
    description: str
    default_sentence: str


BUILTINS = {
    "default": Builtin("default", "Word-level travel model (79 words)",
                       "A word-level Elman RNN (tanh) trained on the built-in travel and "
                       "everyday sentences.", "Arrive Taipei on November 2nd"),
    "notes": Builtin("notes", "Notes example (V=5, d=3, H=4)",
                     "The course notes' 5-word vocabulary and embedding matrix E; the other "
                     "weights are small fixed random numbers (seed 0).", "I like cats"),
    "lstm": Builtin("lstm", "LSTM language model",
                    "A word-level LSTM with the default model's corpus, d, H = 32 and training run "
                    "(scripts/build_gated.py).", "Arrive Taipei on November 2nd"),
    "gru": Builtin("gru", "GRU language model",
                   "A word-level GRU with the default model's corpus, d, H = 32 and training run "
                   "(scripts/build_gated.py).", "Arrive Taipei on November 2nd"),
    "subword": Builtin("subword", "Subword English model (BPE)",
                       "An Elman RNN (tanh) over byte-pair-encoding subwords with a character "
                       "and byte fallback, trained on everyday English: any sentence is read "
                       "without <unk>.", "the cat sat on the mat"),
    "subword_lstm": Builtin("subword_lstm", "Subword LSTM (BPE)",
                            "An LSTM over the subword model's BPE tokens, with its corpus, d, H and "
                            "training run (scripts/build_gated.py --bpe): any sentence is read "
                            "without <unk>.", "the cat sat on the mat"),
    "subword_gru": Builtin("subword_gru", "Subword GRU (BPE)",
                           "A GRU over the subword model's BPE tokens, with its corpus, d, H and "
                           "training run (scripts/build_gated.py --bpe): any sentence is read "
                           "without <unk>.", "the cat sat on the mat"),
    "zh": Builtin("zh", "中文语言模型 (Chinese, per character)",
                  "A character-level Elman RNN (tanh) trained on the built-in Chinese everyday "
                  "and travel sentences; English words read as <unk>.", ZH_DEFAULT_SENTENCE),
    "zh_lstm": Builtin("zh_lstm", "中文 LSTM (Chinese, per character)",
                       "A character-level LSTM with the Chinese model's corpus, split, vocabulary, "
                       "d, H and training run (scripts/build_zh.py gated).", ZH_DEFAULT_SENTENCE),
    "zh_gru": Builtin("zh_gru", "中文 GRU (Chinese, per character)",
                      "A character-level GRU with the Chinese model's corpus, split, vocabulary, "
                      "d, H and training run (scripts/build_zh.py gated).", ZH_DEFAULT_SENTENCE),
}
START_MODEL = "subword"  # what a session opens with no model in its link (see the docstring)
# The language each built-in reads (English unless named here), and the model a fresh session
# opens in each interface language when its link names no model.
BUILTIN_LANGS = {"zh": "zh", "zh_lstm": "zh", "zh_gru": "zh"}
START_MODELS = {"en": START_MODEL, "zh": "zh"}
TOKENIZER_LABELS = {"word": "words", "char": "characters", "bpe": "BPE subwords",
                    "zh_char": "Chinese characters", "zh_word": "Chinese words (jieba)"}
GATED_FILES = {"lstm": "lstm_lm", "gru": "gru_lm"}  # built-in key -> file stem in pretrained/
# the subword (BPE) family: one tokenizer (the merge table in each bundle), three cells
SUBWORD_FILES = {"subword": "bpe_lm", "subword_lstm": "bpe_lstm_lm", "subword_gru": "bpe_gru_lm"}
# the Chinese family: one character vocabulary (zh_lm's), three cells (scripts/build_zh.py)
ZH_FILES = {"zh": "zh_lm", "zh_lstm": "zh_lstm_lm", "zh_gru": "zh_gru_lm"}
ZH_TAGGERS_DIR = PRETRAINED / "zh_taggers"
# Page 8's trios: for each tokenizer family, the built-in Elman, LSTM and GRU that read text the
# same way (same tokenizer and vocabulary), keyed by the tokenizer's name (Prepared.tokenizer).
CELL_FAMILIES = {
    "word": {"elman": "default", "lstm": "lstm", "gru": "gru"},  # the 79-word travel vocabulary
    "bpe": {"elman": "subword", "lstm": "subword_lstm", "gru": "subword_gru"},  # one merge table
    "zh_char": {"elman": "zh", "lstm": "zh_lstm", "gru": "zh_gru"},  # one character vocabulary
}
# the attention twins (scripts/build_attention.py): page 9 reads them, the sidebar does not list
# them. Which built-in each one twins (same tokenizer), and the twin of each language.
ATTENTION_FILES = {"subword": "bpe_attn_lm", "zh": "zh_attn_lm"}
ATTENTION_TWIN_OF = {"subword": "subword", "subword_lstm": "subword", "subword_gru": "subword",
                     "zh": "zh", "zh_lstm": "zh", "zh_gru": "zh"}
ATTENTION_OF_LANG = {"en": "subword", "zh": "zh"}


def start_model(lang: str) -> str:
    """The built-in a fresh session opens in the interface language `lang`."""
    return START_MODELS.get(lang, START_MODEL)


def builtin_lang(key: str) -> str:
    """The language of the text a built-in model reads ("en" or "zh")."""
    return BUILTIN_LANGS.get(key, "en")


def text_lang(text: str) -> str | None:
    """The script of a sentence: "zh" with any Han character, "en" with Latin letters and no Han,
    None when it says neither (digits, punctuation, empty)."""
    if has_chinese(text):
        return "zh"
    return "en" if any("a" <= c.lower() <= "z" for c in text) else None


def ordered_for(keys, lang: str) -> list[str]:
    """Model keys with the built-ins reading `lang` first (own models keep their place, last)."""
    keys = list(keys)
    built = [k for k in keys if k in BUILTINS]
    first = [k for k in built if builtin_lang(k) == lang]
    return first + [k for k in built if k not in first] + [k for k in keys if k not in BUILTINS]


def model_for_text(key: str, text: str) -> str | None:
    """The built-in to move to when `text` is in the other script than the built-in `key` reads
    (None when it matches, says no language, or `key` is not a built-in)."""
    lang = text_lang(text)
    if key not in BUILTINS or lang is None or lang == builtin_lang(key):
        return None
    return start_model(lang)


def notes_model() -> tuple[RNNModel, Vocab]:
    """V = 5, d = 3, H = 4 with the notes' E; W_x, W_h, b_h, W_o, b_o from seed 0."""
    model = RNNModel(RNNConfig(vocab_size=5, embed_dim=3, hidden_size=4), seed=0)
    with torch.no_grad():
        model.E.copy_(torch.tensor(NOTES_E))
    return model.eval(), Vocab(NOTES_VOCAB)


def default_model() -> tuple[RNNModel, Vocab, dict]:
    """The pretrained default LM and its training report, read from rnnviz/pretrained/."""
    model, vocab, meta = load_bundle((PRETRAINED / "default_lm.pt").read_bytes())
    return model, vocab, meta


def subword_model(key: str = "subword") -> tuple[RNNModel, Vocab, dict]:
    """A BPE English LM (the Elman, or its LSTM / GRU twin); its vocabulary carries the merge
    table stored in the bundle."""
    model, vocab, meta = load_bundle((PRETRAINED / f"{SUBWORD_FILES[key]}.pt").read_bytes())
    full = bpe_vocab(BPE.from_dict(meta["bpe"]))
    if full.itos != vocab.itos:
        raise InputError("The subword model's vocabulary does not match its merge table.")
    return model, full, meta


def load_builtin(key: str) -> tuple[RNNModel, Vocab, dict]:
    if key == "notes":
        model, vocab = notes_model()
        return model, vocab, {}
    if key == "default":
        return default_model()
    if key in SUBWORD_FILES:
        return subword_model(key)
    if key in GATED_FILES:
        return load_bundle((PRETRAINED / f"{GATED_FILES[key]}.pt").read_bytes())
    if key in ZH_FILES:
        return zh_model(key)
    raise KeyError(key)


def subword_report() -> dict:
    return json.loads((PRETRAINED / "bpe_lm.json").read_text())


def training_report(key: str = "default") -> dict:
    """The training report (held-out perplexity, sizes) of a trained built-in model."""
    stem = "default_lm" if key == "default" else {**GATED_FILES, **SUBWORD_FILES, **ZH_FILES}[key]
    return json.loads((PRETRAINED / f"{stem}.json").read_text(encoding="utf-8"))


def vocab_size(key: str) -> int:
    """V of a built-in model without loading it: from its training report (a bundle takes about
    40 ms to load, and the sidebar names every built-in with its V on a process's first page)."""
    if key == "notes":
        return len(NOTES_VOCAB)
    return int(training_report(key)["vocab_size"])


def family_of(key: str) -> str | None:
    """The tokenizer family (a CELL_FAMILIES key) a built-in belongs to; None for the others
    (the notes' example, own models)."""
    return next((fam for fam, keys in CELL_FAMILIES.items() if key in keys.values()), None)


def family_for_tokenizer(tokenizer: str) -> str:
    """The family whose built-ins cut text as `tokenizer` does (a Prepared.tokenizer name):
    BPE subwords, Chinese characters, else the English words."""
    if tokenizer == "bpe":
        return "bpe"
    return "zh_char" if tokenizer.startswith("zh") else "word"


def attention_twin(key: str) -> tuple[RNNModel, Vocab, dict]:
    """The attention twin of built-in `key` ("subword" or "zh"); a BPE twin's vocabulary
    carries its merge table, as subword_model's does."""
    model, vocab, meta = load_bundle((PRETRAINED / f"{ATTENTION_FILES[key]}.pt").read_bytes())
    if "bpe" in meta:
        full = bpe_vocab(BPE.from_dict(meta["bpe"]))
        if full.itos != vocab.itos:
            raise InputError("The attention model's vocabulary does not match its merge table.")
        vocab = full
    return model, vocab, meta


def attention_report(key: str) -> dict:
    return json.loads((PRETRAINED / f"{ATTENTION_FILES[key]}.json").read_text(encoding="utf-8"))


# ---- Chinese (scripts/build_zh.py writes these files) ---------------------------------------

def zh_model(key: str = "zh") -> tuple[RNNModel, Vocab, dict]:
    """A pretrained Chinese character-level LM (the Elman, or its LSTM / GRU twin) and its
    training report."""
    return load_bundle((PRETRAINED / f"{ZH_FILES[key]}.pt").read_bytes())


def zh_training_report() -> dict:
    return json.loads((PRETRAINED / "zh_lm.json").read_text(encoding="utf-8"))


def zh_tagging_data():
    """The Chinese travel corpus for the taggers: its vocabulary (all of it, one token per
    character) and the held-out split kept for evaluation (a tagging.TaggingData)."""

    corpus = zh_travel_corpus()
    train_s, test_s = split_heldout(corpus)
    return TaggingData(Vocab.build([toks for toks, _ in corpus]), tuple(train_s), tuple(test_s))


def zh_taggers() -> dict:
    """kind -> (tagger in eval mode, vocab, meta) for the four shipped Chinese taggers."""

    return {k: load_tagger((ZH_TAGGERS_DIR / f"{k}.pt").read_bytes()) for k in KINDS}


def zh_flat_tagger():
    """(tagger, vocab, meta): the Chinese flattened FNN (note 004's fifth tagger), its fixed
    length measured on the Chinese corpus by scripts/build_zh.py."""

    return load_tagger((ZH_TAGGERS_DIR / f"{FLAT}.pt").read_bytes())


def zh_taggers_report() -> dict:
    return json.loads((ZH_TAGGERS_DIR / "zh_taggers.json").read_text(encoding="utf-8"))
