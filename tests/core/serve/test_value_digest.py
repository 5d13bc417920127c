"""rnnviz.serve.bytecache.value_digest: the key of ui/cache.figure (equal contents, equal key)."""
import numpy as np
import torch

from rnnviz.serve.bytecache import value_digest


def test_equal_contents_equal_digest_and_any_change_another():
    a = (np.arange(6.0).reshape(2, 3), {"title": "t", "x": [1, 2]}, torch.tensor([1, 2]))
    b = (np.arange(6.0).reshape(2, 3), {"x": [1, 2], "title": "t"}, torch.tensor([1, 2]))
    assert value_digest(a) == value_digest(b)
    changed = (np.arange(6.0).reshape(3, 2), {"title": "t", "x": [1, 2]}, torch.tensor([1, 2]))
    assert value_digest(a) != value_digest(changed)          # same bytes, another shape
    assert value_digest([1, 2]) != value_digest((1, 2))      # the sequence's type counts
    assert value_digest(np.float32([1])) != value_digest(np.float64([1]))
