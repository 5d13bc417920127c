"""Generation lives in one module (rnnviz.engine.generation); the output lesson does not re-export it."""
import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine.generation import Sampling, generate
from rnnviz.explain import output as out


def test_generation_lives_in_one_module_and_output_does_not_re_export_it():
    # issue 23: no re-export shims (it asserted out.generate is generate before the move)
    assert not hasattr(out, "generate") and not hasattr(out, "Sampling")
    model = RNNModel(RNNConfig(6, 3, 4), seed=0)
    steps = generate(model, [1, 2], Sampling("greedy", max_new=3))
    with torch.no_grad():
        first = int(model(torch.tensor([1, 2]))[-1].argmax())
    assert len(steps) == 3 and steps[0].chosen == first  # oracle: argmax of the model's own logits
