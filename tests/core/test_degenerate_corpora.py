"""Degenerate corpora into every trainer of pages 6, 7 and 8 (issue 22 item 6): only
punctuation, one repeated token, only spaces, zero-width or direction-control characters, one
1 MB line. Each either trains with finite numbers or raises InputError whose message key exists
in both locales: never another exception. Tiny settings, so each example takes milliseconds."""
from __future__ import annotations

import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rnnviz import limits
from rnnviz.engine.train import TrainConfig
from rnnviz.errors import InputError
from rnnviz.explain import longrange
from rnnviz.explain import train as cp
from rnnviz.explain import word2vec as w2v
from rnnviz.text import bpe
from ui import i18n

PUNCT = ".,;:!?-()[]\"'…。，！？、《》"
SPACES = " \t\u00a0\u3000\u2003"
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"


def _lines(alphabet: str, min_size: int = 1):
    line = st.text(alphabet=alphabet, min_size=min_size, max_size=30)
    return st.lists(line, min_size=1, max_size=6).map("\n".join)


CORPORA = st.one_of(
    _lines(PUNCT),                                                         # only punctuation
    st.builds(lambda w, n, sep: sep.join([w] * n),                         # one repeated token
              st.sampled_from(["a", "the", "猫", "🙂", ".", "x" * 40]), st.integers(1, 80),
              st.sampled_from([" ", "\n", "  \n "])),
    _lines(SPACES + "\n", min_size=0),                                     # only spaces
    _lines(INVISIBLE),                                                     # zero-width / bidi only
    st.builds(lambda a, b: a + " cat " + b + " dog\n" + b + "a b",         # controls around words
              st.text(alphabet=INVISIBLE, max_size=5), st.text(alphabet=INVISIBLE, max_size=5)),
)
ONE_MB = limits.MAX_UPLOAD_BYTES - 2
BIG_LINES = {"words": "a " * (ONE_MB // 2), "one word": "x" * ONE_MB, "punctuation": "." * ONE_MB}
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def finite_or_input_error(train) -> None:
    try:
        numbers = train()
    except InputError as err:
        key = f"errors.{err.key}"
        assert err.key and key in i18n.catalogue("en") and key in i18n.catalogue("zh"), (key, str(err))
        return
    assert numbers and all(math.isfinite(x) for x in numbers), numbers


def page6(text: str, level: str) -> list[float]:
    corpus = cp.read_corpus(text, level)
    run = cp.start_run(corpus, 30, 4, 4, "elman", "tanh", TrainConfig(steps=2, batch_size=4))
    run.run()
    assert run.status in ("done", "diverged")
    return [h["loss"] for h in run.history] + [run.final_perplexity]


def page7_word2vec(text: str) -> list[float]:
    pc = w2v.pair_corpus(w2v.text_sentences(text), 2)
    res = w2v.train_word2vec(pc, w2v.W2VConfig(dim=2, negatives=2, steps=3, batch_size=16,
                                               checkpoints=1, lr=limits.W2V_MAX_LR))
    views = w2v.checkpoint_views(res, pc.vocab.itos[:1], 1)
    assert len(views) == len(res.snapshots)
    return [h["loss"] for h in res.history] + [float(v["coords"].sum()) for v in views]


def page7_bpe(text: str) -> list[float]:
    lines = text.splitlines()
    table = bpe.learn_bpe(lines, 10)
    vocab = bpe.bpe_vocab(table)
    for ln in lines[:5]:
        bpe.decode(table.tokenize(ln[:2000]))
    return [float(len(table.merges)), float(len(vocab))]


@SETTINGS
@given(text=CORPORA, level=st.sampled_from(["word", "char"]))
def test_page6_training_on_degenerate_corpora(text, level):
    finite_or_input_error(lambda: page6(text, level))


@SETTINGS
@given(text=CORPORA)
def test_page7_word2vec_on_degenerate_corpora(text):
    finite_or_input_error(lambda: page7_word2vec(text))


@SETTINGS
@given(text=CORPORA)
def test_page7_bpe_on_degenerate_corpora(text):
    finite_or_input_error(lambda: page7_bpe(text))


@pytest.mark.parametrize("kind", BIG_LINES)
def test_one_1mb_line_into_every_text_trainer(kind):
    text = BIG_LINES[kind]
    assert len(text.encode()) <= limits.MAX_UPLOAD_BYTES
    finite_or_input_error(lambda: page6(text, "word"))
    finite_or_input_error(lambda: page7_word2vec(text))
    finite_or_input_error(lambda: page7_bpe(text))


def test_one_line_over_the_limit_is_an_input_error():
    finite_or_input_error(lambda: page6("x" * (limits.MAX_UPLOAD_BYTES + 1), "char"))


@SETTINGS
@given(cell=st.sampled_from(["elman", "lstm", "gru"]), distance=st.sampled_from([1, 2, 200]),
       schedule=st.sampled_from(list(longrange.SCHEDULES)), bias=st.sampled_from([-5.0, 0.0, 5.0]))
def test_page8_bounded_run_on_extreme_settings(cell, distance, schedule, bias):
    """Page 8 trains on its own synthetic task (no learner text): the degenerate inputs are the
    extreme settings its widgets allow; the run stays finite, and its callback can stop it."""
    def train():
        cfg = longrange.LongRangeConfig(cell=cell, distance=distance, schedule=schedule, steps=10,
                                        forget_bias=bias if cell == "lstm" else 1.0)
        res = longrange.train_now(cfg, callback=lambda rec: rec["step"] < 2)
        assert res["steps_done"] == 2 and res["stopped_early"]
        return [res["final_train_loss"], res["accuracy"], res["grad_first_before"], res["grad_first_after"]]
    finite_or_input_error(train)
    assert torch.get_default_dtype() == torch.float32
