"""Issue 25: in 中文, every page shows no English sentence and no Latin word outside a formula
($...$), a code span (tokens, file names) or the declared terms below: names the notes and the
field keep in English (RNN, LSTM, BPE, Word2Vec, softmax...), symbols (h_t, W_h, J_{t+1}...),
and the notes' own English example words. The pages open as a first visit in 中文 does (the
Chinese model and sentence)."""
from __future__ import annotations

import re

import pytest

from ..apptest_helpers import no_exception

TERMS = {
    # names and abbreviations the notes keep in Latin letters
    "RNN", "RNNs", "LSTM", "GRU", "Elman", "Jordan", "BPE", "Word2Vec", "PyTorch", "softmax", "tanh",
    "ReLU", "sigmoid", "logits", "token", "id", "ID", "PCA", "SGD", "Adam", "BPTT", "CSV", "HTML", "PNG",
    "FNN", "MLP", "F1", "Frobenius", "float", "eps", "nn", "Embedding", "Linear", "embedding", "top", "k", "jieba",
    "English", "Language", "bos", "eos", "unk", "pad", "UTF", "Skip", "gram",
    "Tab",  # the keyboard key (a clickable heatmap's keyboard path)
    # terms the notes themselves keep in English (002-004): teacher forcing, padding, autograd,
    # NaN, the dtypes; and the app's own name
    "Teacher", "teacher", "forcing", "padding", "logit", "autograd", "NaN", "float32", "float64",
    "Explorer",
    # mathematical notation written as text (the value inf beside NaN; log10 in number words)
    "inf", "log10",
    # the notes' English example sentences and vocabularies (note 000 and 004)
    "I", "like", "cats", "dogs", "you", "today", "Arrive", "Leave", "Taipei", "November", "Other",
    "nd", "on", "dog", "bites", "man",
}
SYMBOL = re.compile(r"^([A-Za-z]{1,2}(_[A-Za-z0-9{}]+)?|u[0-9]+)$")  # h_t, W_h, x, d, H; u7 (unit 7)
PAGES = ("pages/home.py", "pages/embedding.py", "pages/hidden.py", "pages/output.py", "pages/bptt.py",
         "pages/slots.py", "pages/train.py", "pages/origins.py", "pages/gates.py", "pages/attention.py",
         "pages/glossary.py")
# pages still known to show English in 中文 (none: page 4's English intro came from a page that
# ran alone before its language was read; every page now starts with session.start_page())
KNOWN_OPEN: set[str] = set()


def latin_words(at) -> list[str]:
    parts = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success"):
        parts += [str(e.value) for e in getattr(at, kind)]
    for kind in ("selectbox", "radio", "slider", "button", "number_input", "text_input", "checkbox",
                 "toggle", "expander", "tabs"):
        for w in getattr(at, kind):
            parts.append(str(getattr(w, "label", "") or ""))
    text = "\n".join(parts)
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$|`[^`]*`", " ", text, flags=re.S)  # formulas, code spans
    text = re.sub(r"\b[A-Za-z]{1,2}_\{[^}\n]*\}", " ", text)  # symbols with a braced index: J_{t+1}
    text = re.sub(r"\]\([^)]*\)|<[^>\n]*>|\{[^}\n]*\}", " ", text)  # link targets, HTML tags, {placeholders}
    words = re.findall(r"[A-Za-z][A-Za-z0-9_']*", text)
    return sorted({w for w in words if w not in TERMS and not SYMBOL.match(w)})


@pytest.mark.parametrize("page", [pytest.param(p, marks=pytest.mark.xfail(
    reason="known open: page 4's English error and words (issue 26)", strict=True))
    if p in KNOWN_OPEN else p for p in PAGES])
def test_no_latin_word_outside_formulas_and_terms(app, page):
    at = app(page, query={"lang": "zh"}, model=None)
    no_exception(at)
    assert latin_words(at) == []
