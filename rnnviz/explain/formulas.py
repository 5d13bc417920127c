"""Formulas and phrases that follow the current model's cell and nonlinearity.

Why: a sentence that says "tanh keeps h in (-1, 1)" or "J_t = diag(1 - h_t^2) W_h" is false
on a ReLU or linear model. Pages fill their prose placeholders from `prose_values(cfg)`, and
`jacobian_from_formula` computes the matrix the displayed formula describes, so a test can
check the formula against the model's real step Jacobians (bptt.step_jacobians).
Cells other than Elman / Jordan (added elsewhere) get the generic form dh_t/dh_{t-1}.
"""
from __future__ import annotations

import torch

from rnnviz.engine.jacobians import SPECTRAL_TOL
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.trace import Trace

_NAMES = {"tanh": "tanh", "relu": "ReLU", "linear": "the identity (a linear RNN)"}
_SHORT = {"tanh": "tanh", "relu": "ReLU", "linear": "identity"}
_PHI_LATEX = {"tanh": r"\tanh", "relu": r"\operatorname{ReLU}", "linear": ""}
_DERIV = {"tanh": "1 - h_t^2", "relu": "1[a_t > 0]", "linear": "1"}
_DERIV_LATEX = {"tanh": r"1 - h_t^{2}", "relu": r"\mathbb{1}[a_t > 0]", "linear": r"1"}
_RANGE = {"tanh": "(-1, 1)", "relu": "[0, ∞)", "linear": "all real numbers (unbounded)"}
_RANGE_LATEX = {"tanh": r"(-1,\,1)", "relu": r"[0,\,\infty)", "linear": r"\mathbb{R}"}
_SLOPE = {"tanh": "between 0 and 1 (near 0 where |aₜ| is large: saturated)",
          "relu": "exactly 1 for an active unit (aₜ > 0) and exactly 0 for a dead one",
          "linear": "exactly 1 for every unit"}


_RANGE_SENTENCE = {"tanh": "tanh keeps every value in (-1, 1)",
                   "relu": "ReLU keeps every value in [0, ∞): 0 for a unit that is off, no upper limit",
                   "linear": "a linear RNN puts no bound on the values"}
_SATURATION_HINT = {"tanh": "where |aₜ| is large, hₜ is pressed against ±1 (saturated).",
                    "relu": "where aₜ ≤ 0, hₜ is exactly 0 (the unit is off at that step).",
                    "linear": "in a linear RNN hₜ = aₜ, so the two views are the same."}
_ACT_TEXT = {"tanh": "tanh(a_t)", "relu": "ReLU(a_t) = max(0, a_t)", "linear": "a_t (no nonlinearity)"}


def _phi(cfg: RNNConfig) -> str:
    return cfg.nonlinearity


def activation_name(cfg: RNNConfig) -> str:
    """The nonlinearity as prose: "tanh", "ReLU" or "the identity (a linear RNN)"."""
    return _NAMES[_phi(cfg)]


def derivative_name(cfg: RNNConfig) -> str:
    """phi'(a_t) written in the model's own terms: 1 - h_t^2, 1[a_t > 0] or 1."""
    return _DERIV[_phi(cfg)]


def value_range(cfg: RNNConfig) -> str:
    """Where h_t can lie: (-1, 1) for tanh, [0, ∞) for ReLU, any real number if linear."""
    return _RANGE[_phi(cfg)]


def _wrap(phi: str, inner: str) -> str:
    return rf"{phi}\!\left({inner}\right)" if phi else inner


def step_formula(cfg: RNNConfig) -> str:
    """LaTeX of one step, h_t = phi(W_x x_t + <recurrent term> + b_h), for this cell.

    Jordan feeds back y_{t-1} = softmax(z_{t-1}) through W_y; a bidirectional model adds
    the right-to-left line with its own weights."""
    phi = _PHI_LATEX[_phi(cfg)]
    if cfg.cell == "elman":
        line = r"h_t = " + _wrap(phi, r"W_x x_t + W_h h_{t-1} + b_h")
        if cfg.bidirectional:
            back = r"\overleftarrow{h}_t = " + _wrap(
                phi, r"W_x^{\leftarrow} x_t + W_h^{\leftarrow} \overleftarrow{h}_{t+1} + b_h^{\leftarrow}")
            return line + r", \qquad " + back
        return line
    if cfg.cell == "jordan":
        return (r"h_t = " + _wrap(phi, r"W_x x_t + W_y y_{t-1} + b_h")
                + r", \quad y_{t-1} = \operatorname{softmax}(W_o h_{t-1} + b_o),\ y_0 = 0")
    return r"h_t = f(x_t, h_{t-1})"


def jacobian_formula(cfg: RNNConfig) -> str:
    """LaTeX of J_t = dh_t/dh_{t-1} for this cell and nonlinearity (what
    `jacobian_from_formula` computes)."""
    nl = _phi(cfg)
    diag = "" if nl == "linear" else rf"\operatorname{{diag}}\!\left({_DERIV_LATEX[nl]}\right)\,"
    if cfg.cell == "elman":
        return rf"J_t = \frac{{\partial h_t}}{{\partial h_{{t-1}}}} = {diag}W_h"
    if cfg.cell == "jordan":
        return (rf"J_t = {diag}W_y\left(\operatorname{{diag}}(y_{{t-1}}) - y_{{t-1}} y_{{t-1}}^\top\right)"
                r" W_o \ \ (J_1 = 0)")
    return r"J_t = \frac{\partial h_t}{\partial h_{t-1}}"


def jacobian_text(cfg: RNNConfig) -> str:
    """The same formula in plain text for figure titles and tables (no LaTeX there), in the
    app's one notation: h_{t-1}, ∂, ᵀ (prose uses the LaTeX `jacobian`)."""
    nl = _phi(cfg)
    diag = "" if nl == "linear" else f"diag({_DERIV[nl]}) "
    if cfg.cell == "elman":
        return f"J_t = {diag}W_h"
    if cfg.cell == "jordan":
        return f"J_t = {diag}W_y (diag(y_{{t-1}}) - y_{{t-1}} y_{{t-1}}ᵀ) W_o"
    return "J_t = ∂h_t/∂h_{t-1}"


def jacobian_from_formula(model: RNNModel, tr: Trace) -> torch.Tensor:
    """J[t] (0-based, (T, H, H)) computed from the displayed formula's own pieces: the
    derivative written as in derivative_name (1 - h_t^2 from h itself, 1[a_t > 0], 1),
    times W_h, or for Jordan times W_y (diag(y) - y y^T) W_o with y = p_{t-1}, J[0] = 0.
    Independent of bptt.step_jacobians (which uses model.activation_slope on a)."""
    cfg = model.cfg
    H = cfg.hidden_size
    with torch.no_grad():
        h, a = tr.h[:, :H], tr.a[:, :H]  # (T, H)
        d = {"tanh": lambda: 1 - h * h, "relu": lambda: (a > 0).to(h.dtype),
             "linear": lambda: torch.ones_like(h)}[cfg.nonlinearity]()  # (T, H)
        if cfg.cell == "elman":
            return torch.stack([torch.diag(d[t]) @ model.W_h for t in range(tr.T)])  # (T, H, H)
        if cfg.cell != "jordan":
            raise ValueError(f"no closed formula here for the {cfg.cell} cell")
        out = []
        for t in range(tr.T):
            if t == 0:
                out.append(torch.zeros(H, H, dtype=h.dtype))
                continue
            y = tr.p[t - 1]  # (K,)
            soft = torch.diag(y) - torch.outer(y, y)  # (K, K)
            out.append(torch.diag(d[t]) @ model.W_y @ soft @ model.W_o[:, :H])  # (H, H)
        return torch.stack(out)


def pre_activation_text(cfg: RNNConfig) -> str:
    """a_t in plain text: W_x x_t + W_h h_{t-1} + b_h, or Jordan's W_y y_{t-1} in the middle
    (the app's one notation: h_{t-1}, as in the LaTeX)."""
    rec = "W_y y_{t-1}" if cfg.cell == "jordan" else "W_h h_{t-1}"
    return f"W_x x_t + {rec} + b_h"


def repeat_example(tokens) -> str:
    """A sentence that repeats a word, made of the learner's own tokens (so every word is in
    the vocabulary): the tokens with the first one again at the end ("cats like" -> "cats like
    cats"); one token is doubled."""
    toks = [str(t) for t in tokens if str(t).strip()]
    if not toks:
        return ""
    return " ".join(toks + [toks[0]])


def dead_units(h: torch.Tensor) -> dict:
    """ReLU's counterpart of saturation: values of h (T, H) that are exactly 0 (unit off, slope
    0, no gradient through it at that step). count, total, share."""
    off = h == 0  # (T, H)
    return {"count": int(off.sum()), "total": int(off.numel()), "share": float(off.double().mean())}


def prose_values(cfg: RNNConfig) -> dict:
    """Every model-dependent placeholder the prose files use, in one dict (pages pass
    **prose_values(model.cfg) to prose.section): activation, activation_short, derivative,
    value_range, slope_range, range_sentence, saturation_hint, pre_text, act_text,
    step_formula and jacobian (LaTeX), jacobian_text, recurrent, spectral_tol."""
    nl = _phi(cfg)
    return {"activation": activation_name(cfg), "activation_short": _SHORT[nl],
            "derivative": derivative_name(cfg), "value_range": value_range(cfg),
            "slope_range": _SLOPE[nl], "range_sentence": _RANGE_SENTENCE[nl],
            "saturation_hint": _SATURATION_HINT[nl], "pre_text": pre_activation_text(cfg),
            "act_text": _ACT_TEXT[nl], "step_formula": step_formula(cfg),
            "jacobian": jacobian_formula(cfg), "jacobian_text": jacobian_text(cfg),
            "recurrent": "W_y" if cfg.cell == "jordan" else "W_h", "spectral_tol": f"{SPECTRAL_TOL:g}"}
