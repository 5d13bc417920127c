"""RNNConfig and RNNModel: an Elman / Jordan RNN written as an explicit loop over a pure step.

Notation of the course notes: E (V x d), W_x (H x d), W_h (H x H), b_h (H),
W_o (K x H_out), b_o (K); Jordan cells have W_y (H x K) in place of W_h and feed
back the previous output y_{t-1} = softmax(z_{t-1}). A bidirectional Elman model
adds W_x_rev, W_h_rev, b_h_rev and concatenates h_t = [h_fwd_t; h_bwd_t].
Gated cells (cell="lstm" | "gru", see cells.py) carry W_x (G*H, d), W_h (G*H, H) and
both biases b_x, b_h (G*H,) with the gate rows in PyTorch's order (G = 4 or 3);
rnn_state_dict() / load_rnn_state_dict() exchange them with torch.nn.LSTM / GRU / RNN.

Hooks are per call, not per module: `run_with_cache` passes a HookContext down
the forward pass, so a model shared between sessions never carries anyone's hooks.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from rnnviz import limits
from rnnviz.conventions import IGNORE
from rnnviz.engine import cells
from rnnviz.errors import InputError

CELLS = ("elman", "jordan") + cells.GATED
NONLINEARITIES = ("tanh", "relu", "linear")


@dataclass(frozen=True)
class RNNConfig:
    vocab_size: int
    embed_dim: int
    hidden_size: int
    cell: str = "elman"
    nonlinearity: str = "tanh"
    bidirectional: bool = False
    num_outputs: int | None = None  # None -> vocab_size (a language model)
    attention: bool = False  # attention over the past hidden states (module docstring)

    def __post_init__(self):
        if self.cell not in CELLS:
            raise InputError(f"cell must be one of {CELLS}, not {self.cell!r}.")
        if self.nonlinearity not in NONLINEARITIES:
            raise InputError(f"nonlinearity must be one of {NONLINEARITIES}.")
        if self.cell in cells.GATED and self.nonlinearity != "tanh":
            raise InputError(f"An {self.cell.upper()} cell has its own fixed sigmoid and tanh; "
                             "its nonlinearity must be 'tanh'.")
        if self.cell == "jordan" and self.bidirectional:
            raise InputError("A Jordan cell feeds back its own previous output; "
                             "it has no bidirectional form here.")
        if self.attention not in (True, False):
            raise InputError("attention must be true or false.")
        if self.attention and (self.cell == "jordan" or self.bidirectional):
            raise InputError("Attention over past hidden states is for a one-direction Elman, "
                             "LSTM or GRU (causal: step t reads steps 1..t only).")
        for name, value, top in (("vocab_size", self.vocab_size, limits.MAX_VOCAB),
                                 ("embed_dim", self.embed_dim, limits.MAX_EMBED),
                                 ("hidden_size", self.hidden_size, limits.MAX_HIDDEN)):
            if not (isinstance(value, int) and 1 <= value <= top):
                raise InputError(f"{name} must be a whole number from 1 to {top:,}.")
        if self.num_outputs is not None and not (1 <= self.num_outputs <= limits.MAX_VOCAB):
            raise InputError("num_outputs must be from 1 to the vocabulary limit.")

    @property
    def K(self) -> int:
        return self.num_outputs or self.vocab_size

    @property
    def H_out(self) -> int:
        return self.hidden_size * (2 if self.bidirectional else 1)

    @property
    def head_in(self) -> int:
        """Width of what the output layer reads: h_t, or [h_t; c_t] with attention."""
        return self.H_out * (2 if self.attention else 1)

    def to_dict(self) -> dict:
        """The settings; `attention` only when set, so a model without it keeps the dict (and the
        fingerprint and saved bytes) it had before attention existed."""
        d = asdict(self)
        if not self.attention:
            del d["attention"]
        return d


# ---- pure pieces (no module state: torch.func can differentiate them) ----------

def activate(a: torch.Tensor, nonlinearity: str) -> torch.Tensor:
    if nonlinearity == "tanh":
        return torch.tanh(a)
    if nonlinearity == "relu":
        return torch.relu(a)
    return a


def activation_slope(a: torch.Tensor, nonlinearity: str) -> torch.Tensor:
    """phi'(a), elementwise: 1 - tanh(a)^2, the ReLU step, or 1."""
    if nonlinearity == "tanh":
        return 1 - torch.tanh(a) ** 2
    if nonlinearity == "relu":
        return (a > 0).to(a.dtype)
    return torch.ones_like(a)


def step(x_t, state, W_in, W_rec, b, nonlinearity="tanh"):
    """One time step: a_t = W_in x_t + W_rec state + b, h_t = phi(a_t).

    x_t (..., d), state (..., S) with S = H (Elman: h_{t-1}) or K (Jordan: y_{t-1}).
    Returns (a_t, h_t), each (..., H).
    """
    a = x_t @ W_in.T + state @ W_rec.T + b  # (..., H)
    return a, activate(a, nonlinearity)


# ---- hooks ----------------------------------------------------------------------

class HookPoint(nn.Module):
    """Identity that names a quantity. With a HookContext it reports (and may replace) the value."""

    def __init__(self, per_step: bool):
        super().__init__()
        self.per_step = per_step  # fires once per time step (time is then a tensor dimension)
        self.name = ""

    def forward(self, x, ctx=None, t=None):
        return x if ctx is None else ctx.fire(self.name, x, t)


class HookContext:
    """What one call wants from the hook points: user hooks (name -> fn(value, t)) and a recorder."""

    def __init__(self, hooks=(), record=None):
        self.hooks = {}
        for name, fn in hooks:
            self.hooks.setdefault(name, []).append(fn)
        self.record = record  # fn(name, value, t) or None

    def fire(self, name, x, t):
        for fn in self.hooks.get(name, ()):
            out = fn(x, t)
            if out is not None:
                x = out
        if self.record is not None:
            self.record(name, x, t)
        return x


# ---- the model --------------------------------------------------------------------

class RNNModel(nn.Module):
    """Embedding -> recurrent cell (explicit loop over `step`) -> linear output head."""

    HOOK_NAMES = ("hook_embed", "hook_pre", "hook_hidden", "hook_pre_rev",
                  "hook_hidden_rev", "hook_logits")
    ATTENTION_HOOKS = ("hook_attn_scores", "hook_attn_weights", "hook_context")

    def __init__(self, cfg: RNNConfig, seed: int | None = None):
        super().__init__()
        self.cfg = cfg
        gen = torch.Generator().manual_seed(seed) if seed is not None else None
        V, d, H, K = cfg.vocab_size, cfg.embed_dim, cfg.hidden_size, cfg.K
        bound = 1 / math.sqrt(H)  # nn.RNN's initialisation

        def uniform(*shape):
            return nn.Parameter((torch.rand(*shape, generator=gen) * 2 - 1) * bound)

        self.E = nn.Parameter(torch.randn(V, d, generator=gen))
        if cfg.cell in cells.GATED:
            self._init_gated(cfg, uniform)
            self._init_attention(cfg, uniform)
            return
        self.W_x = uniform(H, d)
        if cfg.cell == "elman":
            self.W_h = uniform(H, H)
        else:
            self.W_y = uniform(H, K)
        self.b_h = uniform(H)
        if cfg.bidirectional:
            self.W_x_rev, self.W_h_rev, self.b_h_rev = uniform(H, d), uniform(H, H), uniform(H)
        self.W_o = nn.Parameter((torch.rand(K, cfg.head_in, generator=gen) * 2 - 1)
                                / math.sqrt(cfg.head_in))
        self.b_o = nn.Parameter(torch.zeros(K))
        self._init_hooks(self.HOOK_NAMES)
        self._init_attention(cfg, uniform)

    def _init_hooks(self, names):
        self.hook_embed = HookPoint(per_step=False)
        for name in names[1:]:
            setattr(self, name, HookPoint(per_step=True))
        for name in names:
            getattr(self, name).name = name

    def _init_attention(self, cfg, uniform):
        """W_a (H, H), uniform(-1/sqrt(H), 1/sqrt(H)), drawn after every other weight (so a model
        without attention draws exactly what it drew before), and the three attention hooks."""
        if not cfg.attention:
            return
        self.W_a = uniform(cfg.hidden_size, cfg.hidden_size)
        self.HOOK_NAMES = self.HOOK_NAMES + self.ATTENTION_HOOKS
        self._init_hooks(self.HOOK_NAMES)

    def _init_gated(self, cfg, uniform):
        """LSTM / GRU: W_x (G*H, d), W_h (G*H, H), b_x, b_h (G*H,), gate rows in PyTorch's
        order; all uniform(-1/sqrt(H), 1/sqrt(H)) as torch.nn.LSTM / GRU initialise them."""
        GH, H, d = cells.n_gates(cfg.cell) * cfg.hidden_size, cfg.hidden_size, cfg.embed_dim
        for suffix in ("", "_rev") if cfg.bidirectional else ("",):
            setattr(self, "W_x" + suffix, uniform(GH, d))
            setattr(self, "W_h" + suffix, uniform(GH, H))
            setattr(self, "b_x" + suffix, uniform(GH))
            setattr(self, "b_h" + suffix, uniform(GH))
        self.W_o = nn.Parameter(uniform(cfg.K, cfg.head_in).detach() * math.sqrt(H)
                                / math.sqrt(cfg.head_in))
        self.b_o = nn.Parameter(torch.zeros(cfg.K))
        # per-instance hook names: the Elman ones, then one per gate and hook_cell
        self.HOOK_NAMES = RNNModel.HOOK_NAMES + cells.hook_names(cfg.cell, cfg.bidirectional)
        self._init_hooks(self.HOOK_NAMES)

    def rnn_state_dict(self) -> dict:
        """Recurrent weights under torch.nn.RNN / LSTM / GRU's names (layer 0): what
        nn.LSTM(d, H, bidirectional=...).load_state_dict(sd, strict=True) accepts."""
        return cells.rnn_state_dict(self)

    def load_rnn_state_dict(self, sd: dict) -> None:
        """Take the recurrent weights of a torch.nn.RNN / LSTM / GRU (layer 0) in place."""
        cells.load_rnn_state_dict(self, sd)

    # -- forward -------------------------------------------------------------------
    def forward(self, ids: torch.Tensor, ctx: HookContext | None = None) -> torch.Tensor:
        """ids (T,) or (B, T) -> logits (T, K) or (B, T, K)."""
        cfg = self.cfg
        if ids.numel() == 0:
            raise InputError("There are no tokens to run.")
        x = self.hook_embed(self.E[ids], ctx)  # (..., T, d)
        if cfg.cell == "jordan":
            return self._jordan(x, ctx)
        if cfg.cell in cells.GATED:
            h = cells.scan(self, x, "", ctx)  # (..., T, H)
            h_rev = cells.scan(self, x, "_rev", ctx) if cfg.bidirectional else None
        else:
            h = self._scan(x, self.W_x, self.W_h, self.b_h, "", ctx)  # (..., T, H)
            h_rev = (self._scan(x, self.W_x_rev, self.W_h_rev, self.b_h_rev, "_rev", ctx)
                     if cfg.bidirectional else None)
        if h_rev is not None:
            h = torch.cat([h, h_rev], dim=-1)  # (..., T, 2H)
        if cfg.attention:
            return self._attend(h, ctx)
        zs = [self.hook_logits(h[..., t, :] @ self.W_o.T + self.b_o, ctx, t)
              for t in range(h.shape[-2])]  # T x (..., K)
        return torch.stack(zs, dim=-2)  # (..., T, K)

    def _attend(self, h, ctx):
        """Causal attention over the hidden states h (..., T, H), one query step at a time:
        s_t = h_t . W_a h_j (j > t masked to -inf), alpha_t = softmax(s_t),
        c_t = sum_j alpha_{t,j} h_j, z_t = W_o [h_t; c_t] + b_o. Returns logits (..., T, K)."""
        T = h.shape[-2]
        keys = h @ self.W_a.T  # (..., T, H): W_a h_j for every j
        later = torch.arange(T)
        zs = []
        for t in range(T):
            s = (keys * h[..., t, None, :]).sum(-1)  # (..., T)
            s = self.hook_attn_scores(s.masked_fill(later > t, float("-inf")), ctx, t)
            alpha = self.hook_attn_weights(torch.softmax(s, dim=-1), ctx, t)  # (..., T)
            c = self.hook_context((alpha[..., None] * h).sum(-2), ctx, t)  # (..., H)
            zs.append(self.hook_logits(torch.cat([h[..., t, :], c], -1) @ self.W_o.T + self.b_o,
                                       ctx, t))
        return torch.stack(zs, dim=-2)  # (..., T, K)

    def _scan(self, x, W_in, W_rec, b, suffix, ctx):
        """Elman recurrence over time (reversed for suffix '_rev'); returns (..., T, H) in time order."""
        T = x.shape[-2]
        pre, hidden = getattr(self, "hook_pre" + suffix), getattr(self, "hook_hidden" + suffix)
        h = x.new_zeros(*x.shape[:-2], self.cfg.hidden_size)  # h_0 = 0, (..., H)
        order = range(T - 1, -1, -1) if suffix else range(T)
        hs = [None] * T
        for t in order:
            a, h_new = step(x[..., t, :], h, W_in, W_rec, b, self.cfg.nonlinearity)  # (..., H) each
            h = hidden(self._after_pre(pre, a, h_new, ctx, t), ctx, t)  # (..., H)
            hs[t] = h
        return torch.stack(hs, dim=-2)

    def _after_pre(self, pre, a, h, ctx, t):
        """h_t after the pre-activation hook: step()'s own h_t, unless a hook replaced a_t
        (then h_t = phi of the replaced value, so patching a_t changes everything after it)."""
        seen = pre(a, ctx, t)  # (..., H)
        return h if seen is a else activate(seen, self.cfg.nonlinearity)

    def _jordan(self, x, ctx):
        """Jordan recurrence: the state fed back is y_{t-1} = softmax(z_{t-1}), y_0 = 0."""
        y = x.new_zeros(*x.shape[:-2], self.cfg.K)  # (..., K)
        zs = []
        for t in range(x.shape[-2]):
            a, h_new = step(x[..., t, :], y, self.W_x, self.W_y, self.b_h, self.cfg.nonlinearity)
            h = self.hook_hidden(self._after_pre(self.hook_pre, a, h_new, ctx, t), ctx, t)  # (..., H)
            z = self.hook_logits(h @ self.W_o.T + self.b_o, ctx, t)           # (..., K)
            y = torch.softmax(z, dim=-1)
            zs.append(z)
        return torch.stack(zs, dim=-2)  # (..., T, K)

    # -- caching run -----------------------------------------------------------------
    def run_with_cache(self, ids, targets=None, names_filter=None, hooks=(),
                       reduction="sum", with_grads=None):
        """Run once, recording every hook point; with targets, also their gradients.

        Returns (logits, cache). cache[name] is stacked over time: (T, ...) for a
        per-step point. With targets, cache also holds "loss_t", "loss" and, unless
        with_grads is False, name + "_grad" for every recorded point and
        "param_grads" (a dict by parameter name). Parameters' .grad are untouched.
        """
        names = [n for n in self.HOOK_NAMES if _wanted(n, names_filter)]
        T = ids.shape[-1]
        values: dict = {n: {} for n in names}
        grads: dict = {n: {} for n in names}
        with_grads = targets is not None if with_grads is None else with_grads

        def record(name, x, t):
            if name not in values:
                return
            values[name][t] = x.detach()
            if with_grads and x.requires_grad:
                x.register_hook(lambda g, name=name, t=t: grads[name].__setitem__(t, g.detach()))

        ctx = HookContext(hooks, record)
        with torch.enable_grad() if with_grads else torch.no_grad():
            logits = self.forward(ids, ctx)
            cache = {n: _stack(values[n], self._hp(n).per_step) for n in names if values[n]}
            if targets is None:
                return logits.detach(), cache
            loss_t, loss = sequence_loss(logits, targets, reduction)
            cache["loss_t"], cache["loss"] = loss_t.detach(), loss.detach()
            if with_grads:
                params = dict(self.named_parameters())
                g = torch.autograd.grad(loss, list(params.values()), allow_unused=True)
                cache["param_grads"] = {k: (v if v is not None else torch.zeros_like(p)).detach()
                                        for (k, p), v in zip(params.items(), g)}
                for n in names:
                    if grads[n]:
                        cache[n + "_grad"] = _stack(grads[n], self._hp(n).per_step, T, values[n])
        return logits.detach(), cache

    def _hp(self, name) -> HookPoint:
        return getattr(self, name)

    # -- facts for the pages -------------------------------------------------------------
    def param_counts(self) -> dict[str, int]:
        return {name: p.numel() for name, p in self.named_parameters()}

    def fingerprint(self) -> str:
        return fingerprint(self)


def fingerprint(model) -> str:
    """Hash of a model's config and weights (any model with .cfg.to_dict() and parameters: the
    language models and the taggers): the cache key of everything computed from it."""
    h = hashlib.sha1(repr(model.cfg.to_dict()).encode())
    for name, p in model.named_parameters():
        h.update(name.encode())
        h.update(p.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def _wanted(name, names_filter) -> bool:
    if names_filter is None:
        return True
    if callable(names_filter):
        return bool(names_filter(name))
    if isinstance(names_filter, str):
        return name == names_filter
    return name in names_filter


def _stack(by_t: dict, per_step: bool, T: int | None = None, like: dict | None = None):
    """{t: value} -> tensor stacked on dim -2 in time order (missing grads are zeros)."""
    if not per_step:
        return by_t[None]
    keys = sorted(like) if like is not None else sorted(by_t)
    rows = [by_t[t] if t in by_t else torch.zeros_like(like[t]) for t in keys]
    return torch.stack(rows, dim=-2)


def sequence_loss(logits, targets, reduction="sum"):
    """Per-step cross-entropy (0 where target == IGNORE) and its sum or mean over valid steps.

    logits (..., T, K), targets (..., T) -> loss_t (..., T), loss scalar.
    """
    if reduction not in ("sum", "mean"):
        raise InputError("reduction must be 'sum' or 'mean'.")
    K = logits.shape[-1]
    loss_t = F.cross_entropy(logits.reshape(-1, K), targets.reshape(-1),
                             ignore_index=IGNORE, reduction="none").reshape(targets.shape)
    total = loss_t.sum()
    if reduction == "mean":
        total = total / (targets != IGNORE).sum().clamp(min=1)
    return loss_t, total
