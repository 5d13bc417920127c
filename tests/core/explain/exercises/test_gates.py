"""The long-range task's core (data, training, read-outs through rnnviz) and the LSTM hand step."""
import numpy as np
import pytest
import torch

from rnnviz.engine.trace import trace
from rnnviz.errors import InputError
from rnnviz.explain.exercises.gates import (
    EXPLAIN,
    MISTAKES,
    LSTMExercise,
    check_exercise,
    exercise_answers,
    make_exercise,
)
from rnnviz.explain.longrange import (
    N_LABELS,
    LongRangeConfig,
    LongRangeNet,
    accuracy_by_distance,
    gradient_to_first,
    make_batch,
    task_targets,
    to_rnnviz,
    train_longrange,
)


def test_batches_put_the_label_first_and_noise_after():
    ids, labels = make_batch(30, 50, torch.Generator().manual_seed(0))
    assert ids.shape == (50, 31)
    assert torch.equal(ids[:, 0], labels) and set(labels.tolist()) == {0, 1}
    assert ids[:, 1:].min() >= N_LABELS


@pytest.mark.parametrize("cell", ["elman", "lstm", "gru"])
def test_to_rnnviz_reads_the_same_and_its_gradient_reaches_x1_equally(cell):
    cfg = LongRangeConfig(cell=cell, distance=12, steps=1, seed=3)
    torch.manual_seed(3)
    net = LongRangeNet(cfg).double()
    model = to_rnnviz(net).double()
    ids, labels = make_batch(12, 4, torch.Generator().manual_seed(5))
    for k in range(4):
        tr = trace(model, ids[k], task_targets(ids[k]))
        with torch.no_grad():
            torch.testing.assert_close(tr.z[-1], net(ids[k:k + 1])[0], rtol=0, atol=1e-12)
        assert int(tr.targets[-1]) == int(labels[k]) and bool((tr.targets[:-1] == -100).all())
    # gradient_to_first (batched nn path) against rnnviz's Trace, sequence by sequence
    g = gradient_to_first(net, 12, n=4, seed=5)
    firsts = [float(trace(model, ids[k], task_targets(ids[k])).grad_x[0].norm()) for k in range(4)]
    assert abs(g["first"] - float(np.mean(firsts))) < 1e-10


def test_training_is_deterministic_and_learns_a_short_distance():
    cfg = LongRangeConfig(cell="lstm", distance=5, steps=150, seed=0)
    net, hist = train_longrange(cfg)
    _, again = train_longrange(cfg)
    assert hist == again
    assert accuracy_by_distance(net, [5])[5] > 0.9


def test_curriculum_draws_distances_up_to_the_limit():
    _, hist = train_longrange(LongRangeConfig(cell="elman", distance=40, schedule="curriculum",
                                              steps=60, seed=1))
    ds = [r["distance"] for r in hist]
    assert min(ds) >= 1 and max(ds) <= 40 and len(set(ds)) > 10


@pytest.mark.parametrize("bad", [{"cell": "jordan"}, {"distance": 201}, {"distance": 0},
                                 {"steps": 10_000}, {"schedule": "random"}, {"lr": float("nan")}])
def test_bad_longrange_configs_are_input_errors(bad):
    with pytest.raises(InputError):
        LongRangeConfig(**bad)


def _lstm_cell_answer(ex: LSTMExercise):
    """Oracle: torch.nn.LSTMCell fed the pre-activations through an identity weight."""
    cell = torch.nn.LSTMCell(8, 2).double()
    with torch.no_grad():
        cell.weight_ih.copy_(torch.eye(8, dtype=torch.float64))
        cell.weight_hh.zero_()
        cell.bias_ih.zero_()
        cell.bias_hh.zero_()
    x = torch.tensor(ex.A_i + ex.A_f + ex.A_g + ex.A_o, dtype=torch.float64)
    h, c = cell(x, (torch.zeros(2, dtype=torch.float64), torch.tensor(ex.c_prev, dtype=torch.float64)))
    return c.detach().numpy(), h.detach().numpy()


@pytest.mark.parametrize("seed", range(5))
def test_lstm_exercise_right_answer_is_torch_and_every_slip_is_named(seed):
    ex = make_exercise(seed)
    c, h = _lstm_cell_answer(ex)
    right_c, right_h = exercise_answers(ex)
    np.testing.assert_allclose(right_c, c, atol=1e-12)
    np.testing.assert_allclose(right_h, h, atol=1e-12)
    v = check_exercise(ex, np.round(c, 3), np.round(h, 3))
    assert v["c_ok"] and v["h_ok"] and v["mistake"] is None
    for m in MISTAKES:
        mc, mh = exercise_answers(ex, m)
        v = check_exercise(ex, np.round(mc, 3), np.round(mh, 3))
        assert v["mistake"] == m and not (v["c_ok"] and v["h_ok"])
        assert m in EXPLAIN
    v = check_exercise(ex, c + 0.5, h - 0.5)
    assert v["mistake"] is None and not v["c_ok"] and not v["h_ok"]


def test_lstm_exercise_rejects_bad_input():
    ex = make_exercise(0)
    for c, h in (([1, 2, 3], [0, 0]), ([float("nan"), 0], [0, 0]), (["a", 0], [0, 0])):
        with pytest.raises(InputError):
            check_exercise(ex, c, h)


def test_shipped_longrange_figures_are_reproduced():
    """One row of rnnviz/pretrained/longrange.json retrained here gives the same numbers."""
    import json

    from rnnviz.explain.longrange import run_experiment
    from rnnviz.store.catalog import PRETRAINED
    shipped = json.loads((PRETRAINED / "longrange.json").read_text())
    row = next(r for r in shipped["fixed"]["rows"] if r["cell"] == "elman" and r["distance"] == 10)
    again = run_experiment(cells=("elman",), distances=(10,), steps=row["config"]["steps"])["rows"][0]
    assert again["accuracy"] == row["accuracy"]
    assert abs(again["final_train_loss"] - row["final_train_loss"]) < 1e-6
    assert set(shipped) >= {"fixed", "curriculum"}
    for r in shipped["fixed"]["rows"]:
        assert 0 <= r["accuracy"] <= 1 and r["grad_first_before"]["first"] >= 0
