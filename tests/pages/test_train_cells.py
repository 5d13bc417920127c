"""Issue 25: after one's own model is trained on page 6, the page offers to train the other two
of Elman, LSTM and GRU on the same text (same vocabulary, d, H, steps and seed; only the cell
differs); they join the session's own models, the learner's model stays current, and page 8
then compares the three own models."""
from __future__ import annotations

import torch

from rnnviz.engine.model import RNNModel
from rnnviz.explain import gates
from rnnviz.explain.train import TrainConfig, read_corpus, start_run
from tests.apptest_helpers import finish_job, no_exception
from tests.conftest import ROOT


def test_twin_run_changes_only_the_cell():
    corpus = read_corpus("the cat sat on the mat\nthe dog sat on the log\n", "word")
    run = start_run(corpus, 50, 6, 5, "elman", "relu", TrainConfig(steps=3, batch_size=2, seed=4), "m")
    twin = gates.twin_run(run, "gru")
    assert twin.vocab is run.vocab and twin.inputs is run.inputs and twin.cfg == run.cfg
    assert (twin.model.cfg.cell, twin.model.cfg.nonlinearity) == ("gru", "tanh") and twin.name == "m-gru"
    assert (twin.model.cfg.embed_dim, twin.model.cfg.hidden_size) == (6, 5)
    fresh = RNNModel(twin.model.cfg, seed=4)  # the learner's seed, as page 6 builds a model
    assert all(torch.equal(a, b) for a, b in zip(fresh.state_dict().values(), twin.model.state_dict().values()))
    twin.run()
    assert twin.status == "done" and len(twin.history) == 3
    long = gates.twin_run(start_run(corpus, 50, 6, 5, "elman", "tanh", TrainConfig(steps=1), "x" * 40), "lstm")
    assert long.name.endswith("-lstm") and len(long.name) == 40


def test_page6_trains_the_other_two_and_page8_compares_the_three(app):
    at = app("pages/train.py")
    at.number_input(key="train_steps").set_value(5)
    finish_job(at.button(key="train_go").click().run(), "train_job")
    no_exception(at)
    [(name, (model, vocab, _))] = at.session_state["own_models"].items()
    assert model.cfg.cell == "elman" and at.session_state["model"] == f"own:{name}"
    finish_job(at.button(key="train_cells_go").click().run(), "train_cells_job")
    no_exception(at)
    own = at.session_state["own_models"]
    assert sorted(m.cfg.cell for m, _, _ in own.values()) == ["elman", "gru", "lstm"]
    assert all(v.itos == vocab.itos and m.cfg.hidden_size == model.cfg.hidden_size for m, v, _ in own.values())
    assert at.session_state["model"] == f"own:{name}"  # the learner's model stays current
    assert any("Elman, LSTM and GRU trained on the text of" in s.value for s in at.success)
    at.switch_page(str(ROOT / "pages/gates.py"))
    at.run()
    no_exception(at)
    table = next(d.value for d in at.dataframe if "tokens" in d.value.columns)
    assert list(table["model"]) == [f"Your model: {n}" for n in (name, f"{name}-lstm", f"{name}-gru")]
    assert not any("not trained on your corpus" in c.value for c in at.caption)  # no built-in among them
