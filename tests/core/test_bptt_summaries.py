"""rnnviz.explain.bptt.grad_sources and distance_summary (the sums ui/cache.py used to do)."""
import numpy as np
import torch

from rnnviz import RNNConfig, RNNModel, step_jacobians
from rnnviz.engine.jacobians import jacobian_norms, loss_to_state_grads
from rnnviz.engine.trace import trace
from rnnviz.explain import bptt as chains


def _setup():
    model = RNNModel(RNNConfig(9, 3, 5), seed=3).double()
    tr = trace(model, [1, 4, 2, 7, 3, 5])
    return model, tr


def test_grad_sources_adds_the_no_path_back_norm():
    model, tr = _setup()
    G = loss_to_state_grads(model, tr)  # (T, T, H)
    src = chains.grad_sources(G, tr, 2)
    assert src["none_norm"] == 0.0 == float(G[0, 1].norm())  # dL_1/dh_2: no path back in time
    total = src["parts"].sum(0)  # the sources of dL/dh_3 add up to autograd's total gradient
    assert torch.allclose(total, tr.grad_h[2].double(), atol=1e-10)


def test_distance_summary_mean_radius_against_numpy():
    model, tr = _setup()
    J = step_jacobians(model, tr)  # (T, H, H)
    N = jacobian_norms(model, tr, 2)
    dist = chains.distance_summary(N, J, model.W_h)
    radii = [np.abs(np.linalg.eigvals(j)).max() for j in J.detach().numpy()[1:]]  # J[0] starts no product
    assert abs(dist["rho_j"] - float(np.mean(radii))) < 1e-9
    assert dist.keys() >= chains.norm_vs_distance(N, J, model.W_h).keys()
