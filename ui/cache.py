"""Every st.cache_* wrapper of the app, with ONE keying rule.

The rule: a cached result is keyed by the model's fingerprint (a hash of its weights), the
sentence's ids and targets, and the function's explicit arguments; the model and trace objects
themselves are passed as `_model` / `_tr` (not hashed). So a session that edits or trains its own
model never gets another model's numbers, and two sessions on the same model and sentence share
the work. Callers use the public functions (model, trace, arguments); the key is built here.

st.cache_resource only for what nobody mutates (the built-in models and taggers, read-only);
everything else is st.cache_data (copied out, so a caller cannot change the cached value).
"""
from __future__ import annotations

import hashlib

import numpy as np
import plotly.graph_objects as go
import streamlit as st
import torch

from rnnviz import limits
from rnnviz.engine import gradcheck, jacobians, taggers
from rnnviz.engine.generation import generate as _generate
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.engine.trace import Trace, trace
from rnnviz.explain import embedding as emb
from rnnviz.explain import hidden, slots
from rnnviz.explain import output as out
from rnnviz.serve.bytecache import ByteLRU
from rnnviz.store import tagger_files
from rnnviz.store.catalog import load_builtin


def key_of(model: RNNModel, ids=(), targets=()) -> tuple:
    """The key every wrapper starts with: (fingerprint, ids, targets) as hashable tuples."""
    return (model.fingerprint(), tuple(int(i) for i in ids), tuple(int(t) for t in targets))


def _tr_key(model: RNNModel, tr: Trace) -> tuple:
    return key_of(model, tr.ids.tolist(), tr.targets.tolist())


# ---- shared read-only resources ------------------------------------------------------

@st.cache_resource(show_spinner=False)
def builtin(key: str):
    """(model, vocab, meta) of a built-in model: shared by every session, never trained in place."""
    return load_builtin(key)


@st.cache_resource(show_spinner=False)
def pretrained_taggers() -> dict:
    """The four shipped taggers, shared read-only by every session (never trained in place)."""
    folder = tagger_files.TAGGERS_DIR
    return {k: tagger_files.load_tagger((folder / f"{k}.pt").read_bytes()) for k in taggers.KINDS}


@st.cache_resource(show_spinner=False)
def tagging_data() -> slots.TaggingData:
    return slots.tagging_data()


@st.cache_resource(max_entries=32, show_spinner=False)
def _variant(key: tuple, kind: str, _model):
    return hidden.cell_variant(_model, kind)


def cell_variant(model: RNNModel, kind: str):
    """The model rebuilt as another cell kind (read-only, shared: never train it)."""
    return _variant(key_of(model), kind, model)


@st.cache_resource(max_entries=32, show_spinner=False)
def _phi(key: tuple, phi: str, _model):
    return hidden.with_nonlinearity(_model, phi)


def with_nonlinearity(model: RNNModel, phi: str):
    """The model with another nonlinearity (read-only, shared: never train it)."""
    return _phi(key_of(model), phi, model)


# ---- the trace and what follows from it ---------------------------------------------------

@st.cache_resource(show_spinner=False)
def trace_store() -> ByteLRU:
    """Traces of every session, bounded by bytes (limits.TRACE_CACHE_BYTES), not by count:
    one trace of a V = 5,000 model holds several MB."""
    return ByteLRU(limits.TRACE_CACHE_BYTES)


def cached_trace(model: RNNModel, ids, targets, reduction: str = "sum") -> Trace:
    """One Trace per (weights, ids, targets, reduction), computed once for every page. Shared
    read-only: a Trace is frozen and no page edits its tensors."""
    key = key_of(model, ids, targets) + (reduction,)
    return trace_store().get_or_compute(key, lambda: trace(model, list(key[1]), list(key[2]), reduction))


@st.cache_resource(show_spinner=False)
def jacobian_store() -> ByteLRU:
    """Step Jacobians of every session, bounded by bytes (limits.JACOBIAN_CACHE_BYTES): one
    (T, S, S) stack of an LSTM at H = 128, T = 200 holds 105 MB (S = 2H), so a count bound
    (64 entries) could have held GBs. Shared read-only: no view edits them."""
    return ByteLRU(limits.JACOBIAN_CACHE_BYTES)


def step_jacobians(model: RNNModel, tr: Trace) -> torch.Tensor:
    """(T, H, H) J[t] = dh_t/dh_{t-1}: once per (model, sentence); every BPTT view reuses it."""
    return jacobian_store().get_or_compute(_tr_key(model, tr), lambda: jacobians.step_jacobians(model, tr))


@st.cache_data(max_entries=64, show_spinner="Computing all-pair Jacobian norms…")
def _norms(key: tuple, ord_, _model, _tr) -> torch.Tensor:
    return jacobians.product_norms(step_jacobians(_model, _tr)[key[-1]:], ord_)


def jacobian_norms(model: RNNModel, tr: Trace, ord_="fro", start: int = 0) -> torch.Tensor:
    """(T, T) ||dh_s/dh_t|| from the cached step Jacobians; start > 0: only the window of steps
    start..T-1 (jacobian_window), (T - start, T - start). The (T, S, S) Jacobians are fetched
    only on a miss (a hit copies out the (w, w) norms, not 50 MB of an LSTM's J)."""
    return _norms(_tr_key(model, tr) + (start,), ord_, model, tr)


@st.cache_data(max_entries=64, show_spinner=False)
def _flow(key: tuple, _model, _tr, _J):
    G = jacobians.loss_to_state_grads(_model, _tr, _J)  # (T, T, H)
    return G, jacobians.gradient_flow(_model, _tr, G=G)


def gradient_flow(model: RNNModel, tr: Trace):
    """(G (T, T, H) = dL_s/dh_t, F (T, T) its norms), from the cached step Jacobians."""
    return _flow(_tr_key(model, tr), model, tr, step_jacobians(model, tr))


@st.cache_data(max_entries=64, show_spinner=False)
def _model_check(key: tuple, _model):
    return gradcheck.model_gradient_check(_model, list(key[1]), list(key[2]))


def model_gradient_check(model: RNNModel, ids, targets):
    """Finite differences against autograd for the model on this sentence."""
    return _model_check(key_of(model, ids, targets), model)


@st.cache_data(max_entries=64, show_spinner=False)
def _tied(key: tuple, _model) -> dict:
    return emb.tied_gradients(_model, list(key[1]), list(key[2]))


def tied_gradients(model: RNNModel, ids, targets) -> dict:
    return _tied(key_of(model, ids, targets), model)


@st.cache_data(max_entries=64, show_spinner=False)
def _output_step(key: tuple, t: int, lr: float, _model, _tr):
    return out.output_layer_step(_model, _tr, t, lr)


def output_layer_step(model: RNNModel, tr: Trace, t: int, lr: float):
    return _output_step(_tr_key(model, tr), t, lr, model, tr)


@st.cache_data(max_entries=64, show_spinner=False)
def _gen(key: tuple, how, eos, _model):
    return _generate(_model, list(key[1]), how, eos)


def generate(model: RNNModel, prefix, how, eos):
    """Free generation from a prefix (the prefix stands in the ids slot of the key)."""
    return _gen(key_of(model, prefix), how, eos, model)


@st.cache_data(max_entries=32, show_spinner=False)
def _scores(key: tuple, _model, _data) -> dict:
    return slots.evaluate(_model, _data)


def heldout_scores(model, data) -> dict:
    """A tagger's held-out accuracy and F1 (data: the shared tagging_data())."""
    return _scores(key_of(model), model, data)


@st.cache_data(max_entries=16, show_spinner=False)
def initial_E(cfg: tuple, seed: int) -> torch.Tensor:
    """E of an untrained model with the same sizes and the training's seed: where training started."""
    return emb.f64(RNNModel(RNNConfig(**dict(cfg)), seed=seed).E)


@st.cache_data(max_entries=16, show_spinner=False)
def _drift(key: tuple, cfg: tuple, seed: int, itos: tuple, _E) -> dict:
    return emb.neighbour_drift(_E, initial_E(cfg, seed), list(itos))


def neighbour_drift(model: RNNModel, cfg: tuple, seed: int, E, itos) -> dict:
    """How far training moved E from its start (cached per model)."""
    return _drift(key_of(model), cfg, seed, tuple(itos), E)


# ---- settings-only computations (no model: the explicit arguments are the key) -------------

@st.cache_data(max_entries=4, show_spinner="Finite differences for every weight…")
def notes_check():
    params, x, y = gradcheck.notes_setting()
    return gradcheck.gradient_check(params, x[:, :4], y[:, :4]), gradcheck.input_weight_norms(params, x, y)


@st.cache_data(max_entries=32, show_spinner=False)
def clipping(scale: float, max_norm: float):
    params, x, y = gradcheck.exploding_setting(scale)
    g = gradcheck.autograd_grads(params, x, y)
    demo = gradcheck.clip_demo(g, max_norm)
    demo.pop("clipped")
    return demo, gradcheck.step_with_and_without_clipping(params, x, y, max_norm)


# ---- page 7 · Where embeddings come from (origins) ------------------------------------------

@st.cache_resource(show_spinner=False)
def subword_table():
    """The subword model's BPE merge table (read-only, shared)."""
    from rnnviz.text.bpe import BPE
    return BPE.from_dict(builtin("subword")[2]["bpe"])


@st.cache_resource(show_spinner=False)
def subword_corpus() -> tuple:
    """(training, held-out) sentences of the subword model (read-only, shared)."""
    from rnnviz.explain.origins import subword_corpus as _corpus
    train, held = _corpus()
    return tuple(train), tuple(held)


@st.cache_data(max_entries=2, show_spinner="Comparing the tokenizers on the held-out text…")
def tokenizer_comparison() -> list:
    """compare_tokenizers on the subword corpus: fitted on its training split, run on its
    held-out split, with the shipped table (no model: no argument, one entry)."""
    from rnnviz.text.bpe import compare_tokenizers
    train, held = subword_corpus()
    return compare_tokenizers(list(train), list(held), subword_table())


@st.cache_data(max_entries=8, show_spinner=False)
def w2v_builtin_pairs(code: str, radius: int, max_vocab: int):
    """The window pairs of a built-in corpus (the arguments are the key)."""
    from rnnviz.explain import origins, word2vec
    return word2vec.pair_corpus(origins.corpus_sentences(code), radius, max_vocab)


@st.cache_data(max_entries=8, show_spinner=False)
def w2v_text_pairs(sentences: tuple, radius: int, max_vocab: int):
    """The window pairs of a learner's sentences (the sentences themselves are the key)."""
    from rnnviz.explain import word2vec
    return word2vec.pair_corpus([list(s) for s in sentences], radius, max_vocab)


# ---- embedding page (page 1) -----------------------------------------------------------------

@st.cache_resource(show_spinner="Training a small tied model (a few seconds, once)…")
def tied_model():
    """(model, vocab, report) of rnnviz.tied's tied LM: shared read-only, never trained in place."""
    from rnnviz.explain.tied import train_tied_model
    return train_tied_model()


@st.cache_data(max_entries=64, show_spinner=False)
def _tied_parts(key: tuple, _model) -> dict:
    from rnnviz.explain.tied import tied_gradient_parts
    return tied_gradient_parts(_model, list(key[1]), list(key[2]))


def tied_parts(model, ids, targets) -> dict:
    """dL/dE of the tied model on one sentence: input, output and total parts."""
    return _tied_parts(key_of(model, ids, targets), model)


# ---- page 8 (gates): the input-Jacobian norms and the shipped long-range results ----------

@st.cache_data(max_entries=64, show_spinner=False)
def _input_norms(key: tuple, _model, _tr) -> torch.Tensor:
    return jacobians.input_jacobian_norms(_model, _tr, start=key[-1])


def input_jacobian_norms(model: RNNModel, tr: Trace, start: int = 0) -> torch.Tensor:
    """(T, T) ||dh_s/dx_t|| (any cell), once per (model, sentence); InputError above
    limits.MAX_JACOBIAN_T steps. start > 0: the window of steps start..T-1 only."""
    return _input_norms(_tr_key(model, tr) + (start,), model, tr)


@st.cache_resource(show_spinner=False)
def longrange_results() -> dict:
    """The shipped long-range measurements (rnnviz/pretrained/longrange.json), read-only."""
    from rnnviz.explain import longrange
    return longrange.load_results()


# ---- page 4 (BPTT and Jacobians): added by the pbptt helper ----------------------------------

@st.cache_data(max_entries=64, show_spinner=False)
def _backward_norms(key: tuple, ord_, _model, _tr) -> torch.Tensor:
    return jacobians.backward_jacobian_norms(_model, _tr, ord_, start=key[-1])


def backward_jacobian_norms(model: RNNModel, tr: Trace, ord_="fro", start: int = 0) -> torch.Tensor:
    """(T, T) ||dh<-_s/dh<-_t|| of a bidirectional model's backward direction (start > 0: the
    window of positions start..T-1, as the forward map)."""
    return _backward_norms(_tr_key(model, tr) + (start,), ord_, model, tr)


@st.cache_data(max_entries=32, show_spinner=False)
def _note002(key: tuple, _model, _tr) -> dict:
    from rnnviz.explain.notes import errata
    rec = errata.note002_recursion(_model, _tr)
    return {"recursion": {k: v for k, v in rec.items() if k.startswith("off_")},
            "eigen": errata.note002_eigen_claim(_model, _tr, start=key[-1],
                                                      N=jacobian_norms(_model, _tr, 2, key[-1]))}


def note002_errata(model: RNNModel, tr: Trace, start: int = 0) -> dict:
    """note 002's recursion read literally ("recursion": the off_* numbers) and its eigenvalue
    claim ("eigen", on the window start..T-1 of a long sentence), once per (model, sentence);
    a one-directional Elman model only."""
    return _note002(_tr_key(model, tr) + (start,), model, tr)


@st.cache_data(max_entries=2, show_spinner=False)
def note003_gradient_check() -> dict:
    """note 003's gradient-check block as printed and with the model in float64."""
    from rnnviz.explain.notes import errata
    return {"printed": errata.note003_gradient_check(False),
            "fixed": errata.note003_gradient_check(True)}


@st.cache_data(max_entries=32, show_spinner=False)
def _derivation(key: tuple, _model, _tr) -> dict:
    from rnnviz.explain.notes import notation
    return notation.beside_app(_model, _tr)


def note002_derivation(model: RNNModel, tr: Trace) -> dict:
    """notation.beside_app: note 002's boxed gradients and delta_h beside autograd."""
    return _derivation(_tr_key(model, tr), model, tr)


# ---- page 5 (slot filling): added by the pbptt helper -----------------------------------------

@st.cache_resource(show_spinner=False)
def flat_tagger():
    """Note 004's flattened FNN (the fifth tagger), shared read-only by every session."""
    return tagger_files.load_tagger((tagger_files.TAGGERS_DIR / f"{taggers.FLAT}.pt").read_bytes())[0]


@st.cache_data(max_entries=16, show_spinner=False)
def _shifted(key: tuple, _model, _data) -> dict:
    return slots.evaluate(_model, _data)


def shifted_scores(model, data) -> dict:
    """A tagger's scores on slots.shifted_heldout(...) (the shifted split is the only one)."""
    return _shifted(key_of(model) + ("shifted",), model, data)


# ---- pshell (app shell): the sidebar's help for a sentence with unknown tokens -------------

@st.cache_data(max_entries=32, show_spinner=False)
def _known(key: tuple, n: int, level: str | None, _vocab) -> list[str]:
    from rnnviz.text.corpora import known_examples as _known_examples
    return _known_examples(_vocab, n, level)


def known_examples(model: RNNModel, vocab, level: str | None, n: int = 5) -> list[str]:
    """Built-in sentences this model reads with no unknown token (cached per model)."""
    return _known(key_of(model) + (len(vocab), vocab.itos[-1] if len(vocab) else ""), n, level, vocab)


# ---- slots zh (page 5 in 中文): the Chinese taggers, data and flattened FNN ------------------

@st.cache_resource(show_spinner=False)
def zh_taggers() -> dict:
    """kind -> (tagger, vocab, meta): the four shipped Chinese taggers, shared read-only."""
    from rnnviz.store.catalog import zh_taggers as _zh_taggers
    return _zh_taggers()


@st.cache_resource(show_spinner=False)
def zh_tagging_data() -> slots.TaggingData:
    """The Chinese travel corpus (one token per character) and its held-out split."""
    from rnnviz.store.catalog import zh_tagging_data as _zh_data
    return _zh_data()


@st.cache_resource(show_spinner=False)
def zh_flat_tagger():
    """The Chinese flattened FNN (note 004's fifth tagger), shared read-only."""
    from rnnviz.store.catalog import zh_flat_tagger as _zh_flat
    return _zh_flat()[0]


# ---- issue 17 (c17): the all-pairs Jacobian views of a long sentence on a window ----------------

def jacobian_window(model: RNNModel, tr: Trace, k: int | None = None):
    """The steps the all-pairs views cover (rnnviz.engine.jacwindow.Window): all of them within
    limits.MAX_JACOBIAN_WORK, else the last ones. k = d for the input Jacobians dh_s/dx_t."""
    from rnnviz.engine import jacwindow
    return jacwindow.jacobian_window(tr.T, jacwindow.state_size(model.cfg), k=k)


@st.cache_data(max_entries=64, show_spinner=False)
def _last_row(key: tuple, _model, _tr) -> torch.Tensor:
    return jacobians.last_state_input_norms(_model, _tr)


def last_state_input_norms(model: RNNModel, tr: Trace) -> torch.Tensor:
    """(T,) ||dh_T/dx_t|| for every t: exact at any length (the first word's reach)."""
    return _last_row(_tr_key(model, tr), model, tr)


@st.cache_data(max_entries=64, show_spinner=False)
def _sources(key: tuple, t: int, _model, _tr) -> dict:
    G, _ = gradient_flow(_model, _tr)  # (T, T, S), copied out once here, not on every rerun
    src = jacobians.state_grad_sources(G, _tr, t)
    src["none_norm"] = float(G[0, 1].norm()) if _tr.T > 1 else 0.0  # dL_1/dh_2 (no path back)
    return src


def grad_sources(model: RNNModel, tr: Trace, t: int) -> dict:
    """jacobians.state_grad_sources at step t (0-based), and "none_norm" = ||dL_1/dh_2|| (0)."""
    return _sources(_tr_key(model, tr), t, model, tr)


@st.cache_data(max_entries=64, show_spinner=False)
def _chain(key: tuple, s: int, t: int, _model, _tr) -> dict:
    return jacobians.product_chain(step_jacobians(_model, _tr), s, t)


def product_chain(model: RNNModel, tr: Trace, s: int, t: int) -> dict:
    """The chain behind cell (s, t), exact at any distance; once per (model, sentence, s, t)."""
    return _chain(_tr_key(model, tr), s, t, model, tr)


@st.cache_data(max_entries=64, show_spinner=False)
def _distance(key: tuple, _model, _tr) -> dict:
    from rnnviz.explain import bptt as chains
    from rnnviz.explain.notes.errata import step_radii
    start = key[-1]
    J = step_jacobians(_model, _tr)[start:]  # (w, S, S): the window's steps
    W = _model.W_h if _model.cfg.cell == "elman" else None
    dist = chains.norm_vs_distance(jacobian_norms(_model, _tr, 2, start), J, W)
    dist["rho_j"] = float(step_radii(J).mean())
    return dist


def distance_data(model: RNNModel, tr: Trace, start: int = 0) -> dict:
    """chains.norm_vs_distance on the window start..T-1 and "rho_j", the mean spectral radius
    of its step Jacobians: once per (model, sentence, window), not on every rerun."""
    return _distance(_tr_key(model, tr) + (start,), model, tr)


@st.cache_data(max_entries=32, show_spinner=False)
def _shared(key: tuple, _model, _tr) -> dict:
    return jacobians.shared_weight_summary(_model, _tr)


def shared_summary(model: RNNModel, tr: Trace) -> dict:
    """jacobians.shared_weight_summary once per (model, sentence): the shared-weight sums' table."""
    return _shared(_tr_key(model, tr), model, tr)


# ---- figures ----------------------------------------------------------------------------------
# Plotly validates every property a builder sets (0.05-1 s a figure on this machine). A pure
# builder's output is kept as a plain dict per (builder, arguments) and handed back as a
# go.Figure made without validation (the dict came from a validated figure): a step move that
# redraws a figure whose inputs did not change, or came back to a step, pays no validation.

@st.cache_data(max_entries=limits.FIGURE_CACHE_ENTRIES, show_spinner=False)
def _figure(name: str, digest: str, _build, _args: tuple, _kw: dict) -> dict:
    return _build(*_args, **_kw).to_plotly_json()


def _feed(h, x) -> None:
    """Every value an argument holds into the hash h (arrays by dtype, shape and bytes)."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        h.update(f"nd{x.dtype}{x.shape}".encode())
        h.update(repr(x.tolist()).encode() if x.dtype == object else np.ascontiguousarray(x).tobytes())
    elif isinstance(x, dict):
        h.update(b"{")
        for k in sorted(x, key=repr):
            _feed(h, k)
            _feed(h, x[k])
        h.update(b"}")
    elif isinstance(x, (list, tuple, set, frozenset, range)):
        h.update(f"{type(x).__name__}[".encode())
        for v in (sorted(x, key=repr) if isinstance(x, (set, frozenset)) else x):
            _feed(h, v)
        h.update(b"]")
    else:
        h.update(repr((type(x).__name__, x)).encode())


def figure(build, *args, **kw) -> go.Figure:
    """build(*args, **kw) (a pure figure builder of rnnviz.figures), built once per input: keyed
    by the builder's name and every value of its arguments. The caller gets its own copy."""
    h = hashlib.blake2b(digest_size=20)
    _feed(h, (args, kw))
    name = f"{build.__module__}.{build.__qualname__}"
    return go.Figure(_figure(name, h.hexdigest(), build, args, kw), _validate=False)


@st.cache_data(max_entries=256, show_spinner=False)
def _nearest(digest: str, i: int, k: int, _E) -> list:
    return emb.nearest(_E, i, k)


def nearest(E, i: int, k: int = 5) -> list[tuple[int, float]]:
    """rnnviz.explain.embedding.nearest once per (matrix values, row, k): it builds the V x V
    cosine matrix (V = 1,155 on the start model)."""
    h = hashlib.blake2b(digest_size=20)
    _feed(h, E)
    return _nearest(h.hexdigest(), int(i), int(k), E)


@st.cache_data(max_entries=256, show_spinner=False)
def _kept(digest: str, i: int, k: int, _E, _E0) -> int:
    return emb.kept_neighbours(_E, _E0, i, k)


def kept_neighbours(E, E0, i: int, k: int = 5) -> int:
    """rnnviz.explain.embedding.kept_neighbours once per (both matrices' values, row, k)."""
    h = hashlib.blake2b(digest_size=20)
    _feed(h, (E, E0))
    return _kept(h.hexdigest(), int(i), int(k), E, E0)
