"""The checkpoint of each page: the question computed live (rnnviz.explain.checkpoints) and
asked before the figure it guards. Each returns True once that figure may be drawn."""
from __future__ import annotations

from rnnviz.explain import checkpoints as cp
from rnnviz.explain.output import target_tokens

from .. import checkpoint, session


def embedding(cur: session.Current, E, step: int) -> bool:
    """Page 1, before the cosine neighbours: whose row of E is closest to this word's?"""
    return checkpoint.ask(cp.embedding_question(E, cur.input_ids, step, cur.vocab.itos))


def hidden(cur: session.Current) -> bool:
    """Page 2, before the heatmap: at which step is |h_t| largest?"""
    return checkpoint.ask(cp.hidden_question(cur.trace.h.numpy(), cur.tokens))


def output(cur: session.Current) -> bool:
    """Page 3, before the whole sentence's losses: which step's loss is largest?"""
    tr = cur.trace
    return checkpoint.ask(cp.output_question(tr.loss_t.numpy(), tr.valid.numpy(), cur.tokens,
                                             target_tokens(cur.vocab, tr.targets)))


def bptt(view) -> bool:
    """Page 4, after the W_h scale and before its verdict and heatmap: above or below 10^-3?"""
    return checkpoint.ask(cp.bptt_question(view.N2, view.win.first, view.scale))


def gates(runs: dict) -> bool:
    """Page 8, before the comparison: which cell keeps more of the first word?"""
    return checkpoint.ask(cp.gates_question({c: runs[c][2]["reach"] for c in cp.CELLS}))
