"""The training loop: minibatches, SGD or Adam, optional clipping, a progress callback
that can stop the run (the model keeps what it has learned so far)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from rnnviz import limits
from rnnviz.engine.model import RNNModel, sequence_loss
from rnnviz.errors import InputError


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 300
    batch_size: int = 32
    optimizer: str = "adam"   # "adam" | "sgd"
    lr: float = 0.01
    clip: float | None = 1.0  # max global gradient norm, None for no clipping
    weight_decay: float = 0.0
    seed: int = 0

    def __post_init__(self):
        if not 1 <= self.steps <= limits.MAX_TRAIN_STEPS:
            raise InputError(f"Training steps must be from 1 to {limits.MAX_TRAIN_STEPS:,}.")
        if not 1 <= self.batch_size <= limits.MAX_BATCH:
            raise InputError(f"Batch size must be from 1 to {limits.MAX_BATCH}.")
        if self.optimizer not in ("adam", "sgd"):
            raise InputError("The optimizer must be 'adam' or 'sgd'.")
        if not (math.isfinite(self.lr) and 0 < self.lr <= 10):
            raise InputError("The learning rate must be above 0 and at most 10.")
        if self.clip is not None and not (math.isfinite(self.clip) and self.clip > 0):
            raise InputError("The clipping norm must be a positive number.")


def make_optimizer(model: RNNModel, cfg: TrainConfig) -> torch.optim.Optimizer:
    if cfg.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    return torch.optim.SGD(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)


def train(model: RNNModel, inputs: torch.Tensor, targets: torch.Tensor, cfg: TrainConfig,
          callback=None) -> list[dict]:
    """Train in place on (N, T) inputs/targets; returns one record per step.

    callback(record) is called after each step; returning False stops the run.
    Each record: step, loss (mean cross-entropy per valid token), grad_norm (before clipping).
    """
    if inputs.shape != targets.shape or inputs.dim() != 2 or inputs.shape[0] == 0:
        raise InputError("Training needs at least one sentence.")
    gen = torch.Generator().manual_seed(cfg.seed)
    opt = make_optimizer(model, cfg)
    history = []
    model.train()
    for step in range(1, cfg.steps + 1):
        idx = torch.randint(0, inputs.shape[0], (min(cfg.batch_size, inputs.shape[0]),), generator=gen)
        logits = model(inputs[idx])  # (B, T, K)
        _, loss = sequence_loss(logits, targets[idx], reduction="mean")
        opt.zero_grad()
        loss.backward()
        max_norm = cfg.clip if cfg.clip is not None else float("inf")
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        opt.step()
        record = {"step": step, "loss": float(loss.detach()), "grad_norm": float(grad_norm)}
        history.append(record)
        if callback is not None and callback(record) is False:
            break
    model.eval()
    return history


def perplexity(model: RNNModel, inputs: torch.Tensor, targets: torch.Tensor) -> float:
    """exp(mean cross-entropy per valid target token)."""
    with torch.no_grad():
        _, loss = sequence_loss(model(inputs), targets, reduction="mean")
    return float(torch.exp(loss))
