"""A long-range task where the cells' difference is measured: "the label is the first token".

A sequence is x_1 = a label token (A or B) followed by `distance` noise tokens drawn
uniformly from N_NOISE others; the model must name the label after reading the last token.
Chance is 50 %. Only the last step has a loss, so the learning signal for x_1 must
travel back `distance` steps: exactly the product of Jacobians of the BPTT page.

Training uses torch.nn.RNN / LSTM / GRU (their C++ loop: seconds, not minutes) inside
LongRangeNet; `to_rnnviz` turns a trained net into an RNNModel through
`load_rnn_state_dict`, so every page (hooks, Trace, Jacobians) can read it.
Two schedules: "fixed" trains every batch at the full distance (the vanishing-gradient
regime), "curriculum" draws each batch's distance log-uniformly from 1..distance.
The LSTM's forget-gate bias starts at +1 (forget_bias; Gers et al. 2000, Jozefowicz et
al. 2015), the usual practice; set it to 0 for PyTorch's plain initialisation.
Everything is seeded and bounded (limits below): same config, same numbers.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

from rnnviz.conventions import IGNORE
from rnnviz.engine.gradcheck import seeded_linear
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.errors import InputError
from rnnviz.store.catalog import PRETRAINED

N_LABELS = 2
N_NOISE = 8
VOCAB = ("A", "B") + tuple(f"n{k}" for k in range(N_NOISE))  # ids: labels first, then noise
MAX_DISTANCE = 200
MAX_STEPS = 3000
MAX_HIDDEN = 64
SCHEDULES = ("fixed", "curriculum")
CELL_MODULES = {"elman": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}
# page 9: an Elman (nn.RNN, tanh) whose read-out also attends over its hidden states:
# s_j = h_T . W_a h_j, alpha = softmax(s), c = sum_j alpha_j h_j, logits = head([h_T; c])
ATTENTION = "attention"
RECURRENCE = {**CELL_MODULES, ATTENTION: nn.RNN}


@dataclass(frozen=True)
class LongRangeConfig:
    cell: str = "lstm"
    distance: int = 50          # noise tokens between the label and the read-out step
    schedule: str = "fixed"
    steps: int = 400
    hidden_size: int = 16
    embed_dim: int = 8
    batch_size: int = 32
    lr: float = 0.01
    forget_bias: float = 1.0    # LSTM only
    seed: int = 0

    def __post_init__(self):
        if self.cell not in RECURRENCE:
            raise InputError(f"The cell must be one of {', '.join(RECURRENCE)}.")
        if self.schedule not in SCHEDULES:
            raise InputError(f"The schedule must be one of {', '.join(SCHEDULES)}.")
        for name, value, top in (("distance", self.distance, MAX_DISTANCE),
                                 ("steps", self.steps, MAX_STEPS),
                                 ("hidden_size", self.hidden_size, MAX_HIDDEN),
                                 ("embed_dim", self.embed_dim, MAX_HIDDEN),
                                 ("batch_size", self.batch_size, 128)):
            if not (isinstance(value, int) and 1 <= value <= top):
                raise InputError(f"The {name} must be a whole number from 1 to {top}.")
        if not (math.isfinite(self.lr) and 0 < self.lr <= 1):
            raise InputError("The learning rate must be above 0 and at most 1.")
        if not (math.isfinite(self.forget_bias) and abs(self.forget_bias) <= 5):
            raise InputError("The forget-gate bias must be between -5 and 5.")

    def to_dict(self) -> dict:
        return asdict(self)


def make_batch(distance: int, n: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n sequences of length distance + 1: ids (n, distance + 1), labels (n,) in {0, 1}."""
    labels = torch.randint(0, N_LABELS, (n,), generator=gen)
    ids = torch.randint(N_LABELS, N_LABELS + N_NOISE, (n, distance + 1), generator=gen)
    ids[:, 0] = labels
    return ids, labels


class LongRangeNet(nn.Module):
    """Embedding -> torch.nn.RNN / LSTM / GRU (one layer, tanh) -> linear head on the last h
    (cell "attention": an nn.RNN whose head reads [h_T; c_T], c_T attending over h_1..h_T).

    Initialised as PyTorch's modules initialise themselves (Embedding: N(0, 1); the recurrence:
    U(-1/sqrt(H), 1/sqrt(H)) for every tensor in its order; the head: engine.gradcheck's
    seeded_linear), every draw from `gen` in that order (a fresh generator seeded with cfg.seed
    if none is given): the same weights as the modules built after torch.manual_seed(cfg.seed),
    and the server's global generator is left alone."""

    def __init__(self, cfg: LongRangeConfig, gen: torch.Generator | None = None):
        super().__init__()
        gen = torch.Generator().manual_seed(cfg.seed) if gen is None else gen
        self.cfg = cfg
        H = cfg.hidden_size
        self.E = nn.utils.skip_init(nn.Embedding, len(VOCAB), cfg.embed_dim)
        nn.init.normal_(self.E.weight, generator=gen)
        rnn = RECURRENCE[cfg.cell](cfg.embed_dim, H, batch_first=True, device="meta")  # nothing drawn
        self.rnn = rnn.to_empty(device="cpu")
        for w in self.rnn.parameters():  # weight_ih, weight_hh, bias_ih, bias_hh, as reset_parameters
            nn.init.uniform_(w, -1 / math.sqrt(H), 1 / math.sqrt(H), generator=gen)
        attend = cfg.cell == ATTENTION
        self.head = seeded_linear(2 * H if attend else H, N_LABELS, gen)
        if attend:  # drawn last: the other cells draw exactly what they drew before
            self.W_a = nn.Parameter((torch.rand(H, H, generator=gen) * 2 - 1) / math.sqrt(H))
        if cfg.cell == "lstm":
            with torch.no_grad():
                self.rnn.bias_hh_l0[H:2 * H] += cfg.forget_bias  # rows of f (order i, f, g, o)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (n, T) -> logits (n, 2) read at the last step."""
        out, _ = self.rnn(self.E(ids))  # (n, T, H)
        return self.read(out)

    def read(self, out: torch.Tensor) -> torch.Tensor:
        """The recurrence's outputs (n, T, H) -> logits (n, 2) at the last step."""
        h_T = out[:, -1]  # (n, H)
        if self.cfg.cell != ATTENTION:
            return self.head(h_T)
        s = ((h_T @ self.W_a)[:, None, :] * out).sum(-1)  # (n, T): h_T . W_a h_j
        c = (torch.softmax(s, dim=-1)[..., None] * out).sum(1)  # (n, H)
        return self.head(torch.cat([h_T, c], -1))


def _distance_for_step(cfg: LongRangeConfig, gen: torch.Generator) -> int:
    if cfg.schedule == "fixed":
        return cfg.distance
    u = float(torch.rand(1, generator=gen))
    return max(1, min(cfg.distance, round(math.exp(u * math.log(cfg.distance)))))


def train_longrange(cfg: LongRangeConfig, callback=None) -> tuple[LongRangeNet, list[dict]]:
    """Adam with gradient clipping at 1, cfg.steps batches; callback(record) -> False stops.
    Each record: step, distance, loss, accuracy (of that batch)."""
    net = LongRangeNet(cfg)  # its initialisation drawn from its own generator seeded with cfg.seed
    gen = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    history = []
    for step in range(1, cfg.steps + 1):
        dist = _distance_for_step(cfg, gen)
        ids, labels = make_batch(dist, cfg.batch_size, gen)
        logits = net(ids)  # (B, 2)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        record = {"step": step, "distance": dist, "loss": float(loss.detach()),
                  "accuracy": float((logits.argmax(-1) == labels).double().mean())}
        history.append(record)
        if callback is not None and callback(record) is False:
            break
    return net.eval(), history


def accuracy_by_distance(net: LongRangeNet, distances, n: int = 256, seed: int = 1) -> dict:
    """Accuracy on n fresh sequences per distance (seeded apart from training): {distance: acc}."""
    gen = torch.Generator().manual_seed(seed)
    out = {}
    with torch.no_grad():
        for dist in distances:
            ids, labels = make_batch(int(dist), n, gen)
            out[int(dist)] = float((net(ids).argmax(-1) == labels).double().mean())
    return out


def gradient_to_first(net: LongRangeNet, distance: int, n: int = 64, seed: int = 2) -> dict:
    """How much learning signal reaches x_1: mean over n sequences of ||dL/dx_1|| and of
    ||dL/dx_T|| (the last input) and their ratio, where L is the read-out's cross-entropy."""
    gen = torch.Generator().manual_seed(seed)
    ids, labels = make_batch(distance, n, gen)
    x = net.E(ids).detach().requires_grad_(True)  # (n, T, d)
    out, _ = net.rnn(x)
    loss = F.cross_entropy(net.read(out), labels, reduction="sum")
    (g,) = torch.autograd.grad(loss, x)  # (n, T, d): per-sequence gradients (sum of losses)
    first = float(g[:, 0].norm(dim=-1).mean())
    last = float(g[:, -1].norm(dim=-1).mean())
    return {"first": first, "last": last, "ratio": first / last if last > 0 else float("nan")}


def to_rnnviz(net: LongRangeNet) -> RNNModel:
    """The trained net as an RNNModel (same weights): num_outputs = 2, read at the last step.
    Trace it with targets IGNORE everywhere but the last step (see `task_targets`)."""
    cfg = net.cfg
    attend = cfg.cell == ATTENTION
    model = RNNModel(RNNConfig(len(VOCAB), cfg.embed_dim, cfg.hidden_size,
                               cell="elman" if attend else cfg.cell, num_outputs=N_LABELS,
                               attention=attend))
    model.load_rnn_state_dict({k: v.detach() for k, v in net.rnn.state_dict().items()})
    with torch.no_grad():
        if attend:
            model.W_a.copy_(net.W_a)
        model.E.copy_(net.E.weight)
        model.W_o.copy_(net.head.weight)
        model.b_o.copy_(net.head.bias)
    return model.eval()


def task_targets(ids: torch.Tensor) -> torch.Tensor:
    """Targets for trace(): IGNORE at every step but the last, which carries the label ids[0]."""
    targets = torch.full_like(ids, IGNORE)
    targets[-1] = ids[0]
    return targets


def run_experiment(cells=("elman", "lstm", "gru"), distances=(10, 25, 50, 100, 200),
                   schedule: str = "fixed", steps: int = 400, seed: int = 0,
                   eval_distances=None, forget_bias: float = 1.0) -> dict:
    """Train one model per (cell, training distance) and measure: accuracy at the training
    distance (and at eval_distances), ||dL/dx_1|| before and after training. JSON-ready."""
    rows = []
    for cell in cells:
        for dist in distances:
            cfg = LongRangeConfig(cell=cell, distance=int(dist), schedule=schedule, steps=steps,
                                  seed=seed, forget_bias=forget_bias)
            fresh = LongRangeNet(cfg)
            before = gradient_to_first(fresh, int(dist))
            net, history = train_longrange(cfg)
            evals = sorted({int(dist), *(eval_distances or ())})
            rows.append({"cell": cell, "distance": int(dist), "config": cfg.to_dict(),
                         "accuracy": accuracy_by_distance(net, evals)[int(dist)],
                         "accuracy_by_distance": accuracy_by_distance(net, evals),
                         "grad_first_before": before, "grad_first_after": gradient_to_first(net, int(dist)),
                         "final_train_loss": history[-1]["loss"]})
    return {"task": "the label is the first token", "chance": 1 / N_LABELS, "schedule": schedule,
            "rows": rows}


# ---- the shipped measurements, read for page 8 ---------------------------------------------

RESULTS_FILE = "longrange.json"  # in rnnviz/pretrained/, written by scripts/build_longrange.py
LEARNED = 0.9  # accuracy from which a (cell, distance) counts as learned (chance is 0.5)


def load_results() -> dict:
    """The shipped long-range measurements: {"fixed", "curriculum", "lstm_forget_bias_3"}."""


    return json.loads((PRETRAINED / RESULTS_FILE).read_text())


def result_rows(results: dict) -> list[dict]:
    """One flat row per trained (experiment, cell, distance): accuracy at the training distance
    and the mean ||dL/dx_1|| before and after training, as measured (nothing recomputed)."""
    rows = []
    for name, exp in results.items():
        for r in exp["rows"]:
            rows.append({"experiment": name, "cell": r["cell"], "distance": int(r["distance"]),
                         "steps": int(r["config"]["steps"]),
                         "forget_bias": float(r["config"].get("forget_bias", 1.0)),
                         "accuracy": float(r["accuracy"]),
                         "grad_first_before": float(r["grad_first_before"]["first"]),
                         "grad_first_after": float(r["grad_first_after"]["first"])})
    return rows


def findings(results: dict) -> dict:
    """What the measurements show, for the prose (read off the file, not asserted):
    learned[cell] = the largest distance learned (accuracy >= LEARNED) with the fixed schedule
    (0 if none); grad_ratio = LSTM / Elman ||dL/dx_1|| before training at distance 50 (inf when
    the Elman's underflows to 0); bias3 = the largest distance the LSTM with forget bias +3
    learns; curriculum_all = whether every cell learns every evaluated distance with the
    curriculum; curriculum_min = the lowest of those accuracies."""
    fixed = [r for r in result_rows(results) if r["experiment"] == "fixed"]
    learned = {c: max([r["distance"] for r in fixed if r["cell"] == c and r["accuracy"] >= LEARNED],
                      default=0) for c in ("elman", "lstm", "gru")}
    at50 = {r["cell"]: r["grad_first_before"] for r in fixed if r["distance"] == 50}
    ratio = at50["lstm"] / at50["elman"] if at50.get("elman") else float("inf")
    bias = [r for r in result_rows(results) if r["experiment"] == "lstm_forget_bias_3"]
    cur = [a for r in results["curriculum"]["rows"] for a in r["accuracy_by_distance"].values()]
    return {"learned": learned, "grad50": at50, "grad_ratio": ratio,
            "bias3": max([r["distance"] for r in bias if r["accuracy"] >= LEARNED], default=0),
            "bias3_steps": max([r["steps"] for r in bias], default=0),
            "fixed_steps": max([r["steps"] for r in fixed], default=0),
            "curriculum_all": bool(cur) and min(cur) >= LEARNED,
            "curriculum_min": min(cur, default=float("nan")),
            "curriculum_max_distance": max([int(d) for r in results["curriculum"]["rows"]
                                            for d in r["accuracy_by_distance"]], default=0)}


TRAIN_NOW_SECONDS = 18.0  # page 8's "train one now" stops here (the page promises < 20 s)


def train_now(cfg: LongRangeConfig, max_seconds: float = TRAIN_NOW_SECONDS, clock=None,
              callback=None) -> dict:
    """Train one (cell, distance) as run_experiment does, but stop at max_seconds of wall time
    (a shared server must answer): accuracy at cfg.distance, ||dL/dx_1|| before and after,
    steps_done and stopped_early. Same config and no time limit hit: the shipped numbers.
    callback(record) after each step (the page's pacer and closed-tab check): False stops."""

    clock = clock or time.monotonic
    before = gradient_to_first(LongRangeNet(cfg), cfg.distance)
    start = clock()

    def in_time(record: dict) -> bool:
        if callback is not None and callback(record) is False:
            return False
        return clock() - start < max_seconds

    net, history = train_longrange(cfg, callback=in_time)
    return {"config": cfg.to_dict(), "steps_done": len(history),
            "stopped_early": len(history) < cfg.steps,
            "accuracy": accuracy_by_distance(net, [cfg.distance])[cfg.distance],
            "grad_first_before": before["first"],
            "grad_first_after": gradient_to_first(net, cfg.distance)["first"],
            "final_train_loss": history[-1]["loss"]}


def shipped_row(results: dict, cfg: LongRangeConfig) -> dict | None:
    """The shipped measurement with exactly this config (to compare a run with), or None."""
    for exp in results.values():
        for r in exp["rows"]:
            if r["config"] == cfg.to_dict():
                return r
    return None
