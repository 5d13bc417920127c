"""The small counts pages quote (moved out of ui/ so the layer does no maths), against plain
Python / numpy counts."""
import math

import numpy as np
import pandas as pd
import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine.trace import trace
from rnnviz.explain import attention, units
from rnnviz.explain import embedding as emb
from rnnviz.explain import train as page6


def test_nonzero_rows_and_padding():
    G = torch.zeros(5, 3)
    G[1, 2], G[4, 0] = 0.5, -1e-3
    assert emb.nonzero_rows(G) == sum(any(v != 0 for v in row) for row in G.tolist()) == 2
    mask = torch.tensor([[True, True, False], [True, False, False]])
    assert emb.padded_positions(mask) == int(np.sum(~mask.numpy())) == 3


def test_unit_mean_and_total_change():
    h = torch.arange(12.0).reshape(4, 3)
    assert units.state_mean(h, 1) == np.mean([1.0, 4.0, 7.0, 10.0])
    assert units.total_change(torch.tensor([0.25, -1.0, 0.5])) == -0.25


def test_uniform_loss_and_try_counts():
    assert page6.uniform_loss(1155) == math.log(1155)
    model = RNNModel(RNNConfig(7, 3, 4), seed=0)
    tr = trace(model, [1, 2, 3, 4], [2, 3, 4, -100])
    frame = pd.DataFrame({"guess": ["a", "b", "c"], "target": ["a", "x", "c"]})
    assert page6.try_counts(frame, tr) == {"hits": 2, "n": 3}


def test_attention_part_norms_and_top_key():
    split = {"attention": torch.tensor([[3.0, 4.0], [0.0, 0.0]])}
    assert attention.attention_part_norms(split) == [5.0, 0.0]
    assert attention.top_key(torch.tensor([0.1, 0.7, 0.2])) == 1
