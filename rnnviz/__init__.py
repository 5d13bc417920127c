"""rnnviz: run a small RNN with hooks and explain every number. Never imports streamlit.

The public core contract (DESIGN.md section 3). Packages by kind: engine/ (models, traces,
Jacobians, training), text/ (tokenizers, BPE, corpora), store/ (model files, the built-in
catalogue, exports, prose), explain/ (what each page computes beyond the engine), serve/
(job sharing, byte-bounded caches, replicas, links), figures/ (Plotly builders).
"""
from rnnviz.conventions import IGNORE
from rnnviz.engine.jacobians import input_jacobian_norms, jacobian_norms, memory_horizon, step_jacobians
from rnnviz.engine.model import RNNConfig, RNNModel, sequence_loss, step
from rnnviz.engine.trace import Trace, next_token_targets, trace
from rnnviz.errors import InputError

__all__ = ["InputError", "IGNORE", "RNNConfig", "RNNModel", "Trace", "trace", "step",
           "sequence_loss", "next_token_targets", "step_jacobians", "jacobian_norms",
           "input_jacobian_norms", "memory_horizon"]
