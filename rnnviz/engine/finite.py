"""Linear algebra that may meet a diverged model: NaN instead of an exception.

A model trained with SGD at learning rate 10 and no clipping, or an upload whose forward pass
overflows, has inf/NaN weights and activations. LAPACK refuses such matrices (svd, eigh,
eigvals raise LinAlgError), which would crash a whole page; the lesson is the NaN itself, so
these return NaN for each matrix that is not finite and the exact value for the others.
"""
from __future__ import annotations

import torch


def _finite_mask(M: torch.Tensor) -> torch.Tensor:
    """(...,) True where the (..., n, m) matrix has only finite entries."""
    return torch.isfinite(M).flatten(-2).all(-1)


def norm2(M: torch.Tensor) -> torch.Tensor:
    """Spectral norm ||M||_2 of each (n, m) matrix of M (...), NaN where M is not finite."""
    ok = _finite_mask(M)
    safe = torch.where(ok[..., None, None], M, torch.zeros_like(M))
    return torch.linalg.matrix_norm(safe, ord=2).masked_fill(~ok, float("nan"))


def spectral_radius(W: torch.Tensor) -> float:
    """max |eigenvalue| of a square W; NaN when W is not finite."""
    if not bool(_finite_mask(W)):
        return float("nan")
    return float(torch.linalg.eigvals(W).abs().max())
