"""rnnviz.corpus: bounds on a learner's corpus and model, training that reduces the loss
deterministically, stopping that keeps the steps done, and model files that load safely."""
import io
import math
import pickle
import zipfile

import pytest
import torch

from rnnviz import limits
from rnnviz.conventions import IGNORE
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.trace import trace
from rnnviz.engine.train import TrainConfig, perplexity, train
from rnnviz.errors import InputError
from rnnviz.explain.train import (
    MIN_VOCAB,
    SEQ_TOKENS,
    build_model,
    build_vocab,
    check_language_model,
    clean_meta,
    clean_model_name,
    corpus_perplexity,
    corpus_tensors,
    model_meta,
    progress_rate,
    read_corpus,
    read_upload,
    sample_text,
    start_run,
    unknown_share,
)
from rnnviz.store.bundle import FORMAT, load_bundle, save_bundle
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import BOS, EOS, Vocab

TEXT = "I like cats\nyou like dogs\n\nI like dogs today\ndogs like you\n"


def small_run(steps=60, **kw):
    corpus = read_corpus(TEXT * 3, "word")
    cfg = TrainConfig(steps=steps, batch_size=4, optimizer="adam", lr=0.03, clip=1.0, seed=3)
    return start_run(corpus, 20, 6, 8, kw.pop("cell", "elman"), "tanh", cfg, **kw)


# ---- reading a corpus -------------------------------------------------------------

def test_lines_become_sequences_and_the_first_line_is_kept():
    c = read_corpus(TEXT, "word")
    assert c.sequences == (("I", "like", "cats"), ("you", "like", "dogs"),
                           ("I", "like", "dogs", "today"), ("dogs", "like", "you"))
    assert (c.n_lines, c.n_tokens, c.first_line, c.notices) == (4, 13, "I like cats", ())


def test_char_level_splits_every_character():
    c = read_corpus("ab c\n", "char")
    assert c.sequences == (("a", "b", " ", "c"),)


def test_long_lines_are_cut_into_pieces_and_nothing_is_lost():
    words = [f"w{i}" for i in range(SEQ_TOKENS * 2 + 5)]
    c = read_corpus(" ".join(words), "word")
    assert [len(s) for s in c.sequences] == [SEQ_TOKENS, SEQ_TOKENS, 5]
    assert [t for s in c.sequences for t in s] == words
    assert any("cut into pieces" in n for n in c.notices)


def test_corpus_size_limit_on_both_sides():
    at_limit = ("a " * (limits.MAX_UPLOAD_BYTES // 2))[: limits.MAX_UPLOAD_BYTES]
    assert read_corpus(at_limit, "word").n_tokens > 0
    with pytest.raises(InputError, match="limit"):
        read_corpus(at_limit + "b", "word")


def test_more_sequences_than_the_limit_are_cut_with_a_notice():
    c = read_corpus("a b\n" * (limits.MAX_UPLOAD_LINES + 3), "word")
    assert len(c.sequences) == limits.MAX_UPLOAD_LINES
    assert any(f"{limits.MAX_UPLOAD_LINES:,}" in n for n in c.notices)


@pytest.mark.parametrize("text", ["", " \n\t\n", "\u200b\u200b"])
def test_empty_corpus_is_refused(text):
    with pytest.raises(InputError, match="empty"):
        read_corpus(text, "word")


def test_bad_level_and_bad_uploads_are_refused():
    with pytest.raises(InputError, match="level"):
        read_corpus("a", "sentence")
    with pytest.raises(InputError, match="binary"):
        read_upload(b"\x00\x01PK", "word")
    with pytest.raises(InputError, match="UTF-8"):
        read_upload("café".encode("latin-1"), "word")
    assert read_upload("猫 が 好き\n".encode("utf-8"), "word").sequences == (("猫", "が", "好", "き"),)


# ---- vocabulary, tensors, model -------------------------------------------------------

def test_vocab_is_capped_at_the_chosen_size_keeping_the_most_frequent():
    c = read_corpus(TEXT, "word")
    v = build_vocab(c, MIN_VOCAB)
    assert len(v) == MIN_VOCAB and v.itos[-1] == "like"  # "like" occurs 4 times
    assert build_vocab(c, MIN_VOCAB + 1).itos[-1] == "dogs"  # 3 times, then I (2)
    assert len(build_vocab(c, 100)) == 4 + 6  # specials + every distinct token


def test_vocab_size_bounds():
    c = read_corpus(TEXT, "word")
    for bad in (MIN_VOCAB - 1, limits.MAX_VOCAB + 1, 2.5):
        with pytest.raises(InputError, match="vocabulary size"):
            build_vocab(c, bad)
    assert len(build_vocab(c, limits.MAX_VOCAB)) == 10


def test_unknown_share_counts_tokens_outside_the_vocab():
    c = read_corpus(TEXT, "word")
    v = build_vocab(c, MIN_VOCAB)  # only "like" is known
    assert unknown_share(c, v) == pytest.approx(9 / 13)


def test_tensors_are_the_shifted_pairs():
    c = read_corpus(TEXT, "word")
    v = build_vocab(c, 100)
    x, y = corpus_tensors(c, v)
    assert x.shape == y.shape == (4, 5)
    for row, seq in enumerate(c.sequences):
        inp, tgt = lm_pair(v.encode(list(seq))[0], v)
        assert x[row, : len(inp)].tolist() == inp and y[row, : len(tgt)].tolist() == tgt
        assert (y[row, len(tgt):] == IGNORE).all()
    assert x[0, 0] == v.stoi[BOS] and y[0, 3] == v.stoi[EOS]


def test_longest_training_sequence_is_max_train_t():
    c = read_corpus(" ".join(["a"] * 500), "word")
    x, _ = corpus_tensors(c, build_vocab(c, 10))
    assert x.shape[1] == limits.MAX_TRAIN_T


def test_model_sizes_are_bounded_with_messages():
    assert build_model(10, limits.MAX_EMBED, limits.MAX_HIDDEN).cfg.hidden_size == limits.MAX_HIDDEN
    for kwargs, words in (({"embed_dim": limits.MAX_EMBED + 1}, "embedding size"),
                          ({"hidden_size": 0}, "hidden size"), ({"cell": "transformer"}, "cell"),
                          ({"nonlinearity": "gelu"}, "nonlinearity"), ({"seed": -1}, "seed")):
        args = {"vocab_size": 10, "embed_dim": 4, "hidden_size": 4} | kwargs
        with pytest.raises(InputError, match=words):
            build_model(**args)
    with pytest.raises(InputError):
        build_model(limits.MAX_VOCAB + 1, 4, 4)


def test_same_seed_same_model():
    a, b = build_model(10, 3, 4, "jordan", seed=5), build_model(10, 3, 4, "jordan", seed=5)
    assert a.fingerprint() == b.fingerprint() != build_model(10, 3, 4, "jordan", seed=6).fingerprint()


def test_model_names_are_cleaned():
    assert clean_model_name("  my\x00 model\u202e ") == "my model"
    assert len(clean_model_name("x" * 100)) == 40
    with pytest.raises(InputError, match="name"):
        clean_model_name(" \x07 ")


# ---- training ----------------------------------------------------------------------

@pytest.mark.parametrize("cell", ["elman", "jordan"])
def test_training_reduces_the_loss_deterministically(cell):
    a, b = small_run(cell=cell), small_run(cell=cell)
    before = corpus_perplexity(build_model(len(a.vocab), 6, 8, cell, "tanh", 3), a.inputs, a.targets)
    a.run()
    b.run()
    assert a.status == "done" and a.steps_done == 60
    assert a.history == b.history and a.model.fingerprint() == b.model.fingerprint()
    first, last = a.history[0]["loss"], sum(r["loss"] for r in a.history[-10:]) / 10
    assert last < 0.6 * first
    assert a.final_perplexity < 0.5 * before


def test_run_equals_rnnviz_train_with_the_same_config():
    run = small_run(steps=25)
    oracle = build_model(len(run.vocab), 6, 8, "elman", "tanh", 3)
    history = train(oracle, run.inputs, run.targets, run.cfg)
    run.run()
    assert [r["loss"] for r in run.history] == [r["loss"] for r in history]
    for p, q in zip(run.model.parameters(), oracle.parameters()):
        assert torch.equal(p, q)


def test_stop_keeps_exactly_the_steps_done():
    stopped, oracle = small_run(steps=60), small_run(steps=7)
    stopped.run(lambda rec, run: rec["step"] < 7)
    oracle.run()
    assert stopped.status == "stopped" and stopped.steps_done == 7
    assert stopped.model.fingerprint() == oracle.model.fingerprint()


def test_an_interrupted_run_keeps_its_model():
    """Streamlit stops a page run by raising inside the callback; the steps done stay."""
    class Interrupt(Exception):
        pass

    def interrupt(rec, run):
        if rec["step"] == 5:
            raise Interrupt

    run, oracle = small_run(steps=60), small_run(steps=5)
    with pytest.raises(Interrupt):
        run.run(interrupt)
    assert run.status == "running"
    model = run.finish("stopped")
    oracle.run()
    assert not model.training and run.steps_done == 5
    assert model.fingerprint() == oracle.model.fingerprint()
    assert run.final_perplexity == pytest.approx(oracle.final_perplexity)


def test_exploding_settings_stop_with_status_diverged():
    c = read_corpus(TEXT, "word")
    run = start_run(c, 12, 4, 8, "elman", "linear",
                    TrainConfig(steps=200, batch_size=4, optimizer="sgd", lr=10, clip=None, seed=0))
    run.run()
    assert run.status == "diverged" and not math.isfinite(run.history[-1]["loss"])
    with pytest.raises(InputError, match="NaN"):
        sample_text(run.model, run.vocab)


def test_checkpoint_samples_and_perplexity():
    run = small_run(steps=20)
    run.sample_every = 10
    run.run()
    assert [s for s, _ in run.samples] == [10, 20]
    again = sample_text(run.model, run.vocab, "word", seed=run.cfg.seed + 20)
    assert run.samples[-1][1] == again  # the same seed writes the same sentence
    assert all(t in run.vocab for t in again.split())
    assert corpus_perplexity(run.model, run.inputs, run.targets, chunk=3) == pytest.approx(
        perplexity(run.model, run.inputs, run.targets), rel=1e-5)


def test_progress_rate_numbers():
    assert progress_rate(50, 200, 2.0) == (25.0, 6.0)
    rate, eta = progress_rate(0, 200, 0.0)
    assert rate == 0.0 and eta != eta  # no estimate before the first step


# ---- model files -------------------------------------------------------------------

def test_save_and_load_give_identical_traces():
    run = small_run(steps=15)
    run.run()
    meta = model_meta(run, "mine")
    model, vocab, meta2 = load_bundle(save_bundle(run.model, run.vocab, meta))
    assert vocab == run.vocab and meta2["level"] == "word" and meta2["default_sentence"] == "I like cats"
    ids, tgt = lm_pair(vocab.encode(["I", "like", "dogs"])[0], vocab)
    t1, t2 = trace(run.model.eval(), ids, tgt), trace(model, ids, tgt)
    for name in ("h", "p", "loss_t", "grad_h", "grad_x"):
        assert torch.equal(getattr(t1, name), getattr(t2, name)), name


class Evil:
    """Unpickling this would run code: it writes a marker file."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (exec, (f"open({self.path!r}, 'w').write('pwned')",))


def test_malicious_pickle_is_refused_and_never_runs(tmp_path):
    marker = tmp_path / "marker"
    evil = {"format": FORMAT, "config": {}, "vocab": [], "meta": Evil(marker), "state": {}}
    buf = io.BytesIO()
    torch.save(evil, buf)
    for data in (buf.getvalue(), pickle.dumps(Evil(marker))):
        with pytest.raises(InputError, match="could not be read safely"):
            load_bundle(data)
    assert not marker.exists()
    pickle.loads(pickle.dumps(Evil(marker)))  # the control: plain pickle does run it
    assert marker.exists()


def test_malformed_and_mismatched_files_get_messages():
    model, vocab = build_model(6, 2, 3, seed=0), Vocab(("<pad>", "<unk>", "<bos>", "<eos>", "a", "b"))
    good = save_bundle(model, vocab, {"level": "word"})
    with pytest.raises(InputError, match="could not be read"):
        load_bundle(b"not a model at all")
    with pytest.raises(InputError, match="could not be read"):
        load_bundle(good[: len(good) // 2])
    short = io.BytesIO()
    torch.save({"format": FORMAT, "config": model.cfg.to_dict(), "vocab": list(vocab.itos)[:-1],
                "meta": {}, "state": model.state_dict()}, short)
    with pytest.raises(InputError, match="vocabulary has 5 tokens"):
        load_bundle(short.getvalue())
    other = io.BytesIO()
    torch.save({"format": "something-else"}, other)
    with pytest.raises(InputError, match="format"):
        load_bundle(other.getvalue())
    assert zipfile.is_zipfile(io.BytesIO(good))


def test_uploaded_meta_is_cleaned_and_taggers_are_refused():
    meta = clean_meta({"level": "<script>", "name": "\x00", "description": "d" * 900,
                       "default_sentence": 5}, "fallback")
    assert meta == {"level": "word", "name": "fallback", "description": "d" * 500}
    assert clean_meta("nonsense", "file")["name"] == "file"
    tagger = RNNModel(RNNConfig(vocab_size=6, embed_dim=2, hidden_size=3, num_outputs=5))
    with pytest.raises(InputError, match="not a language model"):
        check_language_model(tagger, Vocab(tuple("abcdef")))


# ---- the training curve -------------------------------------------------------------

def test_moving_average_and_the_curve_data():
    import numpy as np

    from rnnviz.figures.train import loss_curve, moving_average
    values = [4.0, 2.0, 6.0, 0.0, 1.0]
    oracle = [np.mean(values[max(0, i - 2):i + 1]) for i in range(len(values))]
    np.testing.assert_allclose(moving_average(values, 3), oracle)
    fig = loss_curve([1, 2, 3, 4, 5], values, window=3, vocab_size=20)
    assert list(fig.data[0].y) == values
    np.testing.assert_allclose(fig.data[1].y, oracle)
    np.testing.assert_allclose(fig.data[2].y, np.exp(oracle))
    assert list(fig.data[3].y) == [math.log(20)] * 2 and list(fig.data[4].y) == [20.0, 20.0]
    assert fig.layout.xaxis.title.text == "training step"
    nan_fig = loss_curve([1, 2], [float("nan"), float("inf")], window=2)  # diverged: no crash
    assert len(nan_fig.data) == 3
