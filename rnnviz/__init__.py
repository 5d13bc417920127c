"""rnnviz: run a small RNN with hooks and explain every number. Never imports streamlit."""
import torch

torch.set_num_threads(1)  # one thread per session: a shared server stays responsive

from .bptt import jacobian_norms, step_jacobians  # noqa: E402
from .errors import InputError  # noqa: E402
from .gates import input_jacobian_norms, memory_horizon  # noqa: E402
from .model import IGNORE, RNNConfig, RNNModel, sequence_loss, step  # noqa: E402
from .trace import Trace, next_token_targets, trace  # noqa: E402

__all__ = ["InputError", "IGNORE", "RNNConfig", "RNNModel", "Trace", "trace", "step",
           "sequence_loss", "next_token_targets", "step_jacobians", "jacobian_norms",
           "input_jacobian_norms", "memory_horizon"]
