"""One Verdict type for every checker (it still unpacks as the old (ok, message) tuple)."""
from rnnviz.explain import bptt as chains
from rnnviz.explain import embedding as emb
from rnnviz.explain import hidden as hd
from rnnviz.explain import output as out
from rnnviz.explain.exercises.verdict import Verdict


def test_one_verdict_type_for_every_checker():
    ex = chains.chain_exercise(0)
    v = chains.check_chain(ex, ex["answer"])
    assert isinstance(v, Verdict) and v.ok and v.solution.endswith(f"{ex['answer']:.6g}")
    ok, message = chains.check_chain(ex, -ex["answer"])  # the old tuple protocol still unpacks
    assert not ok and "sign" in message
    assert emb.Verdict is Verdict
    assert out.check_loss(out.make_exercise(0), "").correct is None
    hex_ = hd.make_exercise(0)
    right = hd.exercise_answers(hex_)
    assert hd.check_exercise_verdict(hex_, *right).ok
    wrong = hd.check_exercise_verdict(hex_, right[0], -right[1])
    assert wrong.ok is False and wrong.solution and wrong.message
