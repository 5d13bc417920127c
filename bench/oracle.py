"""Numbers the app must show, computed by rnnviz directly (no server): the cross-talk oracle."""
from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rnnviz.catalog import load_builtin  # noqa: E402
from rnnviz.data import lm_pair  # noqa: E402
from rnnviz.text import prepare  # noqa: E402
from rnnviz.trace import trace  # noqa: E402


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
def overview_numbers(text: str) -> tuple[float, int]:
    """(largest |h_t|, its 1-based step) of the default model on text, as the overview shows."""
    model, vocab, meta = _default()
    prepared = prepare(text, vocab, meta.get("level", "word"))
    ids, targets = lm_pair(list(prepared.ids), vocab)
    h = trace(model, ids, targets).h.numpy()  # (T, H)
    t = int(abs(h).argmax()) // h.shape[1]
    return round(float(abs(h).max()), 3), t + 1
