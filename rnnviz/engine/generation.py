"""Free generation: pick a token, feed it back, repeat (greedy, sampled, temperature, top-k).

Its own module because two pages use it (output: teacher forcing vs free run; train: samples
while training) and corpus.py should not import the output page's helpers to get it.
`rnnviz.explain.output.generate` / `Sampling` / `GenStep` stay importable from there.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from rnnviz import limits
from rnnviz.engine.model import RNNModel
from rnnviz.errors import InputError

MAX_NEW_TOKENS = 40  # generation length limit offered on the page


@dataclass(frozen=True)
class Sampling:
    """How the next token is chosen: greedy (argmax) or sampled from softmax(z / temperature),
    optionally among the top_k only (0 = all); a seeded torch.Generator makes it reproducible."""

    strategy: str = "greedy"
    temperature: float = 1.0
    top_k: int = 0
    seed: int = 0
    max_new: int = 20

    def __post_init__(self):
        if self.strategy not in ("greedy", "sample"):
            raise InputError("Choose 'greedy' or 'sample'.")
        if not (math.isfinite(self.temperature) and 0.05 <= self.temperature <= 5):
            raise InputError("The temperature must be from 0.05 to 5.")
        if not 0 <= self.top_k <= limits.MAX_VOCAB:
            raise InputError("top-k must be 0 (all) or a positive number of tokens.")
        if not 0 <= self.seed < 2**31:
            raise InputError("The seed must be a whole number from 0 to 2,147,483,647.")
        if not 1 <= self.max_new <= MAX_NEW_TOKENS:
            raise InputError(f"Generate 1 to {MAX_NEW_TOKENS} tokens.")


def sampling_distribution(z: torch.Tensor, temperature: float = 1.0, top_k: int = 0) -> torch.Tensor:
    """softmax(z / temperature) with every token outside the top_k set to 0 (renormalised). (K,)"""
    z = z.double() / temperature  # (K,)
    if 0 < top_k < z.numel():
        kth = torch.topk(z, top_k).values[-1]
        z = z.masked_fill(z < kth, float("-inf"))
    return torch.softmax(z, dim=-1)


@dataclass(frozen=True)
class GenStep:
    input_id: int    # the token fed in at this step
    chosen: int      # the token picked as the next one
    p_model: float   # its probability under the model (temperature 1)
    p_pick: float    # its probability under the sampling distribution actually used


def generate(model: RNNModel, prefix: list[int], how: Sampling, eos_id: int | None = None) -> list[GenStep]:
    """Continue the prefix: pick a token, feed it back, repeat; stop at <eos> or after max_new."""
    if not prefix:
        raise InputError("Generation needs at least one token to start from.")
    gen = torch.Generator().manual_seed(how.seed)
    ids, steps = list(prefix), []
    for _ in range(min(how.max_new, limits.MAX_TOKENS + MAX_NEW_TOKENS - len(prefix))):
        with torch.no_grad():
            z = model(torch.tensor(ids))[-1]  # (K,) logits after the last token fed in
        q = sampling_distribution(z, how.temperature, how.top_k)  # (K,)
        if how.strategy == "greedy":
            k = int(z.argmax())  # NaN logits: argmax still names a token, shown with p = NaN
        elif not (torch.isfinite(q).all() and q.sum() > 0):
            break  # a diverged model's NaN/inf probabilities cannot be sampled from: stop here
        else:
            k = int(torch.multinomial(q, 1, generator=gen))
        steps.append(GenStep(ids[-1], k, float(torch.softmax(z.double(), -1)[k]), float(q[k])))
        ids.append(k)
        if eos_id is not None and k == eos_id:
            break
    return steps
