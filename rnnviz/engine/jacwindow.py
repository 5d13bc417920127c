"""Which steps an all-pairs Jacobian view covers: all of them when the work fits
limits.MAX_JACOBIAN_WORK, else the LAST w steps.

Why a window, and why the last steps: the all-pairs norms ||dh_s/dh_t|| cost about
S^3 * T * (T - 1) (S the recurrent state size: H, or 2H for an LSTM's [h; c]), so one learner
with H = 128 and a 200-token sentence held a core for minutes per slider move (measured: 218 s
for an LSTM). The products P_{s,t} = J_s ... J_{t+1} of two steps inside a window use only the
window's own step Jacobians, so every number shown is exactly the unbounded one; only the pairs
reaching before the window are left out. The last steps are kept because backpropagation starts
there: the window's rows are the latest states, whose losses see the longest history, and its
first column is the earliest state they are traced back to (the first steps of a sentence start
from the zero state and say little about the model's regime).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from rnnviz import limits


@dataclass(frozen=True)
class Window:
    """Steps [start, stop) of a T-step sentence, 0-based, stop = T."""

    start: int
    stop: int
    T: int

    @property
    def size(self) -> int:
        return self.stop - self.start

    @property
    def full(self) -> bool:
        return self.start == 0

    @property
    def first(self) -> int:
        """The first step shown, 1-based (as the screen numbers steps)."""
        return self.start + 1

    @property
    def last(self) -> int:
        return self.stop


def last_steps(T: int, w: int) -> Window:
    """The last w of T steps (the shape every window has)."""
    return Window(T - w, T, T)


def state_size(cfg) -> int:
    """S, the recurrent state the step Jacobians act on: H, or 2H ([h; c]) for an LSTM
    (the forward direction only for a bidirectional model, as every Jacobian view)."""
    return 2 * cfg.hidden_size if cfg.cell == "lstm" else cfg.hidden_size


def work(w: int, S: int, k: int | None = None) -> int:
    """Work units of w steps' all pairs: S^2 k w (w - 1), k = S for dh_s/dh_t (the products
    are S x S by S x S), k = d for dh_s/dx_t (S x S by S x d)."""
    return S * S * (S if k is None else k) * w * (w - 1)


def jacobian_window(T: int, S: int, k: int | None = None, budget: int | None = None) -> Window:
    """The last w steps, w the largest number of steps whose all-pairs work fits the budget
    (limits.MAX_JACOBIAN_WORK, read at call time), and w = T when everything fits. At least
    two steps (one pair) are always shown, so a sentence keeps a heatmap at any state size.
    Monotone: w never falls when T grows, never grows when S or k grows."""
    if T < 0 or S < 1:
        raise ValueError("T >= 0 and S >= 1")
    budget = limits.MAX_JACOBIAN_WORK if budget is None else budget
    per_pair = S * S * (S if k is None else k)
    q = budget // per_pair  # w (w - 1) <= q
    w = (1 + math.isqrt(1 + 4 * q)) // 2
    while w * (w - 1) > q:  # isqrt rounds down; make sure (integer arithmetic, no float error)
        w -= 1
    while (w + 1) * w <= q:
        w += 1
    return last_steps(T, min(T, max(w, 2)))
