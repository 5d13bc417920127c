"""Numbers the app must show, computed by rnnviz directly (no server): the cross-talk oracle."""
from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rnnviz.engine.trace import trace
from rnnviz.explain.home import token_table
from rnnviz.formatting import num_inside
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare


@functools.lru_cache(maxsize=1)
def _default():
    return load_builtin("default")


def sentence_for(i: int) -> str:
    """Session i's own sentence: 4 to 7 words of the default model's vocabulary, distinct per i."""
    _, vocab, _ = _default()
    words = [w for w in vocab.itos if not w.startswith("<")]
    rng = random.Random(1000 + i)
    return " ".join(rng.choice(words) for _ in range(4 + i % 4)) + f" {words[i % len(words)]}"


@functools.lru_cache(maxsize=4096)
def overview(text: str) -> dict:
    """What the overview page must show for text on the default model: the token table's
    typed words and ids, and the largest |h_t| as the page writes it (3 significant digits, more
    when those would round a tanh value to 1: rnnviz.formatting.num_inside) with its 1-based step."""
    model, vocab, meta = _default()
    prepared = prepare(text, vocab, meta.get("level", "word"))
    ids, targets = lm_pair(list(prepared.ids), vocab)
    rows = token_table(model, vocab, ids, prepared.tokens)
    h = trace(model, ids, targets).h.numpy()  # (T, H)
    return {"typed": [r["you typed"] for r in rows], "ids": [r["id"] for r in rows],
            "hmax": float(num_inside(abs(h).max(), digits=3)),
            "hmax_step": int(abs(h).argmax()) // h.shape[1] + 1,
            "T": len(ids)}


def heavy_corpus(n_words: int = 6000, per_line: int = 70, max_bytes: int = 990_000) -> str:
    """A corpus for the largest training a learner can start: more than MAX_VOCAB distinct
    words, lines longer than MAX_TRAIN_T, just under the 1 MB upload limit."""
    rng = random.Random(0)
    words = [f"w{i:04d}" for i in range(n_words)]
    lines, size = [], 0
    while True:
        line = " ".join(rng.choice(words) for _ in range(per_line))
        if size + len(line) + 1 > max_bytes:
            return "\n".join(lines)
        lines.append(line)
        size += len(line) + 1
