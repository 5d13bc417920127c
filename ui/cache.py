"""Per-sentence and per-model results, cached with ONE rule.

`@kept("name")` keys a result on the function's qualified name, the model's fingerprint (a hash of
its weights), the trace's ids and targets (or the ids given), and the function's other
arguments; an argument whose name starts with "_" is passed but not hashed (the caller names
what it is in another argument, e.g. `which="E"` beside `_M`). So a session that edits or trains
its own model never gets another model's numbers, and two sessions on the same model and
sentence share the work. Every result sits in the one process-wide byte budget
(ui/resources.budget(): LRU across all named caches, idle entries expire), and a hit is a deep
copy unless `copy=False` (read-only results such as a cell variant or the step Jacobians).

What every session shares and nobody mutates (built-in models, taggers, settings-only results)
is in ui/resources.py. The maths is rnnviz's: every function here calls one rnnviz function.
"""
from __future__ import annotations

import contextlib
import contextvars
import copy as _copy
import functools
import hashlib
import inspect

import streamlit as st
import torch

from rnnviz import limits
from rnnviz.engine import cellpath, gradcheck, jacobians, jacwindow, taggers, units
from rnnviz.engine.generation import generate as _generate
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.trace import Trace, trace
from rnnviz.explain import attention, hidden, slots, word2vec
from rnnviz.explain import bptt as chains
from rnnviz.explain import embedding as emb
from rnnviz.explain import output as out
from rnnviz.explain import units as unit_lessons
from rnnviz.explain.notes import errata, notation
from rnnviz.explain.tied import tied_gradient_parts
from rnnviz.figures import pick
from rnnviz.serve.bytecache import NamedCache, value_digest
from rnnviz.text.corpora import known_examples as _known_examples

from .charts import LookedFigure, streamlit_look
from .resources import budget

_MISSING = object()


def key_of(model, ids=(), targets=()) -> tuple:
    """(fingerprint, ids, targets) as hashable tuples: the start of every key."""
    return (model.fingerprint(), tuple(int(i) for i in ids), tuple(int(t) for t in targets))


def _tr_key(model: RNNModel, tr: Trace) -> tuple:
    return key_of(model, tr.ids.tolist(), tr.targets.tolist())


def _part(value):
    """One argument as a part of a key: a model by its fingerprint, a trace by its ids and
    targets, sequences as tuples. A tensor or array must be passed as an `_` argument."""
    if isinstance(value, Trace):
        return ("trace", tuple(value.ids.tolist()), tuple(value.targets.tolist()), value.reduction)
    if hasattr(value, "fingerprint"):
        return ("model", value.fingerprint())
    if hasattr(value, "itos"):  # a vocabulary: by its tokens
        return ("vocab", hashlib.sha1("\x00".join(value.itos).encode()).hexdigest())
    if isinstance(value, torch.Tensor) and not value.is_floating_point() and value.dim() <= 1:
        return tuple(value.tolist())  # ids
    if isinstance(value, (list, tuple)):
        return tuple(_part(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _part(v)) for k, v in value.items()))
    if isinstance(value, torch.Tensor) or type(value).__module__.startswith("numpy"):
        raise TypeError("a tensor is no key: pass it as an argument named _name")
    return value


def _key(fn, bound: inspect.BoundArguments, leave=()) -> tuple:
    """fn's key for its bound arguments: its name and every argument's part but those whose name
    starts with "_" and those in `leave`."""
    return (fn.__qualname__,) + tuple(_part(v) for n, v in bound.arguments.items()
                                      if not n.startswith("_") and n not in leave)


def kept(name: str, spinner: str | None = None, copy: bool = True, max_bytes: int | None = None):
    """Cache fn's results in budget()'s named cache `name` (see the module's docstring)."""
    def wrap(fn):
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            key, store = _key(fn, bound), budget().cache(name, max_bytes)
            value = store.get(key, _MISSING)
            if value is _MISSING:
                with st.spinner(spinner) if spinner else contextlib.nullcontext():
                    value = fn(*args, **kwargs)
                store.put(key, value)
            return _copy.deepcopy(value) if copy else value
        cached.clear = lambda: budget().clear(name)
        return cached
    return wrap


def kept_steps(name: str, holds_figures: bool = False):
    """A window's parts fn(..., first, last) (a page's stepped slides, ui/stepped.py: a dict of
    lists of slides, one per step, and {step: figure} dicts, or a tuple of lists), kept step by
    step: a window is made of each of its steps' fn(..., s, s), each kept (read-only) on its own
    in the named cache `name`. A window that moved along a long sentence makes only its new
    steps. holds_figures: the parts hold the figures they build, which are then not put in the
    figure cache too (`figures_unkept`)."""
    def wrap(fn):
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def window(*args, **kwargs):
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            first, last = bound.arguments["first"], bound.arguments["last"]
            base, store, steps = _key(fn, bound, ("first", "last")), budget().cache(name), []  # once a window
            for s in range(first, last + 1):
                value = store.get(base + (s,), _MISSING)
                if value is _MISSING:
                    bound.arguments["first"] = bound.arguments["last"] = s
                    with figures_unkept() if holds_figures else contextlib.nullcontext():
                        value = fn(*bound.args, **bound.kwargs)
                    store.put(base + (s,), value)
                steps.append(value)
            return _joined(steps)
        window.clear = lambda: budget().clear(name)
        return window
    return wrap


def _joined(steps: list):
    """Steps' parts as one window's: lists one after the other, dicts merged, tuples and dicts
    part by part."""
    first = steps[0]
    if isinstance(first, tuple):
        return tuple(_joined([s[i] for s in steps]) for i in range(len(first)))
    if isinstance(first, list):
        return [v for s in steps for v in s]
    if isinstance(first, dict) and all(isinstance(k, int) for k in first):  # {step: figure}
        return {k: v for s in steps for k, v in s.items()}
    if isinstance(first, dict):
        return {k: _joined([s[k] for s in steps]) for k in first}
    raise TypeError(f"a window's part: a list, a {{step: ...}} dict, a dict or tuple of them: {first!r:.50}")


# ---- model variants (read-only, shared: never train them) ------------------------------------

@kept("variant", copy=False)
def cell_variant(model: RNNModel, kind: str):
    """The model rebuilt as another cell kind."""
    return hidden.cell_variant(model, kind)


@kept("phi", copy=False)
def with_nonlinearity(model: RNNModel, phi: str):
    """The model with another nonlinearity."""
    return hidden.with_nonlinearity(model, phi)


# ---- the trace and the step Jacobians ------------------------------------------------------

def trace_store() -> NamedCache:
    """Traces of every session, in the one byte budget (and at most limits.TRACE_CACHE_BYTES of
    it), not bounded by count: one trace of a V = 5,000 model holds several MB."""
    return budget().cache("trace", limits.TRACE_CACHE_BYTES)


def cached_trace(model: RNNModel, ids, targets, reduction: str = "sum") -> Trace:
    """One Trace per (weights, ids, targets, reduction), computed once for every page. Shared
    read-only: a Trace is frozen and no page edits its tensors."""
    key = key_of(model, ids, targets) + (reduction,)
    return trace_store().get_or_compute(key, lambda: trace(model, list(key[1]), list(key[2]), reduction))


def jacobian_store() -> NamedCache:
    """Step Jacobians of every session, bounded by bytes (limits.JACOBIAN_CACHE_BYTES): one
    (T, S, S) stack of an LSTM at H = 128, T = 200 holds 105 MB (S = 2H). Shared read-only."""
    return budget().cache("jacobian", limits.JACOBIAN_CACHE_BYTES)


def step_jacobians(model: RNNModel, tr: Trace) -> torch.Tensor:
    """(T, S, S) J[t] = dh_t/dh_{t-1}: once per (model, sentence); every BPTT view reuses it."""
    return jacobian_store().get_or_compute(_tr_key(model, tr), lambda: jacobians.step_jacobians(model, tr))


def jacobian_window(model: RNNModel, tr: Trace, k: int | None = None):
    """The steps the all-pairs views cover (rnnviz.engine.jacwindow.Window): all of them within
    limits.MAX_JACOBIAN_WORK, else the last ones. k = d for the input Jacobians dh_s/dx_t."""
    return jacwindow.jacobian_window(tr.T, jacwindow.state_size(model.cfg), k=k)


# ---- page 4 (BPTT and Jacobians) -------------------------------------------------------------

@kept("norms", "Computing all-pair Jacobian norms…")
def jacobian_norms(model: RNNModel, tr: Trace, ord_="fro", start: int = 0) -> torch.Tensor:
    """(T, T) ||dh_s/dh_t|| from the cached step Jacobians; start > 0: only the window of steps
    start..T-1 (jacobian_window), (T - start, T - start). The (T, S, S) Jacobians are fetched
    only on a miss (a hit copies out the (w, w) norms, not 50 MB of an LSTM's J)."""
    return jacobians.product_norms(step_jacobians(model, tr)[start:], ord_)


@kept("backward_norms")
def backward_jacobian_norms(model: RNNModel, tr: Trace, ord_="fro", start: int = 0) -> torch.Tensor:
    """(T, T) ||dh<-_s/dh<-_t|| of a bidirectional model's backward direction (start > 0: the
    window of positions start..T-1, as the forward map)."""
    return jacobians.backward_jacobian_norms(model, tr, ord_, start=start)


@kept("flow")
def gradient_flow(model: RNNModel, tr: Trace):
    """(G (T, T, H) = dL_s/dh_t, F (T, T) its norms), from the cached step Jacobians."""
    G = jacobians.loss_to_state_grads(model, tr, step_jacobians(model, tr))  # (T, T, H)
    return G, jacobians.gradient_flow(model, tr, G=G)


@kept("sources")
def grad_sources(model: RNNModel, tr: Trace, t: int) -> dict:
    """Where dL/dh_t comes from at step t (0-based), with ||dL_1/dh_2|| (no path back: 0)."""
    G, _ = gradient_flow(model, tr)  # (T, T, H), copied out once here, not on every rerun
    return chains.grad_sources(G, tr, t)


@kept("chain")
def product_chain(model: RNNModel, tr: Trace, s: int, t: int) -> dict:
    """The chain behind cell (s, t), exact at any distance; once per (model, sentence, s, t)."""
    return jacobians.product_chain(step_jacobians(model, tr), s, t)


@kept("distance")
def distance_data(model: RNNModel, tr: Trace, start: int = 0) -> dict:
    """chains.norm_vs_distance on the window start..T-1 and "rho_j", the mean spectral radius
    of its step Jacobians: once per (model, sentence, window), not on every rerun."""
    return chains.distance_summary(jacobian_norms(model, tr, 2, start), step_jacobians(model, tr)[start:],
                                   model.W_h if model.cfg.cell == "elman" else None)


@kept("shared")
def shared_summary(model: RNNModel, tr: Trace) -> dict:
    """jacobians.shared_weight_summary once per (model, sentence): the shared-weight sums' table."""
    return jacobians.shared_weight_summary(model, tr)


@kept("model_check")
def model_gradient_check(model: RNNModel, ids, targets):
    """Finite differences against autograd for the model on this sentence."""
    return gradcheck.model_gradient_check(model, list(ids), list(targets))


@kept("note002")
def note002_errata(model: RNNModel, tr: Trace, start: int = 0) -> dict:
    """note 002's recursion read literally ("recursion": the off_* numbers) and its eigenvalue
    claim ("eigen", on the window start..T-1 of a long sentence), once per (model, sentence),
    from the page's step Jacobians and norms; a one-directional Elman model only."""
    rec = errata.note002_recursion(model, tr)
    return {"recursion": {k: v for k, v in rec.items() if k.startswith("off_")},
            "eigen": errata.note002_eigen_claim(model, tr, start=start, N=jacobian_norms(model, tr, 2, start),
                                                J=step_jacobians(model, tr))}


@kept("derivation")
def note002_derivation(model: RNNModel, tr: Trace) -> dict:
    """notation.beside_app: note 002's boxed gradients and delta_h beside autograd."""
    return notation.beside_app(model, tr)


# ---- page 3 (output) -------------------------------------------------------------------------

@kept("output_step", copy=False)  # read-only: an OutputStep is frozen and no page edits its tensors
def output_layer_step(model: RNNModel, tr: Trace, t: int, lr: float):
    return out.output_layer_step(model, tr, t, lr)


@kept("gen")
def generate(model: RNNModel, prefix, how, eos):
    """Free generation from a prefix."""
    return _generate(model, [int(i) for i in prefix], how, eos)


# ---- page 1 (embedding) ----------------------------------------------------------------------

@kept("tied")
def tied_gradients(model: RNNModel, ids, targets) -> dict:
    return emb.tied_gradients(model, list(ids), list(targets))


@kept("tied_parts")
def tied_parts(model, ids, targets) -> dict:
    """dL/dE of the tied model on one sentence: input, output and total parts."""
    return tied_gradient_parts(model, list(ids), list(targets))


@kept("initial_E")
def initial_E(cfg: tuple, seed: int) -> torch.Tensor:
    """E of an untrained model with the same sizes and the training's seed: where training started."""
    return emb.f64(RNNModel(RNNConfig(**dict(cfg)), seed=seed).E)


@kept("drift")
def neighbour_drift(model: RNNModel, cfg: tuple, seed: int, _E, itos) -> dict:
    """How far training moved E (= model.E) from its start (cached per model)."""
    return emb.neighbour_drift(_E, initial_E(cfg, seed), list(itos))


@kept("nearest")
def nearest(model: RNNModel, which: str, _M, i: int, k: int = 5) -> list:
    """emb.nearest(M, i, k) (one row of cosines, never V x V), once per (model, which matrix,
    row, k): `which` names M among the model's matrices ("E", "W_o", "E0:<seed>")."""
    return emb.nearest(_M, int(i), int(k))


@kept("pca")
def pca_2d(model: RNNModel, which: str, _M):
    """emb.pca_2d(M) (coords (V, 2), variance share (2,)), once per (model, which matrix)."""
    return emb.pca_2d(_M)


@kept("sentence_cosines")
def sentence_cosines(model: RNNModel, _E, ids) -> torch.Tensor:
    """(T, T) cosines between the sentence's rows of E (= model.E), from E[ids], per (model, ids)."""
    return emb.sentence_cosines(_E, [int(i) for i in ids])


# ---- page 5 (slot filling) -------------------------------------------------------------------

@kept("scores")
def heldout_scores(model, _data) -> dict:
    """A tagger's held-out accuracy and F1 (data: the shared tagging data)."""
    return slots.evaluate(model, _data)


@kept("shifted")
def shifted_scores(model, _data) -> dict:
    """A tagger's scores on slots.shifted_heldout(...) (the shifted split is the only one)."""
    return slots.evaluate(model, _data)


@kept("tagged")
def tagged_sentence(model, vocab, text: str):
    """slots.tag_sentence once per (tagger, vocabulary, sentence): every tagger's tags of the
    chosen sentence, and of the page's fixed example sentences, on every rerun of page 5."""
    return slots.tag_sentence(model, vocab, text)


@kept("word_pair")
def word_pair(model, vocab, text_a: str, text_b: str, word: str):
    """slots.compare_word once per (tagger, the two sentences, the word)."""
    return slots.compare_word(model, vocab, text_a, text_b, word)


@kept("streaming")
def streaming_tags(model, ids) -> list:
    """slots.streaming_tags once per (tagger, ids): the tags as the words arrive."""
    return slots.streaming_tags(model, ids)


@kept("reach")
def context_reach(model, ids):
    """taggers.context_reach once per (tagger, ids): ||dz_t/dx_s|| for every pair of steps."""
    return taggers.context_reach(model, ids)


# ---- page 7 (origins) and page 8 (gates) -----------------------------------------------------

@kept("w2v_text_pairs")
def _text_pairs(digest: str, radius: int, max_vocab: int, _sentences: tuple):
    return word2vec.pair_corpus([list(s) for s in _sentences], radius, max_vocab)


def w2v_text_pairs(sentences: tuple, radius: int, max_vocab: int):
    """The window pairs of a learner's sentences, keyed by a digest of the sentences (the key
    does not hold a copy of a 1 MB paste); int32 pair ids (rnnviz.explain.word2vec.PairCorpus)."""
    digest = hashlib.sha256(repr(sentences).encode()).hexdigest()
    return _text_pairs(digest, radius, max_vocab, sentences)


@kept("input_norms")
def input_jacobian_norms(model: RNNModel, tr: Trace, start: int = 0) -> torch.Tensor:
    """(T, T) ||dh_s/dx_t|| (any cell), once per (model, sentence); InputError above
    limits.MAX_JACOBIAN_T steps. start > 0: the window of steps start..T-1 only."""
    return jacobians.input_jacobian_norms(model, tr, start=start)


@kept("last_row")
def last_state_input_norms(model: RNNModel, tr: Trace) -> torch.Tensor:
    """(T,) ||dh_T/dx_t|| for every t: exact at any length (the first word's reach)."""
    return jacobians.last_state_input_norms(model, tr)


# ---- the sidebar: built-in sentences a model reads ---------------------------------------------

@kept("known")
def known_examples(model: RNNModel, vocab, level: str | None, n: int = 5) -> list[str]:
    """Built-in sentences this model reads with no unknown token (cached per model and vocab)."""
    return _known_examples(vocab, n, level)


# ---- page 9 (attention) ----------------------------------------------------------------------

@kept("attention_split")
def attention_split(model: RNNModel, ids, target: int, source: int = 0) -> dict:
    """Page 9's split of dL_T/dh_s into the recurrent and the attention paths."""
    return attention.path_split(model, [int(i) for i in ids], int(target), int(source))


@kept("attention_lengths")
def attention_lengths(model: RNNModel, ids, source: int = 0) -> list:
    """Page 9's recurrent-only vs attention norms over T = 10 ... 200 (the sentence cycled)."""
    return attention.length_comparison(model, [int(i) for i in ids], source=int(source))


# ---- one cell opened, units found and clamped (issue 28) -----------------------------------

@kept("strip")
def cell_strip(model: RNNModel, tr: Trace, s: int, t: int, direction: str = "fwd", ord_=2,
               unsaturated: bool = False, unit_radius: bool = False, _J=None) -> dict:
    """One Jacobian cell's factor strip (rnnviz.engine.cellpath), once per (model, sentence,
    cell, direction, norm, what-if). _J: the page's step Jacobians of (model, tr), not computed again."""
    return cellpath.cell_strip(model, tr, s, t, direction, ord_, unsaturated, unit_radius, J=_J)


@kept("sentence_search")
def search_sentence(model: RNNModel, tr: Trace, tokens, kind: str, span=(0, 0), word: str = "") -> dict:
    """The unit search over the learner's sentence (in sample), once per (model, sentence, property)."""
    return unit_lessons.search_sentence(tr.h, tuple(tokens), kind, tuple(span), word)


@kept("text_search")
def search_text(model: RNNModel, vocab, lines, kind: str, word: str = "") -> dict:
    """The unit search over a text's lines, a third held out; once per (model, text, property)."""
    return unit_lessons.search_text(model, vocab, tuple(lines), kind, word)


@kept("slot_search")
def search_slots(model: RNNModel, _data, lang: str, tag_a: str, tag_b: str | None = None) -> dict:
    """The unit search on page 5's data (the language's), AUC on its held-out sentences."""
    return unit_lessons.search_slots(model, _data, tag_a, tag_b)


@kept("slot_example")
def slot_example(model: RNNModel, _data, lang: str, pair: tuple) -> dict:
    """The prose's worked example (rnnviz.explain.units.slot_example), once per tagger and pair."""
    return unit_lessons.slot_example(model, _data, tuple(pair))


@kept("slot_mean")
def slot_unit_mean(model: RNNModel, _data, lang: str, unit: int) -> float:
    """A tagger unit's mean over page 5's training sentences (the 'mean' clamp)."""
    return unit_lessons.unit_mean(model, _data, unit)


@kept("slot_clamp")
def slot_clamp(model: RNNModel, vocab, lang: str, text: str, unit: int, value: float) -> dict:
    """A tagger with one unit held at `value` on one sentence (rnnviz.explain.units.slot_clamp)."""
    return unit_lessons.slot_clamp(model, vocab, text, unit, value)


@kept("clamp")
def clamp_effect(model: RNNModel, ids, unit: int, value: float, lm: bool = True) -> dict:
    """The run with one unit held at `value`, against the plain run (rnnviz.engine.units)."""
    return units.clamp_effect(model, [int(i) for i in ids], unit, value, lm)


# ---- figures ----------------------------------------------------------------------------------
# Plotly validates every property a builder sets (0.05-1 s a figure on this machine). A pure
# builder's output is kept as a plain dict per (builder, arguments), in Streamlit's look
# (ui/charts.streamlit_look): a step move that redraws a figure whose inputs did not change, or
# came back to a step, pays no validation and no restyling. It is handed out as a CachedFigure,
# which ui.charts.chart (and st.plotly_chart) reads as it is: no go.Figure is built from it.

@kept("figure", copy=False)  # read-only: every session shares it; CachedFigure never edits it
def _figure(name: str, digest: str, _build, _args: tuple, _kw: dict) -> dict:
    return streamlit_look(_build(*_args, **_kw).to_plotly_json())


class CachedFigure(LookedFigure):
    """A cached figure in Streamlit's look, for showing: its plain dict, shared by every session
    and never edited. ui.charts.chart and st.plotly_chart read a BaseFigure by calling
    `to_dict`, which here is the dict itself (building a go.Figure from the dict and copying it
    back was 4-13 ms of a page run, bench/bench_chart_copy.py). A caller that edits a figure
    calls its builder."""

    def __init__(self, plain: dict, recipe: tuple = ()):
        super().__init__(plain)
        self._recipe = recipe  # (name, digest, build, args, kw): what figures derived from it key on


_UNKEPT = contextvars.ContextVar("rnnviz_figures_unkept", default=False)


@contextlib.contextmanager
def figures_unkept():
    """Figures asked for in this block are built and not put in the figure cache: a result that
    holds them (a page's kept window of slides, `kept_steps(holds_figures=True)`) keeps them already,
    and each would be held, and walked for its size, twice."""
    token = _UNKEPT.set(True)
    try:
        yield
    finally:
        _UNKEPT.reset(token)


def figure(build, *args, **kw) -> CachedFigure:
    """build(*args, **kw) (a pure figure builder of rnnviz.figures), built once per input: keyed
    by the builder's name and every value of its arguments. For showing (ui/widgets.show_figure):
    read-only, see CachedFigure. Within figures_unkept(): built, not kept (and not for clickable)."""
    if _UNKEPT.get():
        return CachedFigure(streamlit_look(build(*args, **kw).to_plotly_json()))
    name, digest = f"{build.__module__}.{build.__qualname__}", value_digest((args, kw))
    return CachedFigure(_figure(name, digest, build, args, kw), (name, digest, build, args, kw))


@kept("figure", copy=False)
def _clickable(name: str, digest: str, chosen: tuple[int, int], panel: int, layer: bool, _build,
               _args: tuple, _kw: dict) -> dict:
    return streamlit_look(pick.clickable(_build(*_args, **_kw), chosen, panel, layer).to_plotly_json())


def clickable(fig: CachedFigure, chosen: tuple[int, int], panel: int = 0, layer: bool = True) -> CachedFigure:
    """A cached heatmap made clickable (rnnviz.figures.pick.clickable) with a ring on `chosen`
    (0-based row, col of heatmap `panel`), built once per (figure, chosen cell, panel, layer): a
    step move or a page visit that shows the same cell pays nothing. layer=False: without the
    invisible markers (for a chart that reports heatmap clicks itself)."""
    name, digest, build, args, kw = fig._recipe
    return CachedFigure(_clickable(name, digest, tuple(chosen), panel, layer, build, args, kw))
