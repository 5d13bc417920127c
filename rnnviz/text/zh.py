"""Chinese tokenization: one token per character by default, words through jieba on request.

Chinese has no spaces, so "a word" is a choice. The default (level "word" in text.py) reads
each Han character as a token and keeps English words whole, as the course notes' examples
do (狗 咬 人). Level "zh_word" segments the Han runs with jieba's dictionary (我 / 喜欢 / 猫)
and still keeps English words and numbers whole, so mixed sentences work.

jieba's dictionary takes about a second to load, so it is loaded once per process, on first
use, behind a lock, straight into memory: jieba's own initialise() would log to stderr and
write a cache file, and the app writes nothing to disk.
"""
from __future__ import annotations

import re
import threading
from functools import lru_cache

# Han ideographs (CJK unified, extension A, compatibility): what jieba segments.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RUN = re.compile(rf"[{HAN}]+")
_HAN_CHAR = re.compile(rf"[{HAN}]")
# Outside Han runs: words (letters, digits, other scripts) and single punctuation marks.
_OTHER_RE = re.compile(rf"[^\W{HAN}]+|[^\w\s]")

LEVELS = ("zh_word",)  # the levels this module adds to text.tokenize
_LOCK = threading.Lock()


def has_chinese(text: str) -> bool:
    """True if the text holds at least one Han character."""
    return _HAN_CHAR.search(text) is not None


@lru_cache(maxsize=1)
def _jieba_tokenizer():
    """jieba's Tokenizer with its dictionary in memory (loaded once; no log, no cache file)."""
    import jieba  # imported here: a page that never segments never pays for it

    tk = jieba.Tokenizer()
    tk.FREQ, tk.total = tk.gen_pfdict(tk.get_dict_file())
    tk.initialized = True  # skips jieba's initialize(), which logs and writes a cache file
    return tk


def jieba_tokenizer():
    """The shared, read-only jieba tokenizer (thread-safe first load)."""
    with _LOCK:
        return _jieba_tokenizer()


def segment(text: str) -> list[str]:
    """Words: Han runs segmented by jieba's dictionary (HMM off: only dictionary words, so the
    result is the same on every machine), everything else split as text.py's word level does:
    English words and numbers whole, punctuation one mark at a time, spaces dropped."""
    tokens, pos = [], 0
    for run in _HAN_RUN.finditer(text):
        tokens += _OTHER_RE.findall(text[pos:run.start()])
        tokens += jieba_tokenizer().lcut(run.group(), HMM=False)
        pos = run.end()
    tokens += _OTHER_RE.findall(text[pos:])
    return tokens


def tokenizer_name(level: str, text: str) -> str:
    """Which tokenizer ran, as a key the sidebar can show (and translate):
    "zh_word" (jieba words), "zh_char" (Chinese per character, other words whole),
    "word" or "char"."""
    if level == "word" and has_chinese(text):
        return "zh_char"
    return level
