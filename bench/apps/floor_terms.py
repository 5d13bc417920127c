"""What the bench pages' step sliders draw (bench/apps/fragment_floor.py,
bench/apps/chart_in_place_floor.py): page 2's three terms of a_t for UNITS hidden units, drawn
from a torch.Generator seeded with the step: no model, no cache."""
import torch

UNITS = 64


def terms(step: int) -> dict:
    """The three terms of a_t and their sum, each (UNITS,), drawn for `step`."""
    gen = torch.Generator().manual_seed(step)
    wx, wh, b = (torch.randn(UNITS, generator=gen) for _ in range(3))
    a = wx + wh + b
    return {"Wx_x": wx, "Wh_h": wh, "b": b, "a": a, "h": torch.tanh(a)}
