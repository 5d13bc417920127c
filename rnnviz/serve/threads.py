"""PyTorch's thread setting for a shared server, set once by app.py (never on import).

Every session runs in one process: one intra-op thread per page run keeps a class responsive
(a long matrix product cannot take both cores from everyone else's page runs).
"""
import torch


def one_thread_per_run() -> None:
    """torch.set_num_threads(1) for the whole process; app.py calls it once at start."""
    torch.set_num_threads(1)
