"""Page 6 (your own data): paste / upload a corpus, train, stop, keep, download and upload models."""
import io
import math

import numpy as np
import pytest
import torch

from rnnviz import limits
from rnnviz.engine.trace import trace
from rnnviz.engine.train import TrainConfig
from rnnviz.explain.train import (
    build_model,
    build_vocab,
    corpus_perplexity,
    read_corpus,
    start_run,
    unknown_share,
)
from rnnviz.store.bundle import FORMAT, load_bundle, save_bundle
from rnnviz.store.export import token_frame
from rnnviz.text.corpora import lm_pair
from tests.apptest_helpers import figures, finish_job, no_exception
from ui import session as ui
from ui.navigation import APP_ROOT

PAGE = "pages/train.py"
HOME = "pages/home.py"
CORPUS = "the cat sat\nthe dog sat\na cat ran\nthe dog ran\n" * 4


class FakeUpload:
    def __init__(self, data: bytes, name: str):
        self.data, self.name = data, name

    def getvalue(self):
        return self.data


def fake_uploads(monkeypatch, files: dict):
    """AppTest cannot upload: make file_uploader(key=k) return files[k] (the widget stays)."""
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator

    real = DeltaGenerator.file_uploader

    def fake(self, *args, **kwargs):
        got = real(self, *args, **kwargs)
        return files.get(kwargs.get("key"), got)

    monkeypatch.setattr(DeltaGenerator, "file_uploader", fake)
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: fake(st._main, *a, **k))


def text(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [e.value for e in at.error]
                     + [i.value for i in at.info] + [s.value for s in at.success])


def train(at, steps=30, **settings):
    at.number_input(key="train_steps").set_value(steps)
    for key, value in settings.items():
        at.number_input(key=key).set_value(value)
    at.button(key="train_go").click().run()
    return finish_job(at, ui.TRAIN_JOB)


def test_page_opens_with_an_example_corpus_and_its_numbers(app):
    at = app(PAGE)
    no_exception(at)
    corpus = read_corpus(at.text_area(key="train_text").value, "word")
    vocab = build_vocab(corpus, 200)
    shown = text(at)
    seqs = "sequence" if len(corpus.sequences) == 1 else "sequences"
    assert f"became {len(corpus.sequences):,} training {seqs} of\n{corpus.n_tokens:,}" in shown
    assert f"turns {100 * unknown_share(corpus, vocab):.1f}% of your tokens" in shown
    assert f"ln V = {math.log(len(vocab)):.2f}" in shown


def test_pasted_corpus_trains_and_becomes_the_current_model(app):
    at = app(PAGE)
    at.text_area(key="train_text").input(CORPUS)
    train(at, steps=40, train_d=4, train_H=8)
    no_exception(at)
    run = at.session_state[ui.TRAIN_RUN]
    assert run.status == "done" and run.steps_done == 40
    assert (run.model.cfg.embed_dim, run.model.cfg.hidden_size) == (4, 8)
    model, vocab, meta = at.session_state["own_models"]["my-model"]
    assert model is run.model and meta["level"] == "word" and meta["default_sentence"] == "the cat sat"
    # the curve on screen is the run's history; the perplexity shown is recomputed here
    curve = next(f for f in figures(at) if f["layout"]["title"]["text"] == "Training curve")
    assert list(curve["data"][0]["y"]) == [r["loss"] for r in run.history]
    ppl = corpus_perplexity(model, run.inputs, run.targets)
    assert f"perplexity is now {ppl:.2f}" in text(at)
    assert run.history[-1]["loss"] < run.history[0]["loss"]
    assert any(d.key == "train_download" for d in at.get("download_button"))
    # section 5: the new model reads its default sentence (the first corpus line)
    ids, tgt = lm_pair(vocab.encode(["the", "cat", "sat"])[0], vocab)
    expected = token_frame(trace(model, ids, tgt), vocab)
    shown = at.dataframe[-1].value
    assert list(shown["guess"]) == list(expected["guess"])
    assert np.allclose(shown["p_guess"], expected["p_guess"])
    assert "Your model: my-model** reads the sentence" in text(at).replace("\\", "")  # shown escaped
    # every page now inspects the new model, with its first corpus line as the sentence
    at.switch_page(str(APP_ROOT / HOME))
    at.run()
    no_exception(at)
    assert "Your model: my-model" in " ".join(c.value for c in at.caption).replace("\\", "")  # shown escaped
    assert list(at.dataframe[0].value["token"]) == ["<bos>", "the", "cat", "sat"]


def test_uploaded_corpus_at_char_level(app, monkeypatch):
    fake_uploads(monkeypatch, {"train_upload": FakeUpload("abab\nbaba\n".encode(), "c.txt")})
    at = app(PAGE)
    at.radio(key="train_source").set_value("upload")
    at.radio(key="train_level").set_value("char").run()
    no_exception(at)
    assert "became 2 training sequences of\n8 character tokens" in text(at)
    train(at, steps=10, train_vocab=6)
    no_exception(at)
    run = at.session_state[ui.TRAIN_RUN]
    assert run.corpus.level == "char" and len(run.vocab) == 6
    assert at.session_state["own_models"]["my-model"][2]["level"] == "char"


@pytest.mark.parametrize("data, words", [(b"\x00\x01PK", "binary"), ("é".encode("latin-1"), "UTF-8"),
                                         (b" \n \n", "empty")])
def test_bad_corpus_uploads_get_a_message_and_no_train_button(app, monkeypatch, data, words):
    fake_uploads(monkeypatch, {"train_upload": FakeUpload(data, "bad.txt")})
    at = app(PAGE)
    at.radio(key="train_source").set_value("upload").run()
    no_exception(at)
    assert any(words in e.value for e in at.error)
    assert at.button(key="train_go").disabled


def test_stop_keeps_the_model_trained_so_far(app):
    """The stop button interrupts the page run mid-training; the next run keeps the steps done."""
    at = app(PAGE)
    run = start_run(read_corpus(CORPUS, "word"), 50, 4, 8, "elman", "tanh",
                    TrainConfig(steps=500, batch_size=4, seed=0), "half-done")

    def interrupt(record, run):
        if record["step"] == 12:
            raise KeyboardInterrupt  # what a RerunException does to the training loop

    with pytest.raises(KeyboardInterrupt):
        run.run(interrupt)
    at.session_state[ui.TRAIN_RUN] = run
    at.run()
    no_exception(at)
    assert run.status == "stopped" and run.steps_done == 12
    assert at.session_state["own_models"]["half-done"][0] is run.model
    assert "12 of 500 steps (stopped early)" in text(at)


def test_the_stop_button_ends_a_running_training_which_keeps_its_steps(app):
    """The run trains in a worker thread (ui.running): a second Train is refused while it runs,
    and Stop (the poller's button) ends it; the next page run keeps the model as trained."""
    at = app(PAGE)
    at.text_area(key="train_text").input(CORPUS)
    at.number_input(key="train_steps").set_value(limits.MAX_TRAIN_STEPS)
    at.button(key="train_go").click().run()
    no_exception(at)
    job = at.session_state[ui.TRAIN_JOB]
    assert not job.ended and at.button(key="train_job_stop")
    at.button(key="train_go").click().run()
    assert any("already has a training running" in e.value for e in at.error)
    assert at.session_state[ui.TRAIN_JOB] is job and not job.ended   # refused: the first goes on
    while job.progress is None and not job.ended:
        job.join(0.05)
    at.button(key="train_job_stop").click().run()
    finish_job(at, ui.TRAIN_JOB)
    no_exception(at)
    run = at.session_state[ui.TRAIN_RUN]
    assert (job.reason, run.status) == ("stop", "stopped") and 0 < run.steps_done < limits.MAX_TRAIN_STEPS
    assert at.session_state["own_models"]["my-model"][0] is run.model
    assert f"{run.steps_done} of {limits.MAX_TRAIN_STEPS:,} steps (stopped early)" in text(at)


def test_diverging_settings_are_shown_not_crashed(app):
    at = app(PAGE)
    at.selectbox(key="train_opt").set_value("sgd")
    at.selectbox(key="train_nonlin").set_value("linear")
    at.number_input(key="train_clip").set_value(0.0)
    train(at, steps=200, train_lr=10.0)
    no_exception(at)
    assert at.session_state[ui.TRAIN_RUN].status == "diverged"
    assert any("NaN" in e.value for e in at.error)
    at.switch_page(str(APP_ROOT / HOME))
    at.run()
    no_exception(at)


def test_model_file_upload_round_trip(app, monkeypatch):
    model = build_model(9, 3, 5, "jordan", seed=1)
    vocab = build_vocab(read_corpus("a b c d e\n", "word"), 9)
    data = save_bundle(model, vocab, {"level": "word", "default_sentence": "a b c", "name": "mine"})
    fake_uploads(monkeypatch, {"train_model_file": FakeUpload(data, "mine.pt")})
    at = app(PAGE)
    at.button(key="train_load").click().run()
    no_exception(at)
    loaded, v2, meta = at.session_state["own_models"]["mine"]
    ids, tgt = lm_pair(vocab.encode(["a", "b"])[0], vocab)
    assert torch.equal(trace(loaded, ids, tgt).h, trace(model, ids, tgt).h) and v2 == vocab
    # the download offers the same bytes back: a second round trip gives the same weights
    again = load_bundle(save_bundle(loaded, v2, meta))[0]
    assert again.fingerprint() == model.fingerprint()
    at.switch_page(str(APP_ROOT / HOME))
    at.run()
    assert "Your model: mine" in " ".join(c.value for c in at.caption).replace("\\", "")  # shown escaped


class Evil:
    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (exec, (f"open({self.path!r}, 'w').write('pwned')",))


def test_malicious_and_broken_model_files_are_refused(app, monkeypatch, tmp_path):
    marker = tmp_path / "ran"
    buf = io.BytesIO()
    torch.save({"format": FORMAT, "meta": Evil(marker)}, buf)
    tagger = io.BytesIO()
    from rnnviz.engine.model import RNNConfig, RNNModel
    from rnnviz.text.tokenize import Vocab
    tag_model = RNNModel(RNNConfig(vocab_size=5, embed_dim=2, hidden_size=2, num_outputs=3))
    tagger.write(save_bundle(tag_model, Vocab(tuple("abcde"))))
    for data, words in ((buf.getvalue(), "could not be read safely"), (b"garbage", "not a model file"),
                        (tagger.getvalue(), "not a language model")):
        fake_uploads(monkeypatch, {"train_model_file": FakeUpload(data, "x.pt")})
        at = app(PAGE)
        at.button(key="train_load").click().run()
        no_exception(at)
        assert any(words in e.value for e in at.error), words
        assert "own_models" not in at.session_state or not at.session_state["own_models"]
    assert not marker.exists()


def test_vocabulary_box_is_a_maximum_and_the_used_size_is_shown(app):
    at = app(PAGE)
    no_exception(at)
    box = at.number_input(key="train_vocab")
    assert box.label == "Maximum vocabulary size" and box.value == 200
    corpus = read_corpus(at.text_area(key="train_text").value, "word")
    V = len(build_vocab(corpus, 200))
    assert V < 200  # the example corpus has fewer distinct tokens than the maximum
    assert f"V used = {V:,}** (at most 200)" in text(at)
    at.text_area(key="train_text").input(CORPUS).run()
    at.number_input(key="train_vocab").set_value(8).run()
    assert f"V used = {len(build_vocab(read_corpus(CORPUS, 'word'), 8))}** (at most 8)" in text(at)
